//! The board being completed: the given queens (fixed), the queens we place on the free rows,
//! an occupancy bit per attack line (2 × (2n − 1) bits for queens, plus 4 × (3n − 2) for
//! nightriders: 50 MB at n = 10^8), and, once the swap repair needs them, a `u8` queen count per
//! line (400 MB at n = 10^8), next to the 400 MB column array.
//!
//! Greedy placement only puts queens on free lines; the swap repair then works on a full
//! assignment of free rows to free columns in which lines may hold several queens (Sosic & Gu,
//! seed 003; seed 000's swap search), and hands the rows it cannot fix to the tail search.

mod repair;

use super::clock::Deadline;
use rand::Rng;

/// Rows (or attacked rows) handled between two looks at the clock in the long loops.
const CLOCK_EVERY: usize = 1 << 14;

/// Marks an empty row in [`Board::col`].
pub const NONE: u32 = u32::MAX;

/// The attack lines of a cell besides its row and column, as bit indices into one array.
///
/// Families (same keys as the verifier): down-right diagonal `r − c`, down-left diagonal
/// `r + c`, and for nightriders `2r − c`, `r − 2c`, `2r + c`, `r + 2c` (each shifted to be
/// non-negative).
#[derive(Clone, Debug)]
pub struct Lines {
    n: usize,
    /// Number of families used: 2 for queens, 6 for nightriders.
    pub fams: usize,
    off: [usize; 6],
    total: usize,
}

impl Lines {
    /// Line geometry of an `n × n` board.
    pub fn new(n: usize, nightrider: bool) -> Self {
        let d = 2 * n - 1;
        let k = 3 * n - 2;
        let sizes = [d, d, k, k, k, k];
        let fams = if nightrider { 6 } else { 2 };
        let mut off = [0; 6];
        let mut total = 0;
        for f in 0..fams {
            off[f] = total;
            total += sizes[f];
        }
        Lines {
            n,
            fams,
            off,
            total,
        }
    }

    /// Number of lines (bits) over all families in use.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Bit indices of the lines through cell `(r, c)`; only the first [`Lines::fams`] are valid.
    #[inline(always)]
    pub fn keys(&self, r: usize, c: usize) -> [usize; 6] {
        let n = self.n;
        let o = &self.off;
        if self.fams == 2 {
            return [o[0] + r + n - 1 - c, o[1] + r + c, 0, 0, 0, 0];
        }
        [
            o[0] + r + n - 1 - c,
            o[1] + r + c,
            o[2] + 2 * r + n - 1 - c,
            o[3] + r + 2 * (n - 1) - 2 * c,
            o[4] + 2 * r + c,
            o[5] + r + 2 * c,
        ]
    }
}

/// Board state: fixed queens, placed queens, line occupancy.
#[derive(Clone)]
pub struct Board {
    /// Board size.
    pub n: usize,
    /// Line geometry.
    pub lines: Lines,
    /// Queens on each line; empty until the swap repair first needs it.
    count: Vec<u8>,
    /// One bit per line, set while its count is non-zero: the greedy stage's lookups hit
    /// this 8× smaller array, which mostly stays in cache.
    occ: Vec<u64>,
    /// 0-based column of the queen in each row, or [`NONE`].
    pub col: Vec<u32>,
    /// Rows without a given queen, ascending.
    pub free_rows: Vec<u32>,
    /// Columns without a given queen, ascending.
    pub free_cols: Vec<u32>,
}

impl Board {
    /// A board holding the given queens (0-based column per row, [`NONE`] for a free row).
    ///
    /// The queens must be peaceful (checked by the caller with the verifier).
    pub fn new(col: Vec<u32>, nightrider: bool) -> Self {
        let n = col.len();
        let lines = Lines::new(n, nightrider);
        let mut board = Board {
            n,
            count: Vec::new(),
            occ: vec![0; lines.total().div_ceil(64)],
            lines,
            col: Vec::new(),
            free_rows: Vec::new(),
            free_cols: Vec::new(),
        };
        let mut col_used = vec![0u64; n.div_ceil(64)];
        for (r, &c) in col.iter().enumerate() {
            if c == NONE {
                board.free_rows.push(r as u32);
            } else {
                col_used[c as usize / 64] |= 1 << (c % 64);
                board.set_lines(r, c as usize);
            }
        }
        board.free_cols = (0..n as u32)
            .filter(|&c| col_used[c as usize / 64] & (1 << (c % 64)) == 0)
            .collect();
        board.col = col;
        board
    }

    /// True if no queen occupies a diagonal (or nightrider) line through `(r, c)`.
    ///
    /// Rows and columns are not checked: callers only pair free rows with unused columns.
    #[inline]
    pub fn lines_free(&self, r: usize, c: usize) -> bool {
        let keys = self.lines.keys(r, c);
        keys[..self.lines.fams]
            .iter()
            .all(|&k| self.occ[k / 64] & (1 << (k % 64)) == 0)
    }

    #[inline]
    fn set_lines(&mut self, r: usize, c: usize) {
        let keys = self.lines.keys(r, c);
        for &k in &keys[..self.lines.fams] {
            self.inc(k);
        }
    }

    #[inline(always)]
    fn inc(&mut self, k: usize) {
        if self.count.is_empty() {
            // No counts yet: every line holds at most one queen (see `ensure_counts`).
            self.occ[k / 64] |= 1 << (k % 64);
            return;
        }
        if self.count[k] == 0 {
            self.occ[k / 64] |= 1 << (k % 64);
        }
        self.count[k] += 1;
    }

    #[inline(always)]
    fn dec(&mut self, k: usize) {
        if self.count.is_empty() {
            self.occ[k / 64] &= !(1 << (k % 64));
            return;
        }
        self.count[k] -= 1;
        if self.count[k] == 0 {
            self.occ[k / 64] &= !(1 << (k % 64));
        }
    }

    /// Builds the per-line counts from the occupancy bits. Until the swap repair needs them
    /// no line holds two queens, so the bits say everything and the large count array (and
    /// its cache misses, most of the time at n = 10^8) is skipped.
    fn ensure_counts(&mut self) {
        if !self.count.is_empty() {
            return;
        }
        let mut count = vec![0u8; self.lines.total()];
        for (w, &word) in self.occ.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                count[w * 64 + b.trailing_zeros() as usize] = 1;
                b &= b - 1;
            }
        }
        self.count = count;
    }

    /// Puts a queen on the empty row `r` in column `c`; its lines must be free.
    #[inline]
    pub fn place(&mut self, r: usize, c: u32) {
        debug_assert!(self.col[r] == NONE && self.lines_free(r, c as usize));
        self.col[r] = c;
        self.set_lines(r, c as usize);
    }

    /// Takes the queen off row `r` (which must hold one) and returns its column.
    #[inline]
    pub fn unplace(&mut self, r: usize) -> u32 {
        let c = self.col[r];
        debug_assert!(c != NONE);
        self.col[r] = NONE;
        let keys = self.lines.keys(r, c as usize);
        for &k in &keys[..self.lines.fams] {
            self.dec(k);
        }
        c
    }

    /// Removes every queen we placed, keeping the given ones.
    pub fn clear_placed(&mut self) {
        for i in 0..self.free_rows.len() {
            let r = self.free_rows[i] as usize;
            if self.col[r] != NONE {
                self.unplace(r);
            }
        }
    }

    /// Random greedy start (Sosic & Gu's initial placement, seed 004's randSet stage): each free
    /// row in turn takes a random unused column from `pool` whose lines are free, trying at most
    /// `attempts` columns. Returns the rows that found none; `pool` keeps the unused columns.
    /// `None` when `deadline` passes first (the queens placed so far stay).
    ///
    /// # Complexity
    /// O(m · attempts) for `m` free rows.
    pub fn greedy(
        &mut self,
        rng: &mut impl Rng,
        pool: &mut Vec<u32>,
        attempts: u32,
        deadline: Deadline<'_>,
    ) -> Option<Vec<u32>> {
        // Shuffle once, then scan candidates from a moving cursor: random columns, but
        // sequential reads of `pool` (at n = 10^7 random reads of it cost more than the rest).
        // Fisher–Yates by hand, to look at the clock (10^8 random swaps take seconds).
        for i in (1..pool.len()).rev() {
            if i % CLOCK_EVERY == 0 && deadline.passed() {
                return None;
            }
            pool.swap(i, rng.random_range(0..=i));
        }
        let mut left = Vec::new();
        let mut cursor = 0usize;
        for i in 0..self.free_rows.len() {
            if i % CLOCK_EVERY == CLOCK_EVERY - 1 && deadline.passed() {
                return None;
            }
            let r = self.free_rows[i] as usize;
            let mut placed = false;
            for _ in 0..attempts {
                if pool.is_empty() {
                    break;
                }
                if cursor >= pool.len() {
                    cursor = 0;
                }
                let c = pool[cursor];
                if self.lines_free(r, c as usize) {
                    self.place(r, c);
                    pool.swap_remove(cursor);
                    placed = true;
                    break;
                }
                cursor += 1;
            }
            if !placed {
                left.push(r as u32);
            }
        }
        Some(left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::complete::clock::Deadline;
    use rand::SeedableRng;
    use std::time::Instant;

    #[test]
    fn lines_match_attacks() {
        for nr in [false, true] {
            let n = 7;
            let l = Lines::new(n, nr);
            for a in 0..n * n {
                for b in 0..n * n {
                    let (r1, c1, r2, c2) = (a / n, a % n, b / n, b % n);
                    if r1 == r2 || c1 == c2 {
                        continue;
                    }
                    let (dr, dc) = ((r1 as i64 - r2 as i64).abs(), (c1 as i64 - c2 as i64).abs());
                    let attack = dr == dc || (nr && (dr == 2 * dc || dc == 2 * dr));
                    let (k1, k2) = (l.keys(r1, c1), l.keys(r2, c2));
                    let share = (0..l.fams).any(|f| k1[f] == k2[f]);
                    assert_eq!(attack, share, "{r1},{c1} {r2},{c2} nr={nr}");
                    assert!(k1[..l.fams].iter().all(|&k| k < l.total()));
                }
            }
        }
    }

    #[test]
    fn greedy_and_repair_keep_the_board_peaceful() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let n = 300;
        let mut b = Board::new(vec![NONE; n], false);
        let mut pool = b.free_cols.clone();
        let far = Deadline::new(Instant::now() + std::time::Duration::from_secs(600));
        let left = b.greedy(&mut rng, &mut pool, 8, far).unwrap();
        assert_eq!(left.len(), pool.len());
        let left = b.swap_repair(&mut rng, &mut pool, left, 200, 20, far);
        assert_eq!(left.len(), pool.len());
        let cols: Vec<u32> = b
            .col
            .iter()
            .map(|&c| if c == NONE { 0 } else { c + 1 })
            .collect();
        let p = crate::Placement::Cols { n, cols };
        assert_eq!(crate::find_conflict(&p, false), None);
        assert!(p.count() + left.len() == n);
    }
}
