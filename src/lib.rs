//! queenattack: a solver for Topcoder Marathon Match 150 *QueenAttack*.
//!
//! * [`solver`]: the QueenAttack pipeline (paths → target boards → assignment → routing →
//!   reordering).
//!
//! The N-Queens tools behind it (one solution for any N, completion, nightriders,
//! verification) are the separate package `nqueens` of this workspace.

pub mod solver;

/// Writes a line to standard error and ignores a failed write: a closed or broken diagnostic
/// stream (`queenattack --verbose 2>&1 >out | head -1`) must never cost the answer, and
/// `eprintln!` panics when its write fails.
///
/// ```
/// queenattack::diag!("[{:6.3}s] {}", 0.5, "a log line");
/// ```
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // one write of the whole message: standard error is unbuffered, and `writeln!` on it
        // writes each piece of the format apart, so another process writing to the same pipe
        // (a harness's own line) could land inside one of ours
        let message = format!("{}\n", format_args!($($arg)*));
        let _ = std::io::stderr().write_all(message.as_bytes());
    }};
}
