//! Issue 59 item 8: each run's CPU time (the solver's processes, user + system) is recorded
//! beside its wall time, and runs that got much less CPU than wall time are named, in `tester
//! run` and in `tester ab` (where one starved arm biases the verdict). A starved solver is
//! played here by one that sleeps: it uses next to no CPU while its wall time runs.

use std::fs;

use serde_json::Value;

use crate::common::{fixture, scratch, tester};

/// `results.json` of the run folder `dir`.
fn results(dir: &std::path::Path) -> Vec<Value> {
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    doc["results"].as_array().unwrap().clone()
}

#[test]
fn a_run_records_cpu_time_and_names_starved_seeds() {
    let dir = scratch("cpu_time_run");
    let run = |name: &str, solver: &str| {
        tester()
            .current_dir(&dir)
            .args(["run", "--no-project", "--quiet", "--seeds", "1-2"])
            .args(["--time-limit", "20", "--exec", solver, "--out", name])
            .output()
            .unwrap()
    };
    // Busy: a fixed amount of work, so its CPU time shows however loaded the machine.
    let busy = run(
        "busy",
        "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo 0",
    );
    assert_eq!(busy.status.code(), Some(0));
    for r in results(&dir.join("busy")) {
        let (wall, cpu) = (
            r["wall_ms"].as_u64().unwrap(),
            r["cpu_ms"].as_u64().unwrap(),
        );
        assert!(cpu > 0 && cpu <= wall + 20, "{r}");
    }
    let table = String::from_utf8_lossy(&busy.stdout);
    assert!(
        table.lines().next().unwrap().contains(" ms  cpu ms "),
        "{table}"
    );
    // Starved: 0.4 s of wall time, next to no CPU.
    let idle = run("idle", "sleep 0.4; echo 0");
    let stderr = String::from_utf8_lossy(&idle.stderr);
    assert_eq!(idle.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: 2 of 2 seeds got less than half a core while they ran"),
        "{stderr}"
    );
    assert!(
        stderr.contains("seed 1 (") && stderr.contains("seed 2 ("),
        "{stderr}"
    );
    for r in results(&dir.join("idle")) {
        let (wall, cpu) = (
            r["wall_ms"].as_u64().unwrap(),
            r["cpu_ms"].as_u64().unwrap(),
        );
        assert!(wall >= 400 && cpu < wall / 2, "{r}");
    }
    // Judging the folder again keeps the times.
    let rescored = tester()
        .current_dir(&dir)
        .args(["rescore", "idle"])
        .output()
        .unwrap();
    assert!(rescored.status.success(), "{rescored:?}");
    let kept = results(&dir.join("idle"));
    assert!(kept.iter().all(|r| r["cpu_ms"].is_u64()), "{kept:?}");
}

#[test]
fn an_ab_names_the_arm_that_was_starved() {
    let dir = scratch("cpu_time_ab");
    let ok = fixture("ok.sh");
    let sleepy = format!("sleep 0.25; {ok}");
    let out = tester()
        .current_dir(&dir)
        .args([
            "ab",
            "--base-exec",
            &sleepy,
            "--new-exec",
            &ok,
            "--out",
            "ab",
        ])
        .args([
            "--jobs",
            "2",
            "--time-limit",
            "10",
            "--no-project",
            "--quiet",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Equal answers: rejected at the test's first 15 pairs.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("tester ab: warning: runs got less than half a core"),
        "{stderr}"
    );
    assert!(stderr.contains("A on 15 of its 15 runs"), "{stderr}");
    assert!(stderr.contains("which biases the verdict"), "{stderr}");
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("ab/ab.json")).unwrap()).unwrap();
    assert!(
        doc["pairs"][0]["a"]["cpu_ms"].is_u64(),
        "{}",
        doc["pairs"][0]
    );
}
