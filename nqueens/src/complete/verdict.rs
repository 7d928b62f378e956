//! What [`super::complete`] answers: the verdict, the argument of a proven NO, and the
//! statistics of the run.

use std::fmt;
use std::time::Duration;

/// Why a placement cannot be completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// No nightrider-queens board exists for this `n` (2..=9, by exhaustive counts).
    NoNightriderBoard {
        /// Board size.
        n: usize,
    },
    /// A free row (0-based) where every free column is attacked by a given queen.
    EmptyRow {
        /// The row, 0-based.
        row: usize,
    },
    /// A free column (0-based) where every free row is attacked by a given queen.
    EmptyColumn {
        /// The column, 0-based.
        col: usize,
    },
    /// Only `matched` of the `free_rows` free rows can get distinct free columns.
    NoPerfectMatching {
        /// Rows without a given queen.
        free_rows: usize,
        /// Size of a maximum matching.
        matched: usize,
    },
    /// The complete search over all free rows found nothing.
    Exhaustive {
        /// Rows without a given queen.
        free_rows: usize,
        /// Placements tried over all restarts of the search.
        nodes: u64,
    },
}

impl fmt::Display for Proof {
    /// 1-based rows and columns, like the text formats.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proof::NoNightriderBoard { n } => write!(
                f,
                "no {n}×{n} board of peaceful nightrider-queens exists (none for N = 2..9)"
            ),
            Proof::EmptyRow { row } => write!(
                f,
                "free row {} has no free cell: every free column is attacked by a given queen",
                row + 1
            ),
            Proof::EmptyColumn { col } => write!(
                f,
                "free column {} has no free cell: every free row is attacked by a given queen",
                col + 1
            ),
            Proof::NoPerfectMatching { free_rows, matched } => write!(
                f,
                "at most {matched} of the {free_rows} free rows can get distinct free columns \
                 (maximum bipartite matching over free cells)"
            ),
            Proof::Exhaustive { free_rows, nodes } => write!(
                f,
                "exhaustive search over all {free_rows} free rows ({nodes} placements tried) \
                 found no completion"
            ),
        }
    }
}

/// The answer of [`complete`](super::complete).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A full board: the 1-based column of the queen in each row (already verified).
    Yes(Vec<u32>),
    /// Cannot be completed, with the argument.
    Proven(Proof),
    /// No completion found within the time limit (the placement may still be completable).
    NotFound,
}

/// What [`complete`](super::complete) did, for reports and `--json`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Given queens.
    pub given: usize,
    /// Free rows (`n − given`).
    pub free_rows: usize,
    /// Greedy + repair restarts (0 when only the exhaustive search ran).
    pub restarts: u32,
    /// Tail searches run.
    pub tail_searches: u32,
    /// Largest tail searched.
    pub max_tail: usize,
    /// Placements tried by all tail searches.
    pub nodes: u64,
    /// Time spent on the cheap proofs.
    pub proof_time: Duration,
    /// Time until the verdict (verification included).
    pub total_time: Duration,
}

/// Result of [`complete`](super::complete).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The answer.
    pub verdict: Verdict,
    /// What it took.
    pub stats: Stats,
}
