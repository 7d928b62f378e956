//! Issue 35, the cases about processes and files: a project file someone else planted (case 4),
//! a build that outlives `tester` or fills its memory (case 5), an Optuna study killed midway
//! (case 6). Every test that starts processes checks that none is left and kills what is.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{scratch, tester};

/// Whether `pid` runs (a zombie has ended).
fn alive(pid: i32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .next();
    !matches!(state, Some("Z" | "X"))
}

/// Polls `done` every 20 ms until it holds or `limit` has passed; whether it held.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pids written one a line into `path` (by a test's shell script), once there are `count`.
fn pids_in(path: &Path, count: usize) -> Vec<i32> {
    let read = || -> Vec<i32> {
        fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    };
    assert!(
        wait_until(Duration::from_secs(60), || read().len() >= count),
        "{} never held {count} pids",
        path.display()
    );
    read()
}

/// Sends `signal` to `pid`.
fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: a plain kill of a process this test started.
    unsafe { libc::kill(pid, signal) };
}

/// Waits at most `limit` for `child`; kills it (SIGKILL) if it is still running then.
fn wait_or_kill(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let mut status = None;
    wait_until(limit, || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}

/// Asserts that every pid of `pids` ends within 5 s; kills the survivors first, so that a
/// failing test leaves nothing running.
fn assert_all_end(pids: &[i32], what: &str) {
    let ended = wait_until(Duration::from_secs(5), || pids.iter().all(|&p| !alive(p)));
    let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &pid in &left {
        signal(pid, libc::SIGKILL);
    }
    assert!(ended, "{what}: still running: {left:?}");
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `tester run --seeds 1 --out o EXTRA` in `dir`.
fn run_in(dir: &Path, extra: &[&str]) -> Output {
    tester()
        .current_dir(dir)
        .args(["run", "--seeds", "1", "--out", "o"])
        .args(extra)
        .output()
        .unwrap()
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn case4_a_project_file_someone_else_can_write_is_refused() {
    let dir = scratch("case4-owner");
    let sub = dir.join("sub");
    fs::create_dir_all(&sub).unwrap();
    let pwned = dir.join("PWNED");
    let file = dir.join("tester.toml");
    let toml = format!(
        "build = \"touch '{}'\"\nsolver = \"echo 0\"\n",
        pwned.display()
    );
    fs::write(&file, toml).unwrap();
    let refused = |extra: &[&str], why: &str| {
        let out = run_in(&sub, extra);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        let named = format!("refusing the project file {}: {why}", file.display());
        assert!(err.contains(&named), "{err}");
        assert!(!pwned.exists() && !sub.join("o").exists(), "{err}");
    };
    // SAFETY: `geteuid` cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::chown(&file, Some(65534), None).unwrap();
        refused(&["--exec", "echo 0", "--quiet"], "it belongs to uid 65534");
        refused(&[], "it belongs to uid 65534");
        std::os::unix::fs::chown(&file, Some(0), None).unwrap();
        // A link someone else made to a file of ours: they chose what it points to.
        let linked = dir.join("linked");
        fs::create_dir_all(linked.join("sub")).unwrap();
        std::os::unix::fs::symlink(&file, linked.join("tester.toml")).unwrap();
        std::os::unix::fs::lchown(linked.join("tester.toml"), Some(65534), None).unwrap();
        let out = run_in(&linked.join("sub"), &[]);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(": the symbolic link: it belongs to uid 65534"),
            "{err}"
        );
        assert!(!pwned.exists());
    } else {
        eprintln!("NOTICE: not root: the file of another owner is not tested");
    }
    set_mode(&file, 0o646);
    refused(
        &["--exec", "echo 0", "--quiet"],
        "others may write it (mode 646)",
    );
    set_mode(&file, 0o664);
    refused(&[], "its group may write it (mode 664)");
    // --no-project leaves it unread.
    let out = run_in(&sub, &["--exec", "echo 0", "--no-project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!pwned.exists());
    fs::remove_dir_all(sub.join("o")).unwrap();
    // Trusted, with --exec: the file's build is for the file's solver, it does not run.
    set_mode(&file, 0o644);
    let out = run_in(&sub, &["--exec", "echo 0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("is not run"),
        "{}",
        stderr_of(&out)
    );
    assert!(!pwned.exists());
    fs::remove_dir_all(sub.join("o")).unwrap();
    // Trusted, without --exec: it builds.
    let out = run_in(&sub, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(pwned.exists());
}

#[test]
fn case4_the_search_stops_at_the_repository_top_and_at_home() {
    let dir = scratch("case4-bounds");
    fs::write(dir.join("tester.toml"), "solver = \"echo 0\"\n").unwrap();
    let found = |from: &str, home: &Path| {
        let sub = dir.join(from);
        fs::create_dir_all(&sub).unwrap();
        let out = tester()
            .current_dir(&sub)
            .env("HOME", home)
            .args(["run", "--seeds", "1", "--exec", "echo 0", "--out", "o"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        stderr_of(&out).contains("project file")
    };
    let elsewhere = PathBuf::from("/nonexistent");
    assert!(found("plain/sub", &elsewhere));
    fs::create_dir_all(dir.join("repo/.git")).unwrap();
    assert!(
        !found("repo/sub", &elsewhere),
        "read from above a repository"
    );
    assert!(
        !found("home/sub", &dir.join("home")),
        "read from above home"
    );
}

/// A project in a fresh scratch folder whose build is `build` (the solver: `echo 0`).
fn build_project(name: &str, build: &str) -> PathBuf {
    let dir = scratch(name);
    let toml = format!("build = \"{build}\"\nsolver = \"echo 0\"\n");
    fs::write(dir.join("tester.toml"), toml).unwrap();
    dir
}

/// `tester run --seeds 1 --out o` in `dir`, started.
fn start_run(dir: &Path) -> Child {
    tester()
        .current_dir(dir)
        .args(["run", "--seeds", "1", "--out", "o"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The build: its shell and a `sleep 300` it waits for, both pids written to `pids`.
const SLEEPY_BUILD: &str = "echo $$ >> pids; sleep 300 & echo $! >> pids; wait";

#[test]
fn case5_sigterm_stops_the_build_at_once() {
    let dir = build_project("case5-term", SLEEPY_BUILD);
    let mut child = start_run(&dir);
    let pids = pids_in(&dir.join("pids"), 2);
    signal(child.id() as i32, libc::SIGTERM);
    let status = wait_or_kill(&mut child, Duration::from_secs(15));
    assert_all_end(&pids, "the build after SIGTERM");
    assert_eq!(status.and_then(|s| s.code()), Some(143), "{status:?}");
    assert!(
        !dir.join("o").exists(),
        "a seed ran after the interrupted build"
    );
}

#[test]
fn case5_a_build_dies_with_a_killed_tester() {
    let dir = build_project("case5-kill", SLEEPY_BUILD);
    let mut child = start_run(&dir);
    let pids = pids_in(&dir.join("pids"), 2);
    signal(child.id() as i32, libc::SIGKILL);
    let _ = child.wait();
    assert_all_end(&pids, "the build after SIGKILL of tester");
}

/// Peak resident size of `pid` so far (`VmHWM`), in MB; 0 once it has ended.
fn peak_mb(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

#[test]
fn case5_a_build_printing_500_mb_is_read_in_bounded_memory() {
    let build = "yes 0123456789abcdef | head -c 500000000; echo last line; exit 1";
    let dir = build_project("case5-output", build);
    let log = dir.join("stderr.txt");
    let mut child = tester()
        .current_dir(&dir)
        .args(["run", "--seeds", "1", "--out", "o"])
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        peak = peak.max(peak_mb(pid));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = fs::read_to_string(&log).unwrap();
    assert_eq!(status.code(), Some(3), "{:.300}", err);
    assert!(
        peak < 100,
        "tester reached {peak} MB reading the build's output"
    );
    assert!(err.len() < 70_000, "{} bytes on stderr", err.len());
    assert!(
        err.contains(" bytes cut ...]") && err.contains("last line\n"),
        "{err:.300}"
    );
    assert!(err.contains("failed (exit code 1): nothing was run"));
}

fn tune_script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tune")
        .join(name)
}

/// Whether python3 can run the study (optuna and scipy, in target/tune-venv or installed).
fn has_optuna() -> bool {
    let ok = std::process::Command::new("python3")
        .arg(tune_script("optuna_study.py"))
        .arg("--check-deps")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "optuna is missing in CI: .ci/run should have installed it"
        );
        eprintln!("NOTICE: python3 with optuna not found; the study test is skipped");
    }
    ok
}

/// A study folder with `slow.sh`: the fake solver, which sleeps a minute first in every trial
/// (once `runs/tune/slow/trial-0` exists, until a file `fast` does) and writes to `pids` its
/// pid, its parent's (the `sh -c` of `--exec`) and that one's parent's (the trial's tester).
fn slow_study(name: &str) -> PathBuf {
    let dir = scratch(name);
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" != --list-params ] && [ -d runs/tune/slow/trial-0 ] && \
         [ ! -e fast ]; then\n  echo $$ >> pids; echo $PPID >> pids\n  \
         cut -d' ' -f4 /proc/$PPID/stat >> pids; sleep 60\nfi\n\
         exec python3 '{}' \"$@\"\n",
        tune_script("tests/fake_solver.py").display()
    );
    fs::write(dir.join("slow.sh"), script).unwrap();
    set_mode(&dir.join("slow.sh"), 0o755);
    dir
}

/// `optuna_study.py --trials TRIALS` on the slow study in `dir`.
fn study_command(dir: &Path, trials: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new("python3");
    cmd.current_dir(dir)
        .arg(tune_script("optuna_study.py"))
        .args(["--trials", trials, "--seeds", "1-2", "--time-limit", "0.2"])
        // A trial's tester would wait a minute for a sleeping solver: only a stop ends it early.
        .args([
            "--kill-margin",
            "60",
            "--jobs",
            "2",
            "--study-name",
            "slow",
            "--solver",
        ])
        .arg(dir.join("slow.sh"))
        .arg("--tester")
        .arg(env!("CARGO_BIN_EXE_tester"));
    cmd
}

/// Starts the slow study, waits until a trial's solver sleeps, sends `sig` to the study and
/// returns how it ended; every process of the trial must end within 5 s.
fn stop_slow_study(dir: &Path, sig: libc::c_int) -> Option<ExitStatus> {
    let mut study = study_command(dir, "2")
        .stdout(Stdio::null())
        .stderr(fs::File::create(dir.join("study.err")).unwrap())
        .spawn()
        .unwrap();
    pids_in(&dir.join("pids"), 3);
    signal(study.id() as i32, sig);
    let status = wait_or_kill(&mut study, Duration::from_secs(30));
    let pids = pids_in(&dir.join("pids"), 3);
    assert_all_end(
        &pids,
        "the trial's tester and solvers after the study was stopped",
    );
    status
}

/// The study's trials as `(number, state)`, read from its SQLite file.
fn trial_states(dir: &Path) -> Vec<(u64, String)> {
    let query = "import sqlite3, sys\nc = sqlite3.connect('runs/tune/study.db')\nfor n, s in \
                 c.execute('select number, state from trials order by number'):\n    \
                 print(n, s)\n";
    let out = std::process::Command::new("python3")
        .current_dir(dir)
        .args(["-c", query])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (n, s) = l.split_once(' ').unwrap();
            (n.parse().unwrap(), s.to_string())
        })
        .collect()
}

/// Runs the study again, fast, for one trial: the defaults must run again (trial 1).
fn resume_runs_the_defaults(dir: &Path) -> String {
    fs::write(dir.join("fast"), "").unwrap();
    let out = study_command(dir, "1").output().unwrap();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    let defaults = "trial 1: complete, value 1.0, seeds 2, params {'moves': 2, 'spread': 0.5, \
                    'flag': 1}";
    assert!(
        err.contains(defaults),
        "the defaults did not run again:\n{err}"
    );
    let states = trial_states(dir);
    assert!(!states.iter().any(|(_, s)| s == "RUNNING"), "{states:?}");
    err
}

#[test]
fn case6_sigterm_to_the_study_ends_its_tester_and_fails_the_trial() {
    if !has_optuna() {
        return;
    }
    let dir = slow_study("case6-term");
    let status = stop_slow_study(&dir, libc::SIGTERM);
    let err = fs::read_to_string(dir.join("study.err")).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(143), "{err}");
    assert!(err.contains("stopped by SIGTERM"), "{err}");
    assert_eq!(trial_states(&dir), [(0, "FAIL".to_string())]);
    resume_runs_the_defaults(&dir);
}

#[test]
fn case6_a_study_killed_outright_takes_its_tester_and_is_cleaned_up_on_resume() {
    if !has_optuna() {
        return;
    }
    let dir = slow_study("case6-kill");
    stop_slow_study(&dir, libc::SIGKILL);
    // Nobody could mark it: it stays RUNNING until the next start sees its process is gone.
    assert_eq!(trial_states(&dir), [(0, "RUNNING".to_string())]);
    let err = resume_runs_the_defaults(&dir);
    assert!(err.contains("trial 0: its study process"), "{err}");
    assert_eq!(trial_states(&dir)[0], (0, "FAIL".to_string()));
}
