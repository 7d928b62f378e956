//! Pairs of queens: swapping the final cells of two same-colour queens, and joint re-plans.

use super::{Improver, EPS};
use crate::solver::board::{line_cells, Move};

impl Improver<'_> {
    /// Tries to lower the score by swapping the final cells of `q` and a queen `p` of its
    /// colour: both lose their moves, `q` is planned to `p`'s final cell, then `p` to `q`'s (so
    /// its plan sees `q`'s new moves). With `joint`, also any `p` with both keeping their final
    /// cells: `q` re-planned with `p` out of the way, then `p` — only when one of them stands
    /// on or crosses a cell of a cheaper route of the other ([`Improver::in_the_way`]).
    pub(super) fn swap_queen(
        &mut self,
        q: usize,
        joint: bool,
        out_of_time: &impl Fn() -> bool,
    ) -> bool {
        let nq = self.starts.len();
        let (owners, cost, last) = self.paid();
        let (s1, f1) = (self.starts[q], last[q]);
        let footprints = if joint {
            self.footprints(&owners)
        } else {
            Vec::new()
        };
        for p in 0..nq {
            if p == q || out_of_time() {
                continue;
            }
            let (s2, f2) = (self.starts[p], last[p]);
            // final cells (of q, of p): swapped (same colour only), or kept but planned anew
            // with p out of q's way
            let mut pairs = Vec::with_capacity(2);
            if self.colours[p] == self.colours[q] && !(f1 == s1 && f2 == s2) {
                pairs.push((f2, f1));
            }
            // a joint re-plan gains only when one queen's cells block a cheaper route of the
            // other (nothing else changes on the board): on crowded boards most pairs do not
            // meet, and a joint pass over every pair took about 1 s on case 2 (N = 30, C = 6)
            if joint
                && cost[q] > 0.0
                && cost[p] > 0.0
                && (self.in_the_way(&footprints[p], (s1, f1), cost[q])
                    || self.in_the_way(&footprints[q], (s2, f2), cost[p]))
            {
                pairs.push((f1, f2));
            }
            for (g1, g2) in pairs {
                let bound = self.paths.row(s1)[g1] as f64 + self.paths.row(s2)[g2] as f64;
                if bound >= cost[q] + cost[p] - EPS {
                    continue;
                }
                let without_p: Vec<Move> = self
                    .moves
                    .iter()
                    .zip(&owners)
                    .filter(|&(_, &o)| o != p)
                    .map(|(m, _)| *m)
                    .collect();
                let Some(first) =
                    self.plan(q, &without_p, &[s2], Some(g1), f64::INFINITY, out_of_time)
                else {
                    continue;
                };
                let Some(both) = self.plan(p, &first, &[], Some(g2), self.score, out_of_time)
                else {
                    continue;
                };
                if self.keep_if_better(both) {
                    return true;
                }
            }
        }
        false
    }

    /// Every cell each queen stands on or crosses in the answer (its start, then the cells
    /// its moves cross and enter), by queen.
    fn footprints(&self, owners: &[usize]) -> Vec<Vec<usize>> {
        let mut cells: Vec<Vec<usize>> = self.starts.iter().map(|&s| vec![s]).collect();
        for (mv, &q) in self.moves.iter().zip(owners) {
            cells[q].extend(line_cells(self.n, mv.from, mv.to));
        }
        cells
    }

    /// Whether a cell of `footprint` may lie on a route (through the walls only) from `s` to
    /// `g` that costs less than `cost`.
    ///
    /// A cell `x` on such a route, inside its move `u → v` of length `a + b` (`a` from `u`),
    /// has `d(s, x) + d(x, g) <= cost - sqrt(a + b) + sqrt(a) + sqrt(b)`, and `sqrt(a) +
    /// sqrt(b) - sqrt(a + b) <= (sqrt 2 - 1) sqrt(a + b)` with `sqrt(a + b)` at most both `cost`
    /// and `sqrt(N - 1)`: cells beyond that slack are on no cheaper route.
    pub(super) fn in_the_way(
        &mut self,
        footprint: &[usize],
        (s, g): (usize, usize),
        cost: f64,
    ) -> bool {
        self.paths.ensure(s);
        self.paths.ensure(g);
        let (from, to) = (self.paths.get(s), self.paths.get(g));
        let (Some(from), Some(to)) = (from, to) else {
            return true;
        };
        let longest = ((self.n - 1) as f64).sqrt();
        // plus a margin for the `f32` distances
        let bar = cost + (std::f64::consts::SQRT_2 - 1.0) * cost.min(longest) + 1e-3;
        footprint
            .iter()
            .any(|&x| (from[x] as f64 + to[x] as f64) < bar)
    }
}
