//! Issue 44, case 1: a thread or process `tester run` needs that cannot start (a limit on
//! processes) ends the run with a message and exit code 2, or the run goes on with fewer
//! workers; never a hang or a panic. And a signal always ends `tester`, even while a worker is
//! blocked in a system call.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{run_within, scratch, tester, SharedFolder};

/// The user and group ids of `nobody`, if the system has that user.
fn nobody() -> Option<(libc::uid_t, libc::gid_t)> {
    // SAFETY: `getpwnam` returns a pointer into static storage or null; read at once.
    let entry = unsafe { libc::getpwnam(c"nobody".as_ptr()) };
    // SAFETY: not null, so it points to a valid `passwd`.
    (!entry.is_null()).then(|| unsafe { ((*entry).pw_uid, (*entry).pw_gid) })
}

/// A folder `nobody` may write, with a copy of `tester` it may run: the build folder may be
/// closed to others (a home folder, issue 49). Removed when dropped.
fn nobody_folder(name: &str, (uid, gid): (libc::uid_t, libc::gid_t)) -> (SharedFolder, PathBuf) {
    let folder = SharedFolder::new(name);
    let program = folder.copy_program(env!("CARGO_BIN_EXE_tester"));
    std::os::unix::fs::chown(folder.path(), Some(uid), Some(gid)).unwrap();
    (folder, program)
}

/// `tester run` of seeds 1-4 with `--jobs jobs`, as `nobody` with at most `processes`
/// processes and threads (`ulimit -u`; root is not held to it, hence `nobody`).
fn limited_run(
    program: &PathBuf,
    who: (libc::uid_t, libc::gid_t),
    processes: u64,
    jobs: u32,
) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(program.parent().unwrap())
        .args([
            "run",
            "--no-project",
            "--seeds",
            "1-4",
            "--exec",
            "echo 0",
            "--quiet",
        ])
        .args([
            "--jobs",
            &jobs.to_string(),
            "--out",
            &format!("r-{jobs}-{processes}"),
        ]);
    let (uid, gid) = who;
    // SAFETY: only async-signal-safe system calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: processes,
                rlim_max: processes,
            };
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
                || libc::setrlimit(libc::RLIMIT_NPROC, &limit) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

#[test]
fn case1_threads_that_cannot_start_end_the_run_with_a_message() {
    // SAFETY: `geteuid` cannot fail.
    let (true, Some(who)) = (unsafe { libc::geteuid() } == 0, nobody()) else {
        eprintln!("NOTICE: not root (or no user nobody): the limit on processes is not tested");
        return;
    };
    let (_folder, program) = nobody_folder("thread-limits", who);
    // From a limit that stops the guardian to one that lets every thread start.
    for jobs in [1, 2] {
        for processes in 2..=10 {
            let case = format!("--jobs {jobs} under `ulimit -u {processes}`");
            let (out, _) = run_within(
                limited_run(&program, who, processes, jobs),
                Duration::from_secs(60),
            );
            let out = out.unwrap_or_else(|| panic!("{case}: still running after 60 s"));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{case}: {stderr}");
            match out.status.code() {
                Some(0) => {}
                Some(2) => assert!(
                    stderr.contains("Resource temporarily unavailable")
                        && stderr.contains("ulimit -u"),
                    "{case}: {stderr}"
                ),
                _ => panic!("{case}: {}\n{stderr}", out.status),
            }
        }
    }
}

#[test]
fn case1_a_signal_ends_tester_while_a_worker_is_blocked() {
    // The solver leaves a named pipe at its output's name: reading the output then blocks in
    // `open` until a writer comes, and none does. SIGTERM must still end tester, after its
    // grace of 5 s (it hung for ever, the signal only setting a flag).
    let dir = scratch("blocked-worker");
    let solver = "rm -f r/1.out && mkfifo r/1.out && echo 0";
    let mut child = tester()
        .current_dir(&dir)
        .args([
            "run",
            "--no-project",
            "--seeds",
            "1",
            "--exec",
            solver,
            "--out",
            "r",
        ])
        .arg("--quiet")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let fifo = dir.join("r/1.out");
    let start = Instant::now();
    while !fs::symlink_metadata(&fifo).is_ok_and(|m| !m.is_file()) {
        assert!(start.elapsed() < Duration::from_secs(30), "no named pipe");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Time for the worker to reach the blocking `open`.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: a plain kill of the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let signalled = Instant::now();
    let mut status = None;
    while status.is_none() && signalled.elapsed() < Duration::from_secs(60) {
        status = child.try_wait().unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.and_then(|s| s.code()), Some(143), "{stderr}");
    assert!(stderr.contains("did not stop within 5 s"), "{stderr}");
    assert!(dir.join("r/results.json").is_file());
}
