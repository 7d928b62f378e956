//! Two cases (`docs/solver.md`, "Two cases"): an answer's final board either has no
//! same-colour attacking pair, or at least one.
//!
//! * **Error-free** (`p = 0`): every line holds at most one queen of a colour, so the line
//!   weights need no cap (`λ·(k − 1) ≤ 0` for `k ≤ 1`), and each colour's queens stand on an
//!   N-Queens board: where the one-colour branch and bound finishes, its minimum over those
//!   boards (with the cell prices added to the costs) replaces the colour's Lagrangian term.
//! * **With errors** (`p ≥ 1`): for `μ ∈ [0, N]`, moves `+ μ·p` is bounded by the relaxation
//!   with pair penalty `μ` (weights in `[0, μ]`), so moves `+ N·p ≥ L_μ + (N − μ)`.
//!
//! Every answer is in one case, so it scores at least the smaller of the two bounds.

use super::joint::climb;
use super::{line_count, Problem};
use crate::solver::stage::exact::{proven_floor, Floor};
use std::time::{Duration, Instant};

/// Slack taken off a proven per-colour minimum: the search matches with costs scaled to
/// integers (`10⁻⁶`, at most `n · 0.5·10⁻⁶` above the optimum for `n ≤ 32`), and its pruning
/// compares with `10⁻⁹`; `10⁻⁴` is far above both.
const EXACT_SLACK: f64 = 1e-4;

/// Share of the time left after the uncapped climb that the per-colour floors may take (the
/// with-errors climbs take the rest).
const FLOOR_SHARE: f64 = 0.6;

/// The pair penalties `μ` of the with-errors case, as shares of `N` (`μ = N` is the plain
/// bound, which the caller already has).
const PENALTY_SHARES: [f64; 3] = [0.25, 0.5, 0.75];

/// The two cases' bounds and what went into them.
#[derive(Clone, Debug, PartialEq)]
pub struct Cases {
    /// No error-free answer scores below this (`∞` when none exists).
    pub free: f64,
    /// No answer with at least one error scores below this.
    pub errors: f64,
    /// Colours whose minimum over N-Queens boards was proven (the search finished).
    pub proven: usize,
}

/// The two cases' bounds for `problem` (whose queens must be all of the board's), computed
/// until `deadline`; `floor` is the plain bound (penalty `N`), which bounds both cases: the
/// with-errors bound is only climbed when the error-free one is above it.
///
/// # Complexity
/// One uncapped climb, one one-colour branch and bound per colour (`N ≤ 32`) and a few capped
/// climbs, each cut by `deadline`.
pub(super) fn two_cases(problem: &Problem, walls: &[bool], floor: f64, deadline: Instant) -> Cases {
    let mut cases = Cases {
        free: floor,
        errors: floor,
        proven: 0,
    };
    let free = climb(problem, f64::INFINITY, deadline);
    if free.steps == 0 {
        return cases;
    }
    cases.free = cases.free.max(free.best);
    let terms = problem.colour_terms(&free.weights, &free.prices);
    // the floors may take a share of the time left; the with-errors climbs the rest
    let now = Instant::now();
    let floors_by = now + deadline.saturating_duration_since(now).mul_f64(FLOOR_SHARE);
    let (exact, proven) = colour_floors(problem, walls, &free.prices, &terms, floors_by);
    cases.proven = proven;
    let prices: f64 = free.prices.iter().sum();
    let with_exact: f64 = terms
        .iter()
        .zip(&exact)
        .map(|(&lagrangian, &minimum)| lagrangian.max(minimum))
        .sum::<f64>()
        - prices;
    cases.free = cases.free.max(with_exact);
    if cases.free <= floor + 1e-9 {
        return cases;
    }
    let n = problem.n as f64;
    for share in PENALTY_SHARES {
        if cases.errors >= cases.free {
            break;
        }
        let mu = share * n;
        let capped = climb(problem, mu, deadline);
        if capped.steps > 0 {
            cases.errors = cases.errors.max(capped.best + n - mu);
        }
    }
    cases
}

/// Per colour, a proven lower bound on `min over N-Queens boards S of min-cost matching of the
/// colour's queens to S` with costs `d(q, j) + p_j`, less [`EXACT_SLACK`] (`−∞` where
/// nothing is proven, `∞` where the colour has no such board), and for how many colours it is
/// the exact minimum. `terms` are the colours' Lagrangian terms (bounds on the same minima).
/// Each colour's search gets an equal share of the time left.
fn colour_floors(
    problem: &Problem,
    walls: &[bool],
    prices: &[f64],
    terms: &[f64],
    deadline: Instant,
) -> (Vec<f64>, usize) {
    let (n, m) = (problem.n, problem.cells.len());
    let colours = problem.colours();
    let mut out = vec![f64::NEG_INFINITY; colours];
    let mut proven = 0;
    for (colour, slot) in out.iter_mut().enumerate() {
        let members: Vec<usize> = (0..problem.queens.len())
            .filter(|&q| problem.queens[q] == colour)
            .collect();
        if members.len() != n {
            continue; // an error-free board needs exactly one queen of the colour per row
        }
        let now = Instant::now();
        let share = deadline.saturating_duration_since(now) / (colours - colour) as u32;
        if share < Duration::from_millis(1) {
            break;
        }
        // costs rounded down to f32: the search's minimum stays at most the true one
        let mut dist = vec![f32::INFINITY; n * n * n];
        for (i, &q) in members.iter().enumerate() {
            for (j, &cell) in problem.cells.iter().enumerate() {
                let d = problem.dist[q * m + j];
                if d.is_finite() {
                    dist[i * n * n + cell] = round_down(d + prices[j]);
                }
            }
        }
        *slot = match proven_floor(n, walls, &dist, terms[colour], now + share) {
            Floor::Exact(cost) => {
                proven += 1;
                cost - EXACT_SLACK
            }
            Floor::AtLeast(floor) => floor - EXACT_SLACK,
        };
    }
    (out, proven)
}

/// The largest `f32` at most `x` (finite, non-negative `x`).
fn round_down(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) > x {
        y.next_down()
    } else {
        y
    }
}

impl Problem {
    /// Colours `0..C` of the queens in the relaxation (the highest present plus one).
    pub(super) fn colours(&self) -> usize {
        self.queens.iter().max().map_or(0, |&c| c + 1)
    }

    /// The certificate split by colour: per colour `c`, `Σ_{q of c} min_j (d(q, j) + Λ_q(j) +
    /// p_j) − Σ_l λ(c, l)`. Their sum less `Σ p` is [`Problem::certificate`].
    pub(super) fn colour_terms(&self, weights: &[f64], prices: &[f64]) -> Vec<f64> {
        let (m, lines) = (self.cells.len(), line_count(self.n));
        let mut terms: Vec<f64> = (0..self.colours())
            .map(|c| -weights[c * lines..(c + 1) * lines].iter().sum::<f64>())
            .collect();
        for (q, &colour) in self.queens.iter().enumerate() {
            let w = &weights[colour * lines..(colour + 1) * lines];
            terms[colour] += (0..m)
                .filter(|&j| self.dist[q * m + j].is_finite())
                .map(|j| {
                    let [a, b, c, e] = self.cell_lines[j];
                    self.dist[q * m + j] + w[a] + w[b] + w[c] + w[e] + prices[j]
                })
                .fold(f64::INFINITY, f64::min);
        }
        terms
    }
}
