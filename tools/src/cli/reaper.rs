//! Nothing left behind: the signals that stop a run, and ending every process a run started.
//!
//! `tester run` starts each solver in its own process group and kills the group when the solver
//! ends. A descendant can still leave the group (`setsid`, a daemon's double fork); to end those
//! too, [`install`] makes `tester` a *child subreaper* (Linux `PR_SET_CHILD_SUBREAPER`): an
//! orphaned descendant is re-parented to `tester` instead of to init. Every solver also gets the
//! environment variable [`MARKER_VAR`] = `TESTER_PID-SEED`, which its descendants inherit, so
//! [`sweep`] can find the processes of one seed wherever they went.
//!
//! [`install`] also catches SIGINT, SIGTERM and SIGHUP (a closed terminal, a dropped ssh
//! session): the handler only records the signal, and the run loop polls [`interrupted`], kills
//! what runs, writes what finished and exits.
//!
//! A SIGKILL cannot be caught. For it, [`install`] starts a *guardian* (see [`super::guardian`]): a
//! forked copy of `tester` that waits for `tester` to end, however it ends, and then kills every
//! process carrying this run's marker. Each solver also gets `PR_SET_PDEATHSIG` = SIGKILL where
//! it is started (`exec.rs`, which uses this module), so the solver itself dies with `tester`
//! even without the guardian.

use std::collections::HashSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use super::proctable::MARKER_VAR;
use super::proctable::{has_marker, processes};

/// The signal that interrupted the run (0: none yet).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Pids of the solvers started and not yet reaped by their own watcher: a sweep must never reap
/// them (their exit status belongs to the watcher of `exec.rs` that started them).
static ACTIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    SIGNAL.store(signal, Ordering::SeqCst);
}

/// The signals that stop a run cleanly (exit code 128 + the signal).
pub const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The name of a signal of [`STOP_SIGNALS`] (`SIGINT`, `SIGTERM`, `SIGHUP`).
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Makes this process a child subreaper, routes SIGINT, SIGTERM and SIGHUP to
/// [`interrupted`] and starts the [`super::guardian`]. Call once, before the first solver starts and
/// while this process has a single thread (the guardian is forked).
pub fn install() -> Result<(), String> {
    // SAFETY: prctl with integer arguments only changes this process's own attribute.
    let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    if rc != 0 {
        return Err(format!(
            "cannot become a child subreaper: {}",
            std::io::Error::last_os_error()
        ));
    }
    for signal in STOP_SIGNALS {
        // SAFETY: the handler only stores into an atomic; the struct is fully initialised.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(format!(
                    "cannot catch signal {signal}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
    }
    super::guardian::start()
}

/// The signal (SIGINT, SIGTERM or SIGHUP) that asked the run to stop, if one came.
pub fn interrupted() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// The set of active solver pids, locked.
pub fn active() -> MutexGuard<'static, Option<HashSet<u32>>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The marker value of `seed` in this run.
pub fn marker(seed: u64) -> String {
    format!("{}-{seed}", std::process::id())
}

/// The marker value of the build step of `tester run` in this run.
pub fn build_marker() -> String {
    format!("{}-build", std::process::id())
}

/// What [`sweep`] ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// The processes carrying this marker value (one seed's solver and its descendants, or the
    /// build's).
    Seed(&'a str),
    /// Everything of this run: every process with a marker of this run, and every descendant
    /// re-parented to `tester`.
    All,
}

/// Kills the processes of `target` and reaps every re-parented descendant that has exited,
/// repeating until none is left (a killed process may orphan children of its own) or two
/// seconds have passed. Returns how many processes it killed.
pub fn sweep(target: Target<'_>) -> usize {
    let me = std::process::id() as i32;
    let run_prefix = format!("{me}-");
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut killed = HashSet::new();
    loop {
        let guard = active();
        let running = guard.as_ref();
        let is_solver = |pid: i32| running.is_some_and(|set| set.contains(&(pid as u32)));
        let mut left = 0;
        for p in processes() {
            if p.pid == me || is_solver(p.pid) || Some(p.pid) == super::guardian::pid() {
                continue;
            }
            let inherited = p.ppid == me;
            if p.zombie {
                if inherited {
                    // SAFETY: reaps one exited child that no watcher waits for.
                    unsafe { libc::waitpid(p.pid, std::ptr::null_mut(), libc::WNOHANG) };
                }
                continue;
            }
            let doomed = match target {
                Target::Seed(value) => has_marker(p.pid, value, false),
                Target::All => inherited || has_marker(p.pid, &run_prefix, true),
            };
            if doomed {
                // SAFETY: a plain kill of a process of this run.
                unsafe { libc::kill(p.pid, libc::SIGKILL) };
                killed.insert(p.pid);
                left += 1;
            }
        }
        drop(guard);
        if left == 0 || Instant::now() >= deadline {
            return killed.len();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
