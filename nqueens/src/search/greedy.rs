//! Greedy rows: each row takes the first of a few random unused columns (single candidates
//! from the permutation, prefetched ahead) whose diagonals are empty; large boards test the
//! first rows by blocks ([`super::blocks`]).

use super::board::Board;
use super::permutation::Scramble;
use super::{
    below, Progress, Report, SearchStats, AHEAD, BATCH, BLOCK_END, GROUP, HYBRID_FROM, TRIES,
    WINDOW,
};
use crate::mem::prefetch;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

impl Board {
    /// Places rows `0..n − tail` on empty diagonals where the tries allow; returns the
    /// deferred rows (each keeps an unused column in its own `cols` slot). Large boards test
    /// blocks of 64 columns in the first rows (see [`BLOCK_END`]); then single candidates
    /// from the unused part of `cols`, which small boards fill with a scrambled permutation
    /// first. `threads`: see [`Board::block_rows`].
    pub(super) fn greedy(
        &mut self,
        threads: usize,
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        progress: &mut impl FnMut(Progress),
    ) -> Vec<u32> {
        let n = self.n;
        let end = n - self.tail();
        let mut deferred = Vec::new();
        let mut report = Report::new(n);
        let from = if n >= HYBRID_FROM {
            (n / 100 * BLOCK_END).min(end)
        } else {
            Scramble::new(n, rng).fill(0, &mut self.cols);
            0
        };
        if from > 0 {
            let mut used = self.no_columns_taken();
            self.block_rows(
                from,
                &mut used,
                threads,
                rng,
                stats,
                &mut deferred,
                &mut report,
                progress,
            );
            self.refill(from, &used, &deferred, rng);
        }
        self.single_rows(from, end, rng, stats, &mut deferred, &mut report, progress);
        deferred.extend(end as u32..n as u32);
        progress(Progress::Greedy { done: n, total: n });
        deferred
    }

    /// The greedy stage on rows `start..stop` with single candidates from the unused part of
    /// the permutation, `cols[r..]`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn single_rows(
        &mut self,
        start: usize,
        stop: usize,
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        deferred: &mut Vec<u32>,
        report: &mut Report,
        progress: &mut impl FnMut(Progress),
    ) {
        // Tries are measured over blocks of this many rows to size the prefetched batches.
        const BLOCK: usize = 256;
        // Row r's first candidates (slots), drawn AHEAD rows early so their diagonal bits can
        // be prefetched; as many as the recent rows needed tries on average, at most BATCH.
        let mut ring = [[0usize; BATCH]; AHEAD];
        let mut batch = [1usize; AHEAD];
        let mut want = 1;
        for row in start..(start + AHEAD).min(stop) {
            self.draw(rng, row, 1, &mut ring[row % AHEAD]);
        }
        let (mut tries, mut block_tries) = (0u64, 0usize);
        for r in start..stop {
            let (slots, k) = (ring[r % AHEAD], batch[r % AHEAD]);
            if r + AHEAD < stop {
                self.draw(rng, r + AHEAD, want, &mut ring[(r + AHEAD) % AHEAD]);
                batch[(r + AHEAD) % AHEAD] = want;
            }
            // The window's leading edge is read in random order, which hides it from the
            // hardware's stream prefetcher: fetch it explicitly.
            if let Some(edge) = self.cols.get(r + AHEAD + WINDOW + 64) {
                prefetch(edge);
            }
            report.tick(r, progress);
            let mut placed = false;
            let mut t = 0;
            let mut group = slots;
            let mut size = k;
            'tries: while t < TRIES {
                for &j in &group[..size] {
                    t += 1;
                    let (d, u) = self.diagonals(r, self.cols[j] as usize);
                    if !self.down.occupied(d) && !self.up.occupied(u) {
                        self.down.set(d);
                        self.up.set(u);
                        self.cols.swap(r, j);
                        placed = true;
                        break 'tries;
                    }
                }
                // Out of prefetched candidates: draw the next few together so their cache
                // misses overlap instead of following one another.
                size = GROUP.min(TRIES - t);
                self.draw(rng, r, size, &mut group);
            }
            if !placed {
                deferred.push(r as u32);
            }
            tries += t as u64;
            block_tries += t;
            if r % BLOCK == BLOCK - 1 {
                // Three quarters of the recent mean: every prefetch costs memory bandwidth,
                // which bounds this loop (measured: 1.5× the mean was ~5% slower).
                want = (block_tries * 3 / 4).div_ceil(BLOCK).clamp(1, BATCH);
                block_tries = 0;
            }
        }
        stats.greedy_tries += tries;
    }

    /// Draws `k` candidate slots for `row` into `slots` and prefetches their diagonal bits.
    #[inline(always)]
    pub(super) fn draw(
        &self,
        rng: &mut Xoshiro256PlusPlus,
        row: usize,
        k: usize,
        slots: &mut [usize],
    ) {
        let span = WINDOW.min(self.n - row);
        for slot in &mut slots[..k] {
            *slot = row + below(rng.random(), span);
            let (d, u) = self.diagonals(row, self.cols[*slot] as usize);
            prefetch(self.down.word(d));
            prefetch(self.up.word(u));
        }
    }
}
