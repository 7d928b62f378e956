//! Pairs of queens: swapping the final cells of two same-colour queens, and joint re-plans.

use super::{Improver, EPS};
use crate::solver::board::Move;

impl Improver<'_> {
    /// Tries to lower the score by swapping the final cells of `q` and a queen `p` of its
    /// colour: both lose their moves, `q` is planned to `p`'s final cell, then `p` to `q`'s (so
    /// its plan sees `q`'s new moves). With `joint`, also any `p` with both keeping their final
    /// cells: `q` re-planned with `p` out of the way, then `p`.
    pub(super) fn swap_queen(
        &mut self,
        q: usize,
        joint: bool,
        out_of_time: &impl Fn() -> bool,
    ) -> bool {
        let nq = self.starts.len();
        let (owners, cost, last) = self.paid();
        let (s1, f1) = (self.starts[q], last[q]);
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
            if joint && cost[q] > 0.0 && cost[p] > 0.0 {
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
}
