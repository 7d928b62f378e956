//! `tester run` loses nothing and leaves nothing behind: Ctrl-C, reused folders, duplicate
//! seeds, exit codes, capped outputs, escaped descendants, bests files.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{fixture, scratch, tester};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn results_json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

/// `(process group, state)` of a live process, from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(i32, String)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    Some((f[2].parse().ok()?, f[0].to_string()))
}

/// Whether a process (not a zombie) is running with this pid.
fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(_, state)| state != "Z")
}

/// Live processes in the process group `pgid`.
fn group_members(pgid: i32) -> Vec<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| stat(pid).is_some_and(|(g, state)| g == pgid && state != "Z"))
        .collect()
}

fn read_pid(path: &Path) -> i32 {
    fs::read_to_string(path).unwrap().trim().parse().unwrap()
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ctrl_c_stops_every_solver_and_keeps_the_finished_seeds() {
    let dir = scratch("safety-ctrl-c");
    let pids = dir.join("pids");
    fs::create_dir_all(&pids).unwrap();
    let out = dir.join("run");
    // Its own process group, like a shell job: the SIGINT goes to the whole group, as a
    // terminal's Ctrl-C does.
    let mut child = tester()
        .args([
            "run",
            "--seeds",
            "1-3",
            "--jobs",
            "3",
            "--time-limit",
            "200",
        ])
        .args(["--exec", &fixture("sleepy.sh"), "--out"])
        .arg(&out)
        .env("QA_TEST_PIDS", &pids)
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Seeds 2 and 3 (N = 30, 27) sleep; seed 1 (N = 8) finishes at once.
    let files = ["30.pgid", "30.setsid", "27.pgid", "27.setsid"];
    wait_for("the sleeping solvers", Duration::from_secs(60), || {
        files
            .iter()
            .all(|f| fs::read_to_string(pids.join(f)).is_ok_and(|t| t.ends_with('\n')))
    });
    let groups: Vec<i32> = ["30.pgid", "27.pgid"]
        .map(|f| read_pid(&pids.join(f)))
        .into();
    let escaped: Vec<i32> = ["30.setsid", "27.setsid"]
        .map(|f| read_pid(&pids.join(f)))
        .into();
    for (&g, &e) in groups.iter().zip(&escaped) {
        assert!(
            !group_members(g).is_empty(),
            "solver group {g} should be running"
        );
        wait_for(
            "the setsid child to leave its group",
            Duration::from_secs(10),
            || stat(e).is_some_and(|(group, state)| group != g && state != "Z"),
        );
    }
    // SAFETY: a signal to the process group of the tester we started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "tester did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("seeds 1  ok 1"), "summary so far: {text}");
    for &g in &groups {
        assert!(group_members(g).is_empty(), "group {g} survived the run");
    }
    for &e in &escaped {
        wait_for(
            "the setsid child to be gone",
            Duration::from_secs(5),
            || !alive(e),
        );
    }
    let doc = results_json(&out);
    assert_eq!(doc["interrupted"], true);
    assert_eq!(doc["seeds"], serde_json::json!([1, 2, 3]));
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{doc}");
    assert_eq!(results[0]["seed"], 1);
    assert_eq!(results[0]["status"], "ok");
}

fn run_logged(out: &Path, seeds: &str, log: &Path, extra: &[&str]) -> Output {
    let exec = format!("echo x >> '{}'; echo 0", log.display());
    tester()
        .args([
            "run",
            "--quiet",
            "--seeds",
            seeds,
            "--time-limit",
            "20",
            "--exec",
            &exec,
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn lines(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_used_folder_is_refused_and_resume_runs_only_the_missing_seeds() {
    let dir = scratch("safety-resume");
    let (out, log) = (dir.join("run"), dir.join("log"));
    let first = run_logged(&out, "1-2", &log, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(lines(&log), 2);
    let again = run_logged(&out, "1-4", &log, &[]);
    assert_eq!(again.status.code(), Some(2));
    let err = stderr(&again);
    assert!(
        err.contains("already holds a run") && err.contains("--resume"),
        "{err}"
    );
    assert_eq!(lines(&log), 2, "a refused run must not start a solver");

    let resumed = run_logged(&out, "1-4", &log, &["--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert_eq!(lines(&log), 4, "only seeds 3 and 4 run");
    let doc = results_json(&out);
    assert_eq!(doc["seeds"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(doc["results"].as_array().unwrap().len(), 4);
    assert_eq!(doc["interrupted"], false);

    // Resuming with another solver would mix two runs.
    let other = tester()
        .args([
            "run", "--quiet", "--seeds", "1-5", "--exec", "echo 0", "--resume", "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("must use the same"),
        "{}",
        stderr(&other)
    );

    let forced = run_logged(&out, "1", &log, &["--force"]);
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(lines(&log), 5);
    assert_eq!(results_json(&out)["seeds"], serde_json::json!([1]));
    assert!(
        !out.join("4.in").exists(),
        "--force clears the old run's files"
    );
}

#[test]
fn duplicate_seeds_are_an_error() {
    let out = tester()
        .args(["run", "--seeds", "1,1", "--exec", "echo 0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("seed 1 is listed twice"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn exit_code_says_whether_every_seed_is_ok() {
    let dir = scratch("safety-exit-codes");
    let run = |extra: &[&str], name: &str| {
        tester()
            .args([
                "run",
                "--quiet",
                "--seeds",
                "1-2",
                "--exec",
                "./no-such-solver",
            ])
            .args(extra)
            .arg("--out")
            .arg(dir.join(name))
            .output()
            .unwrap()
    };
    let failed = run(&[], "a");
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stdout).contains("crash 2"));
    assert_eq!(run(&["--allow-failures"], "b").status.code(), Some(0));
}

#[test]
fn a_solver_that_writes_forever_is_capped() {
    let dir = scratch("safety-yes");
    let out = tester()
        .args([
            "run",
            "--quiet",
            "--seeds",
            "1",
            "--exec",
            "yes",
            "--time-limit",
            "1",
        ])
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let cap = tools::cli::exec::output_cap(8);
    assert_eq!(fs::metadata(dir.join("1.out")).unwrap().len(), cap);
    let doc = results_json(&dir);
    assert_eq!(doc["results"][0]["status"], "too-long");
    assert_eq!(doc["summary"]["too_long"], 1);
}

#[test]
fn a_child_that_leaves_the_process_group_is_ended() {
    let dir = scratch("safety-setsid");
    let pid_file = dir.join("pid");
    let exec = format!(
        "setsid sleep 778 & echo $! > '{}'; sleep 0.3; echo 0",
        pid_file.display()
    );
    let out = tester()
        .args(["run", "--quiet", "--seeds", "1", "--exec", &exec, "--out"])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pid = read_pid(&pid_file);
    wait_for(
        "the setsid child to be gone",
        Duration::from_secs(5),
        || !alive(pid),
    );
}

#[test]
fn update_bests_creates_the_file_and_keeps_the_best_outputs() {
    let dir = scratch("safety-bests");
    let solver = fixture("ok.sh");
    let run = |extra: &[&str], name: &str| {
        tester()
            .current_dir(&dir)
            .args([
                "run",
                "--quiet",
                "--seeds",
                "1-2",
                "--update-bests",
                "--exec",
                &solver,
            ])
            .args(["--out", name])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--bests", "mine/b.json"], "r1");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bests = tools::cli::bests::Bests::load(&dir.join("mine/b.json")).unwrap();
    assert_eq!(bests.seeds.len(), 2);
    // The answers of a table `b.json` go to `best-b/` (`best/` belongs to `bests.json`).
    let best = fs::read(dir.join("mine/best-b/1.out")).unwrap();
    assert_eq!(best, fs::read(dir.join("r1/1.out")).unwrap());
    // Outside any repository, without --bests: testcases/bests.json is started.
    let out = run(&[], "r2");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.join("testcases/bests.json").is_file());
    assert!(dir.join("testcases/best/2.out").is_file());
}

#[test]
fn a_closed_stdout_neither_panics_nor_skips_the_bests_update() {
    let dir = scratch("safety-closed-stdout");
    let mut child = tester()
        .current_dir(&dir)
        .args(["run", "--quiet", "--seeds", "1-2", "--update-bests"])
        .args([
            "--bests",
            "b.json",
            "--out",
            "r",
            "--exec",
            &fixture("ok.sh"),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // like `tester run ... | head -0`
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(dir.join("r/results.json").is_file());
    assert!(dir.join("b.json").is_file(), "the bests update ran");
    // Commands without solvers end quietly, like any filter.
    let mut child = tester()
        .current_dir(&dir)
        .args(["runs", "."])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn results_record_the_run() {
    let dir = scratch("safety-record");
    let out = tester()
        .args([
            "run",
            "--quiet",
            "--seeds",
            "1-3",
            "--exec",
            &fixture("ok.sh"),
        ])
        .args(["--comment", "first try", "--shard", "1/2", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = results_json(&dir);
    for key in [
        "command",
        "time_limit",
        "date",
        "ranges",
        "results",
        "summary",
    ] {
        assert!(doc.get(key).is_some(), "{key} missing");
    }
    assert_eq!(doc["comment"], "first try");
    assert_eq!(doc["shard"], "1/2");
    assert_eq!(doc["seeds"], serde_json::json!([2]));
    assert_eq!(doc["interrupted"], false);
    assert!(doc["cores"].as_u64().unwrap() >= 1);
    assert!(doc["started"].as_str().unwrap().ends_with('Z'));
    assert!(doc["solver"]["program"]
        .as_str()
        .unwrap()
        .ends_with("ok.sh"));
    assert_eq!(doc["solver"]["sha1"].as_str().unwrap().len(), 40);
    // The worktree is a git repository.
    assert_eq!(doc["git_commit"].as_str().map(str::len), Some(40));
}
