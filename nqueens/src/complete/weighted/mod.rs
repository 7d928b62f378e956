//! Weighted min-conflicts over the free cells, for nightrider compositions: each free row
//! keeps a queen on one of its free cells (cells no given queen attacks), columns are not
//! kept distinct, and a conflict is two of our queens on one column or line. A step moves a
//! conflicted row to its cell with the least *weighted* conflict; when no cell is better than
//! the current one, the weights of the current cell's crowded lines grow by one (the breakout
//! idea: a local minimum is filled up until the walk leaves it); a cell just left is tabu
//! for a few steps. Restarted from scratch with Luby step limits.
//!
//! Near the end (at most `POCKET_COST` conflicting pairs) the walk now and then takes the
//! queens of a *pocket* off (`reopen.rs`): the conflicted rows, then, while the pocket row with the fewest
//! open cells has a blocked one, the rows whose queens block its least-blocked cell; the
//! exact `pocket` search then looks for a conflict-free way to put them back. On the hard
//! compositions this halved the median time to a board (measurements at the constants).
//!
//! Compositions with 40–120 free rows leave each row only 10–30 free cells; the annealing
//! over permutations of the free columns spends most of its steps on cells a given queen
//! attacks, and the tree search thrashes, while this walk only ever looks at free cells.

mod reopen;

use super::board::Board;
use super::clock::Deadline;
use ahash::AHashMap;
use rand::Rng;

/// Most free cells (summed over the free rows) the stage takes on: its tables hold 7 line
/// indices per cell.
pub const MAX_CELLS: usize = 1 << 22;

/// Lines per cell: the column and the six line families of a nightrider.
const L: usize = 7;

/// A cell a row leaves may not be taken again for 1..=`TABU` steps (uniform). Measured
/// 2026-11-23 on the 29 hardest inputs of the `--hard` set (whole portfolio, success = YES
/// within 10 s of CPU, one run each, load 3–5): no tabu 24 YES, 5 → 25, 10 → 26, 20 → 24
/// (within the noise; kept as cheap insurance against two-cell cycles). Also tried on the same
/// set: a random move in 10 of 1024 steps 18 YES of 28 and in 40 of 1024 21 (none: 25),
/// sideways moves on ties 24, weight smoothing (all weights −1 every 50 increases) 8.
const TABU: u64 = 10;

/// The item with the least key offered so far, uniform among ties: the t-th offer that ties
/// the least key replaces the item with probability 1/t.
struct Least<T> {
    item: T,
    key: u64,
    ties: u32,
}

impl<T> Least<T> {
    /// `item` under no key yet: the first offer replaces it.
    fn new(item: T) -> Self {
        Least {
            item,
            key: u64::MAX,
            ties: 0,
        }
    }

    #[inline]
    fn offer(&mut self, key: u64, item: T, rng: &mut impl Rng) {
        if key < self.key {
            (self.item, self.key, self.ties) = (item, key, 1);
        } else if key == self.key {
            self.ties += 1;
            if rng.random_range(0..self.ties) == 0 {
                self.item = item;
            }
        }
    }
}

/// The walk's state.
pub struct Weighted {
    /// Free rows (board rows).
    rows: Vec<u32>,
    /// Cells of row `i`: entries `start[i]..start[i + 1]`.
    start: Vec<u32>,
    /// Board column of each cell.
    value: Vec<u32>,
    /// The `L` local line ids of each cell.
    lines: Vec<u32>,
    /// Current cell (entry index) of each row.
    at: Vec<u32>,
    /// Our queens on each local line.
    count: Vec<u32>,
    /// Weight of each local line.
    weight: Vec<u32>,
    /// Pairs of our queens sharing a line.
    cost: u64,
    /// Rows that may be in conflict (checked when drawn).
    hot: Vec<u32>,
    /// Step until which each cell may not be taken again (left recently).
    tabu: Vec<u64>,
    /// Moves made since the restart.
    step: u64,
    /// Step from which the next pocket may be tried.
    next_pocket: u64,
    /// Marks of the rows in the pocket being built and of one cell's lines (`== stamp`).
    row_mark: Vec<u64>,
    line_mark: Vec<u64>,
    stamp: u64,
}

impl Weighted {
    /// The free cells of `board`'s free rows, given its given queens only (placed queens
    /// must be cleared). `None` when there are more than [`MAX_CELLS`] or a row has none.
    pub fn new(board: &Board) -> Option<Self> {
        let mut ids: AHashMap<usize, u32> = AHashMap::new();
        let id = |k: usize, ids: &mut AHashMap<usize, u32>| {
            let next = ids.len() as u32;
            *ids.entry(k).or_insert(next)
        };
        let fams = board.lines.fams;
        if fams != 6 {
            return None;
        }
        let total = board.lines.total();
        let mut w = Weighted {
            rows: board.free_rows.clone(),
            start: vec![0],
            value: Vec::new(),
            lines: Vec::new(),
            at: Vec::new(),
            count: Vec::new(),
            weight: Vec::new(),
            cost: 0,
            hot: Vec::new(),
            tabu: Vec::new(),
            step: 0,
            next_pocket: 0,
            row_mark: vec![0; board.free_rows.len()],
            line_mark: Vec::new(),
            stamp: 0,
        };
        for &r in &board.free_rows {
            for &c in &board.free_cols {
                if !board.lines_free(r as usize, c as usize) {
                    continue;
                }
                if w.value.len() >= MAX_CELLS {
                    return None;
                }
                w.value.push(c);
                // Columns get ids after every diagonal-family line.
                w.lines.push(id(total + c as usize, &mut ids));
                let keys = board.lines.keys(r as usize, c as usize);
                for &k in &keys[..fams] {
                    w.lines.push(id(k, &mut ids));
                }
            }
            if w.value.len() as u32 == *w.start.last().unwrap() {
                return None;
            }
            w.start.push(w.value.len() as u32);
        }
        w.tabu = vec![0; w.value.len()];
        w.count = vec![0; ids.len()];
        w.weight = vec![1; ids.len()];
        w.line_mark = vec![0; ids.len()];
        Some(w)
    }

    /// Free rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there is no free row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    #[inline(always)]
    fn cell_lines(&self, e: usize) -> &[u32] {
        &self.lines[e * L..e * L + L]
    }

    /// Our other queens on the lines of row `i`'s queen.
    #[inline]
    fn conflicts(&self, i: usize) -> u32 {
        let e = self.at[i] as usize;
        self.cell_lines(e)
            .iter()
            .map(|&l| self.count[l as usize] - 1)
            .sum()
    }

    /// Puts cell `e` on; returns the queens it now shares lines with.
    #[inline]
    fn add(&mut self, e: usize) -> u64 {
        let mut shared = 0;
        for k in 0..L {
            let l = self.lines[e * L + k] as usize;
            shared += u64::from(self.count[l]);
            self.count[l] += 1;
        }
        shared
    }

    /// Takes cell `e` off; returns the queens it shared lines with.
    #[inline]
    fn remove(&mut self, e: usize) -> u64 {
        let mut shared = 0;
        for k in 0..L {
            let l = self.lines[e * L + k] as usize;
            self.count[l] -= 1;
            shared += u64::from(self.count[l]);
        }
        shared
    }

    /// A fresh start: weights back to 1, each row in random order on its least-conflicted
    /// cell (random among ties).
    pub fn restart(&mut self, rng: &mut impl Rng) {
        self.count.fill(0);
        self.weight.fill(1);
        self.tabu.fill(0);
        self.step = 0;
        self.next_pocket = 0;
        self.cost = 0;
        let m = self.rows.len();
        let mut order: Vec<usize> = (0..m).collect();
        rand::seq::SliceRandom::shuffle(order.as_mut_slice(), rng);
        self.at = vec![u32::MAX; m];
        for i in order {
            let e = self.best_cell(i, None, rng).0;
            self.at[i] = e as u32;
            self.cost += self.add(e);
        }
        self.rescan();
    }

    fn rescan(&mut self) {
        self.hot = (0..self.rows.len() as u32)
            .filter(|&i| self.conflicts(i as usize) > 0)
            .collect();
    }

    /// Row `i`'s cell with the least weighted conflict (random among ties) and that score;
    /// `current`: row `i`'s queen, counted on its own lines, whose own share is left out.
    #[inline]
    fn best_cell(&self, i: usize, current: Option<usize>, rng: &mut impl Rng) -> (usize, u64) {
        let (lo, hi) = (self.start[i] as usize, self.start[i + 1] as usize);
        let mut best = Least::new(lo);
        for e in lo..hi {
            if current.is_some() && Some(e) != current && self.tabu[e] > self.step {
                continue;
            }
            let own = u32::from(Some(e) == current);
            let score: u64 = self
                .cell_lines(e)
                .iter()
                .map(|&l| {
                    u64::from(self.weight[l as usize]) * u64::from(self.count[l as usize] - own)
                })
                .sum();
            best.offer(score, e, rng);
        }
        (best.item, best.key)
    }

    /// Moves row `i` to cell `e`.
    #[inline]
    fn shift(&mut self, i: usize, e: usize) {
        let old = self.at[i] as usize;
        let before = self.remove(old);
        self.at[i] = e as u32;
        let after = self.add(e);
        self.cost = self.cost + after - before;
    }

    /// Runs at most `steps` steps (stopping at `deadline`); true when no two of our queens
    /// share a column or line.
    ///
    /// # Complexity
    /// O(cells of the row) per step, plus an O(m) rescan every `m` steps.
    pub fn run(&mut self, rng: &mut impl Rng, steps: u64, deadline: Deadline<'_>) -> bool {
        let m = self.rows.len() as u64;
        for s in 0..steps {
            if self.cost == 0 {
                return true;
            }
            if self.pocket_due() && self.reopen(rng) {
                return true;
            }
            if s % 4096 == 4095 && deadline.passed() {
                return false;
            }
            // Rows a move puts in conflict are not listed: pick them up now and then.
            if self.hot.is_empty() || s % m == 0 {
                self.rescan();
            }
            let p = rng.random_range(0..self.hot.len());
            let i = self.hot[p] as usize;
            if self.conflicts(i) == 0 {
                self.hot.swap_remove(p);
                continue;
            }
            let cur = self.at[i] as usize;
            let (e, score) = self.best_cell(i, Some(cur), rng);
            let now: u64 = self
                .cell_lines(cur)
                .iter()
                .map(|&l| {
                    u64::from(self.weight[l as usize]) * u64::from(self.count[l as usize] - 1)
                })
                .sum();
            self.step += 1;
            if score < now {
                self.shift(i, e);
                self.tabu[cur] = self.step + rng.random_range(1..=TABU);
            } else {
                // A local minimum for this row: weigh its crowded lines up.
                for k in 0..L {
                    let l = self.lines[cur * L + k] as usize;
                    if self.count[l] > 1 {
                        self.weight[l] += 1;
                    }
                }
            }
        }
        self.cost == 0
    }

    /// Writes the (conflict-free) assignment onto `board`, whose placed queens must be
    /// cleared.
    pub fn apply(&self, board: &mut Board) {
        debug_assert_eq!(self.cost, 0);
        for (i, &r) in self.rows.iter().enumerate() {
            board.place(r as usize, self.value[self.at[i] as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::complete::anneal::modular;
    use crate::complete::board::NONE;
    use crate::complete::clock::Deadline;
    use crate::{find_conflict, Placement};
    use rand::SeedableRng;
    use std::time::Duration;
    use std::time::Instant;

    #[test]
    fn completes_a_composition_and_keeps_the_given_queens() {
        // A full nightrider board of 121 rows with the queens of 70 random rows kept.
        let n = 121;
        let full = modular(n).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut col = full.clone();
        let mut rows: Vec<usize> = (0..n).collect();
        rand::seq::SliceRandom::shuffle(rows.as_mut_slice(), &mut rng);
        for &r in &rows[..51] {
            col[r] = NONE;
        }
        let given = col.clone();
        let mut board = Board::new(col, true);
        let mut w = Weighted::new(&board).unwrap();
        assert_eq!(w.len(), 51);
        let far = Deadline::new(Instant::now() + Duration::from_secs(600));
        w.restart(&mut rng);
        assert!(w.run(&mut rng, u64::MAX, far));
        w.apply(&mut board);
        for (r, &c) in given.iter().enumerate() {
            assert!(c == NONE || board.col[r] == c, "row {r} moved");
        }
        let p = Placement::Cols {
            n,
            cols: board.col.iter().map(|&c| c + 1).collect(),
        };
        assert_eq!(find_conflict(&p, true), None);
    }

    #[test]
    fn refuses_queens_boards() {
        assert!(Weighted::new(&Board::new(vec![NONE; 30], false)).is_none());
    }
}
