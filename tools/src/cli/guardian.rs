//! The guardian: ends a run's processes when `tester` itself dies, even by SIGKILL.
//!
//! A signal handler cannot run on SIGKILL, and a solver's descendants do not inherit
//! `PR_SET_PDEATHSIG`. So [`start`] forks a small copy of `tester` that holds the read end of a
//! pipe whose write end only `tester` holds. When `tester` ends, however it ends, the kernel
//! closes that write end; the guardian reads end-of-file, kills every process whose environment
//! carries this run's marker (`QA_TESTER_RUN=TESTERPID-…`, see [`super::proctable`]) and
//! exits. It imports only the process table, not the reaper (which starts it).
//!
//! The guardian sits in its own process group with SIGHUP, SIGINT and SIGQUIT ignored, so the
//! terminal's Ctrl-C or hang-up and a kill of `tester`'s group leave it to do its work; its
//! standard streams are `/dev/null`, so it never holds a caller's pipe open. What the operating
//! system does not allow: a descendant that both cleared its environment and left the session
//! before `tester` was SIGKILLed is re-parented to init and cannot be found.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::proctable::{has_marker, processes};

/// The hint added to a failure to start a process or a thread (`EAGAIN`, `ENOMEM`): the
/// guardian is the first process `tester run` starts, so the first to meet such a limit.
pub const RESOURCE_HINT: &str = "a limit on processes or memory (`ulimit -u`, `ulimit -v`)?";

/// The guardian's pid (0: none), so that the end-of-run sweep does not take it for a leftover.
static GUARDIAN: AtomicI32 = AtomicI32::new(0);

/// The guardian's pid, if one runs.
pub fn pid() -> Option<i32> {
    match GUARDIAN.load(Ordering::SeqCst) {
        0 => None,
        pid => Some(pid),
    }
}

/// Whether this process has one thread (forking is then safe for any code in the child).
fn single_threaded() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.count() == 1)
}

/// Forks the guardian of this process (once; later calls do nothing). Without a single thread
/// (a unit test harness) no guardian is started: forking is only safe before threads exist.
pub fn start() -> Result<(), String> {
    if pid().is_some() || !single_threaded() {
        return Ok(());
    }
    let tester = std::process::id() as i32;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `pipe2` writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "cannot start the guardian: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: this process has a single thread (checked above), so the child may run any code.
    match unsafe { libc::fork() } {
        -1 => Err(format!(
            "cannot start the guardian: {}; {}",
            std::io::Error::last_os_error(),
            RESOURCE_HINT
        )),
        0 => {
            // SAFETY: closes our copy of the write end; the parent keeps its own.
            unsafe { libc::close(fds[1]) };
            watch(fds[0], tester)
        }
        child => {
            // The write end stays open for the life of `tester` (never closed on purpose).
            // SAFETY: closes the parent's copy of the read end.
            unsafe { libc::close(fds[0]) };
            GUARDIAN.store(child, Ordering::SeqCst);
            Ok(())
        }
    }
}

/// The guardian's life: detach, wait for end-of-file on `read_end`, end the run's processes,
/// exit.
fn watch(read_end: libc::c_int, tester: i32) -> ! {
    // SAFETY: plain syscalls on this (child) process's own attributes and descriptors.
    unsafe {
        libc::setpgid(0, 0);
        for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGPIPE] {
            libc::signal(signal, libc::SIG_IGN);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
        }
        let mut byte = 0u8;
        loop {
            let got = libc::read(read_end, (&mut byte as *mut u8).cast(), 1);
            if got == 0
                || (got < 0
                    && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted)
            {
                break;
            }
        }
    }
    end_run(tester);
    // SAFETY: leaves at once, running no destructor or exit handler of the parent's copy.
    unsafe { libc::_exit(0) }
}

/// Kills every process marked as part of the run of `tester` (and its process group), until
/// none is left or two seconds have passed. Returns how many it killed.
pub fn end_run(tester: i32) -> usize {
    let prefix = format!("{tester}-");
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut killed = std::collections::HashSet::new();
    loop {
        let mut left = 0;
        for p in processes() {
            if !p.zombie && has_marker(p.pid, &prefix, true) {
                // SAFETY: kills a process of the dead run, and its group when it leads one
                // (a solver leads its own group).
                unsafe {
                    libc::kill(-p.pid, libc::SIGKILL);
                    libc::kill(p.pid, libc::SIGKILL);
                }
                killed.insert(p.pid);
                left += 1;
            }
        }
        if left == 0 || Instant::now() >= deadline {
            return killed.len();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
