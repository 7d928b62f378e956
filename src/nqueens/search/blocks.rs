//! Block rows: a random block of 64 consecutive columns is tested at once with three word
//! windows (taken columns, up-diagonals, down-diagonals reversed), and the free columns are
//! put back in random order afterwards.

use super::board::Board;
use super::permutation::Scramble;
use super::{below, window, Progress, Report, SearchStats, AHEAD, BLOCK_SPAN, BLOCK_TRIES, PAD};
use crate::nqueens::mem::{prefetch, random_access_vec};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

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

    /// Bit `i` set when column `c0 + i` is free and both its diagonals through row `r` are
    /// empty: the up-diagonals `r + c` of the block are consecutive bits, the down-diagonals
    /// `r − c + n − 1` consecutive bits in reverse order.
    #[inline(always)]
    pub(super) fn free_block(&self, used: &[u64], r: usize, c0: usize) -> u64 {
        let (c, u, d) = self.block_at(r, c0);
        // The window starting 63 below the down-diagonal of column c0 holds that of column
        // c0 + i at bit 63 − i, hence the reversal.
        let down = window(&self.down.bits, d).reverse_bits();
        !(window(used, c) | window(&self.up.bits, u) | down)
    }

    /// Where the three windows of the block of columns from `c0` in row `r` start (bit
    /// positions in the column, up and down bitsets).
    #[inline(always)]
    pub(super) fn block_at(&self, r: usize, c0: usize) -> (usize, usize, usize) {
        (c0, r + c0 + PAD, r + self.n - c0 + PAD - 64)
    }

    #[inline(always)]
    pub(super) fn prefetch_block(&self, used: &[u64], r: usize, c0: usize) {
        let (c, u, d) = self.block_at(r, c0);
        prefetch(&used[c / 64]);
        prefetch(&self.up.bits[u / 64]);
        prefetch(&self.down.bits[d / 64]);
    }

    /// The greedy stage on rows `start..stop` by blocks: a random block of 64 consecutive
    /// columns is tested with three word windows (three cache lines, prefetched [`AHEAD`]
    /// rows early) and the row takes a random free column of it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn block_rows(
        &mut self,
        start: usize,
        stop: usize,
        used: &mut [u64],
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        deferred: &mut Vec<u32>,
        report: &mut Report,
        progress: &mut impl FnMut(Progress),
    ) {
        let n = self.n;
        let mut first = [0usize; AHEAD];
        for row in start..(start + AHEAD).min(stop) {
            first[row % AHEAD] = below(rng.random(), n);
            self.prefetch_block(used, row, first[row % AHEAD]);
        }
        let mut tries = 0u64;
        for r in start..stop {
            let mut c0 = first[r % AHEAD];
            if r + AHEAD < stop {
                let next = below(rng.random(), n);
                first[r % AHEAD] = next;
                self.prefetch_block(used, r + AHEAD, next);
            }
            report.tick(r, progress);
            let mut placed = false;
            'tries: for t in 0..BLOCK_TRIES {
                if t > 0 {
                    c0 = below(rng.random(), n);
                }
                // The blocks after c0 share its cache lines (one line holds 8 words).
                for c in (c0..n).step_by(64).take(BLOCK_SPAN) {
                    let free = self.free_block(used, r, c);
                    if free != 0 {
                        tries += t as u64 + 1;
                        self.take_from_block(used, r, c, free, rng);
                        placed = true;
                        break 'tries;
                    }
                }
            }
            if !placed {
                tries += BLOCK_TRIES as u64;
                deferred.push(r as u32);
            }
        }
        stats.greedy_tries += tries;
    }

    /// Places row `r` on a random free column of the block from `c0` (`free`: its bits).
    #[inline(always)]
    fn take_from_block(
        &mut self,
        used: &mut [u64],
        r: usize,
        c0: usize,
        free: u64,
        rng: &mut impl Rng,
    ) {
        // Rotate by a random turn, take the lowest.
        let turn = rng.random::<u32>() % 64;
        let c = c0 + ((free.rotate_right(turn).trailing_zeros() + turn) % 64) as usize;
        self.cols[r] = c as u32;
        used[c / 64] |= 1 << (c % 64);
        let (d, u) = self.diagonals(r, c);
        self.down.set(d);
        self.up.set(u);
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
