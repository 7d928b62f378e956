//! Issue 65 items 4 and 10, issue 64 item 3: what `tester compare` shows can be trusted: the
//! answers kept in a run folder are judged again (an edited score in `results.json` is not
//! shown), the runs starved of CPU are named per run, and a `tester ab` folder shows the same
//! B/A as `tester ab` printed.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{echo_run, ok_text, scratch, tester};

/// `path` read as JSON.
fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn an_edited_score_is_judged_again() {
    let dir = scratch("compare-trust-edited");
    let (a, b) = (echo_run(&dir, "a"), echo_run(&dir, "b"));
    // Seed 1's answer ("0") judges 128; results.json is made to say 1.0.
    let path = a.join("results.json");
    let mut doc = json(&path);
    let first = doc["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["seed"] == 1)
        .unwrap();
    assert_eq!(first["score"], 128.0);
    first["score"] = 1.0.into();
    fs::write(&path, doc.to_string()).unwrap();
    // In the scratch folder: no project's bests file (the seeds' best column) from above.
    let out = tester()
        .current_dir(&dir)
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let text = ok_text(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("1"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(row[3..], ["128.000*", "128.000*", "1.0000"], "{text}");
    assert!(!text.contains("1.000*"), "{text}");
    assert!(
        stderr.contains("seed 1: results.json says ok 1, but its output judges ok 128"),
        "{stderr}"
    );
    let js: Value = serde_json::from_str(&ok_text(
        &tester()
            .current_dir(&dir)
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .arg("--json")
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(
        js["seeds"][0]["results"][0]["score"], 128.0,
        "{}",
        js["seeds"][0]
    );
}

#[test]
fn starved_runs_are_named_per_run() {
    let dir = scratch("compare-trust-starved");
    // A sleeps 0.3 s on each seed: next to no CPU in its wall time, by its own choice.
    let out = tester()
        .args(["run", "--quiet", "--no-project", "--seeds", "1-3"])
        .args(["--exec", "sleep 0.3; echo 0", "--out"])
        .arg(dir.join("a"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let b = echo_run(&dir, "b");
    let compare = |json: bool| {
        let mut command = tester();
        command.arg("compare").arg(dir.join("a")).arg(&b);
        if json {
            command.arg("--json");
        }
        ok_text(&command.output().unwrap())
    };
    // Asleep, it asked for no CPU: the machine denied it none, it is not starved (it was
    // named, as a busy machine's victim, while CPU over wall time was the rule).
    let text = compare(false);
    assert!(!text.contains("A starved"), "{text}");
    // The same runs, ready to run all along but on a CPU for less than half of it: starved.
    let results = dir.join("a/results.json");
    let mut doc = json(&results);
    for r in doc["results"].as_array_mut().unwrap() {
        let (wall, cpu) = (
            r["wall_ms"].as_u64().unwrap(),
            r["cpu_ms"].as_u64().unwrap(),
        );
        assert!(wall >= 300 && 2 * cpu < wall, "{r}");
        r["wait_ms"] = (wall - cpu).into();
    }
    fs::write(&results, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let text = compare(false);
    let line = text
        .lines()
        .find(|l| l.starts_with("A starved: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("3 of 3 seeds got less than half a core while ready to run"),
        "{line}"
    );
    assert!(
        line.contains("seed 1 (") && line.contains("seed 3 ("),
        "{line}"
    );
    let js: Value = serde_json::from_str(&compare(true)).unwrap();
    assert_eq!(js["runs"][0]["starved_seeds"], serde_json::json!([1, 2, 3]));
}

/// The `B/A X` figure that follows `prefix` in `text`.
fn ratio_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"));
    let rest = &text[at + prefix.len()..];
    rest.split([',', ' ', '\n']).next().unwrap()
}

#[test]
fn an_ab_folder_shows_the_b_over_a_of_tester_ab() {
    let dir = scratch("compare-trust-ab");
    let best = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases/best");
    let new = format!("cat '{}/{{seed}}.out'", best.display());
    let out = tester()
        .current_dir(&dir)
        .args([
            "ab",
            "--base-exec",
            "echo 0",
            "--new-exec",
            &new,
            "--out",
            "ab",
        ])
        .args(["--seeds", "1-40", "--jobs", "2", "--time-limit", "10"])
        .args(["--no-project", "--quiet"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{report}");
    let printed = ratio_after(&report, "\nB/A ");
    let compared = ok_text(
        &tester()
            .current_dir(&dir)
            .args(["compare", "ab"])
            .output()
            .unwrap(),
    );
    assert_eq!(ratio_after(&compared, "; B/A "), printed, "{compared}");
    assert!(compared.contains("tester ab (ab.json): accepted; 15 pairs counted of 15 read"));
    // The pairs are all the seeds both arms ran: compare's own B/A is the same, to 4 places.
    let doc = json(&dir.join("ab/ab.json"));
    assert_eq!(doc["pairs"].as_array().unwrap().len(), 15);
    let ratio: f64 = printed.parse().unwrap();
    assert!(
        compared.contains(&format!("  B/A {ratio:.4}, 95% interval")),
        "{compared}"
    );
    let recorded = doc["verdict"]["ratio"].as_f64().unwrap();
    assert!(
        (recorded - ratio_of(&doc)).abs() < 1e-12 * recorded,
        "{recorded}"
    );
}

/// The geometric mean of the pairs' score ratios in `ab.json`.
fn ratio_of(doc: &Value) -> f64 {
    let logs: Vec<f64> = doc["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["b"]["score"].as_f64().unwrap() / p["a"]["score"].as_f64().unwrap()).ln())
        .collect();
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}
