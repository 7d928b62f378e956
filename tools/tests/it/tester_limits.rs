//! Issue 65 items 3 and 6: `tester`'s own limits are never the solver's fault. A limit on open
//! files (`ulimit -n`) met while starting a solver, and a hard file-size limit below the one
//! `tester` gives a solver (`ulimit -Hf`), stop the run with exit 2 and a message (no `crash`
//! recorded, in `tester ab` no arm's loss), and `--resume` finishes the seeds. A file-size
//! limit met by `tester`'s own writes (`ulimit -f 1`) is reported like a full disk: exit 2,
//! no temporary file left, and `--resume` removes one that a killed writer left.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{fixture, quiet_run, scratch, tester};

/// `command` with the limit `resource` set to `limit` (soft and hard) in the child.
fn limited(mut command: Command, resource: libc::__rlimit_resource_t, limit: u64) -> Command {
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: `setrlimit` is async-signal-safe and changes only the child's limits.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(resource, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// `tester run` of `seeds` with the solver `exec` into `dir/name`, outside any git tree (a
/// `git.patch` of the tree the tests run in could exceed a file-size limit).
fn run(dir: &Path, name: &str, seeds: &str, exec: &str) -> Command {
    let mut command = quiet_run(dir);
    command
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .args(["--seeds", seeds, "--jobs", "2", "--time-limit", "20"])
        .args(["--exec", exec, "--out", name]);
    command
}

/// Exit code and standard error, for messages.
fn said(out: &Output) -> String {
    format!(
        "{:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The statuses of the results in `dir/results.json`.
fn statuses(dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(dir.join("results.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that `out` is tester's own failure (exit 2, not the solver's fault, naming the
/// limit `hint`) and that `--resume` of the run in `dir/name` finishes its three seeds.
fn testers_failure_then_resumed(out: &Output, hint: &str, dir: &Path, name: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", said(out));
    assert!(
        said(out).contains("not the solver's fault"),
        "{}",
        said(out)
    );
    assert!(said(out).contains(hint), "{}", said(out));
    assert!(!statuses(&dir.join(name)).contains(&"crash".to_string()));
    let resumed = quiet_run(dir)
        .args(["--resume", "--out", name])
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", said(&resumed));
    assert_eq!(statuses(&dir.join(name)), ["ok", "ok", "ok"]);
}

#[test]
fn open_files_and_a_low_hard_file_limit_are_testers_not_the_solvers() {
    let dir = scratch("tester-limits-run");
    // Twelve descriptors: tester's own and one solver's leave none for a second solver.
    let out = limited(run(&dir, "files", "1-3", "echo 0"), libc::RLIMIT_NOFILE, 12)
        .output()
        .unwrap();
    testers_failure_then_resumed(&out, "ulimit -n", &dir, "files");
    // A hard file-size limit of 40 KiB: the solver gets it (not 64 MiB, which it may not be
    // given), answers, and is stopped by it only when it writes more.
    let small = limited(
        run(&dir, "small", "1-3", "echo 0"),
        libc::RLIMIT_FSIZE,
        40 << 10,
    )
    .output()
    .unwrap();
    assert_eq!(small.status.code(), Some(0), "{}", said(&small));
    assert_eq!(statuses(&dir.join("small")), ["ok", "ok", "ok"]);
    let chatty = "head -c 100000 /dev/zero >&2; echo 0";
    let out = limited(
        run(&dir, "chatty", "1-3", chatty),
        libc::RLIMIT_FSIZE,
        40 << 10,
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("SIGXFSZ") && said(&out).contains("ulimit -Hf"));
    assert!(
        said(&out).contains("not the solver's fault"),
        "{}",
        said(&out)
    );
    assert!(!statuses(&dir.join("chatty")).contains(&"crash".to_string()));
}

#[test]
fn an_ab_short_of_open_files_counts_no_loss() {
    let dir = scratch("tester-limits-ab");
    let ok = fixture("ok.sh");
    let mut ab = tester();
    ab.current_dir(&dir)
        .args(["ab", "--base-exec", &ok, "--new-exec", &ok, "--out", "ab"])
        .args(["--jobs", "2", "--time-limit", "10", "--no-project"]);
    let out = limited(ab, libc::RLIMIT_NOFILE, 12).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("not the solver's fault"),
        "{}",
        said(&out)
    );
    let text = fs::read_to_string(dir.join("ab/ab.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let failures = &doc["verdict"]["failures"];
    assert_eq!(
        (&failures["a"], &failures["b"], &failures["both"]),
        (&0.into(), &0.into(), &0.into()),
        "{doc}"
    );
    assert!(!said(&out).contains("failed on every"), "{}", said(&out));
}

#[test]
fn a_file_size_limit_on_tester_is_reported_and_leaves_no_temporary_file() {
    let dir = scratch("tester-limits-efbig");
    // `ulimit -f 1` (bash: 1 KiB): less than the case of seed 2 (N = 30).
    let out = limited(run(&dir, "r", "1-3", "echo 0"), libc::RLIMIT_FSIZE, 1024)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("File too large"), "{}", said(&out));
    assert!(said(&out).contains("ulimit -f"), "{}", said(&out));
    let temporary = |dir: &Path| -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    };
    assert_eq!(temporary(&dir.join("r")), Vec::<String>::new());
    // What a tester killed in the middle of a write leaves: its writer is gone.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let stray = dir.join(format!("r/.2.in.{}-0.tmp", gone.id()));
    fs::write(&stray, "half a case").unwrap();
    let resumed = quiet_run(&dir)
        .args(["--resume", "--out", "r"])
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", said(&resumed));
    assert_eq!(statuses(&dir.join("r")), ["ok", "ok", "ok"]);
    assert_eq!(temporary(&dir.join("r")), Vec::<String>::new());
}

/// Before: `tester run --help > file` under `ulimit -f 1` died of SIGXFSZ with the help cut
/// (SIGXFSZ was ignored only after the command line was read), and on a full disk it exited 0.
#[test]
fn help_past_a_file_size_limit_is_reported() {
    let dir = scratch("tester-limits-help");
    let file = dir.join("help.txt");
    let mut command = tester();
    command
        .args(["run", "--help"])
        .stdout(fs::File::create(&file).unwrap());
    // SAFETY: `signal` is async-signal-safe and changes only the child's disposition.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            Ok(())
        });
    }
    let out = limited(command, libc::RLIMIT_FSIZE, 1024).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("File too large"), "{}", said(&out));
}
