//! The error-free case's bound at cell prices `p` (`docs/solver.md`, "The certified lower
//! bound"): per colour the larger of its Lagrangian term and its floor, the least cost of
//! matching its queens onto an N-Queens board (the one-colour branch and bound, where it
//! finishes), summed less `Σ p`; and the climb of the prices. The two cases (`cases`), the
//! drop of one queen per error (`one_error`) and the branching on contested cells (`branch`)
//! all build on it; it imports none of them.

use super::pool::Pool;
use super::{line_count, Problem};
use crate::solver::stage::exact::{as_kind, proven_floor, Floor, Kind, MAX_N_ONE_COLOUR};
use std::time::{Duration, Instant};

/// Slack taken off a proven per-colour minimum: the search matches with costs scaled to
/// integers (`10⁻⁶`, at most `n · 0.5·10⁻⁶` above the optimum for `n ≤ 32`), and its pruning
/// compares with `10⁻⁹`; `10⁻⁴` is far above both.
const EXACT_SLACK: f64 = 1e-4;

/// Prices above this are not given to the floor searches (their `f32` tables and integer
/// matchings are exact enough only for costs of moderate size); the colours' Lagrangian terms
/// still count.
const PRICE_LIMIT: f64 = 1e4;

/// The price climb's first radius: how far (per cell) from the best prices the pool's model
/// may look for the next ones ...
const PRICE_RADIUS: f64 = 0.25;
/// ... halved after every evaluation that is not better, and the climb stops below this ...
const PRICE_RADIUS_MIN: f64 = 0.01;
/// ... or after this many steps (a guard for long deadlines: on seeds 1–100 the 0.9 s
/// deadline or the radius ends it first).
const PRICE_STEPS: usize = 200;

/// The error-free bound at prices `p`: `Σ_c max(Lagrangian term, floor) − Σ p` (see
/// [`colour_floors`]), then the prices climbed while every colour's minimum is exact: each
/// evaluation's cheapest boards join a [`Pool`], whose model of the bound proposes the next
/// prices within a radius of the best ones (halved after each evaluation that is not better).
/// Every evaluated value is a bound (any `p ≥ 0`) on the error-free answers that put no queen
/// of colour `c` on free cell `j` where `forbidden[c·M + j]` (empty: nothing forbidden);
/// returns the best, with its prices and boards.
pub(super) fn price_climb(
    problem: &Problem,
    walls: &[bool],
    weights: &[f64],
    start: &[f64],
    forbidden: &[bool],
    deadline: Instant,
) -> Priced {
    let mut prices = start.to_vec();
    let (mut values, mut boards) =
        free_bound(problem, walls, weights, &prices, forbidden, deadline);
    let mut value = values.iter().sum::<f64>() - prices.iter().sum::<f64>();
    let mut best = Priced {
        value,
        proven: boards.iter().filter(|b| b.is_some()).count(),
        prices: prices.clone(),
        values: values.clone(),
        boards: boards.clone(),
    };
    let mut pool = Pool::new(values.len());
    let mut radius = PRICE_RADIUS;
    for _ in 0..PRICE_STEPS {
        if radius < PRICE_RADIUS_MIN || Instant::now() >= deadline {
            break;
        }
        if boards.iter().any(Option::is_none) {
            break; // a colour not exact: no cheapest board to learn from
        }
        for (colour, board) in boards.iter().enumerate() {
            if let Some(cells) = board {
                pool.add(colour, values[colour] + EXACT_SLACK, cells, &prices);
            }
        }
        let Some(next) = pool.propose(&best.prices, radius, deadline) else {
            radius /= 2.0; // the model is flat within the radius
            continue;
        };
        prices = next;
        (values, boards) = free_bound(problem, walls, weights, &prices, forbidden, deadline);
        value = values.iter().sum::<f64>() - prices.iter().sum::<f64>();
        if value > best.value + 1e-9 {
            best.value = value;
            best.prices.clone_from(&prices);
            best.values.clone_from(&values);
            best.boards.clone_from(&boards);
        } else {
            radius /= 2.0;
        }
    }
    best
}

/// What [`price_climb`] found: its best error-free bound, where, and the colours' cheapest
/// boards there.
#[derive(Clone, Debug)]
pub(super) struct Priced {
    /// The best bound evaluated.
    pub value: f64,
    /// Colours whose minimum the first evaluation proved exact.
    pub proven: usize,
    /// The prices of `value` (per free cell).
    pub prices: Vec<f64>,
    /// Per colour there, `max(Lagrangian term, floor)`: `value` is their sum less `Σ p`.
    pub values: Vec<f64>,
    /// Per colour at those prices, its cheapest board as free-cell indices where the minimum is
    /// exact.
    pub boards: Vec<Option<Vec<usize>>>,
}

/// Per colour `max(Lagrangian term, floor)` at weights `weights` and prices `prices` with the
/// pairs `forbidden` left out (see [`price_climb`]; their sum less `Σ p` is the bound), and per
/// colour its cheapest board as free-cell indices where the floor is that board's exact cost.
fn free_bound(
    problem: &Problem,
    walls: &[bool],
    weights: &[f64],
    prices: &[f64],
    forbidden: &[bool],
    deadline: Instant,
) -> (Vec<f64>, Vec<Option<Vec<usize>>>) {
    let terms = problem.colour_terms(weights, prices, forbidden);
    let floors = colour_floors(problem, walls, prices, forbidden, &terms, deadline);
    let values: Vec<f64> = terms
        .iter()
        .zip(&floors)
        .map(|(&lagrangian, floor)| lagrangian.max(floor.0))
        .collect();
    let boards = floors.into_iter().map(|f| f.1).collect();
    (values, boards)
}

/// Per colour, a proven lower bound on `min over N-Queens boards S of min-cost matching of the
/// colour's queens to S` with costs `d(q, j) + p_j`, less [`EXACT_SLACK`] (`−∞` where
/// nothing is proven, `∞` where the colour has no such board), with the cheapest board's
/// free cells where the bound is its exact cost. `terms` are the colours' Lagrangian terms
/// (bounds on the same minima). A colour's `forbidden` cells (see [`price_climb`]) are out
/// of its boards. Each colour's search gets an equal share of the time left.
fn colour_floors(
    problem: &Problem,
    walls: &[bool],
    prices: &[f64],
    forbidden: &[bool],
    terms: &[f64],
    deadline: Instant,
) -> Vec<(f64, Option<Vec<usize>>)> {
    let colours = problem.colours();
    let mut out = vec![(f64::NEG_INFINITY, None); colours];
    if !prices.iter().all(|&p| (0.0..=PRICE_LIMIT).contains(&p)) {
        return out;
    }
    for (colour, slot) in out.iter_mut().enumerate() {
        let now = Instant::now();
        let share = deadline.saturating_duration_since(now) / (colours - colour) as u32;
        if share < Duration::from_millis(1) {
            break;
        }
        *slot = colour_floor(
            problem,
            walls,
            prices,
            forbidden,
            colour,
            terms[colour],
            now + share,
        );
    }
    out
}

/// One colour's entry of [`colour_floors`] (the prices checked by the caller), searched until
/// `deadline`; `term` is a bound on the same minimum.
pub(super) fn colour_floor(
    problem: &Problem,
    walls: &[bool],
    prices: &[f64],
    forbidden: &[bool],
    colour: usize,
    term: f64,
    deadline: Instant,
) -> (f64, Option<Vec<usize>>) {
    let (n, m) = (problem.n, problem.cells.len());
    let members = problem.members(colour);
    if members.len() != n || n > MAX_N_ONE_COLOUR {
        // an error-free board needs exactly one queen of the colour per row; beyond
        // MAX_N_ONE_COLOUR there is no search (and no n³ table to build)
        return (f64::NEG_INFINITY, None);
    }
    // costs rounded down to f32: the search's minimum stays at most the true one
    let mut dist = vec![f32::INFINITY; n * n * n];
    for (i, &q) in members.iter().enumerate() {
        for (j, &cell) in problem.cells.iter().enumerate() {
            let d = problem.dist[q * m + j];
            if d.is_finite() && !is_forbidden(forbidden, colour * m + j) {
                dist[i * n * n + cell] = round_down(d + prices[j]);
            }
        }
    }
    let kind = if prices.iter().all(|&p| p == 0.0) {
        Kind::Plain
    } else {
        Kind::Priced
    };
    match as_kind(kind, || proven_floor(n, walls, &dist, term, deadline)) {
        Floor::Exact(cost, cells) => {
            let free: Vec<usize> = cells
                .iter()
                .map(|c| problem.cells.binary_search(c).expect("a free cell"))
                .collect();
            (cost - EXACT_SLACK, Some(free))
        }
        Floor::AtLeast(floor) => (floor - EXACT_SLACK, None),
    }
}

/// Whether entry `at` of a forbidden table is set (an empty table forbids nothing).
pub(super) fn is_forbidden(forbidden: &[bool], at: usize) -> bool {
    forbidden.get(at).copied().unwrap_or(false)
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

    /// The queens of `colour` (indices into `queens`), in order.
    pub(super) fn members(&self, colour: usize) -> Vec<usize> {
        (0..self.queens.len())
            .filter(|&q| self.queens[q] == colour)
            .collect()
    }

    /// The certificate split by colour: per colour `c`, `Σ_{q of c} min_j (d(q, j) + Λ_q(j) +
    /// p_j) − Σ_l λ(c, l)` over the cells `j` not `forbidden` to `c` (see [`price_climb`]).
    /// Their sum less `Σ p` is [`Problem::certificate`] when nothing is forbidden.
    pub(super) fn colour_terms(
        &self,
        weights: &[f64],
        prices: &[f64],
        forbidden: &[bool],
    ) -> Vec<f64> {
        let lines = line_count(self.n);
        let mut terms: Vec<f64> = (0..self.colours())
            .map(|c| -weights[c * lines..(c + 1) * lines].iter().sum::<f64>())
            .collect();
        for (q, share) in self
            .queen_shares(weights, prices, forbidden)
            .into_iter()
            .enumerate()
        {
            terms[self.queens[q]] += share;
        }
        terms
    }

    /// Each queen's share of [`Problem::colour_terms`]: `min_j (d(q, j) + Λ_q(j) + p_j)` over
    /// the cells `j` not `forbidden` to its colour (`∞`: it reaches none).
    pub(super) fn queen_shares(
        &self,
        weights: &[f64],
        prices: &[f64],
        forbidden: &[bool],
    ) -> Vec<f64> {
        let (m, lines) = (self.cells.len(), line_count(self.n));
        let share = |(q, &colour): (usize, &usize)| {
            let w = &weights[colour * lines..(colour + 1) * lines];
            (0..m)
                .filter(|&j| {
                    self.dist[q * m + j].is_finite() && !is_forbidden(forbidden, colour * m + j)
                })
                .map(|j| {
                    let [a, b, c, e] = self.cell_lines[j];
                    self.dist[q * m + j] + w[a] + w[b] + w[c] + w[e] + prices[j]
                })
                .fold(f64::INFINITY, f64::min)
        };
        self.queens.iter().enumerate().map(share).collect()
    }
}
