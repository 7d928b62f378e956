//! Issue 65 item 2: every command that writes into a run folder takes the folder's lock
//! (`.tester.lock`) or refuses a folder that a `tester run` is writing (exit 2), as `run` and
//! `ab` do: `merge --force`, `gen --dir`, `vis -o` and `init --dir` there changed the run's
//! files under it (its solver's answers lost, its cases replaced).

use std::fs;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{echo_run, ok_text, quiet_run, scratch, tester};

/// The exit code and standard error of `out`, for messages.
fn said(out: &Output) -> String {
    format!(
        "{:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn no_command_writes_into_a_folder_that_a_run_is_writing() {
    let dir = scratch("folder-writers");
    let source = echo_run(&dir, "src");
    let busy = dir.join("busy");
    let mut run = quiet_run(&dir)
        .args(["--seeds", "1-2", "--jobs", "2", "--time-limit", "120"])
        .args(["--exec", "sleep 120; echo 0", "--out"])
        .arg(&busy)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Both seeds' cases are written once their solvers start.
    let start = Instant::now();
    while !(busy.join("1.in").is_file() && busy.join("2.in").is_file()) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let case = fs::read(busy.join("1.in")).unwrap();
    let writers: [(&str, Vec<&std::ffi::OsStr>); 4] = [
        (
            "merge --force",
            vec![
                "merge".as_ref(),
                source.as_os_str(),
                "--force".as_ref(),
                "--out".as_ref(),
            ],
        ),
        (
            "gen --dir",
            ["gen", "--seeds", "1-2", "--n", "12", "--c", "3", "--dir"]
                .map(AsRef::as_ref)
                .to_vec(),
        ),
        ("init --dir", vec!["init".as_ref(), "--dir".as_ref()]),
        ("vis -o", vec![]),
    ];
    let page = busy.join("1.html");
    let answer = source.join("1.out");
    let holder = format!("in use by another tester run (pid {})", run.id());
    for (what, args) in writers {
        let mut command = tester();
        if args.is_empty() {
            command
                .args(["vis", "--seed", "1"])
                .arg(&answer)
                .arg("-o")
                .arg(&page);
        } else {
            command.args(args).arg(&busy);
        }
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}: {}", said(&out));
        assert!(said(&out).contains(&holder), "{what}: {}", said(&out));
    }
    assert_eq!(fs::read(busy.join("1.in")).unwrap(), case);
    assert!(!page.exists() && !busy.join("tester.toml").exists());
    assert!(!busy.join("3.in").exists(), "merge copied its seeds in");
    // SAFETY: a signal to the tester this test started.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    assert_eq!(run.wait().unwrap().code(), Some(143));
    // The run has ended: its folder is free to write again.
    let out = tester()
        .args(["merge"])
        .arg(&source)
        .args(["--force", "--out"])
        .arg(&busy)
        .output()
        .unwrap();
    assert!(
        ok_text(&out).contains("merged 1 folder: 3 seeds"),
        "{}",
        said(&out)
    );
}
