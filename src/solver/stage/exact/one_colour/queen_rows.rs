//! The queens matched to the rows: the proof's node bound that counts every queen once.
//!
//! The reduced costs of [`OneColour`](super::OneColour) give each cell its cheapest queen
//! under the root's queen weights, so several cells of a node may lean on the same queen. Here
//! the queens are matched to the rows instead: queen `i` pays for row `r` its cheapest cell
//! there that the node still allows (the row's own cell once a queen stands on it), plus the
//! column and diagonal weights `w` of that cell, and the cheapest such assignment, less the
//! weights' constant, bounds every board through the node (each board has one cell per row,
//! every queen ends on one of them, and `Σ w` over a board is at most the constant).
//!
//! Down the tree a row's cells only get fewer, so every cost only grows: the parent's duals
//! (`α` per queen, `β` per row) stay feasible for the child, its matched pairs whose cost grew
//! are dropped, and each dropped queen is matched again by one shortest augmenting path
//! (`O(n²)`, the Hungarian method's step). Measured on seed 3052 (N = 21) with the proof's cap
//! at the optimum: 420 933 nodes with the row and column reductions alone, 94 903 with this
//! bound beside them (docs/benchmarks.md, "the one-colour engine").

use super::bits;


/// A cost no board reaches: a queen with no allowed cell in a row (finite, so that the duals
/// stay numbers).
pub(super) const NO_CELL: f64 = 1e9;
/// A node whose assignment costs this much has a queen with no row to go to.
const INFEASIBLE: f64 = 1e8;
/// Tolerance of the duals' tightness.
const TIGHT: f64 = 1e-9;

/// What the bound needs of a search: every queen's cost on every cell (path cost plus the
/// cell's line weights, [`NO_CELL`] where it cannot go) and, per row and queen, the columns
/// it can reach cheapest first.
pub(super) struct QueenRowTables {
    n: usize,
    /// `cost[cell][i]`: queen `i` on `cell` ([`NO_CELL`] beyond the `n` queens).
    cost: Vec<[f64; 32]>,
    /// `order[(r * n + i) * 32 + k]`: queen `i`'s `k`-th cheapest column of row `r`.
    order: Vec<u8>,
    /// `len[r * n + i]`: how many columns of row `r` queen `i` can reach.
    len: Vec<u8>,
}

impl QueenRowTables {
    /// The tables of queens `members` (rows of `dist`) on an `n × n` board, each cell's
    /// weight `weights[cell]` added; `reachable(cell)` false on walls and cells no queen
    /// reaches.
    pub(super) fn new(
        n: usize,
        members: &[usize],
        dist: &[f32],
        weights: &[f64],
        reachable: impl Fn(usize) -> bool,
    ) -> QueenRowTables {
        let nn = n * n;
        let mut cost = vec![[NO_CELL; 32]; nn];
        let mut order = vec![0u8; n * n * 32];
        let mut len = vec![0u8; n * n];
        for (i, &q) in members.iter().enumerate() {
            for cell in (0..nn).filter(|&c| reachable(c)) {
                let d = dist[q * nn + cell];
                if d.is_finite() {
                    cost[cell][i] = f64::from(d) + weights[cell];
                }
            }
            for r in 0..n {
                let on = |c: u8| cost[r * n + c as usize][i];
                let mut columns: Vec<u8> = (0..n as u8).filter(|&c| on(c) < NO_CELL).collect();
                columns.sort_by(|&a, &b| on(a).total_cmp(&on(b)));
                let at = (r * n + i) * 32;
                order[at..at + columns.len()].copy_from_slice(&columns);
                len[r * n + i] = columns.len() as u8;
            }
        }
        QueenRowTables {
            n,
            cost,
            order,
            len,
        }
    }

    /// Every queen's cost on `cell`.
    fn on(&self, cell: usize) -> &[f64; 32] {
        &self.cost[cell]
    }

    /// Queen `i`'s `k`-th cheapest column of row `r`, if it has that many.
    fn column(&self, r: usize, i: usize, k: u8) -> Option<usize> {
        let n = self.n;
        (k < self.len[r * n + i]).then(|| self.order[(r * n + i) * 32 + k as usize] as usize)
    }

    /// Queen `i`'s cost of row `r` when its next column there is the `k`-th of its order.
    fn at(&self, r: usize, i: usize, k: u8) -> f64 {
        let n = self.n;
        if k >= self.len[r * n + i] {
            return NO_CELL;
        }
        self.cost[r * n + self.order[(r * n + i) * 32 + k as usize] as usize][i]
    }
}

/// The matching of queens to rows and its duals: what [`QueenRows::place`] saves and
/// [`QueenRows::undo`] restores whole.
#[derive(Clone, Copy)]
struct Matching {
    alpha: [f64; 32],
    beta: [f64; 32],
    /// The row matched to each queen (`u8::MAX`: none).
    row_of: [u8; 32],
    /// The queen matched to each row (`u8::MAX`: none).
    queen_of: [u8; 32],
    /// The filled rows (bit `r`).
    filled: u32,
}

/// One queen's cheapest allowed cell of an open row moved on (for [`QueenRows::undo`]).
#[derive(Clone, Copy)]
struct Moved {
    row: u8,
    queen: u8,
    /// Index into the queen's order of the row, and the column there (`u8::MAX`: none),
    /// before the move.
    next: u8,
    from: u8,
    /// The column after the move (`u8::MAX`: none).
    to: u8,
    cost: f64,
}

/// What [`QueenRows::undo`] restores of one [`QueenRows::place`]: the matching, the trail's
/// length, the filled row and its costs before.
#[derive(Clone)]
struct Saved {
    now: Matching,
    mark: usize,
    row: usize,
    costs: [f64; 32],
}

/// The assignment of queens to rows at the proof's current node: every queen's cost of every
/// row, each queen's next allowed column per open row, a matching and its duals. The search
/// goes down with [`QueenRows::place`] and back up with [`QueenRows::undo`]: a trail of the
/// costs changed, no copy of the tables per node.
#[derive(Clone)]
pub(super) struct QueenRows {
    n: usize,
    /// `cost[i][r]`: queen `i`'s least cost on an allowed cell of row `r` (queen by queen:
    /// the augmenting paths read a queen's costs of every row).
    cost: [[f64; 32]; 32],
    /// `next[r][i]`: index into queen `i`'s order of row `r` of that cell (open rows).
    next: [[u8; 32]; 32],
    /// `owners[r][c]`: the queens (bit `i`) whose cheapest allowed cell of row `r` is in
    /// column `c`: a queen placed elsewhere moves only these.
    owners: [[u32; 32]; 32],
    now: Matching,
    saved: Vec<Saved>,
    trail: Vec<Moved>,
}

impl QueenRows {
    /// The root: no row filled, every reachable column allowed, matched in full. `None` when
    /// some queen cannot be matched to a row.
    pub(super) fn root(tables: &QueenRowTables) -> Option<QueenRows> {
        let n = tables.n;
        let mut rows = QueenRows {
            n,
            cost: [[NO_CELL; 32]; 32],
            next: [[0; 32]; 32],
            owners: [[0; 32]; 32],
            now: Matching {
                alpha: [0.0; 32],
                beta: [0.0; 32],
                row_of: [u8::MAX; 32],
                queen_of: [u8::MAX; 32],
                filled: 0,
            },
            saved: Vec::with_capacity(n + 1),
            trail: Vec::with_capacity(n * n * 4),
        };
        for r in 0..n {
            for i in 0..n {
                rows.cost[i][r] = tables.at(r, i, 0);
                if let Some(c) = tables.column(r, i, 0) {
                    rows.owners[r][c] |= 1 << i;
                }
            }
        }
        let limit = INFEASIBLE;
        (rows.rematch(limit) && rows.value() < limit).then_some(rows)
    }

    /// This node alone, without the history of the nodes above it (a subtree for a thread).
    pub(super) fn detached(&self) -> QueenRows {
        QueenRows {
            n: self.n,
            cost: self.cost,
            next: self.next,
            owners: self.owners,
            now: self.now,
            saved: Vec::with_capacity(self.n + 1),
            trail: Vec::with_capacity(self.n * self.n * 4),
        }
    }

    /// The bound without the weights' constant: `Σ α + Σ β`, the least cost of matching the
    /// queens to the rows (valid whenever the duals are feasible).
    pub(super) fn value(&self) -> f64 {
        let n = self.n;
        self.now.alpha[..n].iter().sum::<f64>() + self.now.beta[..n].iter().sum::<f64>()
    }

    /// A lower bound, beyond [`QueenRows::value`], on what filling row `r` with `column`
    /// adds: the row's dual raised to its least reduced cost on that cell.
    pub(super) fn extra(&self, tables: &QueenRowTables, r: usize, column: usize) -> f64 {
        let n = self.n;
        least_reduced(tables.on(r * n + column), &self.now.alpha) - self.now.beta[r]
    }

    /// The queens whose reduced cost of row `r` is below `slack`: no other queen's cell of
    /// the row has a reduced cost below it (a queen's cell costs at least its cheapest
    /// allowed cell of the row, [`QueenRows::extra_among`]).
    pub(super) fn near(&self, r: usize, slack: f64) -> u32 {
        let now = &self.now;
        let mut near = 0u32;
        for i in 0..self.n {
            if self.cost[i][r] - now.alpha[i] - now.beta[r] < slack {
                near |= 1 << i;
            }
        }
        near
    }

    /// [`QueenRows::extra`] over the queens `near` only (`∞` when there are none): equal to
    /// it wherever either is below the slack `near` was drawn with.
    pub(super) fn extra_among(
        &self,
        tables: &QueenRowTables,
        (r, column): (usize, usize),
        near: u32,
    ) -> f64 {
        let on = tables.on(r * self.n + column);
        let mut least = f64::INFINITY;
        for i in bits(near) {
            let v = on[i] - self.now.alpha[i];
            least = if v < least { v } else { least };
        }
        least - self.now.beta[r]
    }

    /// Goes down to the child with a queen on `(r, column)`, its open rows now barred from
    /// `blocked` (the parent's were `before`), matched again; `false` when the child's value
    /// reaches `limit` (or it has no matching). Either way [`QueenRows::undo`] comes back.
    pub(super) fn place(
        &mut self,
        tables: &QueenRowTables,
        (r, column): (usize, usize),
        (blocked, before): (&[u32; 32], &[u32; 32]),
        limit: f64,
    ) -> bool {
        let n = self.n;
        let mut costs = [0.0; 32];
        let on = tables.on(r * n + column);
        for i in 0..n {
            costs[i] = self.cost[i][r];
            self.cost[i][r] = on[i];
        }
        self.saved.push(Saved {
            now: self.now,
            mark: self.trail.len(),
            row: r,
            costs,
        });
        self.now.filled |= 1 << r;
        let mut changed = 1u32 << r;
        for k in 0..n {
            let newly = blocked[k] & !before[k];
            if self.now.filled >> k & 1 == 0 && newly != 0 && self.skip(tables, k, newly, blocked[k])
            {
                changed |= 1 << k;
            }
        }
        self.raise(changed) < limit.min(INFEASIBLE) && self.rematch(limit)
    }

    /// Back to the node before the last [`QueenRows::place`].
    pub(super) fn undo(&mut self) {
        let saved = self.saved.pop().expect("a place to undo");
        self.now = saved.now;
        for moved in self.trail.drain(saved.mark..).rev() {
            let (r, i) = (moved.row as usize, moved.queen as usize);
            if moved.to != u8::MAX {
                self.owners[r][moved.to as usize] &= !(1 << i);
            }
            if moved.from != u8::MAX {
                self.owners[r][moved.from as usize] |= 1 << i;
            }
            self.next[r][i] = moved.next;
            self.cost[i][r] = moved.cost;
        }
        for i in 0..self.n {
            self.cost[i][saved.row] = saved.costs[i];
        }
    }

    /// Moves the next column of open row `k` past the columns `bars` bars for every queen
    /// whose next column is among `newly` (those barred since the parent); whether the
    /// row's matched queen moved.
    fn skip(&mut self, tables: &QueenRowTables, k: usize, newly: u32, bars: u32) -> bool {
        let n = self.n;
        let mut moved = 0u32;
        for c in bits(newly) {
            moved |= self.owners[k][c];
            self.owners[k][c] = 0;
        }
        for i in bits(moved) {
            let at = (k * n + i) * 32;
            let len = tables.len[k * n + i];
            let first = self.next[k][i];
            let mut next = first;
            while next < len && bars >> tables.order[at + next as usize] & 1 == 1 {
                next += 1;
            }
            let to = if next < len {
                tables.order[at + next as usize]
            } else {
                u8::MAX
            };
            if to != u8::MAX {
                self.owners[k][to as usize] |= 1 << i;
            }
            self.trail.push(Moved {
                row: k as u8,
                queen: i as u8,
                next: first,
                from: tables.order[at + first as usize],
                to,
                cost: self.cost[i][k],
            });
            self.next[k][i] = next;
            self.cost[i][k] = tables.at(k, i, next);
        }
        let matched = self.now.queen_of[k];
        matched != u8::MAX && moved >> matched & 1 == 1
    }

    /// Raises the duals of the `changed` rows, then of the queens matched there, as far as
    /// feasibility lets them (each to its least reduced cost): a quick value, often enough
    /// to prune before any augmenting path; returns it.
    fn raise(&mut self, changed: u32) -> f64 {
        let n = self.n;
        let now = &mut self.now;
        let mut queens = 0u32;
        for k in bits(changed) {
            let mut least = f64::INFINITY;
            for i in 0..n {
                let v = self.cost[i][k] - now.alpha[i];
                least = if v < least { v } else { least };
            }
            now.beta[k] = least;
            if now.queen_of[k] != u8::MAX {
                queens |= 1 << now.queen_of[k];
            }
        }
        for i in bits(queens) {
            now.alpha[i] = least_reduced(&self.cost[i], &now.beta);
        }
        self.value()
    }

    /// Drops the matched pairs that are no longer tight (their cost grew) and matches their
    /// queens again; `false` when the value reaches `limit` or [`INFEASIBLE`].
    fn rematch(&mut self, limit: f64) -> bool {
        let n = self.n;
        let now = &mut self.now;
        for i in 0..n {
            let r = now.row_of[i];
            if r != u8::MAX && self.cost[i][r as usize] > now.alpha[i] + now.beta[r as usize] + TIGHT
            {
                now.row_of[i] = u8::MAX;
                now.queen_of[r as usize] = u8::MAX;
            }
        }
        let limit = limit.min(INFEASIBLE);
        for i in 0..n {
            if self.now.row_of[i] == u8::MAX && !self.augment(i, limit) {
                return false;
            }
        }
        self.value() < limit
    }

    /// Matches the free queen `start` by a shortest augmenting path over the reduced costs
    /// `cost − α − β ≥ 0`, keeping the duals feasible and the matched pairs tight; `false`
    /// as soon as the value (which every step raises) reaches `limit`.
    fn augment(&mut self, start: usize, limit: f64) -> bool {
        let n = self.n;
        let mut value = self.value();
        let now = &mut self.now;
        let mut least = [f64::INFINITY; 32];
        let mut via = [u8::MAX; 32];
        // the rows on the tree, and the queens (bit `i`) whose dual grows with it
        let mut used = 0u32;
        let mut queens = 1u32 << start;
        let mut i = start;
        let mut slot = u8::MAX; // the row whose queen is `i` (none for the start)
        let end = loop {
            let (mut delta, mut next) = (f64::INFINITY, 0);
            let costs = &self.cost[i];
            let base = now.alpha[i];
            for r in 0..n {
                let reduced = costs[r] - base - now.beta[r];
                let open = used >> r & 1 == 0;
                if open && reduced < least[r] {
                    least[r] = reduced;
                    via[r] = slot;
                }
                if open && least[r] < delta {
                    (delta, next) = (least[r], r);
                }
            }
            for q in bits(queens) {
                now.alpha[q] += delta;
            }
            for r in 0..n {
                if used >> r & 1 == 1 {
                    now.beta[r] -= delta;
                } else {
                    least[r] -= delta;
                }
            }
            // one more queen than rows on the tree: the value grows by delta
            value += delta;
            if value >= limit {
                return false;
            }
            used |= 1 << next;
            match now.queen_of[next] {
                u8::MAX => break next,
                q => {
                    queens |= 1 << q;
                    i = q as usize;
                    slot = next as u8;
                }
            }
        };
        // flip the path: each row on it takes the queen of the row before it
        let mut at = end;
        loop {
            let before = via[at];
            let queen = match before {
                u8::MAX => start as u8,
                b => now.queen_of[b as usize],
            };
            now.queen_of[at] = queen;
            now.row_of[queen as usize] = at as u8;
            if before == u8::MAX {
                break;
            }
            at = before as usize;
        }
        true
    }
}

/// `min_i (cost[i] − alpha[i])` over all 32 entries (the unused ones cost [`NO_CELL`]
/// against a dual of 0): a loop of fixed length, which vectorises.
fn least_reduced(cost: &[f64; 32], alpha: &[f64; 32]) -> f64 {
    let mut least = [f64::INFINITY; 4];
    for k in 0..8 {
        for j in 0..4 {
            let v = cost[4 * k + j] - alpha[4 * k + j];
            least[j] = if v < least[j] { v } else { least[j] };
        }
    }
    least[0].min(least[1]).min(least[2].min(least[3]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathfinding::kuhn_munkres::kuhn_munkres_min;
    use pathfinding::matrix::Matrix;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The least assignment of queens to rows, each row's cost its cheapest cell that
    /// `blocked` allows (or the filled column), by the Hungarian method from scratch.
    fn from_scratch(tables: &QueenRowTables, filled: &[u8; 32], blocked: &[u32; 32]) -> f64 {
        let n = tables.n;
        let cost = |i: usize, r: usize| -> f64 {
            (0..n)
                .filter(|&c| match filled[r] {
                    u8::MAX => blocked[r] >> c & 1 == 0,
                    f => f as usize == c,
                })
                .map(|c| tables.on(r * n + c)[i])
                .fold(NO_CELL, f64::min)
        };
        let weights = Matrix::from_fn(n, n, |(i, r)| (cost(i, r) * 1e6).round() as i64);
        kuhn_munkres_min(&weights).0 as f64 / 1e6
    }

    #[test]
    fn placing_queens_keeps_the_least_assignment_of_queens_to_rows() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(71);
        for case in 0..200 {
            let n = rng.random_range(3..=9);
            let members: Vec<usize> = (0..n).collect();
            let dist: Vec<f32> = (0..n * n * n)
                .map(|_| match rng.random_range(0..8) {
                    0 => f32::INFINITY,
                    _ => rng.random_range(0..40) as f32 / 8.0,
                })
                .collect();
            let weights: Vec<f64> = (0..n * n).map(|_| rng.random_range(0.0..1.0)).collect();
            let tables = QueenRowTables::new(n, &members, &dist, &weights, |_| true);
            let mut blocked = [0u32; 32];
            let Some(mut rows) = QueenRows::root(&tables) else {
                assert!(from_scratch(&tables, &[u8::MAX; 32], &blocked) >= INFEASIBLE);
                continue;
            };
            let mut filled = [u8::MAX; 32];
            // fill random rows with random columns, as the proof's search would
            for _ in 0..rng.random_range(1..=n) {
                let open: Vec<usize> = (0..n).filter(|&r| filled[r] == u8::MAX).collect();
                let r = open[rng.random_range(0..open.len())];
                let free: Vec<usize> = (0..n).filter(|&c| blocked[r] >> c & 1 == 0).collect();
                if free.is_empty() {
                    break;
                }
                let c = free[rng.random_range(0..free.len())];
                let before = blocked;
                for (k, bars) in blocked.iter_mut().enumerate().take(n) {
                    let d = k.abs_diff(r);
                    *bars |= 1 << c;
                    if c >= d {
                        *bars |= 1 << (c - d);
                    }
                    if c + d < n {
                        *bars |= 1 << (c + d);
                    }
                }
                filled[r] = c as u8;
                let want = from_scratch(&tables, &filled, &blocked);
                let bound = rows.value() + rows.extra(&tables, r, c);
                if rows.place(&tables, (r, c), (&blocked, &before), f64::INFINITY) {
                    let got = rows.value();
                    assert!((got - want).abs() < 1e-4, "case {case}: {got} vs {want}");
                    assert!(bound <= got + 1e-6, "case {case}: {bound} above {got}");
                } else {
                    assert!(want >= INFEASIBLE, "case {case}: {want} is feasible");
                    break;
                }
                // going back and down again lands on the same values
                rows.undo();
                assert!(rows.place(&tables, (r, c), (&blocked, &before), f64::INFINITY));
                assert!((rows.value() - want).abs() < 1e-4, "case {case}: after an undo");
            }
        }
    }
}
