//! End-to-end tests of `tester compare` and `tester runs` on run folders built here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common;
use common::ok_text;

fn tester(cwd: &Path) -> Command {
    let mut c = common::tester();
    // A folder without testcases/bests.json: no bests file unless a test passes one.
    c.current_dir(cwd);
    c
}

/// A fresh scratch folder for this test file.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("compare-{name}"))
}

/// A `results.json` entry: `score` None for a timeout.
fn result(seed: u64, n: u64, c: u64, score: Option<f64>) -> Value {
    json!({"seed": seed, "N": n, "C": c, "P": 0.1,
        "status": if score.is_some() { "ok" } else { "timeout" },
        "score": score.unwrap_or(-1.0), "errors": 0, "moves": 1, "penalty": 1.0,
        "wall_ms": 5, "message": if score.is_some() { Value::Null } else { json!("killed") }})
}

/// Writes a run folder with `extra` keys merged into its `results.json`.
fn run_folder(dir: &Path, limit: f64, results: Vec<Value>, extra: Value) {
    fs::create_dir_all(dir).unwrap();
    let mut doc = json!({"command": "solver", "time_limit": limit, "date": "2026-11-23",
        "ranges": {"n": null, "c": null, "p": null}, "results": results});
    for (k, v) in extra.as_object().unwrap() {
        doc[k] = v.clone();
    }
    fs::write(dir.join("results.json"), doc.to_string()).unwrap();
}

/// Runs A and B of the hand-computed example (see `example_by_hand`).
fn example(root: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (root.join("a"), root.join("b"));
    let a_scores = [100.0, 200.0, 50.0, 80.0, 30.0, 60.0, 1000.0, 70.0];
    let b_scores = [
        Some(90.0),
        Some(180.0),
        Some(55.0),
        Some(40.0),
        Some(30.0),
        None,
        Some(800.0),
    ];
    let nc = |seed: u64| (8 + 3 * seed, 1 + seed % 3);
    let ra = (1..=8)
        .map(|s| result(s, nc(s).0, nc(s).1, Some(a_scores[s as usize - 1])))
        .collect();
    let rb = (1..=7)
        .map(|s| result(s, nc(s).0, nc(s).1, b_scores[s as usize - 1]))
        .collect();
    run_folder(&a, 1.0, ra, json!({}));
    run_folder(&b, 2.0, rb, json!({"comment": "longer"}));
    (a, b)
}

#[test]
fn example_by_hand() {
    // Seed:   1    2    3    4    5    6        7     8
    // A:    100  200   50   80   30   60     1000    70
    // B:     90  180   55   40   30   timeout  800   (missing)
    // B/A:  0.9  0.9  1.1  0.5    1   -       0.8    -
    // Paired: seeds 1-5 and 7 (6: B timeout, 8: missing in B). Wins (B lower) 1, 2, 4, 7 = 4;
    // losses 3 = 1; ties 5 = 1. The ratio of the scores, their geometric mean, is
    // exp((2 ln 0.9 + ln 1.1 + ln 0.5 + ln 1 + ln 0.8)/6) = exp(-0.171950) = 0.842021; the sd of
    // the logs 0.277175, t = -0.171950 / (0.277175/√6) = -1.519582, p (5 df) = 0.18909.
    // Wilcoxon on ln(B/A), zero dropped (n = 5): |d| ascending 0.0953 (+, seed 3) rank 1,
    // 0.1054 (−, 1) and 0.1054 (−, 2) ranks 2 and 3 -> 2.5 each, 0.2231 (−, 7) rank 4,
    // 0.6931 (−, 4) rank 5. W+ = 1, W− = 14. Mean 5·6/4 = 7.5; var 5·6·11/24 − (2³−2)/48 =
    // 13.625; z = (1 − 7.5 + 0.5)/√13.625 = −1.62549; p = erfc(1.62549/√2) = 0.104059.
    // Relative over the 7 seeds both have (best of the two runs): A = (90+90+100+50+100+100
    // +80)/7 = 87.142857; B = (100+100+90.909+100+100+0+100)/7 = 84.415584.
    let root = scratch("hand");
    let (a, b) = example(&root);
    let out = tester(&root)
        .args(["compare", "a", "b", "--json"])
        .output()
        .unwrap();
    let js: Value = serde_json::from_str(&ok_text(&out)).unwrap();
    let pair = &js["pairs"][0];
    assert_eq!(
        (
            &pair["wins"],
            &pair["losses"],
            &pair["ties"],
            &pair["paired"]
        ),
        (&json!(4), &json!(1), &json!(1), &json!(6)),
        "{pair}"
    );
    assert!(
        (pair["ratio"].as_f64().unwrap() - 0.842_021).abs() < 1e-6,
        "{pair}"
    );
    assert!(
        (pair["ratio_t_test_p"].as_f64().unwrap() - 0.189_09).abs() < 1e-4,
        "{pair}"
    );
    let w = &pair["wilcoxon"];
    assert_eq!((&w["n"], &w["zeros"]), (&json!(5), &json!(1)));
    assert_eq!((&w["w_plus"], &w["w_minus"]), (&json!(1.0), &json!(14.0)));
    assert!((w["z"].as_f64().unwrap() + 1.625_485).abs() < 1e-5, "{w}");
    assert!((w["p"].as_f64().unwrap() - 0.104_059).abs() < 1e-5, "{w}");
    assert_eq!(pair["verdict"], "no significant difference");
    assert_eq!(
        pair["excluded"],
        json!([{"seed": 6, "why": "B timeout"}, {"seed": 8, "why": "missing in B"}])
    );
    let rel = &js["relative"]["best_of_runs"];
    assert!(
        (rel[0].as_f64().unwrap() - 87.142_857).abs() < 1e-5,
        "{rel}"
    );
    assert!(
        (rel[1].as_f64().unwrap() - 84.415_584).abs() < 1e-5,
        "{rel}"
    );
    assert_eq!(js["relative"]["with_bests_file"], Value::Null);
    assert_eq!(js["common_seeds"], 7);
    assert_eq!(js["runs"][1]["comment"], "longer");

    // The text table: one row per seed, the best of the runs marked.
    let text = ok_text(&tester(&root).args(["compare", "a", "b"]).output().unwrap());
    let row = |seed: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(seed))
            .unwrap_or_else(|| panic!("no row {seed}:\n{text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("1")[3..], ["100.000", "90.000*", "0.9000"], "{text}");
    assert_eq!(row("5")[3..], ["30.000*", "30.000*", "1.0000"], "{text}");
    assert_eq!(row("6")[3..], ["60.000*", "timeout", "-"], "{text}");
    assert_eq!(row("8")[3..], ["70.000*", "-", "-"], "{text}");
    assert!(
        text.contains("B vs A: B better on 4, worse on 1, equal on 1 of 6 paired seeds"),
        "{text}"
    );
    assert!(text.contains("p = 0.1041"), "{text}");
    // The t interval of the ratio goes with its t-test (t(0.975, 5) = 2.570582: half width
    // 2.570582 · 0.113156 = 0.290879); the Wilcoxon's own interval holds 1, as its p says.
    assert!(
        text.contains(
            "B/A 0.8420, 95% interval 0.6295 to 1.1263 (Student's t on ln(B/A): p = 0.1891)"
        ),
        "{text}"
    );
    assert!(text.contains("its B/A 0.9000 (Hodges-Lehmann"), "{text}");
    assert!(
        text.contains("excluded seeds: 6 (B timeout), 8 (missing in B)"),
        "{text}"
    );
    assert!(
        text.contains("B = b: `solver`, limit 2 s, 2026-11-23 — longer"),
        "{text}"
    );
    assert!(text.contains("C=1") && text.contains("N=13-18"), "{text}");
    drop((a, b));
}

#[test]
fn bests_file_is_named_and_used() {
    // With a bests file (seed 4: 20, seed 1: 95), relative over the runs and the file:
    // A = (90+90+100+25+100+100+80)/7 = 83.571429, B = (100+100+90.909+50+100+0+100)/7 =
    // 77.272727; B's 90 on seed 1 beats the file's 95 (marked +).
    let root = scratch("bests");
    example(&root);
    let bests = root.join("bests.json");
    fs::write(
        &bests,
        r#"{"bests": [{"seed": 4, "score": 20, "source": "t"}, {"seed": 1, "score": 95, "source": "t"}]}"#,
    )
    .unwrap();
    let args = ["compare", "a", "b", "--bests", "bests.json"];
    let js: Value = serde_json::from_str(&ok_text(
        &tester(&root).args(args).arg("--json").output().unwrap(),
    ))
    .unwrap();
    let rel = &js["relative"]["with_bests_file"];
    assert!(
        (rel[0].as_f64().unwrap() - 83.571_429).abs() < 1e-5,
        "{rel}"
    );
    assert!(
        (rel[1].as_f64().unwrap() - 77.272_727).abs() < 1e-5,
        "{rel}"
    );
    let text = ok_text(&tester(&root).args(args).output().unwrap());
    assert!(text.contains("90.000*+"), "{text}");
    assert!(text.contains("best = also bests.json"), "{text}");
    assert!(text.contains("+ = better than bests.json"), "{text}");
}

#[test]
fn html_page_is_self_contained_with_every_plot() {
    let root = scratch("html");
    example(&root);
    let out = tester(&root)
        .args(["compare", "a", "b", "--html", "report.html"])
        .output()
        .unwrap();
    let text = ok_text(&out);
    assert!(text.contains("page: report.html"), "{text}");
    let page = fs::read_to_string(root.join("report.html")).unwrap();
    // The scatter, the ratio against N, C and P, and (the limits differ: 1 s, 2 s) the
    // relative score against the time limit.
    assert_eq!(page.matches("<svg").count(), 5, "plots");
    for title in [
        "score per seed: B against A",
        "score ratio against N",
        "score ratio against C",
        "score ratio against P",
        "relative score against the time limit",
    ] {
        assert!(page.contains(title), "{title}");
    }
    assert!(page.contains("<table id=\"seeds\">"));
    assert!(!page.contains("http://") && !page.contains("https://"));
    assert!(!page.contains("<script") && !page.contains("<link"));
    // Same limits: no time-limit plot.
    let same = scratch("html-same");
    example(&same);
    let doc = same.join("b/results.json");
    let text = fs::read_to_string(&doc)
        .unwrap()
        .replace("\"time_limit\":2.0", "\"time_limit\":1.0");
    fs::write(&doc, text).unwrap();
    ok_text(
        &tester(&same)
            .args(["compare", "a", "b", "--html", "r.html"])
            .output()
            .unwrap(),
    );
    let page = fs::read_to_string(same.join("r.html")).unwrap();
    assert_eq!(page.matches("<svg").count(), 4);
}

#[test]
fn clear_errors() {
    let root = scratch("errors");
    example(&root);
    fs::create_dir_all(root.join("empty")).unwrap();
    let out = tester(&root)
        .args(["compare", "a", "empty"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty is not a run folder"));
    let out = tester(&root).args(["compare", "a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "one folder is not a comparison");
    // Seed 1 with another N in B: a different case.
    let doc = root.join("b/results.json");
    let text = fs::read_to_string(&doc)
        .unwrap()
        .replacen("\"N\":11", "\"N\":12", 1);
    fs::write(&doc, text).unwrap();
    let out = tester(&root).args(["compare", "a", "b"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("seed 1 is a different case"), "{err}");
}

#[test]
fn compare_real_runs_of_a_fixture_solver() {
    // Two `tester run`s of the same do-nothing solver: every seed ties, nothing to test.
    let root = scratch("real");
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    for dir in ["r1", "r2"] {
        let out = tester(&root)
            .args(["run", "--seeds", "1-3", "--quiet", "--out", dir, "--exec"])
            .arg(format!("sh '{}'", solver.display()))
            .output()
            .unwrap();
        ok_text(&out);
    }
    let text = ok_text(
        &tester(&root)
            .args(["compare", "r1", "r2"])
            .output()
            .unwrap(),
    );
    assert!(text.contains("equal on 3 of 3 paired seeds"), "{text}");
    assert!(text.contains("no seed differs"), "{text}");
    let listed = ok_text(&tester(&root).args(["history", "."]).output().unwrap());
    // Same day: the later `results.json` first.
    let names: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|n| n.starts_with('r'))
        .collect();
    assert_eq!(names, ["r2", "r1"], "{listed}");
}

#[test]
fn runs_lists_newest_first() {
    let root = scratch("runs");
    let runs = root.join("runs");
    let one = |seed| vec![result(seed, 8, 1, Some(10.0))];
    // An old folder that only knows its day, and two that know when they started.
    run_folder(
        &runs.join("old"),
        1.0,
        one(1),
        json!({"date": "2026-11-20"}),
    );
    run_folder(
        &runs.join("new"),
        2.0,
        one(1),
        json!({"started": "2026-11-23T08:00:00Z", "comment": "the newest"}),
    );
    run_folder(
        &runs.join("mid"),
        1.0,
        vec![result(1, 8, 1, Some(20.0)), result(2, 8, 1, None)],
        json!({"started": "2026-11-22T08:00:00Z", "interrupted": true}),
    );
    fs::create_dir_all(runs.join("not-a-run")).unwrap();
    let text = ok_text(&tester(&root).arg("runs").output().unwrap());
    let names: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(names[..3], ["new", "mid", "old"], "{text}");
    let mid = text.lines().find(|l| l.contains(" mid ")).unwrap();
    assert!(
        mid.contains("[unfinished") && mid.contains("20.000"),
        "{mid}"
    );
    assert!(text.contains("the newest"), "{text}");
    let js: Value = serde_json::from_str(&ok_text(
        &tester(&root).args(["runs", "--json"]).output().unwrap(),
    ))
    .unwrap();
    assert_eq!(js[1]["seeds"], 2);
    assert_eq!(js[1]["ok"], 1);
    let out = tester(&root).args(["runs", "nowhere"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// An answer to `input` of `pairs` wasted moves: the first queen with an empty cell to its
/// right steps there and back, `pairs` times (each step adds 1 to the score).
fn wasted_moves(input: &str, pairs: usize) -> String {
    let numbers: Vec<i64> = input
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let n = numbers[0] as usize;
    let cells = &numbers[2..];
    let i = (0..n * n)
        .find(|&i| cells[i] > 0 && i % n < n - 1 && cells[i + 1] == 0)
        .expect("a queen that can step right");
    let (r, c) = (i / n, i % n);
    let mut out = format!("{}\n", 2 * pairs);
    for _ in 0..pairs {
        out.push_str(&format!("{r} {c} {r} {}\n{r} {} {r} {c}\n", c + 1, c + 1));
    }
    out
}

/// Run folders `a` and `b` of seeds 1-3 as `tester run` writes them (`SEED.in`, `SEED.out`,
/// `results.json`): A answers with no move; B with seed 1's best known answer (better), 100
/// wasted pairs of moves on seed 2 (worse by 200 of 8430) and 2 on seed 3 (worse by 4 of
/// 1026). The scores written in `results.json` are not these (`tester compare` judges the
/// answers again): A 100 everywhere; B 90, 150 and 110.
fn folders_with_answers(root: &Path) {
    let best = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases/best/1.out");
    for (dir, scores) in [("a", [100.0, 100.0, 100.0]), ("b", [90.0, 150.0, 110.0])] {
        let mut results = Vec::new();
        for seed in 1..=3u64 {
            let input = common::tester()
                .args(["gen", "--seed", &seed.to_string()])
                .output()
                .unwrap();
            let input = String::from_utf8(input.stdout).unwrap();
            let mut numbers = input.split_whitespace();
            let n: u64 = numbers.next().unwrap().parse().unwrap();
            let c: u64 = numbers.next().unwrap().parse().unwrap();
            let answer = match (dir, seed) {
                ("a", _) => "0\n".to_string(),
                (_, 1) => fs::read_to_string(&best).unwrap(),
                (_, 2) => wasted_moves(&input, 100),
                _ => wasted_moves(&input, 2),
            };
            fs::create_dir_all(root.join(dir)).unwrap();
            fs::write(root.join(dir).join(format!("{seed}.in")), &input).unwrap();
            fs::write(root.join(dir).join(format!("{seed}.out")), answer).unwrap();
            results.push(result(seed, n, c, Some(scores[seed as usize - 1])));
        }
        run_folder(&root.join(dir), 1.0, results, json!({}));
    }
}

#[test]
fn vis_pages_for_the_worst_seeds_linked_from_the_report() {
    let root = scratch("vis");
    folders_with_answers(&root);
    let out = tester(&root)
        .args([
            "compare",
            "a",
            "b",
            "--html",
            "report.html",
            "--vis",
            "--vis-seeds",
            "2",
        ])
        .output()
        .unwrap();
    let text = ok_text(&out);
    assert!(
        text.contains("side-by-side pages: 2 in report-vis"),
        "{text}"
    );
    // The two worst ratios B/A: seed 2 (1.024) and seed 3 (1.004); seed 1 (better) has none.
    let pages = root.join("report-vis");
    assert!(pages.join("seed-2.html").is_file() && pages.join("seed-3.html").is_file());
    assert!(!pages.join("seed-1.html").exists());
    let report = fs::read_to_string(root.join("report.html")).unwrap();
    assert!(
        report.contains("<a href=\"report-vis/seed-2.html\""),
        "link of seed 2"
    );
    assert!(!report.contains("report-vis/seed-1.html"));
    // Both tables list the worst seed first: 2, 3, then 1.
    let row = |seed: u64| format!("<tr><td class=\"seed\"><a href=\"report-vis/seed-{seed}.html\"");
    let at = |s: &str| report.find(s).unwrap_or_else(|| panic!("{s}"));
    assert!(at(&row(2)) < at(&row(3)));
    assert!(at(&row(3)) < at("<tr><td class=\"seed\">1</td>"));
    let first_column: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("seed"))
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(first_column, ["2", "3", "1"], "{text}");
    // The verdict and the seed table come before the plots.
    assert!(at("id=\"verdict\"") < at("<table id=\"seeds\">"));
    assert!(at("<table id=\"seeds\">") < at("<figure class=\"plot\""));
    // The page of seed 2 carries both folders' answers to seed 2's case.
    let html = fs::read_to_string(pages.join("seed-2.html")).unwrap();
    let open = r#"<script type="application/json" id="qa-data">"#;
    let start = html.find(open).unwrap() + open.len();
    let data: Value =
        serde_json::from_str(&html[start..start + html[start..].find("</script>").unwrap()])
            .unwrap();
    assert_eq!(data["seed"], 2);
    assert_eq!(
        data["input"],
        fs::read_to_string(root.join("a/2.in")).unwrap()
    );
    assert!(data["answers"][1]["name"]
        .as_str()
        .unwrap()
        .contains("b/2.out"));
    // --vis needs --html.
    let out = tester(&root)
        .args(["compare", "a", "b", "--vis"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_ab_folder_alone_compares_its_arms() {
    let root = scratch("ab-folder");
    folders_with_answers(&root);
    let ab = root.join("ab");
    fs::create_dir_all(&ab).unwrap();
    fs::rename(root.join("a"), ab.join("base")).unwrap();
    fs::rename(root.join("b"), ab.join("new")).unwrap();
    fs::write(ab.join("ab.json"), "{}").unwrap();
    let text = ok_text(
        &tester(&root)
            .args(["compare", "ab", "--html", "r.html", "--vis"])
            .output()
            .unwrap(),
    );
    assert!(text.contains("B vs A: B better on 1, worse on 2"), "{text}");
    assert!(text.contains("side-by-side pages: 3"), "{text}");
    assert!(root.join("r-vis/seed-1.html").is_file());
}
