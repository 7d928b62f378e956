//! The proof's node bound: the queens matched to the rows, under line weights of the node's
//! own, raised by a subgradient ascent.
//!
//! A board has one cell in every row and every column and at most one on every diagonal, and
//! every queen ends on one of its cells. For weights `λ` per column (any sign) and `μ ≥ 0`
//! per diagonal, each cell costs its line weights more, and every board through a node then
//! costs at least the cheapest assignment of the queens to the rows, queen `i` paying for row
//! `r` its cheapest cell there that the node allows (the filled row's own cell), less
//! `Σ λ + Σ μ`. The root's weights ([`super::potentials`]) suit the root; below it the queens
//! placed leave the open rows' cheap cells crowded on a few columns and diagonals, and
//! weights of the node's own tell. On seed 3052 (N = 21), of the nodes the row and column
//! reductions kept at the optimum's cap, the linear programme with the node's cells fixed lay
//! 2–3.5 above their bound, and 1.8–2.4 above without the diagonal constraints; the ascent
//! below, from no weights at all, pruned all 89 sampled nodes within 1–14 steps
//! (docs/benchmarks.md, "the one-colour engine").
//!
//! Each step solves the assignment ([`Assignment`]) and moves the weights along the
//! subgradient (the chosen cells per line, less one) by Polyak's step towards the threshold;
//! a node's children start from its best weights.

use super::super::assignment::{Assignment, Duals, INFEASIBLE, NO_CELL};
use super::bits;

/// Steps of the ascent at one node without pruning it before the search branches.
const STEPS: usize = 8;
/// Steps without a better bound before the step's scale halves.
const PATIENCE: usize = 2;
/// The ascent aims this far above the threshold (Polyak's target).
const AIM: f64 = 0.05;

/// Column weights `λ` (`0..n`), then diagonal (`r + c`) and anti-diagonal (`r + n − 1 − c`)
/// weights `μ ≥ 0`.
#[derive(Clone, Copy)]
pub(super) struct Weights([f64; 160]);

impl Weights {
    /// No weights.
    pub(super) fn zero() -> Weights {
        Weights([0.0; 160])
    }

    /// The weights of the root ([`super::potentials::Potentials::lines`], the same layout).
    pub(super) fn from_lines(lines: &[f64]) -> Weights {
        let mut weights = Weights::zero();
        weights.0[..lines.len()].copy_from_slice(lines);
        weights
    }

    /// Where the weights of the column, diagonal and anti-diagonal of cell `(r, c)` are.
    pub(super) fn lines(n: usize, r: usize, c: usize) -> [usize; 3] {
        [c, n + r + c, 3 * n - 1 + r + n - 1 - c]
    }

    /// The weight of cell `(r, c)`.
    fn on(&self, n: usize, r: usize, c: usize) -> f64 {
        let [a, b, d] = Weights::lines(n, r, c);
        self.0[a] + self.0[b] + self.0[d]
    }
}

/// Every queen's path cost to every cell (`cell → [queen]`, [`NO_CELL`] where it cannot go
/// and beyond the `n` queens).
pub(super) struct AscentTables {
    n: usize,
    /// The queens rounded up to a multiple of 4: the loops over the queens run this far.
    lanes: usize,
    dist: Vec<[f64; 32]>,
}

impl AscentTables {
    /// The costs of queens `members` (rows of `dist`) on an `n × n` board.
    pub(super) fn new(n: usize, members: &[usize], dist: &[f32]) -> AscentTables {
        let nn = n * n;
        let mut table = vec![[NO_CELL; 32]; nn];
        for (i, &q) in members.iter().enumerate() {
            for (cell, slot) in table.iter_mut().enumerate() {
                let d = dist[q * nn + cell];
                if d.is_finite() {
                    slot[i] = f64::from(d);
                }
            }
        }
        AscentTables {
            n,
            lanes: n.div_ceil(4) * 4,
            dist: table,
        }
    }
}

/// A node's bound that did not reach the threshold: its value, the weights and the
/// assignment's duals that gave it.
pub(super) struct NodeBound {
    pub(super) value: f64,
    pub(super) weights: Weights,
    pub(super) duals: Duals,
}

impl NodeBound {
    /// A lower bound, beyond [`NodeBound::value`], on the boards through cell `(r, c)`:
    /// the row's dual raised to the cell's least reduced cost.
    pub(super) fn extra(&self, tables: &AscentTables, r: usize, c: usize) -> f64 {
        let n = tables.n;
        let w = self.weights.on(n, r, c);
        let d = &tables.dist[r * n + c];
        let mut least = [f64::INFINITY; 4];
        for k in 0..tables.lanes / 4 {
            for j in 0..4 {
                let v = d[4 * k + j] - self.duals.alpha[4 * k + j];
                least[j] = if v < least[j] { v } else { least[j] };
            }
        }
        least[0].min(least[1]).min(least[2].min(least[3])) + w - self.duals.beta[r]
    }
}

/// The ascent's work space (one per search).
pub(super) struct Ascent {
    lap: Assignment,
}

impl Ascent {
    /// The work space of an `n × n` board.
    pub(super) fn new(n: usize) -> Ascent {
        Ascent {
            lap: Assignment::new(n),
        }
    }

    /// The bound of the node whose rows may take the cells `allowed[r]` (a filled row: its
    /// one cell), the ascent starting from `start`: `None` as soon as a step's bound reaches
    /// `threshold` (no board through the node beats it), else the best bound of [`STEPS`].
    pub(super) fn bound(
        &mut self,
        tables: &AscentTables,
        allowed: &[u32; 32],
        (start, from): (&Weights, Option<&Duals>),
        threshold: f64,
    ) -> Option<NodeBound> {
        let n = tables.n;
        let mut weights = *start;
        let mut best: Option<NodeBound> = None;
        let (mut scale, mut since) = (1.0, 0);
        // with no threshold there is nothing to aim at, nor to prune: the start's bound
        let steps = if threshold.is_finite() { STEPS } else { 1 };
        for step in 0..steps {
            let total: f64 = weights.0[..5 * n - 2].iter().sum();
            self.row_costs(tables, allowed, &weights);
            // each step from the last one's duals and matching; the first from the parent's
            let solved = match (step, from) {
                (0, None) => self.lap.solve(threshold + total),
                (0, Some(duals)) => {
                    self.lap.duals = *duals;
                    self.lap.resolve(threshold + total)
                }
                _ => self.lap.resolve(threshold + total),
            };
            if !solved {
                return None; // the assignment alone reaches the threshold
            }
            let value = self.lap.value() - total;
            if value >= INFEASIBLE {
                return None;
            }
            if best.as_ref().is_none_or(|b| value > b.value + 1e-9) {
                best = Some(NodeBound {
                    value,
                    weights,
                    duals: self.lap.duals,
                });
                since = 0;
            } else {
                since += 1;
                if since >= PATIENCE {
                    (scale, since) = (scale / 2.0, 0);
                }
            }
            let mut g = self.subgradient(tables, allowed, &weights);
            // a diagonal's weight stays ≥ 0: no push below zero
            for (gj, wj) in g.iter_mut().zip(&weights.0).take(5 * n - 2).skip(n) {
                if *wj <= 0.0 && *gj < 0.0 {
                    *gj = 0.0;
                }
            }
            let norm: f64 = g[..5 * n - 2].iter().map(|x| x * x).sum();
            if norm == 0.0 {
                break; // the assignment's cells form a board: nothing left to gain
            }
            // Polyak's target: the threshold, or not much above the bound when the threshold
            // lies far away (a cap with no board below it yet)
            let target = (threshold + AIM).min(value + 0.1 * value.abs() + 1.0);
            let step = scale * (target - value) / norm;
            for (j, (wj, gj)) in weights.0.iter_mut().zip(&g).take(5 * n - 2).enumerate() {
                *wj += step * gj;
                if j >= n {
                    *wj = wj.max(0.0);
                }
            }
        }
        best
    }

    /// Each queen's cost of each row: its cheapest allowed cell there, weights included.
    fn row_costs(&mut self, tables: &AscentTables, allowed: &[u32; 32], weights: &Weights) {
        let n = tables.n;
        for (r, &row) in allowed.iter().enumerate().take(n) {
            let mut least = [NO_CELL; 32];
            for c in bits(row) {
                let w = weights.on(n, r, c);
                let d = &tables.dist[r * n + c];
                for i in 0..tables.lanes {
                    let v = d[i] + w;
                    least[i] = if v < least[i] { v } else { least[i] };
                }
            }
            for (i, &v) in least.iter().enumerate().take(n) {
                self.lap.cost[i][r] = v;
            }
        }
    }

    /// Per line, the cells of the assignment on it less one (each row's matched queen's
    /// cheapest allowed cell).
    fn subgradient(
        &self,
        tables: &AscentTables,
        allowed: &[u32; 32],
        weights: &Weights,
    ) -> [f64; 160] {
        let n = tables.n;
        let mut g = [-1.0; 160];
        for (r, &row) in allowed.iter().enumerate().take(n) {
            let i = self.lap.duals.queen_of[r] as usize;
            let mut best = (f64::INFINITY, usize::MAX);
            for c in bits(row) {
                let v = tables.dist[r * n + c][i] + weights.on(n, r, c);
                if v < best.0 {
                    best = (v, c);
                }
            }
            if best.1 != usize::MAX {
                for j in Weights::lines(n, r, best.1) {
                    g[j] += 1.0;
                }
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{brute_minimum, random_case};
    use super::*;

    #[test]
    fn the_node_bound_never_passes_the_cheapest_board() {
        use rand::{Rng, SeedableRng};
        use rand_xoshiro::Xoshiro256PlusPlus;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(73);
        let mut bounded = 0;
        for case in 0..120 {
            let n = rng.random_range(4..=7);
            let (walls, dist) = random_case(n, &mut rng);
            let want = brute_minimum(n, &walls, &dist);
            let members: Vec<usize> = (0..n).collect();
            let tables = AscentTables::new(n, &members, &dist);
            let mut allowed = [0u32; 32];
            for (r, row) in allowed.iter_mut().enumerate().take(n) {
                *row = (0..n).filter(|&c| !walls[r * n + c]).map(|c| 1 << c).sum();
            }
            let mut ascent = Ascent::new(n);
            // a threshold above the minimum must not be reached
            if want.is_finite() {
                let start = (&Weights::zero(), None);
                let found = ascent.bound(&tables, &allowed, start, want + 1e-6);
                let found = found.expect("a bound above the cheapest board");
                assert!(found.value <= want + 1e-6, "case {case}");
                bounded += 1;
            }
        }
        assert!(bounded >= 60, "only {bounded} boards");
    }
}
