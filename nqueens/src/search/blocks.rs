//! Block rows: a random block of 64 consecutive columns is tested at once with three word
//! windows (taken columns, up-diagonals, down-diagonals reversed), and the free columns are
//! put back in random order afterwards.

use super::board::Board;
use super::permutation::Scramble;
use super::{below, Progress, Report, SearchStats, AHEAD, BLOCK_SPAN, BLOCK_TRIES, PAD};
use crate::mem::{prefetch, random_access_vec};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::thread;

/// Rows a thread of the block stage takes at a time (the prefetch pipeline restarts at each
/// chunk: 32 rows of 65 536).
const CHUNK: usize = 1 << 16;

// `atomic` reinterprets `u64` words as `AtomicU64`: same size, and the same alignment here.
const _: () = assert!(std::mem::align_of::<u64>() == std::mem::align_of::<AtomicU64>());

/// The words of a bitset as atomics, for the threads of the block stage.
pub(super) fn atomic(words: &mut [u64]) -> &[AtomicU64] {
    // SAFETY: `AtomicU64` has the size and bit validity of `u64`, and its alignment (checked
    // above); the exclusive borrow guarantees no non-atomic access while the result lives.
    unsafe { &*(words as *mut [u64] as *const [AtomicU64]) }
}

/// Bits `at..at + 64` of an atomic bitset as one word (relaxed loads), like
/// used for 64-column blocks.
#[inline(always)]
pub(super) fn window(words: &[AtomicU64], at: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    let (lo, hi) = (words[w].load(Relaxed), words[w + 1].load(Relaxed));
    (lo >> b) | ((hi << 1) << (63 - b))
}

/// Sets `bit` in `word`; false when it was set already. `SHARED`: one atomic
/// read-modify-write (another thread may set bits of the same word); otherwise a plain load
/// and store (one thread only).
#[inline(always)]
fn claim_bit<const SHARED: bool>(word: &AtomicU64, bit: u64) -> bool {
    if SHARED {
        word.fetch_or(bit, Relaxed) & bit == 0
    } else {
        let old = word.load(Relaxed);
        word.store(old | bit, Relaxed);
        old & bit == 0
    }
}

/// The three bitsets of the block stage (taken columns, up- and down-diagonals), shared by
/// its threads.
pub(super) struct Lanes<'a> {
    pub(super) n: usize,
    pub(super) used: &'a [AtomicU64],
    pub(super) up: &'a [AtomicU64],
    pub(super) down: &'a [AtomicU64],
}

impl Lanes<'_> {
    /// Bit `i` set when column `c0 + i` is free and both its diagonals through row `r` are
    /// empty: the up-diagonals `r + c` of the block are consecutive bits, the down-diagonals
    /// `r − c + n − 1` consecutive bits in reverse order.
    #[inline(always)]
    pub(super) fn free_block(&self, r: usize, c0: usize) -> u64 {
        let (c, u, d) = self.block_at(r, c0);
        // The window starting 63 below the down-diagonal of column c0 holds that of column
        // c0 + i at bit 63 − i, hence the reversal.
        let down = window(self.down, d).reverse_bits();
        !(window(self.used, c) | window(self.up, u) | down)
    }

    /// Where the three windows of the block of columns from `c0` in row `r` start (bit
    /// positions in the column, up and down bitsets).
    #[inline(always)]
    fn block_at(&self, r: usize, c0: usize) -> (usize, usize, usize) {
        (c0, r + c0 + PAD, r + self.n - c0 + PAD - 64)
    }

    #[inline(always)]
    fn prefetch_block(&self, r: usize, c0: usize) {
        let (c, u, d) = self.block_at(r, c0);
        prefetch(&self.used[c / 64]);
        prefetch(&self.up[u / 64]);
        prefetch(&self.down[d / 64]);
    }

    /// Takes column `c` and both diagonals of `(r, c)`; false (nothing taken) when another
    /// thread took one of them since the block was read.
    #[inline(always)]
    fn claim<const SHARED: bool>(&self, r: usize, c: usize) -> bool {
        let (u, d) = (r + c + PAD, r + self.n - 1 - c + PAD);
        let bit = |i: usize| 1u64 << (i % 64);
        if !claim_bit::<SHARED>(&self.used[c / 64], bit(c)) {
            return false;
        }
        if !claim_bit::<SHARED>(&self.up[u / 64], bit(u)) {
            self.used[c / 64].fetch_and(!bit(c), Relaxed);
            return false;
        }
        if !claim_bit::<SHARED>(&self.down[d / 64], bit(d)) {
            self.used[c / 64].fetch_and(!bit(c), Relaxed);
            self.up[u / 64].fetch_and(!bit(u), Relaxed);
            return false;
        }
        true
    }

    /// Places rows `start..start + cols.len()` (`cols`: their slots), each on a random free
    /// column of the first block with one, from random starts, scanning up to
    /// [`BLOCK_SPAN`] neighbouring blocks per start (they share its cache lines); a row
    /// without one after [`BLOCK_TRIES`] starts is deferred. Returns the starts tried.
    fn rows<const SHARED: bool>(
        &self,
        start: usize,
        cols: &mut [u32],
        rng: &mut Xoshiro256PlusPlus,
        deferred: &mut Vec<u32>,
    ) -> u64 {
        let n = self.n;
        let len = cols.len();
        let mut first = [0usize; AHEAD];
        for (k, c0) in first.iter_mut().enumerate().take(len) {
            *c0 = below(rng.random(), n);
            self.prefetch_block(start + k, *c0);
        }
        let mut tries = 0u64;
        for (k, slot) in cols.iter_mut().enumerate() {
            let r = start + k;
            let mut c0 = first[k % AHEAD];
            if k + AHEAD < len {
                let next = below(rng.random(), n);
                first[k % AHEAD] = next;
                self.prefetch_block(r + AHEAD, next);
            }
            let mut placed = false;
            'tries: for t in 0..BLOCK_TRIES {
                if t > 0 {
                    c0 = below(rng.random(), n);
                }
                for c in (c0..n).step_by(64).take(BLOCK_SPAN) {
                    let free = self.free_block(r, c);
                    if free != 0 {
                        // A random free column: rotate by a random turn, take the lowest.
                        let turn = rng.random::<u32>() % 64;
                        let col =
                            c + ((free.rotate_right(turn).trailing_zeros() + turn) % 64) as usize;
                        if self.claim::<SHARED>(r, col) {
                            *slot = col as u32;
                            tries += t as u64 + 1;
                            placed = true;
                            break 'tries;
                        }
                    }
                }
            }
            if !placed {
                tries += BLOCK_TRIES as u64;
                deferred.push(r as u32);
            }
        }
        tries
    }
}

impl Board {
    /// The taken-column bitset before any row is placed: bits from `n` on are set (no such
    /// column), with a spare word for 64-bit windows.
    pub(super) fn no_columns_taken(&self) -> Vec<u64> {
        let n = self.n;
        let mut used: Vec<u64> = random_access_vec(n.div_ceil(64) + 2);
        used[n / 64] = !0 << (n % 64);
        used[n / 64 + 1..].fill(u64::MAX);
        used
    }

    /// The greedy stage on rows `0..stop` by blocks: a random block of 64 consecutive
    /// columns is tested with three word windows (three cache lines, prefetched [`AHEAD`]
    /// rows early) and the row takes a random free column of it. With `threads` ≥ 2 a second
    /// thread places rows too: both take chunks of [`CHUNK`] rows in turn and claim each
    /// cell's column and diagonal bits with atomic read-modify-writes (a bit the other thread
    /// set first makes the row try on), so the board then depends on the threads' timing.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn block_rows(
        &mut self,
        stop: usize,
        used: &mut [u64],
        threads: usize,
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        deferred: &mut Vec<u32>,
        report: &mut Report,
        progress: &mut impl FnMut(Progress),
    ) {
        let Board {
            n, cols, up, down, ..
        } = self;
        let lanes = Lanes {
            n: *n,
            used: atomic(used),
            up: atomic(&mut up.bits),
            down: atomic(&mut down.bits),
        };
        let chunks = Mutex::new(cols[..stop].chunks_mut(CHUNK).enumerate());
        let next = || chunks.lock().expect("no thread panics holding it").next();
        if threads < 2 {
            while let Some((i, rows)) = next() {
                report.tick(i * CHUNK, progress);
                stats.greedy_tries += lanes.rows::<false>(i * CHUNK, rows, rng, deferred);
            }
            return;
        }
        let mut other = rng.clone();
        other.jump();
        let lanes = &lanes;
        let (tries, theirs) = thread::scope(|s| {
            let helper = s.spawn(move || {
                let (mut tries, mut deferred) = (0, Vec::new());
                while let Some((i, rows)) = next() {
                    tries += lanes.rows::<true>(i * CHUNK, rows, &mut other, &mut deferred);
                }
                (tries, deferred)
            });
            while let Some((i, rows)) = next() {
                report.tick(i * CHUNK, progress);
                stats.greedy_tries += lanes.rows::<true>(i * CHUNK, rows, rng, deferred);
            }
            helper.join().expect("the block thread does not panic")
        });
        stats.greedy_tries += tries;
        deferred.extend(theirs);
    }

    /// After the block rows: the free columns, in a random order, go to the deferred rows'
    /// slots and to `cols[start..]`, so single-candidate rows can follow.
    pub(super) fn refill(
        &mut self,
        start: usize,
        used: &[u64],
        deferred: &[u32],
        rng: &mut impl Rng,
    ) {
        let n = self.n;
        // Word by word: a bit-by-bit scan cost about a second at 10^9.
        let mut free = Vec::with_capacity(n - start + deferred.len());
        for (w, &word) in used.iter().enumerate() {
            let mut bits = !word;
            while bits != 0 {
                free.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        debug_assert_eq!(free.len(), n - start + deferred.len());
        let order = Scramble::new(free.len(), rng);
        let mut shuffled = (0..free.len() as u64).map(|i| free[order.apply(i) as usize]);
        for &r in deferred {
            self.cols[r as usize] = shuffled.next().expect("a free column per deferred row");
        }
        for (slot, c) in self.cols[start..].iter_mut().zip(shuffled) {
            *slot = c;
        }
    }
}
