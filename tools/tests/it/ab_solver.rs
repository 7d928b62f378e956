//! `tester ab` with the real solver, run as a process (the `tools` package never depends on
//! it): the same binary on both sides never says `accepted`; the solver at 1 s against itself
//! at 0.25 s says `accepted` within 60 pairs; the printed LLR is the documented formula on the
//! pairs of `ab.json`. On a machine too busy for the solvers (most pairs starved, as CI's
//! slow tests beside them can make it) the A/B says so instead (exit 4), which the recorded
//! CPU times must bear out. Slow (seconds of solver time per pair): `#[ignore]`d, run by CI.
//!
//! The solver is the `queenattack` beside this `tester` (`cargo test --workspace` builds
//! `target/debug/queenattack`), else `target/release/queenattack`.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::ab::assert_llr_is_the_formula;
use crate::common::{scratch, tester};

/// The queenattack binary to run.
fn queenattack() -> PathBuf {
    let beside = Path::new(env!("CARGO_BIN_EXE_tester")).with_file_name("queenattack");
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/queenattack");
    [beside, release].into_iter().find(|p| p.is_file()).expect(
        "no queenattack binary beside tester or in target/release: run the workspace's \
             tests (`cargo test --workspace`) or `cargo build --release -p queenattack` first",
    )
}

/// `tester ab` of queenattack at `base` seconds against queenattack at `new` seconds, with
/// `extra` options, into the scratch folder `name`; its output and `ab.json`.
fn ab(name: &str, [base, new]: [&str; 2], extra: &[&str]) -> (Output, Value) {
    let dir = scratch(name);
    let exe = queenattack();
    let exec = |secs: &str| format!("'{}' --time-limit {secs} --seed {{seed}}", exe.display());
    let out = tester()
        .arg("ab")
        .args(["--base-exec", &exec(base), "--base-time-limit", base])
        .args(["--new-exec", &exec(new), "--new-time-limit", new])
        .args(["--jobs", "2", "--no-project", "--quiet"])
        .arg("--out")
        .arg(dir.join("ab"))
        .args(extra)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(dir.join("ab/ab.json")).unwrap();
    (out, serde_json::from_str(&text).unwrap())
}

/// Checks an A/B that ended with exit 4: it says the machine was too busy, and more than half
/// of the pairs it read had an arm under half a core while ready to run (or under 90 % of the
/// other's share), by the times of `ab.json` (runs judged at their limits `limits`).
fn busy_by_the_cpu_got(out: &Output, doc: &Value, limits: [f64; 2]) {
    use super::cpu_time::{ready_share, unfair};
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("the machine was too busy"), "{text}");
    let pairs = doc["pairs"].as_array().unwrap();
    let starved = pairs
        .iter()
        .filter(|p| {
            let a = ready_share(&p["a"], limits[0]);
            unfair(a, ready_share(&p["b"], limits[1]))
        })
        .count();
    let read = doc["verdict"]["read"].as_u64().unwrap() as usize;
    assert!(2 * starved > read, "{starved} of {read} starved\n{text}");
}

#[test]
#[ignore = "slow: 15 to 40 pairs of the solver at 0.5 s"]
fn the_same_binary_on_both_sides_is_never_accepted() {
    let (out, doc) = ab(
        "ab-solver-same",
        ["0.5", "0.5"],
        &["--delta", "2", "--max-pairs", "40"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(out.status.code(), Some(1 | 3 | 4)),
        "{}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(doc["verdict"]["verdict"], "accepted", "{text}");
    assert!(!text.contains("verdict: accepted"), "{text}");
    if out.status.code() == Some(4) {
        busy_by_the_cpu_got(&out, &doc, [0.5, 0.5]);
    } else {
        assert_llr_is_the_formula(&out, &doc);
    }
}

#[test]
#[ignore = "slow: up to 60 pairs of the solver at 1 s and 0.25 s"]
fn one_second_is_accepted_against_a_quarter_second_within_60_pairs() {
    // 1 s is about 12 % better than 0.25 s (B/A 0.885 in CI's run of 2026-11-28); at the
    // default delta of 1 % that CI run, with 40 of B's 60 runs starved by the tests beside it
    // (sd of ln(B/A) 0.126), ended inconclusive at LLR 2.40 after 60 pairs. A delta of 5 %,
    // still far below the true gain, is what a loaded machine decides within 60 pairs.
    let (out, doc) = ab(
        "ab-solver-limits",
        ["0.25", "1"],
        &["--max-pairs", "60", "--delta", "5"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(4) {
        return busy_by_the_cpu_got(&out, &doc, [0.25, 1.0]);
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(doc["verdict"]["verdict"], "accepted", "{text}");
    assert!(doc["verdict"]["pairs"].as_u64().unwrap() <= 60);
    assert!(text.contains("verdict: accepted"), "{text}");
    assert_llr_is_the_formula(&out, &doc);
}
