//! Boards of at most 64 columns: a depth-first search over bitboards — the open cells of
//! each row are one `u64` — choosing the most constrained row next (random among ties) and a
//! random open column of it, with forward checking (every free row keeps an open cell, every
//! unused column an open row) and restarts with node limits.
//!
//! Nightrider boards of 10..64 rows have few solutions, and the annealing stage walks long
//! plateaus on them (measured on empty boards: 35, 45, 48, 49 unsolved in 10 s); this search
//! finds them in about a second at most sizes, in milliseconds below 30 rows.

use super::board::NONE;
use super::clock::Deadline;
use super::tail::Outcome;
use rand::Rng;

/// Largest board this search takes (one bit per column in a `u64`).
pub const MAX_N: usize = 64;

/// The search over all rows of a board of at most [`MAX_N`] columns.
pub struct Small {
    n: usize,
    nightrider: bool,
    /// Per row: the columns still open (not attacked by a given queen); a given queen's row
    /// holds its column alone.
    open: [u64; MAX_N],
    /// Bit `r` set for each row without a given queen.
    free: u64,
    /// The given queens' columns, bit per column.
    taken: u64,
}

/// The columns a queen in column bit `q` attacks in a row `d > 0` rows away.
#[inline(always)]
fn attacks(q: u64, d: u32, nightrider: bool) -> u64 {
    let shl = |s: u32| q.checked_shl(s).unwrap_or(0);
    let shr = |s: u32| q.checked_shr(s).unwrap_or(0);
    let mut a = q | shl(d) | shr(d);
    if nightrider {
        a |= shl(2 * d) | shr(2 * d);
        if d % 2 == 0 {
            a |= shl(d / 2) | shr(d / 2);
        }
    }
    a
}

/// One level of the search: the open cells of every row before the choice, the row chosen,
/// and its columns not tried yet.
struct Frame {
    open: [u64; MAX_N],
    free: u64,
    row: u32,
    left: u64,
}

impl Small {
    /// The search for the board of size `col.len()` (at most [`MAX_N`]) whose given queens
    /// are `col` (0-based column per row, [`NONE`] for a free row).
    ///
    /// # Panics
    /// If the board has more than [`MAX_N`] rows.
    ///
    /// # Complexity
    /// O(n · k) for `k` given queens.
    pub fn new(col: &[u32], nightrider: bool) -> Self {
        let n = col.len();
        assert!(n <= MAX_N, "{n} rows do not fit in a 64-bit mask");
        let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut open = [0u64; MAX_N];
        open[..n].fill(full);
        let (mut free, mut taken) = (0u64, 0u64);
        for (r0, &c0) in col.iter().enumerate() {
            if c0 == NONE {
                free |= 1 << r0;
                continue;
            }
            taken |= 1 << c0;
            for (r, row) in open[..n].iter_mut().enumerate() {
                if r != r0 {
                    *row &= !attacks(1 << c0, r.abs_diff(r0) as u32, nightrider);
                }
            }
        }
        for (r, &c) in col.iter().enumerate() {
            if c != NONE {
                open[r] &= 1 << c;
            }
        }
        Small {
            n,
            nightrider,
            open,
            free,
            taken,
        }
    }

    /// The free row with the fewest open cells (random among ties), or `None` when some free
    /// row or some unused column has no open cell left.
    fn pick_row(&self, open: &[u64; MAX_N], free: u64, rng: &mut impl Rng) -> Option<u32> {
        let (mut best, mut best_count, mut ties, mut cover) = (0u32, u32::MAX, 0u32, 0u64);
        let mut rows = free;
        while rows != 0 {
            let r = rows.trailing_zeros();
            rows &= rows - 1;
            let o = open[r as usize];
            cover |= o;
            let k = o.count_ones();
            if k < best_count {
                (best, best_count, ties) = (r, k, 1);
            } else if k == best_count {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = r;
                }
            }
        }
        // Every free row needs a cell, and every column not yet used a queen.
        let used = self.used(open, free);
        let full = if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        };
        (best_count > 0 && cover | used == full).then_some(best)
    }

    /// Columns holding a queen: the given ones and those placed (the rows no longer free
    /// have a single open cell, their queen).
    fn used(&self, open: &[u64; MAX_N], free: u64) -> u64 {
        let mut used = self.taken;
        let mut placed = !free & !self.given_rows() & self.rows();
        while placed != 0 {
            let r = placed.trailing_zeros() as usize;
            placed &= placed - 1;
            used |= open[r];
        }
        used
    }

    fn rows(&self) -> u64 {
        if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        }
    }

    fn given_rows(&self) -> u64 {
        self.rows() & !self.free
    }

    /// Searches (most constrained row first, random column order); stops after
    /// `node_limit` placements or at `deadline`. `Found` holds the 0-based column of every
    /// row (given ones included); `Exhausted` means no completion exists.
    ///
    /// # Complexity
    /// At most `node_limit` placements, O(n) each.
    pub fn search(
        &self,
        rng: &mut impl Rng,
        node_limit: u64,
        deadline: Deadline<'_>,
        nodes: &mut u64,
    ) -> Outcome {
        let n = self.n;
        let mut stack: Vec<Frame> = Vec::with_capacity(n + 1);
        let mut used = 0u64;
        let start = (self.open, self.free);
        let mut next = Some(start);
        loop {
            // Descend: choose the next row of the new state, or find the board complete.
            if let Some((open, free)) = next.take() {
                if free == 0 {
                    *nodes += used;
                    let cols = (0..n).map(|r| open[r].trailing_zeros()).collect();
                    return Outcome::Found(cols);
                }
                if let Some(row) = self.pick_row(&open, free, rng) {
                    let left = open[row as usize];
                    stack.push(Frame {
                        open,
                        free,
                        row,
                        left,
                    });
                }
            }
            let Some(top) = stack.last_mut() else {
                *nodes += used;
                return Outcome::Exhausted;
            };
            if top.left == 0 {
                stack.pop();
                continue;
            }
            used += 1;
            if used > node_limit || (used % 1024 == 0 && deadline.passed()) {
                *nodes += used;
                return Outcome::Aborted;
            }
            // A random column among those left (measured: least damage first was slower
            // on n = 40..64, most runs past 5 s).
            let mut rest = top.left;
            for _ in 0..rng.random_range(0..top.left.count_ones()) {
                rest &= rest - 1;
            }
            let q = rest & rest.wrapping_neg();
            top.left &= !q;
            let r = top.row;
            let mut open = top.open;
            let free = top.free & !(1 << r);
            open[r as usize] = q;
            let mut rows = free;
            while rows != 0 {
                let r2 = rows.trailing_zeros();
                rows &= rows - 1;
                open[r2 as usize] &= !attacks(q, r2.abs_diff(r), self.nightrider);
            }
            next = Some((open, free));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::complete::clock::Deadline;
    use crate::{find_conflict, Placement};
    use rand::SeedableRng;
    use std::time::Duration;
    use std::time::Instant;

    fn far() -> Deadline<'static> {
        Deadline::new(Instant::now() + Duration::from_secs(600))
    }

    fn peaceful(cols: &[u32], nightrider: bool) -> bool {
        let p = Placement::Cols {
            n: cols.len(),
            cols: cols.iter().map(|&c| c + 1).collect(),
        };
        find_conflict(&p, nightrider).is_none()
    }

    #[test]
    #[ignore = "slow: 19 s at load 7 on 2 cores; CI runs it (cargo test --workspace -- --include-ignored)"]
    fn finds_boards_and_proves_the_impossible_ones() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for n in 1..=40 {
            for nightrider in [false, true] {
                let small = Small::new(&vec![NONE; n], nightrider);
                let out = small.search(&mut rng, u64::MAX, far(), &mut 0);
                let exists = if nightrider {
                    n == 1 || n >= 10
                } else {
                    n != 2 && n != 3
                };
                match out {
                    Outcome::Found(cols) => {
                        assert!(exists, "n = {n}");
                        assert!(peaceful(&cols, nightrider), "n = {n} {cols:?}");
                    }
                    Outcome::Exhausted => assert!(!exists, "n = {n}"),
                    Outcome::Aborted => unreachable!(),
                }
            }
        }
    }

    #[test]
    fn keeps_given_queens() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        let n = 30;
        let mut col = vec![NONE; n];
        col[3] = 7;
        col[20] = 0;
        let out = Small::new(&col, true).search(&mut rng, u64::MAX, far(), &mut 0);
        let Outcome::Found(cols) = out else {
            panic!("{out:?}")
        };
        assert_eq!((cols[3], cols[20]), (7, 0));
        assert!(peaceful(&cols, true));
        // Two given queens that leave row 0 no cell: exhausted.
        let mut col = vec![NONE; 4];
        col[1] = 1;
        col[2] = 3;
        let out = Small::new(&col, false).search(&mut rng, u64::MAX, far(), &mut 0);
        assert_eq!(out, Outcome::Exhausted);
    }
}
