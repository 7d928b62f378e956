//! The cheapest assignment of up to 32 queens to as many rows, with its duals: the Hungarian
//! method by shortest augmenting paths on a dense cost matrix.
//!
//! The one-colour proof's node bound (`one_colour/ascent.rs`) and the root's weights
//! ([`potentials`](super::potentials)) solve one such assignment per step of
//! its weights' ascent. The node bound only needs to know whether the assignment reaches a
//! limit, so [`Assignment::solve`] stops as soon as its value does (each augmenting step
//! raises it); the root's weights want its value and duals (a limit of `f64::INFINITY`).

/// A cost no assignment reaches: a queen with no cell left in a row (finite, so that the
/// duals stay numbers).
pub(super) const NO_CELL: f64 = 1e9;
/// An assignment this costly has a queen with no row to go to.
pub(super) const INFEASIBLE: f64 = 1e8;

/// The duals and matching of an [`Assignment`].
#[derive(Clone, Copy)]
pub(super) struct Duals {
    /// One per queen.
    pub(super) alpha: [f64; 32],
    /// One per row.
    pub(super) beta: [f64; 32],
    /// The row matched to each queen (`u8::MAX`: none).
    row_of: [u8; 32],
    /// The queen matched to each row (`u8::MAX`: none).
    pub(super) queen_of: [u8; 32],
}

/// An `n × n` assignment problem (`n ≤ 32`): `cost[i][r]` of queen `i` in row `r`.
pub(super) struct Assignment {
    pub(super) n: usize,
    /// Queen by queen: an augmenting path reads one queen's costs of every row.
    pub(super) cost: [[f64; 32]; 32],
    pub(super) duals: Duals,
}

impl Assignment {
    /// `n` queens and rows, every cost [`NO_CELL`].
    pub(super) fn new(n: usize) -> Assignment {
        Assignment {
            n,
            cost: [[NO_CELL; 32]; 32],
            duals: Duals {
                alpha: [0.0; 32],
                beta: [0.0; 32],
                row_of: [u8::MAX; 32],
                queen_of: [u8::MAX; 32],
            },
        }
    }

    /// `Σ α + Σ β`: the cheapest assignment's cost once every queen is matched, and a lower
    /// bound on it whenever the duals are feasible.
    pub(super) fn value(&self) -> f64 {
        let n = self.n;
        self.duals.alpha[..n].iter().sum::<f64>() + self.duals.beta[..n].iter().sum::<f64>()
    }

    /// Solves from scratch; `false` as soon as the value reaches `limit` (or
    /// [`INFEASIBLE`]): then the duals are feasible but the matching is not whole.
    ///
    /// # Complexity
    /// `O(n³)`.
    pub(super) fn solve(&mut self, limit: f64) -> bool {
        let n = self.n;
        let duals = &mut self.duals;
        duals.beta = [0.0; 32];
        duals.row_of = [u8::MAX; 32];
        duals.queen_of = [u8::MAX; 32];
        for i in 0..n {
            duals.alpha[i] = self.cost[i][..n]
                .iter()
                .fold(f64::INFINITY, |a, &b| a.min(b));
        }
        self.rematch(limit)
    }

    /// Solves again after the costs changed anyhow, from the rows' duals and the matching
    /// of the last solve: each queen's dual lowered (or raised) to its least reduced cost,
    /// then only the pairs no longer tight matched again. `false` as [`Assignment::solve`].
    pub(super) fn resolve(&mut self, limit: f64) -> bool {
        let n = self.n;
        let duals = &mut self.duals;
        for i in 0..n {
            let mut least = f64::INFINITY;
            for r in 0..n {
                let v = self.cost[i][r] - duals.beta[r];
                least = if v < least { v } else { least };
            }
            duals.alpha[i] = least;
        }
        self.rematch(limit)
    }

    /// Drops the matched pairs that are no longer tight (their cost grew) and matches their
    /// queens again; `false` when the value reaches `limit` or [`INFEASIBLE`].
    pub(super) fn rematch(&mut self, limit: f64) -> bool {
        let n = self.n;
        let duals = &mut self.duals;
        for i in 0..n {
            let r = duals.row_of[i];
            if r != u8::MAX
                && self.cost[i][r as usize] > duals.alpha[i] + duals.beta[r as usize] + 1e-9
            {
                duals.row_of[i] = u8::MAX;
                duals.queen_of[r as usize] = u8::MAX;
            }
        }
        let limit = limit.min(INFEASIBLE);
        for i in 0..n {
            if self.duals.row_of[i] == u8::MAX && !self.augment(i, limit) {
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
        let duals = &mut self.duals;
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
            let base = duals.alpha[i];
            for r in 0..n {
                let reduced = costs[r] - base - duals.beta[r];
                let open = used >> r & 1 == 0;
                if open && reduced < least[r] {
                    least[r] = reduced;
                    via[r] = slot;
                }
                if open && least[r] < delta {
                    (delta, next) = (least[r], r);
                }
            }
            for q in super::bits(queens) {
                duals.alpha[q] += delta;
            }
            for (r, l) in least.iter_mut().enumerate().take(n) {
                if used >> r & 1 == 1 {
                    duals.beta[r] -= delta;
                } else {
                    *l -= delta;
                }
            }
            debug_assert!(delta.is_finite(), "costs are finite numbers");
            if !delta.is_finite() {
                return false;
            }
            // one more queen than rows on the tree: the value grows by delta
            value += delta;
            if value >= limit {
                return false;
            }
            used |= 1 << next;
            match duals.queen_of[next] {
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
                b => duals.queen_of[b as usize],
            };
            duals.queen_of[at] = queen;
            duals.row_of[queen as usize] = at as u8;
            if before == u8::MAX {
                break;
            }
            at = before as usize;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathfinding::kuhn_munkres::kuhn_munkres_min;
    use pathfinding::matrix::Matrix;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn solves_like_the_kuhn_munkres_of_pathfinding_and_stops_at_a_limit() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(72);
        for case in 0..300 {
            let n = rng.random_range(1..=12);
            let mut lap = Assignment::new(n);
            for i in 0..n {
                for r in 0..n {
                    lap.cost[i][r] = match rng.random_range(0..6) {
                        0 => NO_CELL,
                        _ => rng.random_range(0..400) as f64 / 8.0,
                    };
                }
            }
            let weights = Matrix::from_fn(n, n, |(i, r)| (lap.cost[i][r] * 8.0) as i64);
            let want = kuhn_munkres_min(&weights).0 as f64 / 8.0;
            let solved = lap.solve(f64::INFINITY);
            assert_eq!(solved, want < INFEASIBLE, "case {case}");
            if solved {
                assert!((lap.value() - want).abs() < 1e-6, "case {case}");
                // a limit just above the value lets it finish, one at or below stops it
                assert!(lap.solve(want + 1e-3), "case {case}");
                assert!(!lap.solve(want - 1e-3), "case {case}");
                assert!(
                    lap.value() <= want + 1e-6,
                    "case {case}: feasible duals when cut"
                );
                // other costs, solved again from the last duals and matching
                assert!(lap.solve(f64::INFINITY));
                for i in 0..n {
                    let r = rng.random_range(0..n);
                    lap.cost[i][r] = rng.random_range(0..400) as f64 / 8.0;
                }
                let weights = Matrix::from_fn(n, n, |(i, r)| (lap.cost[i][r] * 8.0) as i64);
                let want = kuhn_munkres_min(&weights).0 as f64 / 8.0;
                assert_eq!(lap.resolve(f64::INFINITY), want < INFEASIBLE, "case {case}");
                if want < INFEASIBLE {
                    assert!((lap.value() - want).abs() < 1e-6, "case {case}: again");
                }
            }
        }
    }
}
