//! `tester ab` where issue 69 found it wrong: an arm that sleeps, hangs or fails after a pause
//! used no CPU and was taken for starved, so its failures never counted (a B hanging on a third
//! of the seeds was accepted; one failing on every pair was "too busy"); a tampered record
//! was read; `--resume` forgot `--jobs`; the progress line had an ETA from `--max-pairs` and a
//! much worse B was only "not better". The arms are one-line commands whose CPU time is next
//! to nothing whatever the load, so nothing here depends on the machine's speed.

use std::path::Path;
use std::process::Output;

use super::ab::{both, json};
use super::ab_traps::{ab as again, write_json};
use super::cpu_time::starved_pairs_follow_the_cpu;
use crate::common::{scratch, tester};

/// `tester ab` in `dir` of the commands `base` and `new` into `dir/ab` at `limit` seconds, with
/// `extra` options.
fn ab(dir: &Path, [base, new]: [&str; 2], limit: &str, extra: &[&str]) -> Output {
    tester()
        .current_dir(dir)
        .args(["ab", "--no-project", "--base-exec", base, "--new-exec", new])
        .args(["--out", "ab", "--time-limit", limit])
        .args(extra)
        .output()
        .unwrap()
}

/// Answers at once (no move).
const ANSWERS: &str = "echo 0";

#[test]
fn an_arm_that_hangs_on_some_seeds_loses_those_pairs() {
    // A fails on the seeds that leave 1 mod 3, B sleeps until it is killed on those that
    // leave 0: as bad as each other. B's timeouts were starved pairs (B got 0 % of a core), so
    // only A's failures counted: accepted at pair 29, exit 0.
    let dir = scratch("ab-losses-hang");
    let a = "case $(({seed} % 3)) in 1) exit 3;; esac; echo 0";
    let b = "case $(({seed} % 3)) in 0) exec sleep 30;; esac; echo 0";
    let seeds = ["--seeds", "20001-20030", "--jobs", "4"];
    let out = ab(&dir, [a, b], "0.8", &seeds);
    let text = both(&out);
    let doc = json(&dir.join("ab/ab.json"));
    let verdict = &doc["verdict"];
    // On a loaded machine a quick `echo 0` may take half the limit and wait for a CPU most
    // of it: such pairs are starved, and only those the recorded CPU and waits say.
    let starved = starved_pairs_follow_the_cpu(&doc, 0.8);
    assert_eq!(verdict["starved_pairs"], starved, "{text}");
    let read = verdict["read"].as_u64().unwrap() as usize;
    assert_eq!(verdict["pairs"], read - starved, "{text}");
    match out.status.code() {
        Some(3) => assert_eq!(read, 30, "{text}"),
        Some(4) => assert!(2 * starved > read, "{text}"),
        code => panic!("exit {code:?}: {text}"),
    }
    // every third seed fails on each side; a starved pair (A kept waiting) is not counted,
    // its failure neither
    let pairs = doc["pairs"].as_array().unwrap();
    let lost = |side: &str, status: &str| {
        let all = pairs.iter().filter(|p| p[side]["status"] == status);
        let counted = all.clone().filter(|p| p["starved"].is_null()).count();
        (all.count(), counted)
    };
    let ((a_all, a_counted), (b_all, b_counted)) = (lost("a", "crash"), lost("b", "timeout"));
    assert_eq!((a_all, b_all), (10, 10), "{text}");
    let failures = serde_json::json!({"a": a_counted, "b": b_counted, "both": 0});
    assert_eq!(verdict["failures"], failures, "{text}");
    // a sleeping B's timeouts are its losses: its recorded waits (checked above) never make
    // them starved unless the machine kept it from starting at all (at load 10 a shell
    // waited 1 s for a CPU before its `exec sleep`)
    for pair in pairs.iter().filter(|p| p["b"]["status"] == "timeout") {
        assert!(pair["b"]["wait_ms"].is_u64(), "{pair}");
    }
    if starved == 0 {
        assert!(!text.contains("starved, not counted"), "{text}");
        assert_eq!(verdict["failures"]["b"], 10, "{text}");
    }
}

#[test]
fn an_arm_that_fails_after_a_pause_is_rejected_at_15_pairs() {
    // Before: 15 of 15 pairs starved (B got 0 % of a core), "the machine was too busy", exit 4.
    let dir = scratch("ab-losses-pause");
    let b = "sleep 0.3; echo garbage; exit 3";
    let out = ab(&dir, [ANSWERS, b], "0.5", &["--jobs", "4"]);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("B failed on each of the first 3 pairs"),
        "{text}"
    );
    assert!(
        text.contains("verdict: rejected: B is not better than A: B failed on 15 of the 15 pairs"),
        "{text}"
    );
    let doc = json(&dir.join("ab/ab.json"));
    // B's crashes are never starved; only a quick A that a loaded machine kept waiting half
    // its limit can be
    let starved = starved_pairs_follow_the_cpu(&doc, 0.5);
    assert_eq!(doc["verdict"]["starved_pairs"], starved, "{text}");
    assert_eq!(doc["verdict"]["failures"]["b"], 15, "{text}");
    // Nothing to run again: --resume reads the same verdict and runs no pair.
    let resumed = again(&dir, &["--resume", "--out", "ab"]);
    assert_eq!(resumed.status.code(), Some(1), "{}", both(&resumed));
    assert!(!both(&resumed).contains("pair 16"), "{}", both(&resumed));
}

#[test]
fn an_arm_that_uses_little_cpu_by_choice_is_not_starved() {
    // B answers like A but sleeps most of its limit first (a solver that computes little by
    // its own choice). Before: every pair "B got 0 % of a core", too busy, exit 4. Now the
    // pairs are ties: rejected.
    let dir = scratch("ab-losses-choice");
    // (0.6 s of a 1 s limit: past half of it, yet room for a loaded machine's delays)
    let out = ab(&dir, [ANSWERS, "sleep 0.6; echo 0"], "1", &["--jobs", "4"]);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let doc = json(&dir.join("ab/ab.json"));
    // B's sleep is its own choice: a pair is starved only where the CPU its arms recorded
    // says a loaded machine denied one of them
    let starved = starved_pairs_follow_the_cpu(&doc, 1.0);
    assert_eq!(doc["verdict"]["starved_pairs"], starved, "{text}");
    if doc["verdict"]["failures"]["b"] == 0 {
        assert!(text.contains("B scores as A (B/A 1)"), "{text}");
    }
}

#[test]
fn tampered_settings_and_times_are_refused() {
    let dir = scratch("ab-losses-tamper");
    let out = ab(&dir, [ANSWERS, ANSWERS], "10", &["--jobs", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let path = dir.join("ab/ab.json");
    let original = json(&path);
    let results = dir.join("ab/new/results.json");
    let run = json(&results);
    for (key, value, said) in [
        (
            "max_pairs",
            3.into(),
            "`settings.max_pairs` 3: 3 pairs, but the test decides",
        ),
        (
            "min_pairs",
            5.into(),
            "`settings.min_pairs` 5 is not this tester's (15)",
        ),
        (
            "sign_p1",
            0.6.into(),
            "`settings.sign_p1` 0.6 is not this tester's",
        ),
    ] {
        let mut doc = original.clone();
        doc["settings"][key] = value;
        write_json(&path, &doc);
        for args in [&["--verdict", "ab"][..], &["--resume", "--out", "ab"]] {
            let out = again(&dir, args);
            assert_eq!(out.status.code(), Some(2), "{key} {args:?}: {}", both(&out));
            assert!(both(&out).contains(said), "{key}: {}", both(&out));
        }
    }
    let mut doc = original.clone();
    doc["jobs"] = 3.into();
    write_json(&path, &doc);
    let out = again(&dir, &["--resume", "--out", "ab"]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(both(&out).contains("`jobs` 3 is not"), "{}", both(&out));
    write_json(&path, &original);
    for (key, value) in [("cpu_ms", -5), ("wall_ms", -1), ("wait_ms", -3)] {
        let mut tampered = run.clone();
        tampered["results"][0][key] = value.into();
        write_json(&results, &tampered);
        for args in [&["--verdict", "ab"][..], &["--resume", "--out", "ab"]] {
            let out = again(&dir, args);
            assert_eq!(out.status.code(), Some(2), "{key} {args:?}: {}", both(&out));
            let said = format!("`{key}` {value}: not a whole number of milliseconds");
            assert!(both(&out).contains(&said), "{key}: {}", both(&out));
        }
    }
    let mut tampered = run.clone();
    tampered["results"][0]["cpu_ms"] = 1_000_000_000_000u64.into();
    write_json(&results, &tampered);
    let out = again(&dir, &["--verdict", "ab"]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        both(&out).contains("more than 4096 threads"),
        "{}",
        both(&out)
    );
    write_json(&results, &run);
    assert_eq!(again(&dir, &["--verdict", "ab"]).status.code(), Some(1));
}

#[test]
fn resume_goes_on_with_the_jobs_it_ran_with() {
    // B fails on every third seed: inconclusive at 15 and 18 pairs.
    let dir = scratch("ab-losses-jobs");
    let b = "case $(({seed} % 3)) in 0) exit 3;; esac; echo 0";
    let seeds = ["--seeds", "1-30", "--max-pairs", "15", "--jobs", "1"];
    let first = ab(&dir, [ANSWERS, b], "10", &seeds);
    assert_eq!(first.status.code(), Some(3), "{}", both(&first));
    // Before: `2 jobs, 1 pair at a time` (the default) on a machine of two cores.
    let resumed = again(&dir, &["--resume", "--out", "ab", "--max-pairs", "18"]);
    let text = both(&resumed);
    assert_eq!(resumed.status.code(), Some(3), "{text}");
    assert!(text.contains("1 job, 1 solver at a time"), "{text}");
    assert!(text.contains("--resume: goes on with --jobs 1"), "{text}");
    assert_eq!(json(&dir.join("ab/ab.json"))["jobs"], 1);
    // Another --jobs given: taken, and said.
    let args = [
        "--resume",
        "--out",
        "ab",
        "--max-pairs",
        "20",
        "--jobs",
        "2",
    ];
    let changed = again(&dir, &args);
    let text = both(&changed);
    assert_eq!(changed.status.code(), Some(3), "{text}");
    assert!(
        text.contains("--jobs 2 as given (its last session ran --jobs 1)"),
        "{text}"
    );
    assert_eq!(json(&dir.join("ab/ab.json"))["jobs"], 2);
}

#[test]
fn the_progress_says_no_time_left_from_max_pairs() {
    // The progress of an A/B that decides at 15 pairs said `1/1000 … eta …` from --max-pairs.
    let dir = scratch("ab-losses-progress");
    let out = ab(&dir, [ANSWERS, ANSWERS], "10", &["--jobs", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("1 done (at most 1000) failed 0 elapsed"),
        "{stderr}"
    );
    assert!(!stderr.contains(" eta "), "{stderr}");
    assert!(!stderr.contains("/1000"), "{stderr}");
}
