//! A run split into shards with GNU parallel (`-S :`, the local host as an ssh login, the same
//! path as a many-host `--sshlogin` run), joined with `tester merge`: the merged summary equals
//! `tester rescore` of a one-machine run of the same seeds.
//!
//! Needs `parallel` (Debian package `parallel`; `.ci/run` installs it). Without it the test
//! prints a notice and passes, except under CI (`CI` set), where it fails.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common;
use common::scratch;

const TESTER: &str = env!("CARGO_BIN_EXE_tester");

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}: {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn results(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

fn has_parallel() -> bool {
    Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn three_shards_through_gnu_parallel_merge_into_one_run() {
    if !has_parallel() {
        assert!(
            std::env::var_os("CI").is_none(),
            "GNU parallel is missing in CI: .ci/run should have installed it"
        );
        eprintln!("NOTICE: GNU parallel not installed; the sharded-run test is skipped");
        return;
    }
    let dir = scratch("shards-parallel");
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/by_size.sh");
    // Everything parallel runs goes through a shell on the "remote" side: one script keeps
    // the quoting simple, as a recipe on many hosts would.
    let script = dir.join("shard.sh");
    fs::write(
        &script,
        format!(
            "exec '{TESTER}' run --quiet --seeds 1-20 --shard \"$1/3\" --time-limit 1 \
             --jobs 2 --exec \"sh '{}'\" --allow-failures --out '{}/s'\"$1\"\n",
            solver.display(),
            dir.display()
        ),
    )
    .unwrap();
    ok(Command::new("parallel")
        .args(["--will-cite", "-S", ":", "--halt", "now,fail=1", "sh"])
        .arg(&script)
        .args([":::", "0", "1", "2"])
        .output()
        .unwrap());
    let shards: Vec<PathBuf> = (0..3).map(|k| dir.join(format!("s{k}"))).collect();
    for (k, shard) in shards.iter().enumerate() {
        assert_eq!(results(shard)["shard"], format!("{k}/3"));
    }
    // Missing or overlapping shards are refused.
    let merge = |dirs: &[&PathBuf], out: &str, extra: &[&str]| {
        Command::new(TESTER)
            .arg("merge")
            .args(dirs)
            .arg("--out")
            .arg(dir.join(out))
            .args(extra)
            .output()
            .unwrap()
    };
    let partial = merge(&[&shards[0], &shards[1]], "partial", &[]);
    assert_eq!(partial.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&partial.stderr).contains("shard 2/3 is not given"));
    // Merged with --allow-missing, but the exit code says seeds are missing.
    let partial = merge(&[&shards[0], &shards[1]], "partial", &["--allow-missing"]);
    assert_eq!(partial.status.code(), Some(1));
    assert_eq!(results(&dir.join("partial"))["interrupted"], true);
    let twice = merge(&[&shards[0], &shards[0]], "twice", &[]);
    assert_eq!(twice.status.code(), Some(2));
    // Never into one of its own inputs, even with --force.
    let into_input = merge(&[&shards[0], &shards[1], &shards[2]], "s0", &["--force"]);
    assert_eq!(into_input.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&into_input.stderr).contains("one of the folders"));

    ok(merge(&[&shards[2], &shards[0], &shards[1]], "merged", &[]));
    let merged = results(&dir.join("merged"));
    let seeds: Vec<u64> = (1..=20).collect();
    assert_eq!(merged["seeds"], serde_json::json!(seeds));
    assert!(merged["shard"].is_null());
    assert_eq!(merged["results"].as_array().unwrap().len(), 20);

    // One machine, the same seeds: rescore its outputs.
    let single = dir.join("single");
    Command::new(TESTER)
        .args([
            "run",
            "--quiet",
            "--seeds",
            "1-20",
            "--time-limit",
            "1",
            "--jobs",
            "2",
        ])
        .arg("--exec")
        .arg(format!("sh '{}'", solver.display()))
        .arg("--out")
        .arg(&single)
        .output()
        .unwrap();
    let rescored: Value = serde_json::from_str(&ok(Command::new(TESTER)
        .args(["rescore", "--json"])
        .arg(&single)
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(merged["summary"], rescored["summary"]);
    // The merged folder rescores to its own summary too (its outputs were copied).
    let again: Value = serde_json::from_str(&ok(Command::new(TESTER)
        .args(["rescore", "--json"])
        .arg(dir.join("merged"))
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(merged["summary"], again["summary"]);
    let summary = &merged["summary"];
    assert_eq!(summary["seeds"], 20);
    assert!(summary["ok"].as_u64().unwrap() > 0 && summary["timeout"].as_u64().unwrap() > 0);
}
