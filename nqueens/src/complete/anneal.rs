//! Simulated annealing over the permutation of free columns onto free rows (given queens
//! fixed), for nightrider boards with few given queens: there the greedy start leaves many
//! rows and neither the swap repair nor the tail search finds a board quickly, while plain
//! min-conflicts with occasional uphill swaps does.
//!
//! Cost: attacking pairs, Σ over lines of C(count, 2) (given queens never attack each other,
//! so every pair involves a free row). A move swaps the columns of a conflicted free row with
//! the best of a few random free rows (Metropolis rule on the delta); deltas come from the
//! line counters in O(families).
//!
//! For an empty board whose size `n` or `n + 1` is coprime to 210 the modular board
//! `col(i) = k·i mod n` (or that of size `n + 1` without its corner queen, [`modular`]) is a
//! solution at once.

use super::board::{Board, Lines, NONE};
use super::clock::Deadline;
use rand::seq::SliceRandom;
use rand::Rng;

/// Steps without a new best cost (per free row) before a random restart.
const RESTART_STEPS_PER_ROW: u64 = 300;
/// Random partners tried per step; the best one is proposed.
const PARTNERS: u32 = 32;

/// The temperature for `m` free rows: the larger of `TEMP_SCALE / ln(m / TEMP_ROWS)` and
/// `SMALL_SCALE · m^(−SMALL_POWER)`, clamped to 0.18..=0.8. Larger boards need a colder walk:
/// at equilibrium the expected number of attacking pairs grows like `m · exp(−1 / T)`, so `T`
/// must fall like `1 / ln m` for it to stay near zero; small boards need more heat to leave
/// their plateaus, falling faster with `m`. Measured on empty nightrider boards (anneal
/// alone, 5 seeds each, 2 s cap, 2026-11-23), the best temperatures were: 0.55–0.65 at
/// m = 60, 0.40–0.55 at 80, about 0.35 at 120, 0.26–0.30 at 160, 0.22–0.26 at 200–280 and
/// 0.18–0.22 from 320 to 2000, which the curve follows; the former fixed 0.45 failed within
/// 8 s on m = 224 and 284 (2 and 4 of 4 seeds), and 0.35 on m = 500 and 1000.
fn temperature(m: usize) -> f64 {
    let m = m.max(2) as f64;
    let large = TEMP_SCALE / (m / TEMP_ROWS).ln();
    let small = SMALL_SCALE * m.powf(-SMALL_POWER);
    large.max(small).clamp(0.18, 0.8)
}

/// See [`temperature`].
const TEMP_SCALE: f64 = 1.54;
/// See [`temperature`].
const TEMP_ROWS: f64 = 0.66;
/// See [`temperature`].
const SMALL_SCALE: f64 = 9.3;
/// See [`temperature`].
const SMALL_POWER: f64 = 0.69;

/// Annealing state, kept between the portfolio's calls.
pub struct Anneal {
    lines: Lines,
    /// Queens on each line, given ones included.
    count: Vec<u32>,
    /// Free rows.
    rows: Vec<u32>,
    /// Column of the queen of `rows[i]`.
    col: Vec<u32>,
    /// Attacking pairs now.
    cost: i64,
    /// Lowest cost since the last restart, and the step it was reached.
    best: i64,
    best_step: u64,
    step: u64,
    /// Indices into `rows` that may be attacked (checked when drawn).
    hot: Vec<u32>,
    /// Temperature: an uphill swap of `d` pairs is taken with probability exp(−d / temp).
    temp: f64,
    /// Random partners tried per step.
    tries: u32,
}

impl Anneal {
    /// Starts from a random permutation of `board`'s free columns (placed queens are ignored:
    /// only the given ones count).
    pub fn new(board: &Board, rng: &mut impl Rng) -> Self {
        let lines = board.lines.clone();
        let mut count = vec![0u32; lines.total()];
        let mut is_free = vec![false; board.n];
        for &r in &board.free_rows {
            is_free[r as usize] = true;
        }
        for (r, &c) in board.col.iter().enumerate() {
            if c != NONE && !is_free[r] {
                for &k in &lines.keys(r, c as usize)[..lines.fams] {
                    count[k] += 1;
                }
            }
        }
        let m = board.free_rows.len();
        let tries = PARTNERS;
        let mut a = Anneal {
            tries,
            lines,
            count,
            rows: board.free_rows.clone(),
            col: board.free_cols.clone(),
            cost: 0,
            best: 0,
            best_step: 0,
            step: 0,
            hot: Vec::new(),
            temp: temperature(m),
        };
        debug_assert_eq!(m, a.col.len());
        // `restart` takes the current queens off first.
        for i in 0..m {
            a.add(i);
        }
        a.restart(rng);
        a
    }

    /// A fresh random permutation.
    fn restart(&mut self, rng: &mut impl Rng) {
        for i in 0..self.rows.len() {
            self.remove(i);
        }
        self.col.shuffle(rng);
        self.cost = 0;
        for i in 0..self.rows.len() {
            self.cost += self.add(i) as i64;
        }
        self.best = self.cost;
        self.best_step = self.step;
        self.rescan();
    }

    fn rescan(&mut self) {
        self.hot = (0..self.rows.len() as u32)
            .filter(|&i| self.conflicts(i as usize) > 0)
            .collect();
    }

    /// Other queens on the lines of row `i`'s queen.
    #[inline]
    fn conflicts(&self, i: usize) -> u32 {
        let keys = self.lines.keys(self.rows[i] as usize, self.col[i] as usize);
        keys[..self.lines.fams]
            .iter()
            .map(|&k| self.count[k] - 1)
            .sum()
    }

    /// Puts row `i`'s queen on its lines; returns the queens it now shares lines with.
    #[inline]
    fn add(&mut self, i: usize) -> u32 {
        let keys = self.lines.keys(self.rows[i] as usize, self.col[i] as usize);
        let mut shared = 0;
        for &k in &keys[..self.lines.fams] {
            shared += self.count[k];
            self.count[k] += 1;
        }
        shared
    }

    /// Takes row `i`'s queen off its lines; returns the queens it shared lines with.
    #[inline]
    fn remove(&mut self, i: usize) -> u32 {
        let keys = self.lines.keys(self.rows[i] as usize, self.col[i] as usize);
        let mut shared = 0;
        for &k in &keys[..self.lines.fams] {
            self.count[k] -= 1;
            shared += self.count[k];
        }
        shared
    }

    /// Swaps the columns of rows `i` and `j`; returns the change in attacking pairs.
    #[inline]
    fn swap(&mut self, i: usize, j: usize) -> i64 {
        let before = self.remove(i) as i64 + self.remove(j) as i64;
        self.col.swap(i, j);
        let after = self.add(i) as i64 + self.add(j) as i64;
        after - before
    }

    /// Runs at most `steps` swaps (stopping at `deadline`); true when no queen is attacked.
    ///
    /// # Complexity
    /// O(1) per step (6 line families), plus an O(m) rescan whenever the list of attacked
    /// rows runs dry and on restarts.
    pub fn run(&mut self, rng: &mut impl Rng, steps: u64, deadline: Deadline<'_>) -> bool {
        let m = self.rows.len();
        if m < 2 {
            return self.cost == 0;
        }
        let patience = RESTART_STEPS_PER_ROW * m as u64;
        for s in 0..steps {
            if self.cost == 0 {
                return true;
            }
            if s % 4096 == 4095 && deadline.passed() {
                return false;
            }
            self.step += 1;
            if self.step - self.best_step > patience {
                self.restart(rng);
                continue;
            }
            if self.hot.is_empty() {
                self.rescan();
            }
            let p = rng.random_range(0..self.hot.len());
            let i = self.hot[p] as usize;
            if self.conflicts(i) == 0 {
                self.hot.swap_remove(p);
                continue;
            }
            // The best of a few random partners (random among ties).
            let mut j = usize::MAX;
            let mut delta = i64::MAX;
            let mut ties = 0;
            for _ in 0..self.tries {
                let t = rng.random_range(0..m);
                if t == i {
                    continue;
                }
                let d = self.swap(i, t);
                self.swap(i, t);
                if d < delta {
                    (j, delta, ties) = (t, d, 1);
                } else if d == delta {
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        j = t;
                    }
                }
            }
            if j == usize::MAX {
                continue;
            }
            let delta = self.swap(i, j);
            let take = delta <= 0 || rng.random::<f64>() < (-(delta as f64) / self.temp).exp();
            if take {
                self.cost += delta;
                if self.conflicts(j) > 0 {
                    self.hot.push(j as u32);
                }
                if self.conflicts(i) == 0 {
                    self.hot.swap_remove(p);
                }
                if self.cost < self.best {
                    self.best = self.cost;
                    self.best_step = self.step;
                }
            } else {
                self.swap(i, j);
            }
        }
        self.cost == 0
    }

    /// Writes the (conflict-free) assignment onto `board`, whose placed queens must be
    /// cleared.
    pub fn apply(&self, board: &mut Board) {
        debug_assert_eq!(self.cost, 0);
        for (i, &r) in self.rows.iter().enumerate() {
            board.place(r as usize, self.col[i]);
        }
    }
}

/// A nightrider-queens board `col(i) = k·i mod n` (0-based), if some `k` makes it peaceful on
/// the torus: two queens `d` rows apart differ by `d·f(k)` on the line key of each family,
/// `f(k)` ∈ {k, 1 − k, 1 + k, 2 − k, 2 + k, 1 − 2k, 1 + 2k}, so it suffices that all of them
/// are coprime to `n`. Only possible when `n` is coprime to 2, 3, 5 and 7. Otherwise, when
/// `n + 1` is, the board of size `n + 1` has its queen of row 0 in the corner `(0, 0)`:
/// without that row and column it is a board of size `n` (removing a queen keeps the rest
/// peaceful). Together about 46 % of all sizes.
///
/// # Complexity
/// O(n log n).
///
/// # Examples
/// ```
/// use nqueens::complete::anneal::modular;
/// use nqueens::{find_conflict, Placement};
/// for n in [11, 12] {
///     let cols = modular(n).unwrap();
///     let p = Placement::Cols { n, cols: cols.iter().map(|&c| c + 1).collect() };
///     assert_eq!(find_conflict(&p, true), None);
/// }
/// assert_eq!(modular(14), None); // 14 = 2·7 and 15 = 3·5
/// ```
pub fn modular(n: usize) -> Option<Vec<u32>> {
    if n < 2 {
        return (n == 1).then(|| vec![0]);
    }
    if let Some(k) = torus_multiplier(n) {
        return Some(linear(n, k).collect());
    }
    let k = torus_multiplier(n + 1)?;
    // Rows 1..=n of the larger board, columns shifted down by one (column 0 is the corner's).
    Some(linear(n + 1, k).skip(1).map(|c| c - 1).collect())
}

/// The columns `k·i mod n` of rows `0..n`.
fn linear(n: usize, k: u64) -> impl Iterator<Item = u32> {
    (0..n as u64).map(move |i| ((u128::from(k) * u128::from(i)) % n as u128) as u32)
}

/// The smallest `k` for which `col(i) = k·i mod n` is a torus board (see [`modular`]).
fn torus_multiplier(n: usize) -> Option<u64> {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    let ni = n as i64;
    if gcd(ni, 210) != 1 {
        return None;
    }
    (2..ni)
        .find(|&k| {
            [k, 1 - k, 1 + k, 2 - k, 2 + k, 1 - 2 * k, 1 + 2 * k]
                .iter()
                .all(|&f| gcd(f, ni) == 1)
        })
        .map(|k| k as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::complete::clock::Deadline;
    use crate::{find_conflict, Placement};
    use rand::SeedableRng;
    use std::time::Duration;
    use std::time::Instant;

    #[test]
    fn modular_boards_verify() {
        let mut found = 0;
        for n in 1..300 {
            if let Some(cols) = modular(n) {
                let p = Placement::Cols {
                    n,
                    cols: cols.iter().map(|&c| c + 1).collect(),
                };
                assert_eq!(find_conflict(&p, true), None, "n = {n}");
                found += 1;
            } else {
                let blocked = |m: usize| [2, 3, 5, 7].iter().any(|p| m % p == 0);
                assert!(n > 1 && blocked(n) && blocked(n + 1), "n = {n}");
            }
        }
        assert!(found > 120, "{found}");
    }

    #[test]
    fn anneal_keeps_given_queens_and_finds_a_board() {
        // Queen at row 3, column 7 given on a 30×30 board.
        let n = 30;
        let mut col = vec![NONE; n];
        col[3] = 7;
        let mut board = Board::new(col, true);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let mut a = Anneal::new(&board, &mut rng);
        let far = Deadline::new(Instant::now() + Duration::from_secs(600));
        assert!(a.run(&mut rng, u64::MAX, far));
        a.apply(&mut board);
        assert_eq!(board.col[3], 7);
        let p = Placement::Cols {
            n,
            cols: board.col.iter().map(|&c| c + 1).collect(),
        };
        assert_eq!(find_conflict(&p, true), None);
    }
}
