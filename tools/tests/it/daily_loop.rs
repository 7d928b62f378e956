//! End-to-end tests of the daily loop's pieces in `tester` (issue 24): `--jsonl` lines as seeds
//! finish, `--shuffle`, the `tester.toml` project file and its build step, `git_dirty` and
//! `git.patch`, `[DATA]` lines kept per seed, `--filter` and `--group-by` on `run` and
//! `compare`, and the compare page's feature plots.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{fixture, ok_text, tester};

/// A fresh scratch folder for this test file.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("loop-{name}"))
}

fn results_json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

/// `tester run ARGS --exec CMD --out DIR` in `cwd`.
fn run(cwd: &Path, args: &[&str], exec: &str, out: &Path) -> std::process::Output {
    tester()
        .current_dir(cwd)
        .arg("run")
        .args(args)
        .arg("--exec")
        .arg(exec)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

#[test]
fn jsonl_prints_one_object_per_seed_and_the_report_on_stderr() {
    let dir = scratch("jsonl");
    let out = run(
        &dir,
        &["--seeds", "1-4", "--jsonl", "--jobs", "2"],
        &fixture("data.sh"),
        &dir.join("run"),
    );
    let stdout = ok_text(&out);
    let objects = lines(stdout.as_bytes());
    assert_eq!(objects.len(), 4, "{stdout}");
    let mut seeds: Vec<u64> = objects
        .iter()
        .map(|o| o["seed"].as_u64().unwrap())
        .collect();
    seeds.sort_unstable();
    assert_eq!(seeds, [1, 2, 3, 4]);
    for o in &objects {
        for key in [
            "status", "score", "wall_ms", "N", "C", "P", "data", "relative",
        ] {
            assert!(o.get(key).is_some(), "{key} missing in {o}");
        }
        assert_eq!(o["status"], "ok");
        assert_eq!(o["data"]["probe"], 7);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("seeds 4  ok 4"), "{stderr}");
    assert!(!stdout.contains("seeds 4"), "{stdout}");
}

#[test]
fn jsonl_lines_come_as_seeds_finish() {
    let dir = scratch("jsonl-stream");
    // Seed 1 (N = 8) answers at once, seed 2 takes 3 s: seed 1's line must be readable while
    // tester is still running.
    let mut child = tester()
        .current_dir(&dir)
        .args(["run", "--seeds", "1-2", "--jobs", "2", "--jsonl", "--quiet"])
        .arg("--exec")
        .arg(format!("{} slow", fixture("data.sh")))
        .arg("--out")
        .arg(dir.join("run"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    let running = child.try_wait().unwrap().is_none();
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["seed"], 1);
    assert!(
        running && start.elapsed() < Duration::from_millis(2500),
        "seed 1's line came only at the end ({:?})",
        start.elapsed()
    );
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(lines(rest.as_bytes())[0]["seed"], 2);
}

#[test]
fn shuffle_runs_the_same_seeds_in_another_order() {
    let dir = scratch("shuffle");
    let order = |name: &str, extra: &[&str]| -> Vec<u64> {
        let mut args = vec!["--seeds", "1-8", "--jobs", "1", "--jsonl", "--quiet"];
        args.extend_from_slice(extra);
        let out = run(&dir, &args, &fixture("ok.sh"), &dir.join(name));
        lines(ok_text(&out).as_bytes())
            .iter()
            .map(|o| o["seed"].as_u64().unwrap())
            .collect()
    };
    let plain = order("plain", &[]);
    assert_eq!(plain, [1, 2, 3, 4, 5, 6, 7, 8]);
    let a = order("a", &["--shuffle", "--shuffle-seed", "1"]);
    let again = order("again", &["--shuffle-seed", "1"]);
    let b = order("b", &["--shuffle", "--shuffle-seed", "2"]);
    assert_ne!(a, plain);
    assert_eq!(a, again, "the same --shuffle-seed gives the same order");
    assert_ne!(a, b);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, plain);
    // results.json keeps the seed list's order.
    let doc = results_json(&dir.join("a"));
    let seeds: Vec<u64> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, plain);
}

/// A project folder with `tester.toml` (`build` as given) and a subfolder to run from.
fn project(name: &str, build: &str) -> PathBuf {
    let dir = scratch(name);
    fs::create_dir_all(dir.join("sub")).unwrap();
    let toml = format!(
        "# a test project\nsolver = \"{}\"\nbuild = \"{build}\"\nseeds = \"1-3\"\njobs = 2\n\
         time_limit = 5\n",
        fixture("data.sh").replace('\'', "")
    );
    fs::write(dir.join("tester.toml"), toml).unwrap();
    dir
}

#[test]
fn a_project_file_runs_with_a_bare_tester_run_after_its_build() {
    let dir = project("project", "echo built > built.flag");
    let out = tester()
        .current_dir(dir.join("sub"))
        .arg("run")
        .output()
        .unwrap();
    let text = ok_text(&out);
    assert!(text.contains("seeds 3  ok 3"), "{text}");
    // The build ran in the project's folder, the run went to its runs/.
    assert_eq!(
        fs::read_to_string(dir.join("built.flag")).unwrap(),
        "built\n"
    );
    let runs: Vec<PathBuf> = fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1);
    let doc = results_json(&runs[0]);
    assert_eq!(doc["seeds"], serde_json::json!([1, 2, 3]));
    assert_eq!(doc["time_limit"], 5.0);
    // The command line wins over the file.
    let out = tester()
        .current_dir(dir.join("sub"))
        .args(["run", "--seeds", "2", "--no-build", "--out", "one"])
        .output()
        .unwrap();
    ok_text(&out);
    let doc = results_json(&dir.join("sub/one"));
    assert_eq!(doc["seeds"], serde_json::json!([2]));
}

#[test]
fn a_failing_build_shows_its_output_and_runs_nothing() {
    let dir = project("project-fail", "echo compiling; false");
    let out = tester()
        .current_dir(dir.join("sub"))
        .arg("run")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("compiling") && stderr.contains("failed (exit code 1): nothing was run"),
        "{stderr}"
    );
    assert!(!dir.join("runs").exists());
}

#[test]
fn init_writes_a_commented_project_file_once() {
    let dir = scratch("init");
    let out = tester().args(["init", "--dir"]).arg(&dir).output().unwrap();
    ok_text(&out);
    let text = fs::read_to_string(dir.join("tester.toml")).unwrap();
    assert!(text.contains("build = ") && text.lines().filter(|l| l.starts_with('#')).count() > 5);
    let again = tester().args(["init", "--dir"]).arg(&dir).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    // A bad key is refused with the file's name.
    fs::write(dir.join("tester.toml"), "solvr = \"x\"\n").unwrap();
    let bad = tester().current_dir(&dir).arg("run").output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("tester.toml"));
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=t@example.org", "-c", "user.name=t"])
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn a_dirty_tree_is_recorded_with_a_patch_that_rebuilds_it() {
    let dir = scratch("git");
    let repo = super::run_provenance::committed_repo(&dir);
    let exec = fixture("ok.sh");
    let clean = run(&repo, &["--seeds", "1"], &exec, &repo.join("runs/clean"));
    ok_text(&clean);
    let doc = results_json(&repo.join("runs/clean"));
    assert_eq!(doc["git_dirty"], false);
    assert!(doc["git_patch"].is_null() && !repo.join("runs/clean/git.patch").exists());
    fs::write(repo.join("solver.txt"), "two\n").unwrap();
    fs::write(repo.join("new.txt"), "untracked\n").unwrap();
    let dirty = run(&repo, &["--seeds", "1"], &exec, &repo.join("runs/dirty"));
    ok_text(&dirty);
    let doc = results_json(&repo.join("runs/dirty"));
    assert_eq!(doc["git_dirty"], true);
    assert_eq!(doc["git_patch"], "git.patch");
    // `tester merge` keeps the patch with the record.
    let merged = tester()
        .current_dir(&repo)
        .args(["merge", "runs/dirty", "--out", "runs/merged"])
        .output()
        .unwrap();
    ok_text(&merged);
    assert_eq!(
        results_json(&repo.join("runs/merged"))["git_patch"],
        "git.patch"
    );
    assert_eq!(
        fs::read(repo.join("runs/merged/git.patch")).unwrap(),
        fs::read(repo.join("runs/dirty/git.patch")).unwrap()
    );
    // The patch on a clean copy of the commit gives the tree that ran.
    let patch = repo.join("runs/dirty/git.patch");
    let copy = dir.join("copy");
    git(&dir, &["clone", "-q", "repo", "copy"]);
    git(&copy, &["apply", patch.to_str().unwrap()]);
    assert_eq!(
        fs::read_to_string(copy.join("solver.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(
        fs::read_to_string(copy.join("new.txt")).unwrap(),
        "untracked\n"
    );
}

#[test]
fn data_lines_are_kept_per_seed() {
    let dir = scratch("data");
    let out = run(
        &dir,
        &["--seeds", "1-2"],
        &fixture("data.sh"),
        &dir.join("run"),
    );
    ok_text(&out);
    let doc = results_json(&dir.join("run"));
    let r = &doc["results"][1];
    assert_eq!(r["data"]["probe"], 7);
    assert_eq!(r["data"]["n_seen"], r["N"]);
    assert_eq!(r["data"]["stop"], "deadline");
    assert_eq!(r["data"].as_object().unwrap().len(), 3);
    // rescore keeps them.
    let rescored = tester()
        .args(["rescore", "--json"])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok_text(&rescored)).unwrap();
    assert_eq!(v["results"][0]["data"]["probe"], 7);
}

#[test]
fn run_filter_selects_cases_before_running_and_groups_by_any_key() {
    let dir = scratch("run-filter");
    // Seeds 1-4 have N = 8, 30, 27, 29.
    let out = run(
        &dir,
        &[
            "--seeds",
            "1-4",
            "--filter",
            "N >= 20 && C >= 1",
            "--group-by",
            "n_seen",
        ],
        &fixture("data.sh"),
        &dir.join("run"),
    );
    let text = ok_text(&out);
    let doc = results_json(&dir.join("run"));
    assert_eq!(doc["seeds"], serde_json::json!([2, 3, 4]));
    assert!(
        text.contains("by n_seen") && text.contains("n_seen=27"),
        "{text}"
    );
    // A filter on a data key: every seed runs, the report shows those that pass.
    let out = run(
        &dir,
        &["--seeds", "1-4", "--filter", "n_seen < 28"],
        &fixture("data.sh"),
        &dir.join("after"),
    );
    let text = ok_text(&out);
    assert_eq!(
        results_json(&dir.join("after"))["results"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert!(
        text.contains("seeds 2  ok 2") && text.contains("2 of 4 seeds shown"),
        "{text}"
    );
    // A name no seed has is said, and the filter is ignored: the report is kept (issue 35).
    let out = run(
        &dir,
        &["--seeds", "1", "--filter", "nseen < 3"],
        &fixture("data.sh"),
        &dir.join("typo"),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no seed has nseen"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("seeds 1  ok 1"));
}

#[test]
fn compare_filters_groups_and_plots_features() {
    let dir = scratch("compare");
    for name in ["a", "b"] {
        let out = run(
            &dir,
            &["--seeds", "1-4"],
            &fixture("data.sh"),
            &dir.join(name),
        );
        ok_text(&out);
    }
    let page = dir.join("page.html");
    let out = tester()
        .current_dir(&dir)
        .args([
            "compare",
            "a",
            "b",
            "--filter",
            "N >= 20",
            "--group-by",
            "n_seen",
            "--html",
        ])
        .arg(&page)
        .output()
        .unwrap();
    let text = ok_text(&out);
    assert!(text.contains("seeds: 3 in all"), "{text}");
    assert!(text.contains("filter `N >= 20`"), "{text}");
    assert!(text.contains("n_seen=29"), "{text}");
    let seed_rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w == "1" || w == "2")
        })
        .collect();
    assert_eq!(seed_rows.len(), 1, "seed 1 (N = 8) is filtered out: {text}");
    let html = fs::read_to_string(&page).unwrap();
    for feature in [
        "against N",
        "against C",
        "against P",
        "against n_seen",
        "against probe",
    ] {
        assert!(
            html.contains(&format!("score ratio {feature} ")),
            "{feature}"
        );
    }
    let none = tester()
        .current_dir(&dir)
        .args(["compare", "a", "b", "--filter", "N > 100"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
}
