//! The QueenAttack judge: an exact local twin of the official Topcoder tester (Marathon Match
//! 150), and the `tester` command line built on it.
//!
//! * [`gen`]: the official generator, byte for byte ([`sha1prng`] reproduces Java's SHA1PRNG);
//! * [`input`]: the test case and its text form;
//! * [`output`]: reading a solution's output like the official tester;
//! * [`replay`]: playing moves one at a time with the official checks (for visualizers too);
//! * [`judge`]: the verdict and score of a whole output;
//! * [`java`]: the Java library behaviours the verdict depends on;
//! * [`cli`]: the `tester` subcommands;
//! * [`vis`]: self-contained visualizer pages (`visualizer/` with the data inlined);
//! * [`animation`] and [`raster`]: a replay as an animated GIF, drawn like the page.
//!
//! # Examples
//!
//! ```
//! use tools::gen::{generate, Ranges};
//! use tools::judge::judge;
//!
//! let case = generate(1, &Ranges::default());
//! // Doing nothing scores errors × N on the initial board.
//! let verdict = judge(&case.input, "0\n");
//! assert_eq!(verdict.score, (verdict.errors * 8) as f64);
//! assert_eq!(verdict.report(), format!("Score = {:.1}\n", verdict.score));
//! ```

#![warn(missing_docs)]

/// Writes a line to standard error and ignores a failed write: a closed or broken diagnostic
/// stream (`tester run ... 2>&1 >/dev/null | head -1`) must never cost a run its files or its
/// report, and `eprintln!` panics when its write fails. Every message of `tester` on standard
/// error goes through it (the answer on standard output goes through [`cli::out`]).
///
/// ```
/// tools::diag!("tester run: {} seeds", 3);
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

pub mod animation;
pub mod cli;
pub mod gen;
pub mod input;
pub mod java;
pub mod judge;
pub mod output;
pub mod raster;
pub mod replay;
pub mod sha1prng;
pub mod vis;
