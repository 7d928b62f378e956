//! Standard output and standard error that never cost `tester` its work.
//!
//! `println!` and `eprintln!` panic when their write fails (exit 101): `tester run ... 2>&1
//! >/dev/null | head -1` would then die before writing `results.json`. Here:
//!
//! * standard error carries diagnostics only: [`crate::diag!`] ignores a failed write;
//! * standard output carries the answer: [`print()`] (and `outln!`) stops writing after the
//!   first failure and remembers it. A closed pipe (`| head`) is the reader going away on
//!   purpose: the command finishes its files and exits with its own code, quietly. Any other
//!   failure (a full disk) is kept for [`failure`], which the binary reports (exit 2, except
//!   for `tester run`, whose answer is its run folder).
//!
//! `SIGPIPE` stays ignored (Rust's default), so a closed pipe is an error to handle, not the
//! end of the process in the middle of writing a run's files.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Set once a write to standard output failed: nothing more is written there.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// The first failure to write standard output that was not a closed pipe.
static FAILURE: Mutex<Option<String>> = Mutex::new(None);

/// Writes `text` to standard output and flushes it; after a failed write, does nothing (see
/// the module's documentation).
///
/// # Examples
///
/// ```
/// tools::cli::out::print("Score = 1.0\n");
/// assert_eq!(tools::cli::out::failure(), None);
/// ```
pub fn print(text: &str) {
    if CLOSED.load(Ordering::SeqCst) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        CLOSED.store(true, Ordering::SeqCst);
        if e.kind() != ErrorKind::BrokenPipe {
            let mut failure = FAILURE.lock().unwrap_or_else(|p| p.into_inner());
            failure.get_or_insert_with(|| e.to_string());
        }
    }
}

/// Whether standard output can take no more (a closed pipe or a failed write): a command may
/// stop producing text nobody reads.
pub fn closed() -> bool {
    CLOSED.load(Ordering::SeqCst)
}

/// The first failure to write standard output other than a closed pipe (`No space left on
/// device`), if any.
pub fn failure() -> Option<String> {
    FAILURE.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `println!` for the answer on standard output, through [`print()`]: never panics.
macro_rules! outln {
    () => {
        $crate::cli::out::print("\n")
    };
    ($($arg:tt)*) => {
        $crate::cli::out::print(&(format!($($arg)*) + "\n"))
    };
}
pub(crate) use outln;
