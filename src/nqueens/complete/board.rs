//! The board being completed: the given queens (fixed), the queens we place on the free rows,
//! and one occupancy bit per attack line.
//!
//! Every queen on the board is peaceful at all times (we never place a queen on an occupied
//! line), so one bit per line is enough: 2 × (2n − 1) bits for queens, plus 4 × (3n − 2) bits for
//! nightriders. At n = 10^8 that is 50 MB, next to the 400 MB column array.

use rand::Rng;

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
        Lines { n, fams, off, total }
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
pub struct Board {
    /// Board size.
    pub n: usize,
    /// Line geometry.
    pub lines: Lines,
    /// One bit per line: occupied by a queen.
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
            self.occ[k / 64] |= 1 << (k % 64);
        }
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
            self.occ[k / 64] &= !(1 << (k % 64));
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
    ///
    /// # Complexity
    /// O(m · attempts) for `m` free rows.
    pub fn greedy(&mut self, rng: &mut impl Rng, pool: &mut Vec<u32>, attempts: u32) -> Vec<u32> {
        let mut left = Vec::new();
        for i in 0..self.free_rows.len() {
            let r = self.free_rows[i] as usize;
            let mut placed = false;
            for _ in 0..attempts {
                if pool.is_empty() {
                    break;
                }
                let j = rng.random_range(0..pool.len());
                let c = pool[j];
                if self.lines_free(r, c as usize) {
                    self.place(r, c);
                    pool.swap_remove(j);
                    placed = true;
                    break;
                }
            }
            if !placed {
                left.push(r as u32);
            }
        }
        left
    }

    /// Swap repair of the rows left empty: an empty row `r` takes the column of a placed free
    /// row `j` (if `r`'s lines there are free), and `j` moves to an unused column of `pool`
    /// whose lines are free. The given queens never move. Tries `tries` partners per empty row
    /// and pass, and stops when a pass places nobody. Returns the rows still empty.
    ///
    /// # Complexity
    /// O(passes · |left| · tries · min(|pool|, 64)).
    pub fn repair(
        &mut self,
        rng: &mut impl Rng,
        pool: &mut Vec<u32>,
        mut left: Vec<u32>,
        tries: u32,
    ) -> Vec<u32> {
        let m = self.free_rows.len();
        loop {
            let before = left.len();
            let mut still = Vec::new();
            for &r in &left {
                let r = r as usize;
                if self.place_from_pool(r, pool, rng) || self.swap_in(r, pool, rng, tries, m) {
                    continue;
                }
                still.push(r as u32);
            }
            left = still;
            if left.is_empty() || left.len() == before {
                return left;
            }
        }
    }

    /// Places the empty row `r` in a free-lined column of `pool` (scanning at most 64 from a
    /// random start), removing it from `pool`.
    fn place_from_pool(&mut self, r: usize, pool: &mut Vec<u32>, rng: &mut impl Rng) -> bool {
        if pool.is_empty() {
            return false;
        }
        let start = rng.random_range(0..pool.len());
        for s in 0..pool.len().min(64) {
            let j = (start + s) % pool.len();
            if self.lines_free(r, pool[j] as usize) {
                let c = pool.swap_remove(j);
                self.place(r, c);
                return true;
            }
        }
        false
    }

    fn swap_in(
        &mut self,
        r: usize,
        pool: &mut Vec<u32>,
        rng: &mut impl Rng,
        tries: u32,
        m: usize,
    ) -> bool {
        for _ in 0..tries {
            let j = self.free_rows[rng.random_range(0..m)] as usize;
            let cj = self.col[j];
            if cj == NONE || !self.lines_free(r, cj as usize) {
                continue;
            }
            self.unplace(j);
            self.place(r, cj);
            if self.place_from_pool(j, pool, rng) {
                return true;
            }
            self.unplace(r);
            self.place(j, cj);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

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
        let left = b.greedy(&mut rng, &mut pool, 8);
        assert_eq!(left.len(), pool.len());
        let left = b.repair(&mut rng, &mut pool, left, 200);
        assert_eq!(left.len(), pool.len());
        let cols: Vec<u32> = b.col.iter().map(|&c| if c == NONE { 0 } else { c + 1 }).collect();
        let p = crate::nqueens::Placement::Cols { n, cols };
        assert_eq!(crate::nqueens::find_conflict(&p, false), None);
        assert!(p.count() + left.len() == n);
    }
}
