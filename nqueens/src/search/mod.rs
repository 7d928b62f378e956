//! A random N-Queens solution by greedy placement and conflict repair (the QS4 family of
//! Sosič and Gu; seeds 000 and 003 describe variants).
//!
//! The board is a permutation `cols` (one queen per row and per column, so only diagonals can
//! clash) plus, per diagonal direction, one occupancy bit per diagonal and a small map of the
//! diagonals that hold more than one queen. Three stages:
//!
//! 1. **Scramble** (boards below 2^20 rows): `cols` starts as a keyed pseudo-random
//!    permutation of `0..n`, computed entry by entry (no random memory access).
//! 2. **Greedy** (single candidates): row by row, the unused columns are `cols[r..]`. Row
//!    `r` tries up to [`TRIES`] random ones from the next [`WINDOW`] slots (a window that
//!    stays in cache) and takes the first whose two diagonals are empty, swapping it into
//!    `cols[r]`. A row that finds none, and each of the last `tail` rows, is *deferred*. The
//!    first candidates of a row (about three quarters of the recent mean number of tries, at
//!    most [`BATCH`]) are drawn [`AHEAD`] rows early and their diagonal bits prefetched, so
//!    the loop waits on memory much less than once per try; the loop is bound by memory
//!    traffic.
//!
//!    **Greedy by blocks** (boards from 2^20 rows, the first `BLOCK_END` percent of the
//!    rows): a random block of 64 consecutive columns is tested *at once* — the
//!    up-diagonals `r + c` of the block are 64 consecutive bits, the down-diagonals
//!    `r − c + n − 1` 64 consecutive bits in reverse order, and a taken-column bitset gives
//!    64 more — so three word windows (three cache lines, prefetched ahead) give every free
//!    column of the block, and the row takes a random one. A block with none moves on to
//!    the next block (up to `BLOCK_SPAN`, mostly the same cache lines) before a new random
//!    start. No permutation is needed: `cols` is written front to back. Afterwards the free
//!    columns are put, in a random order, as the unused part of `cols` for the last rows.
//!    With two threads (`search_with`'s `threads`; `nqueens solve` from 2^24 rows) both take
//!    chunks of rows in turn and claim bits with atomic read-modify-writes.
//! 3. **Repair**: each deferred row takes a column from the deferred rows' slots (the first
//!    conflict-free of a few random ones, else the least-attacked); then attacked queens are
//!    swapped with random partners, a swap kept only when the number of surplus queens on
//!    diagonals drops. A repair that stalls (tiny boards) restarts the whole search with the
//!    same random stream.
//!
//! Memory: `4n` bytes for `cols`, `(2n − 1) / 4` bytes of diagonal bits, `n / 8` bytes of
//! column bits while blocks are used, the free columns once (`0.12n` bytes), and a
//! map whose size is the number of crowded diagonals (at most the number of deferred rows):
//! about 4.8 bytes per queen.

mod blocks;
mod board;
mod greedy;
mod permutation;
mod repair;

use board::Board;
#[cfg(test)]
use permutation::Scramble;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// About the memory [`search`] needs per queen at its peak, output buffers included
/// (measured: 4.89 GB at N = 10^9), to refuse a board that cannot fit before allocating.
pub const BYTES_PER_QUEEN: f64 = 5.0;

/// Random candidate columns a row tries in the greedy stage before it is deferred.
pub const TRIES: usize = 48;

/// Candidates for row `r` come from slots `r..r + WINDOW`: 16 KB of `cols`, always cached.
pub const WINDOW: usize = 4096;

/// How many rows ahead the first candidates are drawn and their diagonals prefetched.
pub const AHEAD: usize = 32;

/// Most candidates of one row drawn ahead (late rows need several tries).
pub const BATCH: usize = 12;

/// Candidates drawn together once a row has used up its prefetched ones.
const GROUP: usize = 4;

/// Bits stored before diagonal 0, so that every 64-bit window is in bounds.
const PAD: usize = 64;

/// Boards from this size on switch to testing blocks of 64 columns in the middle rows.
pub const HYBRID_FROM: usize = 1 << 20;

/// The first rows, in percent of the board, tested by blocks (the rest by single
/// candidates). Blocks need no permutation (no second thread, no 4n-byte permutation
/// written ahead, no pass to find the taken columns). Measured 2026-11-23 (load 6–7,
/// interleaved with main's 35–90 %): 10^7 0.33 s CPU against 0.52, 10^8 5.3–5.9 s against
/// 6.3–7.7, 10^9 93.5 s against 129 s (docs/benchmarks.md). Split at 10^8 (CPU s, one run
/// each, load 11–12, noise about ±0.5 s): 90 % 6.76, 94 % 6.26, 97 % 6.04 and 5.49, 99 % 6.82.
/// With two threads (the main thread's CPU time, the critical path, at 10^8, one run each,
/// load 4–5): 93 % 5.07, 95 % 5.79, 97 % 4.85 and 4.92, 98.5 % 5.32, 99.5 % 5.93.
const BLOCK_END: usize = 97;

/// Neighbouring blocks of 64 columns a block try scans from its random start (eight words
/// are one cache line of each bitset, so the extra blocks cost little). At 10^8 with
/// [`BLOCK_END`] 97 (CPU s, same sitting): 4 blocks 6.84 (45 650 deferred rows), 8 blocks
/// 6.04 / 5.49 (35 998), 16 blocks 6.08 (30 619).
const BLOCK_SPAN: usize = 8;

/// Blocks of 64 columns a middle row tests before it is deferred.
const BLOCK_TRIES: usize = 16;

/// What the search reports while it runs (for progress lines on big boards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// `done` of `total` rows were visited by the greedy stage.
    Greedy { done: usize, total: usize },
    /// The greedy stage left `deferred` rows to the repair stage.
    Repairing { deferred: usize },
    /// The repair stalled; the search starts over (attempt number `attempt`, from 1).
    Restart { attempt: u32 },
}

/// Counts from one run of [`search_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Candidate columns the greedy stage tried, over all attempts.
    pub greedy_tries: u64,
    /// Rows the greedy stage deferred, in the last attempt.
    pub deferred: usize,
    /// Swap candidates evaluated by the repair stage, over all attempts.
    pub repair_tries: u64,
    /// Swaps the repair stage kept, over all attempts.
    pub repair_swaps: u64,
    /// Times the search started over.
    pub restarts: u32,
}

/// A random solution for `n` queens, deterministic for a given `seed`: entry `r` is the
/// 0-based column of the queen in row `r`. `None` when `n` has no solution (0, 2, 3).
///
/// # Panics
/// If `n ≥ u32::MAX` (columns are stored as `u32`).
///
/// # Complexity
/// Expected O(n) time (a few cached candidate checks per row) and about `4.6n` bytes.
///
/// # Examples
/// ```
/// use nqueens::search::search;
/// use nqueens::{find_conflict, Placement};
/// let cols = search(1000, 7).unwrap();
/// assert_eq!(cols, search(1000, 7).unwrap()); // same seed, same board
/// let p = Placement::Cols { n: 1000, cols: cols.iter().map(|&c| c + 1).collect() };
/// assert_eq!(find_conflict(&p, false), None);
/// assert_eq!(search(3, 7), None);
/// ```
pub fn search(n: usize, seed: u64) -> Option<Vec<u32>> {
    search_with(n, seed, 1, |_| {}).map(|(cols, _)| cols)
}

/// [`search`] that also reports [`Progress`] and returns [`SearchStats`]. With `threads` ≥ 2
/// and at least [`HYBRID_FROM`] rows a second thread places block rows too: faster, but the
/// board then depends on the threads' timing, not only on `seed`.
///
/// # Panics
/// If `n ≥ u32::MAX`.
pub fn search_with(
    n: usize,
    seed: u64,
    threads: usize,
    mut progress: impl FnMut(Progress),
) -> Option<(Vec<u32>, SearchStats)> {
    assert!(n < u32::MAX as usize, "n = {n} does not fit in u32 columns");
    match n {
        0 | 2 | 3 => return None,
        1 => return Some((vec![0], SearchStats::default())),
        _ => {}
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut stats = SearchStats::default();
    let mut board = Board::new(n);
    let mut attempt = 0;
    loop {
        if attempt > 0 {
            board.clear();
            stats.restarts += 1;
            progress(Progress::Restart { attempt });
        }
        attempt += 1;
        let deferred = board.greedy(threads, &mut rng, &mut stats, &mut progress);
        stats.deferred = deferred.len();
        progress(Progress::Repairing {
            deferred: deferred.len(),
        });
        let mut attacked = board.place_deferred(&deferred, &mut rng);
        if board.repair(&mut attacked, &mut rng, &mut stats) {
            return Some((board.cols, stats));
        }
    }
}

/// A uniform random index in `0..len` from 64 random bits (Lemire's multiply-shift).
#[inline(always)]
fn below(bits: u64, len: usize) -> usize {
    ((u128::from(bits) * len as u128) >> 64) as usize
}

/// Progress lines about every tenth of the board (a counter: no division per row).
struct Report {
    every: usize,
    next: usize,
    total: usize,
}

impl Report {
    fn new(n: usize) -> Self {
        let every = (n / 10).max(1);
        Report {
            every,
            next: every,
            total: n,
        }
    }

    #[inline(always)]
    fn tick(&mut self, row: usize, progress: &mut impl FnMut(Progress)) {
        // `>=`: the block rows report at the start of each chunk of rows.
        if row >= self.next {
            progress(Progress::Greedy {
                done: row,
                total: self.total,
            });
            while self.next <= row {
                self.next += self.every;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::board::Diagonals;
    use super::*;
    use crate::verify::is_peaceful_permutation as peaceful;
    use rand::Rng;

    #[test]
    fn scramble_is_a_permutation() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for n in [1usize, 2, 3, 5, 64, 1000, 4097, (1 << 20) + 1] {
            let mut out = vec![0u32; n];
            Scramble::new(n, &mut rng).fill(0, &mut out);
            let mut seen = vec![false; n];
            for &x in &out {
                assert!(!seen[x as usize], "n = {n}: {x} twice");
                seen[x as usize] = true;
            }
        }
    }

    #[test]
    fn windows_read_any_bit_offset() {
        let mut words = [0x0123_4567_89AB_CDEFu64, 0xFEDC_BA98_7654_3210, 0];
        let atomic = blocks::atomic(&mut words);
        for at in 0..=64 {
            let expected = (0..64).fold(0u64, |w, i| {
                let bit = atomic[(at + i) / 64].load(std::sync::atomic::Ordering::Relaxed)
                    >> ((at + i) % 64)
                    & 1;
                w | bit << i
            });
            assert_eq!(blocks::window(atomic, at), expected, "at = {at}");
        }
    }

    #[test]
    fn free_block_matches_cell_by_cell() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for n in [5usize, 64, 65, 200, 1000] {
            let mut board = Board::new(n);
            // Queens anywhere (attacks allowed) in a scrambled permutation's first rows.
            Scramble::new(n, &mut rng).fill(0, &mut board.cols);
            let placed = n / 3;
            for r in 0..placed {
                board.add(r, board.cols[r] as usize);
            }
            let mut used = board.no_columns_taken();
            for &c in &board.cols[..placed] {
                used[c as usize / 64] |= 1 << (c % 64);
            }
            let probes: Vec<(usize, usize)> = (0..300)
                .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
                .collect();
            let (mut up, mut down) = (board.up.bits.clone(), board.down.bits.clone());
            let lanes = blocks::Lanes {
                n,
                used: blocks::atomic(&mut used),
                up: blocks::atomic(&mut up),
                down: blocks::atomic(&mut down),
            };
            for (r, c0) in probes {
                let block = lanes.free_block(r, c0);
                for i in 0..64 {
                    let c = c0 + i;
                    let free = c < n
                        && !board.cols[..placed].contains(&(c as u32))
                        && board.load(r, c) == 0;
                    assert_eq!(block >> i & 1 == 1, free, "n={n} r={r} c={c}");
                }
            }
        }
    }

    #[test]
    fn two_threads_give_a_peaceful_board() {
        for (n, seed) in [(HYBRID_FROM + 3, 1), (3 * HYBRID_FROM, 2)] {
            let (cols, stats) = search_with(n, seed, 2, |_| {}).unwrap();
            assert!(peaceful(&cols), "n = {n}");
            assert!(stats.greedy_tries as usize >= n / 2, "{stats:?}");
        }
    }

    #[test]
    fn no_columns_taken_marks_only_the_missing_columns() {
        for n in [4usize, 63, 64, 65, 128, 1000] {
            let used = Board::new(n).no_columns_taken();
            for c in 0..used.len() * 64 {
                assert_eq!(
                    used[c / 64] >> (c % 64) & 1 == 1,
                    c >= n,
                    "n = {n}, c = {c}"
                );
            }
        }
    }

    #[test]
    fn diagonal_counts_follow_adds_and_removes() {
        let mut d = Diagonals::new(130);
        assert!(!d.add(129));
        assert!(d.add(129));
        assert!(d.add(129));
        assert_eq!(d.count(129), 3);
        assert!(d.remove(129));
        assert!(d.remove(129));
        assert!(!d.remove(129));
        assert_eq!(d.count(129), 0);
        assert!(d.extra.is_empty());
    }

    #[test]
    fn solves_small_and_medium_boards() {
        assert_eq!(search(0, 1), None);
        assert_eq!(search(2, 1), None);
        assert_eq!(search(3, 1), None);
        assert_eq!(search(1, 1), Some(vec![0]));
        for n in (4..300).chain([1000, 4096, 65_537, HYBRID_FROM + 5]) {
            for seed in 0..2 {
                let cols = search(n, seed).unwrap();
                assert!(peaceful(&cols), "n = {n} seed = {seed}");
            }
        }
    }

    #[test]
    fn deterministic_per_seed_and_varies_across_seeds() {
        let a = search(5000, 11).unwrap();
        assert_eq!(a, search(5000, 11).unwrap());
        assert_ne!(a, search(5000, 12).unwrap());
        // With the scrambling thread and the block rows too.
        let n = HYBRID_FROM + 3;
        let b = search(n, 11).unwrap();
        assert!(peaceful(&b));
        assert_eq!(b, search(n, 11).unwrap());
    }

    #[test]
    fn reports_progress_and_stats() {
        let mut seen = Vec::new();
        let (_, stats) = search_with(100_000, 3, 1, |p| seen.push(p)).unwrap();
        assert!(seen.contains(&Progress::Greedy {
            done: 100_000,
            total: 100_000
        }));
        // The tail alone is deferred, plus a few rows that ran out of tries.
        assert!(
            stats.deferred >= 1000 && stats.deferred < 10_000,
            "{stats:?}"
        );
        assert!(stats.greedy_tries >= 99_000);
    }
}
