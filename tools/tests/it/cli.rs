//! End-to-end tests of the `tester` binary, with fixture solvers from `tests/fixtures`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;
use common::{fixture, official, ok_text, tester};

/// A fresh scratch folder for this test file.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("cli-{name}"))
}

#[test]
fn gen_seed_is_byte_identical_to_official_inputs() {
    for seed in 1..=10 {
        let out = tester()
            .args(["gen", "--seed", &seed.to_string()])
            .output()
            .unwrap();
        let expected = fs::read(official().join(format!("inputs/{seed}.in"))).unwrap();
        assert!(out.status.success());
        assert!(out.stdout == expected, "seed {seed} differs");
    }
}

#[test]
fn gen_writes_a_folder_and_honours_ranges() {
    let dir = scratch("gen");
    let out = tester()
        .args([
            "gen", "--seeds", "3-5,9", "--n", "10-12", "--c", "2", "--dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    ok_text(&out);
    for seed in [3, 4, 5, 9] {
        let text = fs::read_to_string(dir.join(format!("{seed}.in"))).unwrap();
        let input = tools::input::Input::parse(&text).unwrap();
        assert!((10..=12).contains(&input.n) && input.c == 2, "seed {seed}");
    }
    assert!(!dir.join("6.in").exists());
}

#[test]
fn score_prints_like_the_official_tester() {
    let cases = official().join("outputs/cases");
    let out = tester()
        .args(["score", "--seed", "1"])
        .arg(cases.join("legal5/1.out"))
        .output()
        .unwrap();
    assert_eq!(ok_text(&out), "Score = 134.4142135623731\n");
    let out = tester()
        .args(["score", "--input"])
        .arg(official().join("inputs/1.in"))
        .arg(cases.join("onto_wall/1.out"))
        .output()
        .unwrap();
    // An invalid output: the official lines, and exit code 1.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "End location (2,2) must be empty\nScore = -1.0\n"
    );
    let out = tester()
        .args(["score", "--seed", "2", "--json"])
        .arg(cases.join("empty/2.out"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok_text(&out)).unwrap();
    assert_eq!(v["score"], 8430.0);
    assert_eq!(v["errors"], 281);
    assert_eq!(v["moves"], 0);
    assert!(v["error"].is_null());
}

#[test]
fn clear_errors_on_bad_use() {
    let out = tester()
        .args(["score", "--seed", "1", "/no/such/file"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /no/such/file"));
    let out = tester().args(["run", "--seeds", "5-1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty seed range"));
    let out = tester().args(["rescore", "/no/such/dir"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn run_without_a_default_solver_says_how_to_build_it() {
    // A copy of the tester alone in a folder: no `queenattack` beside it.
    let dir = scratch("lonely");
    let copy = dir.join("tester");
    fs::copy(env!("CARGO_BIN_EXE_tester"), &copy).unwrap();
    let out = Command::new(&copy)
        .args(["run", "--seeds", "1", "--out"])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cargo build --release") && err.contains("--exec"),
        "{err}"
    );
}

fn results_of(dir: &Path) -> Vec<Value> {
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    doc["results"].as_array().unwrap().clone()
}

#[test]
fn run_reports_ok_crash_timeout_and_invalid() {
    let dir = scratch("statuses");
    let bests = dir.join("bests.json");
    fs::write(
        &bests,
        r#"{"about": "test", "bests": [
            {"seed": 1, "score": 1000.0, "source": "made up for the test"},
            {"seed": 2, "score": 400.0, "source": "made up for the test"}]}"#,
    )
    .unwrap();
    let out = tester()
        .args([
            "run",
            "--seeds",
            "1-4",
            "--jobs",
            "2",
            "--time-limit",
            "3",
            "--update-bests",
        ])
        .arg("--exec")
        .arg(fixture("by_size.sh"))
        .arg("--out")
        .arg(dir.join("run"))
        .arg("--bests")
        .arg(&bests)
        .output()
        .unwrap();
    // Some seed is not ok: exit code 1, after the table and the bests update.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let results = results_of(&dir.join("run"));
    let status: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["ok", "crash", "timeout", "invalid"], "{text}");
    assert_eq!(results[0]["score"], 134.4142135623731);
    assert_eq!(results[0]["moves"], 5);
    for r in &results[1..] {
        assert_eq!(r["score"], -1.0);
    }
    assert_eq!(results[3]["message"], "Cannot parse your output");
    assert!(results[1]["message"]
        .as_str()
        .unwrap()
        .contains("exit code 3"));
    assert!(results[1]["message"]
        .as_str()
        .unwrap()
        .contains("fixture: giving up"));
    assert_eq!(
        (results[0]["N"].as_u64(), results[0]["C"].as_u64()),
        (Some(8), Some(2))
    );
    // The solver was killed at the limit, not after its 60 s sleep.
    assert!(results[2]["wall_ms"].as_u64().unwrap() < 30_000);
    // Files of every seed are kept.
    for seed in 1..=4 {
        for ext in ["in", "out", "err"] {
            assert!(
                dir.join(format!("run/{seed}.{ext}")).is_file(),
                "{seed}.{ext}"
            );
        }
    }
    assert_eq!(
        fs::read_to_string(dir.join("run/2.err")).unwrap(),
        "fixture: giving up\n"
    );
    // Summary: relative = (1000/1000 [improved best is ours] + 0 + 0 + 0) / 4 = 25.
    assert!(
        text.contains("seeds 4  ok 1  invalid 1  timeout 1  crash 1"),
        "{text}"
    );
    assert!(text.contains("relative score: 25.000"), "{text}");
    assert!(text.contains("C=6"), "{text}");
    // --update-bests lowered seed 1 only, and says where the new score came from.
    let updated = tools::cli::bests::Bests::load(&bests).unwrap();
    assert_eq!(updated.seeds[&1].score, 134.4142135623731);
    assert!(updated.seeds[&1].source.starts_with("tester run "));
    assert_eq!(updated.seeds[&2].score, 400.0);
    assert_eq!(updated.seeds[&2].source, "made up for the test");
    // The improved seed's output is kept beside the bests file.
    assert_eq!(
        fs::read(dir.join("best/1.out")).unwrap(),
        fs::read(dir.join("run/1.out")).unwrap()
    );
    assert!(!dir.join("best/2.out").exists());
}

#[test]
fn rescore_agrees_with_the_run() {
    let dir = scratch("rescore");
    let out = tester()
        .args(["run", "--seeds", "1,3,8", "--time-limit", "20", "--quiet"])
        .arg("--exec")
        .arg(fixture("ok.sh"))
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    ok_text(&out);
    let run = results_of(&dir);
    assert!(run.iter().all(|r| r["status"] == "ok"));
    let out = tester()
        .args(["rescore", "--json"])
        .arg(&dir)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&ok_text(&out)).unwrap();
    let again = doc["results"].as_array().unwrap();
    assert_eq!(again.len(), 3);
    for (a, b) in run.iter().zip(again) {
        assert_eq!(a["seed"], b["seed"]);
        assert_eq!(a["score"], b["score"]);
        assert_eq!(a["P"], b["P"]);
    }
    // Edit an output: rescore sees the new verdict.
    fs::write(dir.join("3.out"), "1\n0 0 0 0\n").unwrap();
    let out = tester().args(["rescore"]).arg(&dir).output().unwrap();
    let text = ok_text(&out);
    assert!(
        text.contains("seed 3 invalid: Start and end locations cannot be the same: 0 0 0 0"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("seed 3: was ok"));
}
