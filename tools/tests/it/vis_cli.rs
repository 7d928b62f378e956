//! `tester vis` and `tester run --vis`: the pages they write carry the case, the output and the
//! judge's verdict. (The pages themselves are exercised in a browser by visualizer/e2e.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn tester() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tester"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vis-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The data object embedded in a page.
fn page_data(page: &Path) -> Value {
    let html = fs::read_to_string(page).unwrap();
    let open = r#"<script type="application/json" id="qa-data">"#;
    let start = html.find(open).expect("data element") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

fn gen(seed: u64) -> String {
    let out = tester()
        .args(["gen", "--seed", &seed.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn vis_seed_embeds_case_output_and_verdict() {
    let dir = scratch("seed");
    // Seed 1 (N = 8): (0,1) holds a queen and (1,0) is empty, as in the official legal outputs.
    let output = "1\n0 1 1 0\n";
    fs::write(dir.join("1.out"), output).unwrap();
    let page = dir.join("1.html");
    let out = tester()
        .args(["vis", "--seed", "1", "1.out", "-o", "1.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = page_data(&page);
    assert_eq!(data["input"], gen(1).as_str());
    assert_eq!(data["output"], output);
    assert_eq!(data["seed"], 1);
    assert!(data["p"].as_f64().unwrap() > 0.0);
    let score = tester()
        .args(["score", "--seed", "1", "1.out", "--json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let judged: Value = serde_json::from_slice(&score.stdout).unwrap();
    assert_eq!(data["verdict"]["score"], judged["score"]);
    assert_eq!(data["verdict"]["error"], Value::Null);
}

#[test]
fn vis_input_file_and_invalid_output() {
    let dir = scratch("input");
    fs::write(dir.join("case.in"), gen(3)).unwrap();
    fs::write(dir.join("bad.out"), "2\n0 0 0 0\n").unwrap();
    let out = tester()
        .args(["vis", "--input", "case.in", "bad.out", "-o", "bad.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    // The page is written, and the exit code says the answer is invalid, as `score`'s does.
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid output: Cannot parse"));
    let data = page_data(&dir.join("bad.html"));
    assert!(data.get("seed").is_none() && data.get("p").is_none());
    assert_eq!(data["verdict"]["error"], "Cannot parse your output");
    assert_eq!(data["verdict"]["score"], -1.0);
}

#[test]
fn vis_reports_bad_paths_without_panicking() {
    let dir = scratch("errors");
    fs::write(dir.join("0.out"), "0\n").unwrap();
    for (args, needle) in [
        (
            vec!["--seed", "1", "missing.out", "-o", "x.html"],
            "cannot read",
        ),
        (
            vec!["--input", "missing.in", "0.out", "-o", "x.html"],
            "cannot read",
        ),
        (
            vec!["--seed", "1", "0.out", "-o", "no/such/dir/x.html"],
            "cannot write",
        ),
    ] {
        let out = tester()
            .arg("vis")
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
    }
    let out = tester()
        .args(["vis", "0.out", "-o", "x.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a case (--seed or --input) is required"
    );
}

#[test]
fn run_vis_writes_a_page_per_seed() {
    let dir = scratch("run");
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    let out = tester()
        .args(["run", "--seeds", "1-3", "--quiet", "--vis", "--out"])
        .arg(&dir)
        .arg("--exec")
        .arg(format!("sh '{}'", solver.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for seed in 1..=3u64 {
        let data = page_data(&dir.join(format!("{seed}.html")));
        assert_eq!(data["seed"], seed);
        assert_eq!(data["input"], gen(seed).as_str());
        assert_eq!(data["output"], "0\n");
        assert_eq!(data["verdict"]["error"], Value::Null);
    }
}

/// A legal first move on the case of `seed`: the first queen (row-major) with an empty cell to
/// its right or below.
fn legal_move(seed: u64) -> String {
    let cells: Vec<i32> = gen(seed)
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let n = cells[0] as usize;
    let at = |r: usize, c: usize| cells[2 + r * n + c];
    for r in 0..n {
        for c in 0..n {
            if at(r, c) > 0 {
                if c + 1 < n && at(r, c + 1) == 0 {
                    return format!("{r} {c} {r} {}", c + 1);
                }
                if r + 1 < n && at(r + 1, c) == 0 {
                    return format!("{r} {c} {} {c}", r + 1);
                }
            }
        }
    }
    panic!("no simple move on seed {seed}")
}

/// Fault 6 of issue 25: an output over 16 MiB got a page saying `(no output loaded)` and a
/// final score of the start position, not the judge's verdict.
#[test]
fn fault6_a_huge_output_keeps_the_judges_verdict_on_the_page() {
    let dir = scratch("fault6");
    let out = dir.join("big.out");
    let junk = "ignored line\n".repeat(20_000_000 / 13);
    fs::write(&out, format!("1\n{}\n{junk}", legal_move(1))).unwrap();
    let score = tester()
        .args(["score", "--json", "--seed", "1"])
        .arg(&out)
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&score.stdout).unwrap();
    assert!(verdict["score"].as_f64().unwrap() > 0.0, "{verdict}");
    let page = dir.join("big.html");
    let vis = tester()
        .args(["vis", "--seed", "1"])
        .arg(&out)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert!(vis.status.success());
    let data = page_data(&page);
    assert_eq!(data["verdict"]["score"], verdict["score"]);
    assert_eq!(data["output"], format!("1\n{}\n", legal_move(1)));
    assert_eq!(
        data["output_cut"]["bytes"],
        fs::metadata(&out).unwrap().len()
    );
}

/// Fault 6, the other half (a test of its own, so that the two run side by side: together
/// they took 10.5 s on a loaded machine, issue 49): counted lines beyond what a page carries
/// (N = 128: up to 4 194 304 moves): no moves inlined, the verdict still the judge's.
#[test]
#[ignore = "slow: 11.1 s of CPU alone, quiet (2026-11-28); CI runs it (cargo test --workspace -- --include-ignored)"]
fn fault6_a_count_beyond_what_a_page_carries_keeps_the_judges_verdict() {
    let dir = scratch("fault6-count");
    let page = dir.join("huge.html");
    let huge = dir.join("huge.out");
    fs::write(&huge, format!("4194304\n{}", "0 0 0 0\n".repeat(4_194_304))).unwrap();
    // N = 128, one colour: a queen at the start of every row.
    let cells: Vec<&str> = (0..128 * 128)
        .map(|i| if i % 128 == 0 { "1" } else { "0" })
        .collect();
    let input = dir.join("128.in");
    fs::write(&input, format!("128\n1\n{}\n", cells.join("\n"))).unwrap();
    let vis = tester()
        .arg("vis")
        .arg("--input")
        .arg(&input)
        .arg(&huge)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    // The answer is invalid (a move that goes nowhere): the page is written and the exit
    // code is score's, 1 (issue 69 item 11).
    assert_eq!(
        vis.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&vis.stderr)
    );
    let data = page_data(&page);
    assert!(data.get("output").is_none());
    assert_eq!(data["output_cut"]["kept"], 0);
    assert_eq!(
        data["verdict"]["error"],
        "Start and end locations cannot be the same: 0 0 0 0"
    );
}

/// The answers a pair page carries (`answers`: name, output, verdict).
fn pair_answers(page: &Path) -> Vec<Value> {
    page_data(page)["answers"].as_array().unwrap().clone()
}

#[test]
fn vis_with_two_outputs_writes_one_page_of_both() {
    let dir = scratch("pair");
    // Seed 1 (N = 8): A moves (0,1) to (1,0); B does nothing.
    fs::write(dir.join("a.out"), "1\n0 1 1 0\n").unwrap();
    fs::write(dir.join("b.out"), "0\n").unwrap();
    let out = tester()
        .args(["vis", "--seed", "1", "a.out", "b.out", "-o", "p.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let data = page_data(&dir.join("p.html"));
    assert_eq!(data["input"], gen(1).as_str());
    assert_eq!(data["seed"], 1);
    let answers = pair_answers(&dir.join("p.html"));
    assert_eq!(answers.len(), 2);
    for (answer, file, label) in [(&answers[0], "a.out", "A"), (&answers[1], "b.out", "B")] {
        let judged: Value = serde_json::from_slice(
            &tester()
                .args(["score", "--seed", "1", file, "--json"])
                .current_dir(&dir)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert_eq!(answer["name"], file);
        assert_eq!(
            answer["output"],
            fs::read_to_string(dir.join(file)).unwrap()
        );
        assert_eq!(answer["verdict"]["score"], judged["score"]);
        let score = judged["score"].as_f64().unwrap();
        let said = format!("{label}: {} moves, score {score}", judged["moves"]);
        assert!(err.contains(&said), "{err} lacks {said}");
    }
    let html = fs::read_to_string(dir.join("p.html")).unwrap();
    assert!(html.contains("id=\"board-B\"") && html.contains("window.qaPair"));
}

#[test]
fn vis_with_a_rejected_empty_or_foreign_answer_says_so() {
    let dir = scratch("pair-bad");
    fs::write(dir.join("a.out"), "0\n").unwrap();
    fs::write(dir.join("empty.out"), "").unwrap();
    fs::write(dir.join("bad.out"), "1\n0 0 0 0\n").unwrap();
    for (file, message) in [
        ("empty.out", "Cannot parse your output"),
        ("bad.out", "Start and end locations cannot be the same"),
    ] {
        let out = tester()
            .args(["vis", "--seed", "1", "a.out", file, "-o", "p.html"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("B: invalid output (rejected): {message}")),
            "{err}"
        );
        let answers = pair_answers(&dir.join("p.html"));
        assert_eq!(answers[1]["verdict"]["score"], -1.0);
        assert!(answers[1]["verdict"]["error"]
            .as_str()
            .unwrap()
            .starts_with(message));
    }
    // An output of a run folder, beside the input it answered: seed 3's, not seed 1's.
    fs::create_dir_all(dir.join("run")).unwrap();
    fs::write(dir.join("run/3.in"), gen(3)).unwrap();
    fs::write(dir.join("run/3.out"), "0\n").unwrap();
    let out = tester()
        .args(["vis", "--seed", "1", "a.out", "run/3.out", "-o", "x.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("run/3.out answers another input"), "{err}");
    assert!(!dir.join("x.html").exists());
    // Its own case is fine.
    let out = tester()
        .args([
            "vis",
            "--seed",
            "3",
            "run/3.out",
            "run/3.out",
            "-o",
            "y.html",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Two outputs make a page, not a GIF.
    for args in [
        vec!["--seed", "1", "a.out", "empty.out"],
        vec!["--seed", "1", "a.out", "empty.out", "--gif", "x.gif"],
    ] {
        let out = tester()
            .arg("vis")
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn vis_of_another_seeds_answer_exits_like_score() {
    // Issue 69 item 11: `tester vis --seed 3 2.out` wrote the page and exited 0 where `tester
    // score` exits 1.
    let dir = scratch("wrong-seed");
    let best = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases/best/2.out");
    fs::copy(best, dir.join("2.out")).unwrap();
    for (seed, code) in [("3", 1), ("2", 0)] {
        let run = |args: &[&str]| {
            tester()
                .args(args)
                .args(["--seed", seed, "2.out"])
                .current_dir(&dir)
                .output()
                .unwrap()
        };
        let score = run(&["score"]);
        let vis = run(&["vis", "-o", "2.html"]);
        let gif = run(&["vis", "--gif", "2.gif", "--gif-frames", "2"]);
        for out in [&score, &vis, &gif] {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "seed {seed}: {err}");
        }
        // The page is still written: it shows where the answer fails.
        assert!(dir.join("2.html").is_file() && dir.join("2.gif").is_file());
        fs::remove_file(dir.join("2.html")).unwrap();
    }
}
