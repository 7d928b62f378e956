//! N-Queens Completion: finish a partial placement of peaceful queens (optionally
//! nightrider-queens, which also attack along slopes ±2 and ±1/2) or show that it cannot be
//! finished.
//!
//! Pipeline (one module per stage):
//! 1. [`board`]: the given queens are fixed; line occupancy bits.
//! 2. Cheap proofs: nightrider boards 2..9 do not exist; a free row or column without a free
//!    cell; no perfect matching of free rows to free columns ([`matching`]).
//! 3. Nightrider boards of at most 64 columns: the bitboard search [`small`] with restarts
//!    (complete: a run that explores every branch proves NO).
//! 4. Few free rows: the exhaustive [`tail`] search over all of them (seed 004's minimum-risk
//!    and minimum-damage rules with forward checking), restarted with growing node limits; a
//!    run that explores every branch proves NO.
//! 5. Nightriders with at least 16 free rows: the empty board of a size `n` with `n` or
//!    `n + 1` coprime to 210 is [`anneal::modular`]; otherwise simulated annealing over the free columns
//!    ([`anneal::Anneal`]) runs in turn with the stages below, with Luby step limits. On
//!    compositions (some queens given) weighted min-conflicts over the free cells
//!    ([`weighted::Weighted`], near the end with exact searches on small pockets of rows,
//!    `pocket.rs`) gets `WEIGHTED_SHARE` times the time of the others.
//! 6. Many free rows: random greedy placement, swap repair of the rows left over
//!    ([`board::Board::swap_repair`]), then the tail search on those rows plus a growing random set of
//!    placed ones; restarts until the time limit.
//!
//! The stages take turns in `portfolio.rs` (one run per thread; [`complete`] races
//! `Options::threads` of them). Every board returned is checked with [`find_conflict`] and
//! keeps the given queens.

pub mod anneal;
pub mod board;
pub mod clock;
pub mod matching;
mod pocket;
mod portfolio;
pub mod small;
pub mod tail;
mod verdict;
pub mod weighted;

pub use verdict::{Completion, Proof, Stats, Verdict};

use super::placement::Placement;
use super::verify::{find_conflict, Conflict};
use board::{Board, NONE};
use clock::Deadline;
use portfolio::solve_with;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Settings of [`complete`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Queens also attack along nightrider lines.
    pub nightrider: bool,
    /// Wall-clock budget; after it a NO is reported as not proven.
    pub time_limit: Duration,
    /// Seed of the random choices (same seed, same run when `threads` is 1).
    pub seed: u64,
    /// Independent runs of the stages, one per thread, each with its own seed (the first
    /// with `seed`); the first answer stops the others. Boards of more than
    /// [`THREADS_MAX_N`] rows use one: each thread holds its own copy of the board.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            nightrider: false,
            time_limit: Duration::from_secs(10),
            seed: 1,
            threads: 1,
        }
    }
}

/// Largest board raced on several threads (each holds a copy: at most about 9 MB).
pub const THREADS_MAX_N: usize = 1 << 16;
/// Bytes per row [`complete`] may need at its peak: queens (measured peak RSS at N = 10^7,
/// empty board, 2026-11-23, plus a margin) and nightrider-queens (whose annealing keeps a
/// `u32` count for each of its ~16 lines per row).
const BYTES_PER_ROW: [u64; 2] = [40, 140];

/// About the most memory [`complete`] (and a `nqueens complete` run around it) needs for a
/// board of size `n`, to refuse a board that cannot fit before allocating anything.
///
/// # Examples
/// ```
/// use nqueens::complete::memory_needed;
/// assert!(memory_needed(1000, true) > memory_needed(1000, false));
/// ```
pub fn memory_needed(n: usize, nightrider: bool) -> u64 {
    BYTES_PER_ROW[usize::from(nightrider)].saturating_mul(n as u64)
}

/// Completes `placement` or shows it cannot be completed.
///
/// # Errors
/// The first pair of given queens that attack each other (rows, columns, diagonals, and
/// nightrider lines with `opts.nightrider`), as [`find_conflict`] reports it.
///
/// # Panics
/// If the board it builds fails verification (a bug, never expected), in any of its threads.
///
/// # Complexity
/// Expected O(n) time and memory for random compositions; exponential in the worst case (the
/// problem is NP-complete), bounded by `opts.time_limit`.
///
/// # Examples
/// ```
/// use nqueens::complete::{complete, Options, Verdict};
/// use nqueens::parse_placement;
/// // Queens at (1, 2) and (2, 4) on a 4×4 board: the only completion is 2 4 1 3.
/// let p = parse_placement(b"4 2\n1 2\n2 4\n").unwrap();
/// let done = complete(&p, &Options::default()).unwrap();
/// assert_eq!(done.verdict, Verdict::Yes(vec![2, 4, 1, 3]));
/// // A queen in a corner of a 4×4 board cannot be completed.
/// let p = parse_placement(b"4 1\n1 1\n").unwrap();
/// assert!(matches!(complete(&p, &Options::default()).unwrap().verdict, Verdict::Proven(_)));
/// ```
pub fn complete(placement: &Placement, opts: &Options) -> Result<Completion, Conflict> {
    let start = Instant::now();
    if let Some(c) = find_conflict(placement, opts.nightrider) {
        return Err(c);
    }
    let n = placement.n();
    let mut col = vec![NONE; n];
    for i in 0..placement.slots() {
        if let Some((r, c)) = placement.queen(i) {
            col[r] = c as u32;
        }
    }
    let board = Board::new(col, opts.nightrider);
    let fresh = Stats {
        given: n - board.free_rows.len(),
        free_rows: board.free_rows.len(),
        ..Stats::default()
    };
    let mut stats = fresh.clone();
    let at = start + opts.time_limit;
    let threads = if n <= THREADS_MAX_N {
        opts.threads.max(1)
    } else {
        1
    };
    let (verdict, mut board) = if opts.nightrider && (2..=9).contains(&n) {
        (Verdict::Proven(Proof::NoNightriderBoard { n }), board)
    } else if threads == 1 {
        solve_with(board, opts.seed, Deadline::new(at), &mut stats)
    } else {
        let (v, b, s) = race(&board, &fresh, opts.seed, at, threads);
        stats = s;
        (v, b)
    };
    let verdict = match verdict {
        Verdict::Yes(_) => {
            let mut cols = std::mem::take(&mut board.col);
            for c in cols.iter_mut() {
                *c += 1;
            }
            let full = Placement::Cols { n, cols };
            assert_eq!(
                find_conflict(&full, opts.nightrider),
                None,
                "built a bad board"
            );
            let Placement::Cols { cols, .. } = full else {
                unreachable!()
            };
            for i in 0..placement.slots() {
                if let Some((r, c)) = placement.queen(i) {
                    assert_eq!(cols[r], c as u32 + 1, "moved a given queen");
                }
            }
            Verdict::Yes(cols)
        }
        v => v,
    };
    stats.total_time = start.elapsed();
    Ok(Completion { verdict, stats })
}

/// Runs `threads` copies of [`solve_with`] on copies of `board`, thread `t` with seed
/// `seed + t · 0x9e37_79b9_7f4a_7c15` (thread 0 keeps `seed`); the first answer (YES or a
/// proof) raises a flag that stops the others. Returns that answer with its thread's board and
/// statistics, or NotFound when no thread had one by `at`. Every thread is joined.
fn race(
    board: &Board,
    fresh: &Stats,
    seed: u64,
    at: Instant,
    threads: usize,
) -> (Verdict, Board, Stats) {
    let stop = AtomicBool::new(false);
    let runs: Vec<_> = std::thread::scope(|s| {
        let spawned: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (board, mut stats) = (board.clone(), fresh.clone());
                let stop = &stop;
                let seed = seed.wrapping_add(t.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                s.spawn(move || {
                    let shared = Deadline::shared(at, stop);
                    let (v, board) = solve_with(board, seed, shared, &mut stats);
                    if !matches!(v, Verdict::NotFound) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    (v, board, stats)
                })
            })
            .collect();
        spawned
            .into_iter()
            .map(|h| h.join().expect("a completion thread panicked"))
            .collect()
    });
    // The first thread with an answer; the threads it stopped report NotFound.
    runs.into_iter()
        .reduce(|a, b| {
            if matches!(a.0, Verdict::NotFound) {
                b
            } else {
                a
            }
        })
        .expect("at least one thread")
}

#[cfg(test)]
mod tests;
