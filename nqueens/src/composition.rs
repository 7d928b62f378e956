//! Random consistent compositions (seed 004 §7): `k` queens taken from a random full board,
//! so every composition generated can be completed.

use super::complete::{complete, Options, Verdict};
use super::placement::Placement;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;

/// Why no composition could be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompositionError {
    /// `k > n`.
    TooManyQueens {
        /// Board size.
        n: usize,
        /// Queens asked for.
        k: usize,
    },
    /// No full board of this size exists (queens: n = 2, 3; nightrider-queens: n = 2..9).
    NoBoard {
        /// Board size.
        n: usize,
        /// Whether the board was one of nightrider-queens.
        nightrider: bool,
    },
    /// The random full board was not found within the time limit.
    TimedOut {
        /// Board size.
        n: usize,
    },
}

impl std::fmt::Display for CompositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompositionError::TooManyQueens { n, k } => {
                write!(
                    f,
                    "K = {k} queens cannot be taken from a board of size N = {n} (K > N)"
                )
            }
            CompositionError::NoBoard {
                n,
                nightrider: false,
            } => write!(
                f,
                "no full {n}×{n} board of peaceful queens exists (none for N = 2, 3)"
            ),
            CompositionError::NoBoard {
                n,
                nightrider: true,
            } => write!(
                f,
                "no full {n}×{n} board of peaceful nightrider-queens exists (none for N = 2..9)"
            ),
            CompositionError::TimedOut { n } => {
                write!(f, "no full {n}×{n} board found within the time limit")
            }
        }
    }
}

impl std::error::Error for CompositionError {}

/// A random full board: the completion of the empty board with a random seed (random greedy
/// placement, swap repair, tail search), as 1-based columns per row.
///
/// # Errors
/// [`CompositionError::NoBoard`] or [`CompositionError::TimedOut`].
///
/// # Examples
/// ```
/// use nqueens::composition::random_board;
/// let cols = random_board(8, false, 5, std::time::Duration::from_secs(10)).unwrap();
/// let mut sorted = cols.clone();
/// sorted.sort();
/// assert_eq!(sorted, (1..=8).collect::<Vec<u32>>());
/// ```
pub fn random_board(
    n: usize,
    nightrider: bool,
    seed: u64,
    time_limit: Duration,
) -> Result<Vec<u32>, CompositionError> {
    let empty = Placement::Cols {
        n,
        cols: vec![0; n],
    };
    let opts = Options {
        nightrider,
        time_limit,
        seed,
        // One thread: the same seed must give the same board.
        threads: 1,
    };
    match complete(&empty, &opts)
        .expect("the empty board is peaceful")
        .verdict
    {
        Verdict::Yes(cols) => Ok(cols),
        Verdict::Proven(_) => Err(CompositionError::NoBoard { n, nightrider }),
        Verdict::NotFound => Err(CompositionError::TimedOut { n }),
    }
}

/// `k` queens of a random full `n × n` board, chosen uniformly, as 0-based `(row, col)` pairs
/// sorted by row (seed 000's format once made 1-based).
///
/// # Errors
/// See [`CompositionError`].
///
/// # Complexity
/// That of [`random_board`], plus O(k log k).
///
/// # Examples
/// ```
/// use nqueens::composition::random_composition;
/// use nqueens::{find_conflict, Placement};
/// let queens = random_composition(50, 20, false, 7, std::time::Duration::from_secs(10)).unwrap();
/// assert_eq!(queens.len(), 20);
/// assert_eq!(find_conflict(&Placement::Pairs { n: 50, queens }, false), None);
/// ```
pub fn random_composition(
    n: usize,
    k: usize,
    nightrider: bool,
    seed: u64,
    time_limit: Duration,
) -> Result<Vec<(u32, u32)>, CompositionError> {
    if k > n {
        return Err(CompositionError::TooManyQueens { n, k });
    }
    let cols = random_board(n, nightrider, seed, time_limit)?;
    // A second stream so that the rows chosen do not depend on how the board was found.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    // Selection sampling (Knuth's algorithm S): rows come out sorted, O(1) extra memory.
    let mut queens = Vec::with_capacity(k);
    for (r, &c) in cols.iter().enumerate() {
        let (need, left) = (k - queens.len(), n - r);
        if need > 0 && rng.random_range(0..left) < need {
            queens.push((r as u32, c - 1));
        }
    }
    Ok(queens)
}
