//! `tester`'s own resources, which are never the solver's fault: a limit on open files, on
//! processes, on memory or on file size, or a full disk, met while `tester` starts a solver or
//! writes a file, stops the run (exit 2, `--resume` finishes it) instead of being recorded as
//! a solver's `crash`. The limits `tester` sets for a solver are kept within the hard limits it
//! runs under, and the signals it ignores for itself are given back to the solver.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Said after a resource failure: whose it is.
pub const NOT_THE_SOLVERS: &str = "a limit of tester's own, not the solver's fault";

/// The limit to look at when `e` is a lack of resources of `tester`'s own (`EAGAIN`, `ENOMEM`,
/// `EMFILE`, `ENFILE`, `EFBIG`, `ENOSPC`, `EDQUOT`); `None` for any other error (a missing
/// program, a permission), which is the seed's.
///
/// # Examples
///
/// ```
/// use tools::cli::resources::shortage;
///
/// let emfile = std::io::Error::from_raw_os_error(libc::EMFILE);
/// assert!(shortage(&emfile).unwrap().contains("ulimit -n"));
/// let missing = std::io::Error::from_raw_os_error(libc::ENOENT);
/// assert_eq!(shortage(&missing), None);
/// ```
pub fn shortage(e: &io::Error) -> Option<&'static str> {
    match e.raw_os_error() {
        Some(libc::EAGAIN | libc::ENOMEM) => Some(super::guardian::RESOURCE_HINT),
        Some(libc::EMFILE) => Some("a limit on open files (`ulimit -n`)?"),
        Some(libc::ENFILE) => Some("the system's table of open files is full?"),
        Some(libc::EFBIG) => Some("a limit on file size (`ulimit -f`)?"),
        Some(libc::ENOSPC | libc::EDQUOT) => Some("a full disk, or a disk quota?"),
        _ if e.kind() == io::ErrorKind::OutOfMemory => Some(super::guardian::RESOURCE_HINT),
        _ => None,
    }
}

/// `message` (what failed, with `e`) followed by the limit to look at and whose fault it is,
/// when `e` is a [`shortage`]; else `None`.
pub fn tester_failure(message: &str, e: &io::Error) -> Option<String> {
    shortage(e).map(|hint| format!("{message}; {hint} ({NOT_THE_SOLVERS})"))
}

/// `message: e`, followed by the limit to look at when `e` is a [`shortage`] (what a failed
/// write of `tester`'s own says: `cannot write 2.in: File too large (os error 27); a limit on
/// file size (`ulimit -f`)? (…)`).
pub fn explained(message: &str, e: &io::Error) -> String {
    let message = format!("{message}: {e}");
    tester_failure(&message, e).unwrap_or(message)
}

/// Starts a thread named `name` running `work`; a thread that cannot start is an error, not a
/// panic (`std::thread::spawn` panics).
pub fn start_thread<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<std::thread::JoinHandle<T>, String> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(work)
        .map_err(|e| {
            format!(
                "cannot start a thread ({name}): {e}; {}",
                super::guardian::RESOURCE_HINT
            )
        })
}

/// `want` for the limit `resource` of a child, lowered to the hard limit that `tester` runs
/// under (a child cannot be given more: `setrlimit` would fail, and the caller of `tester`
/// chose that limit), with whether it was lowered.
pub fn within_hard_limit(resource: libc::__rlimit_resource_t, want: u64) -> (u64, bool) {
    // SAFETY: `getrlimit` only writes into the zeroed struct we pass.
    let mut now: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(resource, &mut now) } != 0 || now.rlim_max == libc::RLIM_INFINITY {
        return (want, false);
    }
    let hard = now.rlim_max as u64;
    (want.min(hard), hard < want)
}

/// Gives the child of `cmd` the default action of the signals `tester` ignores for itself
/// (`SIGXFSZ`, see [`ignore_for_tester`]; Rust already restores `SIGPIPE`): a solver or a build
/// meets its limits as it would outside `tester`.
pub fn default_signals(cmd: &mut Command) {
    // SAFETY: `signal` is async-signal-safe and changes only the child's own disposition.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            Ok(())
        });
    }
}

/// Ignores `SIGXFSZ` in `tester`: a write past the file-size limit (`ulimit -f`) then fails
/// with `EFBIG`, which is reported like a full disk (exit 2, the temporary file removed),
/// instead of killing `tester` in the middle of a write without a word.
pub fn ignore_for_tester() {
    // SAFETY: sets this process's disposition of one signal; no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
