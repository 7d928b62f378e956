//! The end of the weighted walk: a *pocket* of rows taken off (the conflicted rows and the
//! rows whose queens block the tightest of them) and put back by the exact search of
//! [`pocket`](super::super::pocket), which either finishes the board or leaves it as it was.

use super::{Least, Weighted, L};
use crate::complete::pocket;
use rand::Rng;

/// Pockets are tried once the walk is down to this many conflicting pairs: every conflicted
/// row then fits in a pocket and the queens outside it are peaceful, so a pocket put back
/// without conflict finishes the board. A histogram of the walk's restarts (seed 3, inputs
/// (89, 23) and (111, 54)): 0–1 % of the steps are at 1 conflicting pair, 0.3–3 % at 2. Measured
/// 2026-11-23 on the 154 hard inputs (10 s, one thread per run, 2 at a time, seed 1): 2 → 3
/// unanswered, median 0.23 s; 4 → 6, median 0.32 s.
const POCKET_COST: u64 = 2;
/// Steps between two pockets (failed pockets cost about as much as 20–40 steps). Same
/// measurement: 4 → 4 unanswered, 16 → 3, 64 → 5 (median 0.23–0.24 s each).
const POCKET_GAP: u64 = 16;
/// Rows of a pocket. Same measurement: 20 → 3 unanswered (mean 0.87 s), 26 → 4 (0.90 s), 32
/// → 4 (0.89 s), 48 → every pocket search hit its node limit and 5 of 6 runs on three hard
/// inputs took the whole 10 s.
const POCKET_ROWS: usize = 20;
/// Placements per pocket search. Measured on the 43 slowest hard inputs, seeds 11 and 12
/// (86 runs, 10 s, one thread): 200 → mean 2.30 s, 2000 → 2.12 and 2.37 s (two runs), 20 000
/// → 2.13 s: within the noise; at 20 rows most searches end after about 15 placements.
const POCKET_NODES: u64 = 2000;

impl Weighted {
    /// Whether a pocket is tried now: the walk is down to [`POCKET_COST`] conflicting pairs
    /// and [`POCKET_GAP`] steps have passed since the last one (which this call records).
    pub(super) fn pocket_due(&mut self) -> bool {
        if self.cost <= POCKET_COST && self.step >= self.next_pocket {
            self.next_pocket = self.step + POCKET_GAP;
            return true;
        }
        false
    }

    /// Takes the queens of a pocket of rows off (every conflicted row, then rows whose queens
    /// block a cell of the pocket row with the fewest open cells) and searches exactly for a
    /// conflict-free way to put them back on cells no other queen attacks; true when found
    /// (the walk is done), otherwise the pocket's queens go back where they were.
    pub(super) fn reopen(&mut self, rng: &mut impl Rng) -> bool {
        let m = self.rows.len();
        let size = POCKET_ROWS.min(m);
        let mut rows: Vec<usize> = (0..m).filter(|&i| self.conflicts(i) > 0).collect();
        if rows.is_empty() || rows.len() > size {
            return false;
        }
        let row_stamp = self.next_stamp();
        for &i in &rows {
            self.row_mark[i] = row_stamp;
            self.cost -= self.remove(self.at[i] as usize);
        }
        let mut found = None;
        loop {
            let (row, fewest) = self.fewest_open(&rows, rng);
            let cell = self.least_blocked(row, rng);
            if rows.len() >= size || cell.is_none() {
                if fewest > 0 {
                    found = self.pocket_search(&rows, rng);
                }
                break;
            }
            // The rows whose queens block `cell` join the pocket.
            let line_stamp = self.next_stamp();
            for &l in &self.lines[cell.unwrap() * L..][..L] {
                self.line_mark[l as usize] = line_stamp;
            }
            for j in 0..m {
                if rows.len() >= pocket::MAX_ROWS {
                    break;
                }
                let e = self.at[j] as usize;
                let hit = self.row_mark[j] != row_stamp
                    && self
                        .cell_lines(e)
                        .iter()
                        .any(|&l| self.line_mark[l as usize] == line_stamp);
                if hit {
                    self.row_mark[j] = row_stamp;
                    rows.push(j);
                    self.cost -= self.remove(e);
                }
            }
        }
        for (j, &i) in rows.iter().enumerate() {
            if let Some(cells) = &found {
                self.at[i] = cells[j] as u32;
            }
            self.cost += self.add(self.at[i] as usize);
        }
        if found.is_some() {
            debug_assert_eq!(self.cost, 0);
            self.rescan();
        }
        self.cost == 0
    }

    /// The row of `rows` with the fewest open cells (random among ties) and that number.
    fn fewest_open(&self, rows: &[usize], rng: &mut impl Rng) -> (usize, usize) {
        let mut row = Least::new(rows[0]);
        for &i in rows {
            let open = (self.start[i]..self.start[i + 1])
                .filter(|&e| self.blockers(e as usize) == 0)
                .count();
            row.offer(open as u64, i, rng);
        }
        (row.item, row.key as usize)
    }

    /// Row `i`'s blocked cell with the fewest blockers (random among ties); `None` when
    /// every cell of the row is open.
    fn least_blocked(&self, i: usize, rng: &mut impl Rng) -> Option<usize> {
        let mut cell = Least::new(None);
        for e in self.start[i] as usize..self.start[i + 1] as usize {
            let b = self.blockers(e);
            if b > 0 {
                cell.offer(b, Some(e), rng);
            }
        }
        cell.item
    }

    /// Our queens on the lines of cell `e` (a queen on two of them counts twice).
    #[inline]
    fn blockers(&self, e: usize) -> u64 {
        self.cell_lines(e)
            .iter()
            .map(|&l| u64::from(self.count[l as usize]))
            .sum()
    }

    /// A mark no row or line carries yet (64 bits: it never wraps).
    fn next_stamp(&mut self) -> u64 {
        self.stamp += 1;
        self.stamp
    }

    /// The exact search over `rows` (whose queens are off) on their open cells; the cell of
    /// each row when found.
    fn pocket_search(&self, rows: &[usize], rng: &mut impl Rng) -> Option<Vec<usize>> {
        let mut cells: Vec<Vec<usize>> = Vec::with_capacity(rows.len());
        let mut cands: Vec<Vec<[u32; L]>> = Vec::with_capacity(rows.len());
        for &i in rows {
            let (lo, hi) = (self.start[i] as usize, self.start[i + 1] as usize);
            let open: Vec<usize> = (lo..hi)
                .filter(|&e| self.blockers(e) == 0)
                // Rows here have 10–40 free cells; past 64 the search just sees fewer.
                .take(pocket::MAX_CELLS)
                .collect();
            cands.push(
                open.iter()
                    .map(|&e| self.cell_lines(e).try_into().unwrap())
                    .collect(),
            );
            cells.push(open);
        }
        let choice = pocket::solve(&cands, POCKET_NODES, rng, &mut 0)?;
        Some(cells.iter().zip(choice).map(|(c, b)| c[b]).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::complete::anneal::modular;
    use crate::complete::board::{Board, NONE};
    use crate::complete::clock::Deadline;
    use crate::{find_conflict, Placement};
    use ahash::AHashMap;
    use rand::SeedableRng;
    use std::time::{Duration, Instant};

    /// Pairs of our queens sharing a line, counted from scratch.
    fn pairs(w: &Weighted) -> u64 {
        let mut on: AHashMap<u32, u64> = AHashMap::new();
        for &e in &w.at {
            for &l in w.cell_lines(e as usize) {
                *on.entry(l).or_default() += 1;
            }
        }
        on.values().map(|&q| q * (q - 1) / 2).sum()
    }

    #[test]
    fn a_pocket_finishes_the_board_or_puts_every_queen_back() {
        let n = 121;
        let full = modular(n).unwrap();
        let (mut finished, mut put_back) = (0, 0);
        for seed in 0..40 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut col = full.clone();
            let mut rows: Vec<usize> = (0..n).collect();
            rand::seq::SliceRandom::shuffle(rows.as_mut_slice(), &mut rng);
            for &r in &rows[..60] {
                col[r] = NONE;
            }
            let mut board = Board::new(col, true);
            let mut w = Weighted::new(&board).unwrap();
            w.restart(&mut rng);
            // Plain steps (no pockets: `next_pocket` stays ahead) until at most two pairs.
            w.next_pocket = u64::MAX;
            let far = Deadline::new(Instant::now() + Duration::from_secs(600));
            for _ in 0..200_000 {
                if w.cost <= POCKET_COST {
                    break;
                }
                w.run(&mut rng, 1, far);
            }
            if w.cost == 0 || w.cost > POCKET_COST {
                continue;
            }
            let before = (w.at.clone(), w.count.clone(), w.cost);
            if w.reopen(&mut rng) {
                finished += 1;
                assert_eq!((w.cost, pairs(&w)), (0, 0));
                w.apply(&mut board);
                let p = Placement::Cols {
                    n,
                    cols: board.col.iter().map(|&c| c + 1).collect(),
                };
                assert_eq!(find_conflict(&p, true), None);
            } else {
                put_back += 1;
                assert_eq!((w.at.clone(), w.count.clone(), w.cost), before);
                assert_eq!(pairs(&w), w.cost);
            }
        }
        assert!(put_back >= 10, "{finished} finished, {put_back} put back");
    }

    #[test]
    fn a_pocket_undoes_a_queen_moved_off_a_full_board() {
        let n = 121;
        let full = modular(n).unwrap();
        let mut finished = 0;
        for seed in 0..20 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut col = full.clone();
            for c in col.iter_mut() {
                if rng.random_bool(0.5) {
                    *c = NONE;
                }
            }
            let mut board = Board::new(col, true);
            let mut w = Weighted::new(&board).unwrap();
            w.restart(&mut rng);
            // Every row on its cell of the full board, then one row on another of its cells.
            w.count.fill(0);
            for (i, &r) in w.rows.iter().enumerate() {
                let cells = w.start[i] as usize..w.start[i + 1] as usize;
                w.at[i] = cells
                    .clone()
                    .find(|&e| w.value[e] == full[r as usize])
                    .unwrap() as u32;
            }
            let i = rng.random_range(0..w.len());
            w.at[i] = rng.random_range(w.start[i]..w.start[i + 1]);
            for e in w.at.clone() {
                w.add(e as usize);
            }
            w.cost = pairs(&w);
            if w.cost == 0 || w.cost > POCKET_COST {
                continue;
            }
            assert!(w.reopen(&mut rng), "seed {seed}");
            finished += 1;
            w.apply(&mut board);
            let p = Placement::Cols {
                n,
                cols: board.col.iter().map(|&c| c + 1).collect(),
            };
            assert_eq!(find_conflict(&p, true), None);
        }
        assert!(finished >= 5, "{finished} finished");
    }
}
