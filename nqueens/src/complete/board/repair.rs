//! The swap repair of [`Board`] (Sosic & Gu, seed 003; seed 000's swap search): a full
//! assignment of the free rows to the free columns in which lines may hold several queens,
//! improved by swapping the columns of two rows while that lowers the number of attacking
//! pairs. Uses the per-line counts (`Board::count`), built on first use.

use super::{Board, CLOCK_EVERY, NONE};
use crate::complete::clock::Deadline;
use rand::Rng;

/// A line count the swap repair never exceeds (so `u8` counters cannot overflow).
const COUNT_CAP: u8 = 200;

/// Free rows up to which the swap repair scans every partner of an attacked row.
const FULL_SCAN_ROWS: usize = 400;

impl Board {
    /// Queens sharing a line with the queen of row `r` (which must hold one).
    #[inline]
    fn conflicts(&self, r: usize) -> u32 {
        let keys = self.lines.keys(r, self.col[r] as usize);
        keys[..self.lines.fams]
            .iter()
            .map(|&k| self.count[k] as u32 - 1)
            .sum()
    }

    /// Adds a queen without checking its lines; returns the number of queens it now shares
    /// lines with, or `None` (and changes nothing) if a line would exceed the count cap.
    #[inline]
    fn add(&mut self, r: usize, c: u32) -> Option<u32> {
        let keys = self.lines.keys(r, c as usize);
        let keys = &keys[..self.lines.fams];
        if keys.iter().any(|&k| self.count[k] >= COUNT_CAP) {
            return None;
        }
        let mut shared = 0;
        for &k in keys {
            shared += self.count[k] as u32;
            self.inc(k);
        }
        self.col[r] = c;
        Some(shared)
    }

    /// Takes the queen off row `r`; returns the number of other queens it shared lines with.
    #[inline]
    fn remove(&mut self, r: usize) -> u32 {
        let c = self.col[r] as usize;
        let keys = self.lines.keys(r, c);
        let mut shared = 0;
        for &k in &keys[..self.lines.fams] {
            self.dec(k);
            shared += self.count[k] as u32;
        }
        self.col[r] = NONE;
        shared
    }

    /// Swaps the columns of rows `i` and `j` (both placed) if that lowers the number of
    /// attacking pairs, or keeps it equal and `sideways` is set.
    fn try_swap(&mut self, i: usize, j: usize, sideways: bool) -> Option<i64> {
        let (ci, cj) = (self.col[i], self.col[j]);
        let before = self.remove(i) as i64 + self.remove(j) as i64;
        if let Some(a) = self.add(i, cj) {
            if let Some(b) = self.add(j, ci) {
                let delta = (a + b) as i64 - before;
                if delta < 0 || (delta == 0 && sideways) {
                    return Some(delta);
                }
                self.remove(j);
            }
            self.remove(i);
        }
        // Back to the old counts, which were within the cap.
        self.add(i, ci).expect("restoring a queen");
        self.add(j, cj).expect("restoring a queen");
        None
    }

    /// The free row whose swap with `i` changes the number of attacking pairs the least
    /// (random among ties), and that change; the board is left as it was.
    fn best_swap(&mut self, i: usize, rng: &mut impl Rng) -> Option<(usize, i64)> {
        let mut best: Option<(usize, i64)> = None;
        let mut ties = 0u32;
        for t in 0..self.free_rows.len() {
            let j = self.free_rows[t] as usize;
            if j == i {
                continue;
            }
            let Some(delta) = self.force_swap(i, j) else {
                continue;
            };
            self.force_swap(i, j).expect("swapping back");
            match best {
                Some((_, d)) if delta > d => {}
                Some((_, d)) if delta == d => {
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        best = Some((j, delta));
                    }
                }
                _ => {
                    best = Some((j, delta));
                    ties = 1;
                }
            }
        }
        best
    }

    /// Swaps the columns of rows `i` and `j` whatever it costs (within the count cap).
    fn force_swap(&mut self, i: usize, j: usize) -> Option<i64> {
        let (ci, cj) = (self.col[i], self.col[j]);
        let before = self.remove(i) as i64 + self.remove(j) as i64;
        if let Some(a) = self.add(i, cj) {
            if let Some(b) = self.add(j, ci) {
                return Some((a + b) as i64 - before);
            }
            self.remove(i);
        }
        self.add(i, ci).expect("restoring a queen");
        self.add(j, cj).expect("restoring a queen");
        None
    }

    /// Swap repair (Sosic & Gu, seed 000): the rows of `left` take the unused columns of
    /// `pool` in random order, possibly attacking; then each attacked free row swaps columns
    /// with random free rows while that lowers the number of attacking pairs (sideways moves
    /// allowed now and then to leave plateaus). The given queens never move. Stops when no
    /// queen is attacked or after `stale` rounds without progress (or once `deadline` has
    /// passed); then takes the attacked queens off again and returns their rows (their
    /// columns go back to `pool`).
    ///
    /// # Complexity
    /// O(m) per round plus O(tries) per attacked row and round.
    pub fn swap_repair(
        &mut self,
        rng: &mut impl Rng,
        pool: &mut Vec<u32>,
        left: Vec<u32>,
        tries: u32,
        stale: u32,
        deadline: Deadline<'_>,
    ) -> Vec<u32> {
        self.ensure_counts();
        let m = self.free_rows.len();
        // Attacking pairs on the board, kept exact through every move.
        let Some(mut pairs) = self.scatter(rng, pool, &left) else {
            return left;
        };
        let mut hot: Vec<u32> = left;
        let mut best = i64::MAX;
        let mut rounds_without_progress = 0;
        loop {
            if pairs == 0 {
                return Vec::new();
            }
            hot.sort_unstable();
            hot.dedup();
            hot.retain(|&r| self.conflicts(r as usize) > 0);
            if hot.is_empty() {
                // Moves attacked rows outside the list: rescan them all.
                hot = (0..m)
                    .map(|i| self.free_rows[i])
                    .filter(|&r| self.conflicts(r as usize) > 0)
                    .collect();
            }
            if deadline.passed() {
                break;
            }
            if pairs < best {
                best = pairs;
                rounds_without_progress = 0;
            } else {
                rounds_without_progress += 1;
                if rounds_without_progress > stale {
                    break;
                }
            }
            pairs += self.repair_round(rng, &mut hot, tries, rounds_without_progress > 0, deadline);
        }
        self.take_off_attacked(pool)
    }

    /// Puts each row of `left` on a random column of `pool` (taken out of it), attacks
    /// allowed; returns the attacking pairs that adds to the (peaceful) board. `None` when a
    /// row finds no column within the count cap: then every row of `left` is empty again and
    /// its column back in `pool`.
    fn scatter(&mut self, rng: &mut impl Rng, pool: &mut Vec<u32>, left: &[u32]) -> Option<i64> {
        let mut pairs = 0i64;
        for &r in left {
            let r = r as usize;
            // Any column will do; the cap only matters on absurdly crowded lines.
            let mut placed = false;
            for _ in 0..pool.len() {
                let j = rng.random_range(0..pool.len());
                if let Some(shared) = self.add(r, pool[j]) {
                    pairs += shared as i64;
                    pool.swap_remove(j);
                    placed = true;
                    break;
                }
            }
            if !placed {
                // Give up on this start: undo and report every leftover row.
                for &r2 in left {
                    let c = self.col[r2 as usize];
                    if c != NONE {
                        self.remove(r2 as usize);
                        pool.push(c);
                    }
                }
                return None;
            }
        }
        Some(pairs)
    }

    /// One round of the swap repair over the attacked rows `hot` (rows a swap attacks are
    /// added to it); `stuck` when the last round did not lower the attacking pairs (sideways
    /// swaps and noise allowed). Returns the change in attacking pairs.
    fn repair_round(
        &mut self,
        rng: &mut impl Rng,
        hot: &mut Vec<u32>,
        tries: u32,
        stuck: bool,
        deadline: Deadline<'_>,
    ) -> i64 {
        let m = self.free_rows.len();
        let mut pairs = 0;
        for h in 0..hot.len() {
            if h % CLOCK_EVERY == CLOCK_EVERY - 1 && deadline.passed() {
                break;
            }
            let i = hot[h] as usize;
            if self.conflicts(i) == 0 {
                continue;
            }
            if m <= FULL_SCAN_ROWS {
                // Small board: the best partner of all (seed 000's scan "in a circle"),
                // taken even when it is sideways or worse now and then.
                if let Some((j, delta)) = self.best_swap(i, rng) {
                    if delta < 0 || (delta == 0 && stuck) || rng.random_range(0..16) == 0 {
                        pairs += self.force_swap(i, j).expect("within the cap");
                        if self.conflicts(j) > 0 {
                            hot.push(j as u32);
                        }
                    }
                }
                continue;
            }
            let mut moved = false;
            for _ in 0..tries {
                let j = self.free_rows[rng.random_range(0..m)] as usize;
                if j == i {
                    continue;
                }
                if let Some(delta) = self.try_swap(i, j, stuck) {
                    pairs += delta;
                    if self.conflicts(j) > 0 {
                        hot.push(j as u32);
                    }
                    moved = true;
                    break;
                }
            }
            if !moved && stuck && rng.random_range(0..8) == 0 {
                // Stuck: a random swap (noise) to leave the local minimum.
                let j = self.free_rows[rng.random_range(0..m)] as usize;
                if j != i {
                    if let Some(delta) = self.force_swap(i, j) {
                        pairs += delta;
                        hot.push(j as u32);
                    }
                }
            }
        }
        pairs
    }

    /// Takes the attacked queens off, most attacked first, until the rest are peaceful;
    /// returns their rows (their columns go back to `pool`).
    fn take_off_attacked(&mut self, pool: &mut Vec<u32>) -> Vec<u32> {
        let m = self.free_rows.len();
        let mut attacked: Vec<u32> = (0..m)
            .map(|i| self.free_rows[i])
            .filter(|&r| self.conflicts(r as usize) > 0)
            .collect();
        attacked.sort_by_key(|&r| std::cmp::Reverse(self.conflicts(r as usize)));
        let mut out = Vec::new();
        for r in attacked {
            let r = r as usize;
            if self.conflicts(r) > 0 {
                let c = self.col[r];
                self.remove(r);
                pool.push(c);
                out.push(r as u32);
            }
        }
        out
    }
}
