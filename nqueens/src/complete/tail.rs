//! The last rows: a dense bit matrix of the free cells of some empty rows × unused columns,
//! and a depth-first search over it with seed 004's two rules.
//!
//! * Minimum risk: the next row is the one with the fewest free cells (ties broken at random).
//! * Minimum damage: its cells are tried in order of how many free cells of the other remaining
//!   rows they would close.
//!
//! Forward checking closes the cells each placed queen attacks and backtracks as soon as a
//! remaining row or column has no free cell left. The search is complete: when it runs out of
//! branches without hitting its node limit, no completion of those rows exists (given the
//! queens outside the tail).

use super::board::{Board, NONE};
use super::clock::Deadline;
use rand::seq::SliceRandom;
use rand::Rng;

/// How a tail search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A free cell for every row: `assign[i]` is the local column of local row `i`.
    Found(Vec<u32>),
    /// Every branch was explored: the tail cannot be completed.
    Exhausted,
    /// The node limit or the deadline stopped the search first.
    Aborted,
}

/// Maps a global column to its local index + 1 (0 = not in the tail). Allocated zeroed once
/// (lazily, by the OS) and cleaned after each use, so only the touched pages cost memory.
pub struct ColMap(Vec<u32>);

impl ColMap {
    /// An empty map for an `n`-column board.
    pub fn new(n: usize) -> Self {
        ColMap(vec![0; n])
    }
}

/// Cells whose lines a candidate queen occupies, in another row at distance `d`.
#[inline]
fn attacked_cols(c: i64, d: i64, nightrider: bool, out: &mut [i64; 7]) -> usize {
    out[0] = c;
    out[1] = c + d;
    out[2] = c - d;
    if !nightrider {
        return 3;
    }
    out[3] = c + 2 * d;
    out[4] = c - 2 * d;
    if d % 2 == 0 {
        out[5] = c + d / 2;
        out[6] = c - d / 2;
        7
    } else {
        5
    }
}

/// Candidate cells whose damage is measured; the others follow in random order.
const DAMAGE_SAMPLE: usize = 12;

/// Dense sub-board of `rows × cols` (same count) over the free cells of a [`Board`].
pub struct Tail {
    /// Global rows, local index = position.
    pub rows: Vec<u32>,
    /// Global columns, local index = position.
    pub cols: Vec<u32>,
    t: usize,
    words: usize,
    nightrider: bool,
    free: Vec<u64>,
    row_cnt: Vec<u32>,
    col_cnt: Vec<u32>,
    alive: Vec<u32>,
    pos: Vec<u32>,
    col_alive: Vec<bool>,
    trail: Vec<(u32, u32)>,
    local: Vec<u32>,
    by_cols: bool,
}

/// One level of the search: a row whose cells are tried (`cands` are columns) or, with
/// [`Tail::branch_on_columns`], a column whose rows are tried (`cands` are rows).
struct Frame {
    var: u32,
    by_col: bool,
    /// Position in the alive list of the row of the cell placed now.
    pos: u32,
    cands: Vec<u32>,
    next: usize,
    mark: usize,
}

impl Frame {
    /// The cell of candidate `k`, as (local row, local column).
    #[inline]
    fn cell(&self, k: usize) -> (usize, usize) {
        let (v, c) = (self.var as usize, self.cands[k] as usize);
        if self.by_col {
            (c, v)
        } else {
            (v, c)
        }
    }
}

impl Tail {
    /// Builds the free-cell matrix of the empty `rows` over the unused `cols` of `board`.
    ///
    /// # Panics
    /// If `rows.len() != cols.len()`.
    ///
    /// # Complexity
    /// O(t² · families) for `t` rows.
    pub fn build(board: &Board, rows: Vec<u32>, cols: Vec<u32>, map: &mut ColMap) -> Self {
        assert_eq!(rows.len(), cols.len());
        let t = rows.len();
        let words = t.div_ceil(64).max(1);
        let mut free = vec![0u64; t * words];
        let mut row_cnt = vec![0u32; t];
        let mut col_cnt = vec![0u32; t];
        for (i, &r) in rows.iter().enumerate() {
            let line = &mut free[i * words..(i + 1) * words];
            for (j, &c) in cols.iter().enumerate() {
                if board.lines_free(r as usize, c as usize) {
                    line[j / 64] |= 1 << (j % 64);
                    row_cnt[i] += 1;
                    col_cnt[j] += 1;
                }
            }
        }
        let mut local = std::mem::take(&mut map.0);
        for (j, &c) in cols.iter().enumerate() {
            local[c as usize] = j as u32 + 1;
        }
        Tail {
            t,
            words,
            nightrider: board.lines.fams == 6,
            free,
            row_cnt,
            col_cnt,
            alive: (0..t as u32).collect(),
            pos: (0..t as u32).collect(),
            col_alive: vec![true; t],
            trail: Vec::new(),
            local,
            rows,
            cols,
            by_cols: false,
        }
    }

    /// Lets the search branch on a column too (which row takes it) when that column has
    /// fewer free cells than every remaining row: minimum risk over both views of the
    /// permutation. Nightrider boards with many given queens leave columns that few rows
    /// can take, and a row-only search meets them late.
    pub fn branch_on_columns(&mut self, on: bool) {
        self.by_cols = on;
    }

    /// Gives the column map back (cleaned) for the next tail.
    pub fn release(self, map: &mut ColMap) {
        let mut local = self.local;
        for &c in &self.cols {
            local[c as usize] = 0;
        }
        map.0 = local;
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.t
    }

    /// True for a tail without rows.
    pub fn is_empty(&self) -> bool {
        self.t == 0
    }

    /// Whether local cell `(i, j)` is free.
    pub fn is_free(&self, i: usize, j: usize) -> bool {
        self.free[i * self.words + j / 64] & (1 << (j % 64)) != 0
    }

    /// Number of free cells of each local row (before any search).
    pub fn row_counts(&self) -> &[u32] {
        &self.row_cnt
    }

    /// Number of free cells of each local column (before any search).
    pub fn col_counts(&self) -> &[u32] {
        &self.col_cnt
    }

    /// The free cells as rows of `u64` words (`words()` per row), for matching.
    pub fn bits(&self) -> &[u64] {
        &self.free
    }

    /// Words per row in [`Tail::bits`].
    pub fn words(&self) -> usize {
        self.words
    }

    /// Calls `f(row, col)` for each free cell of the alive rows that queen `(i, j)` attacks.
    #[inline]
    fn for_each_attacked(&self, i: usize, j: usize, mut f: impl FnMut(usize, usize)) {
        let r = self.rows[i] as i64;
        let c = self.cols[j] as i64;
        let n = self.local.len() as i64;
        let mut targets = [0i64; 7];
        for &i2 in &self.alive {
            let i2 = i2 as usize;
            if i2 == i {
                continue;
            }
            let d = self.rows[i2] as i64 - r;
            let k = attacked_cols(c, d, self.nightrider, &mut targets);
            let line = &self.free[i2 * self.words..(i2 + 1) * self.words];
            for &g in &targets[..k] {
                if g < 0 || g >= n {
                    continue;
                }
                let j2 = self.local[g as usize];
                if j2 == 0 {
                    continue;
                }
                let j2 = j2 as usize - 1;
                if line[j2 / 64] & (1 << (j2 % 64)) != 0 {
                    f(i2, j2);
                }
            }
        }
    }

    /// Queen on `(i, j)`: closes the attacked cells, takes row `i` and column `j` out.
    /// Returns false if some remaining row or column is left without a free cell.
    fn place(&mut self, i: usize, j: usize) -> bool {
        let mut hits = Vec::new();
        self.for_each_attacked(i, j, |i2, j2| hits.push((i2 as u32, j2 as u32)));
        let mut ok = true;
        self.col_alive[j] = false;
        for &(i2, j2) in &hits {
            let (i2, j2) = (i2 as usize, j2 as usize);
            self.free[i2 * self.words + j2 / 64] &= !(1 << (j2 % 64));
            self.row_cnt[i2] -= 1;
            self.col_cnt[j2] -= 1;
            ok &= self.row_cnt[i2] > 0 && (self.col_cnt[j2] > 0 || !self.col_alive[j2]);
        }
        self.trail.extend_from_slice(&hits);
        // Row i leaves: its free cells no longer count for their columns.
        for w in 0..self.words {
            let mut bits = self.free[i * self.words + w];
            while bits != 0 {
                let j2 = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.col_cnt[j2] -= 1;
                ok &= self.col_cnt[j2] > 0 || !self.col_alive[j2];
            }
        }
        ok
    }

    /// Undoes [`Tail::place`] of `(i, j)` back to trail length `mark`.
    fn unplace(&mut self, i: usize, j: usize, mark: usize) {
        for w in 0..self.words {
            let mut bits = self.free[i * self.words + w];
            while bits != 0 {
                let j2 = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.col_cnt[j2] += 1;
            }
        }
        self.col_alive[j] = true;
        while self.trail.len() > mark {
            let (i2, j2) = self.trail.pop().unwrap();
            let (i2, j2) = (i2 as usize, j2 as usize);
            self.free[i2 * self.words + j2 / 64] |= 1 << (j2 % 64);
            self.row_cnt[i2] += 1;
            self.col_cnt[j2] += 1;
        }
    }

    fn remove_alive(&mut self, i: usize) -> u32 {
        let p = self.pos[i];
        let last = self.alive.pop().unwrap();
        if last as usize != i {
            self.alive[p as usize] = last;
            self.pos[last as usize] = p;
        }
        p
    }

    fn restore_alive(&mut self, i: usize, p: u32) {
        let len = self.alive.len() as u32;
        if p == len {
            self.alive.push(i as u32);
        } else {
            let moved = self.alive[p as usize];
            self.alive.push(moved);
            self.pos[moved as usize] = len;
            self.alive[p as usize] = i as u32;
        }
        self.pos[i] = p;
    }

    /// Minimum risk: the alive row with the fewest free cells (random among ties), or, with
    /// [`Tail::branch_on_columns`], an alive column with fewer. Returns (index, is a column).
    fn pick(&self, rng: &mut impl Rng) -> (usize, bool) {
        let mut best = u32::MAX;
        let mut pick = 0;
        let mut ties = 0u32;
        for &i in &self.alive {
            let c = self.row_cnt[i as usize];
            if c < best {
                (best, pick, ties) = (c, i as usize, 1);
            } else if c == best {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    pick = i as usize;
                }
            }
        }
        if !self.by_cols {
            return (pick, false);
        }
        let row_best = best;
        let mut col = false;
        for j in 0..self.t {
            let c = self.col_cnt[j];
            if !self.col_alive[j] || c >= row_best || c > best {
                continue;
            }
            if c < best || !col {
                (best, pick, ties, col) = (c, j, 1, true);
            } else {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    pick = j;
                }
            }
        }
        (pick, col)
    }

    /// Candidates of the chosen row (its free columns) or column (the alive rows where it is
    /// free), in minimum-damage order: a sample of [`DAMAGE_SAMPLE`] is measured by how many
    /// free cells of other rows the queen would close, the rest follow at random.
    fn order(&self, var: usize, by_col: bool, rng: &mut impl Rng) -> Vec<u32> {
        let mut cands = Vec::new();
        if by_col {
            let bit = 1u64 << (var % 64);
            cands.extend(
                self.alive
                    .iter()
                    .copied()
                    .filter(|&i| self.free[i as usize * self.words + var / 64] & bit != 0),
            );
        } else {
            for w in 0..self.words {
                let mut bits = self.free[var * self.words + w];
                while bits != 0 {
                    cands.push((w * 64 + bits.trailing_zeros() as usize) as u32);
                    bits &= bits - 1;
                }
            }
        }
        cands.shuffle(rng);
        let measured = cands.len().min(DAMAGE_SAMPLE);
        let mut scored: Vec<(u32, u32)> = cands[..measured]
            .iter()
            .map(|&k| {
                let (i, j) = if by_col {
                    (k, var as u32)
                } else {
                    (var as u32, k)
                };
                let mut damage = 0u32;
                self.for_each_attacked(i as usize, j as usize, |_, _| damage += 1);
                (damage, k)
            })
            .collect();
        // Stable sort keeps the random order among equal damage.
        scored.sort_by_key(|&(d, _)| d);
        for (k, &(_, c)) in scored.iter().enumerate() {
            cands[k] = c;
        }
        cands
    }

    /// Depth-first search for a free cell in every row, distinct columns, no two attacking.
    ///
    /// Stops after `node_limit` placements or at `deadline`; the matrix is restored unless a
    /// solution is found. `nodes` counts the placements tried.
    pub fn search(
        &mut self,
        rng: &mut impl Rng,
        node_limit: u64,
        deadline: Deadline<'_>,
        nodes: &mut u64,
    ) -> Outcome {
        if self.t == 0 {
            return Outcome::Found(Vec::new());
        }
        if self.row_cnt.contains(&0) || self.col_cnt.contains(&0) {
            return Outcome::Exhausted;
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut used = 0u64;
        'descend: loop {
            if self.alive.is_empty() {
                let mut assign = vec![NONE; self.t];
                for f in &stack {
                    let (i, j) = f.cell(f.next - 1);
                    assign[i] = j as u32;
                }
                return Outcome::Found(assign);
            }
            let (var, by_col) = self.pick(rng);
            let cands = self.order(var, by_col, rng);
            let mark = self.trail.len();
            stack.push(Frame {
                var: var as u32,
                by_col,
                pos: 0,
                cands,
                next: 0,
                mark,
            });
            loop {
                let Some(f) = stack.last_mut() else {
                    return Outcome::Exhausted;
                };
                let mark = f.mark;
                if f.next > 0 {
                    let (i, j) = f.cell(f.next - 1);
                    let pos = f.pos;
                    self.unplace(i, j, mark);
                    self.restore_alive(i, pos);
                }
                if f.next == f.cands.len() {
                    stack.pop();
                    continue;
                }
                let (i, j) = f.cell(f.next);
                f.next += 1;
                used += 1;
                *nodes += 1;
                if used > node_limit || (used % 256 == 0 && deadline.passed()) {
                    // Put the matrix back as it was built: the top frame has nothing placed,
                    // every frame below holds its current cell.
                    stack.pop();
                    while let Some(f) = stack.pop() {
                        let (i, j) = f.cell(f.next - 1);
                        self.unplace(i, j, f.mark);
                        self.restore_alive(i, f.pos);
                    }
                    return Outcome::Aborted;
                }
                f.pos = self.remove_alive(i);
                if self.place(i, j) {
                    continue 'descend;
                }
            }
        }
    }
}
