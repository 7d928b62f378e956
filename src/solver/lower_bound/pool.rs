//! The boards the price climb has met, and the prices they suggest (`docs/solver.md`, "Two
//! cases"): a bundle step for the climb of `floors`.
//!
//! At prices `p` a board `S` of colour `c` costs its walls-only matching `M(S)` plus `p(S)`,
//! the prices of its cells (each cell of `S` holds one queen whatever the matching). So the
//! boards met so far give the model `Σ_c min_{S met} (M(S) + p(S)) − Σ p` of the error-free
//! bound `Σ_c E_c(p) − Σ p`: above it everywhere (fewer boards), equal where they were met, and
//! cheap to evaluate. Its maximum in a box around the best prices is where the next exact
//! evaluation goes: the model remembers every board, where a plain supergradient step sees
//! only the last ones. The model only steers: every bound is still evaluated by the floors.

use std::time::Instant;

/// Ascent steps on the model per proposal: each costs `O(boards · N + M)`, microseconds at
/// first; the pool grows by each evaluation's boards, so a long climb's proposal checks its
/// deadline every [`DEADLINE_EVERY`] steps.
const MODEL_STEPS: usize = 300;

/// Model steps between two looks at the clock.
const DEADLINE_EVERY: usize = 32;

/// The boards met so far, per colour: `(M(S), cells of S as free-cell indices)`.
#[derive(Clone, Debug, Default)]
pub(super) struct Pool {
    boards: Vec<Vec<(f64, Vec<usize>)>>,
}

impl Pool {
    /// An empty pool for `colours` colours.
    pub fn new(colours: usize) -> Pool {
        Pool {
            boards: vec![Vec::new(); colours],
        }
    }

    /// Records `cells`, a board of `colour` that costs `cost` at `prices` (kept once).
    pub fn add(&mut self, colour: usize, cost: f64, cells: &[usize], prices: &[f64]) {
        let mut sorted = cells.to_vec();
        sorted.sort_unstable();
        if self.boards[colour].iter().any(|(_, b)| *b == sorted) {
            return;
        }
        let walls_only = cost - sorted.iter().map(|&j| prices[j]).sum::<f64>();
        self.boards[colour].push((walls_only, sorted));
    }

    /// The model's value at `prices`, and per colour the index of its cheapest board there
    /// (`None` for a colour with no board: its term is left out).
    pub fn value(&self, prices: &[f64]) -> (f64, Vec<Option<usize>>) {
        let mut total = -prices.iter().sum::<f64>();
        let mut chosen = Vec::with_capacity(self.boards.len());
        for boards in &self.boards {
            let best = boards
                .iter()
                .map(|(m, cells)| m + cells.iter().map(|&j| prices[j]).sum::<f64>())
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((_, cost)) = best {
                total += cost;
            }
            chosen.push(best.map(|b| b.0));
        }
        (total, chosen)
    }

    /// Prices within `radius` of `center` (and `≥ 0`) where the model is highest, found by
    /// [`MODEL_STEPS`] projected supergradient steps of shrinking length; `None` when none
    /// beats `center` by more than `1e-9` (the model is flat there: the climb has converged
    /// at this radius). At `deadline` it gives the best found so far.
    pub fn propose(&self, center: &[f64], radius: f64, deadline: Instant) -> Option<Vec<f64>> {
        let (at_center, _) = self.value(center);
        let (mut best, mut best_value) = (None, at_center);
        let mut prices = center.to_vec();
        let mut count = vec![0i32; prices.len()];
        for step in 0..MODEL_STEPS {
            if step % DEADLINE_EVERY == DEADLINE_EVERY - 1 && Instant::now() >= deadline {
                break;
            }
            let (value, chosen) = self.value(&prices);
            if value > best_value + 1e-9 {
                (best, best_value) = (Some(prices.clone()), value);
            }
            count.fill(-1);
            for (boards, at) in self.boards.iter().zip(&chosen) {
                if let Some(at) = at {
                    for &j in &boards[*at].1 {
                        count[j] += 1;
                    }
                }
            }
            // cells at price 0 that no board wants stay there
            let largest = prices
                .iter()
                .zip(&count)
                .filter(|&(&p, &h)| p > 0.0 || h > 0)
                .map(|(_, &h)| h.abs())
                .max()
                .unwrap_or(0);
            if largest == 0 {
                break; // disjoint boards using every priced cell: the model's maximum
            }
            let length = radius / (2.0 * ((step + 1) as f64).sqrt()) / f64::from(largest);
            for ((p, &h), &c) in prices.iter_mut().zip(&count).zip(center) {
                let low = (c - radius).max(0.0);
                *p = (*p + length * f64::from(h)).clamp(low, c + radius);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::time::{Duration, Instant};

    /// A deadline no test reaches.
    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    #[test]
    fn the_model_prices_a_shared_cell_until_a_colour_prefers_another_board() {
        // two colours, cells 0..4; colour 0: board {0, 1} costs 1, board {2, 1} costs 1.5;
        // colour 1: board {0, 3} costs 1. Disjoint boards cost 2.5, the pairs at p = 0 cost 2:
        // p_0 = 0.5 lifts the model to 2.5 (colour 0 then indifferent)
        let mut pool = Pool::new(2);
        let zero = [0.0; 4];
        pool.add(0, 1.0, &[0, 1], &zero);
        pool.add(0, 1.5, &[2, 1], &zero);
        pool.add(0, 1.5, &[1, 2], &zero); // the same board again: kept once
        pool.add(1, 1.0, &[0, 3], &zero);
        assert_eq!(pool.boards[0].len(), 2);
        assert!((pool.value(&zero).0 - 2.0).abs() < 1e-12);
        let proposed = pool.propose(&zero, 1.0, far()).expect("a better point");
        let (value, _) = pool.value(&proposed);
        assert!(
            value > 2.4 && value <= 2.5 + 1e-9,
            "{value} at {proposed:?}"
        );
        // at the maximum nothing better is proposed
        assert!(pool.propose(&[0.5, 0.0, 0.0, 0.0], 1.0, far()).is_none());
    }
}
