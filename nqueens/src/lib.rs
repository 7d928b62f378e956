//! nqueens: the N-Queens family behind QueenAttack: placements, an O(N) verifier, the explicit
//! construction, a random search, completion of partial placements (also for nightrider
//! queens) and random compositions. The `nqueens` binary of this package puts them on the
//! command line (docs/nqueens.md).

pub mod complete;
pub mod composition;
pub mod explicit;
pub mod mem;
pub mod output;
pub mod placement;
pub mod quote;
pub mod search;
pub mod verify;

pub use placement::{parse_placement, Placement, PlacementError};
pub use verify::{find_conflict, Conflict, Line};

/// Writes a line to standard error and ignores a failed write: a closed diagnostic stream
/// (`nqueens solve 8 --timings 2>&1 >out | head -1`) must never cost the answer, and
/// `eprintln!` panics when its write fails.
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
