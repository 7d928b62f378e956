//! Two cases (`docs/solver.md`, "Two cases"): an answer's final board either has no
//! same-colour attacking pair, or at least one.
//!
//! * **Error-free** (`p = 0`): every line holds at most one queen of a colour, so the line
//!   weights need no cap (`λ·(k − 1) ≤ 0` for `k ≤ 1`), and each colour's queens stand on an
//!   N-Queens board: where the one-colour branch and bound finishes, its minimum over those
//!   boards (with the cell prices added to the costs) replaces the colour's Lagrangian term.
//! * **With errors** (`p ≥ 1`): for `μ ∈ [0, N]`, moves `+ μ·p` is bounded by the relaxation
//!   with pair penalty `μ` (weights in `[0, μ]`), so moves `+ N·p ≥ L_μ + (N − μ)`; and
//!   dropping one queen of each pair leaves none, so the score is at least `N·p` plus the
//!   error-free bound less what `p` drops can take off (`one_error`).
//!
//! Every answer is in one case, so it scores at least the smaller of the two bounds.

use super::branch::branch;
use super::joint::climb;
use super::one_error::one_error;
use super::{line_count, Problem};
use crate::solver::stage::exact::{as_kind, proven_floor, Floor, Kind, MAX_N_ONE_COLOUR};
use std::time::{Duration, Instant};

/// Slack taken off a proven per-colour minimum: the search matches with costs scaled to
/// integers (`10⁻⁶`, at most `n · 0.5·10⁻⁶` above the optimum for `n ≤ 32`), and its pruning
/// compares with `10⁻⁹`; `10⁻⁴` is far above both.
const EXACT_SLACK: f64 = 1e-4;

/// The error-free case's weights need no cap; this finite one (times `N`) keeps the climb's
/// arithmetic finite where no error-free answer exists (the dual is then unbounded and the
/// weights would grow to infinity). Any cap keeps the bound valid; on seeds 1–100 the climb's
/// best weights stay below `0.4 N` and its prices below 0.9.
const FREE_CAP: f64 = 100.0;
/// Prices above this are not given to the floor searches (their `f32` tables and integer
/// matchings are exact enough only for costs of moderate size); the colours' Lagrangian terms
/// still count.
const PRICE_LIMIT: f64 = 1e4;

/// Share of the time left after the uncapped climb that the per-colour floors may take (the
/// with-errors climbs take the rest).
const FLOOR_SHARE: f64 = 0.85;

/// The price climb's Polyak target: this share of the best value above it, plus this much.
const PRICE_TARGET: f64 = 0.05;
/// The price climb's step factor is halved after this many steps without a better value ...
const PRICE_PATIENCE: usize = 3;
/// ... and the climb stops below this ...
const PRICE_THETA_MIN: f64 = 0.01;
/// ... or after this many steps (a guard for long deadlines: on seeds 1–100 the 0.9 s
/// deadline or `θ` ends it first).
const PRICE_STEPS: usize = 200;

/// Climbs of the golden-section search over the pair penalty `μ` (after the first two).
///
/// Measured on seeds 28, 89, 50, 60 (N 8–10, C 3–6) with `μ` on a grid of tenths of `N`:
/// `L_μ` stops rising near `μ = 0.2N–0.3N` (the relaxation then places no pair), where
/// `L_μ + N − μ` is largest; 8 probes narrow `[0, N]` to `0.618⁸ N ≈ 0.02 N`.
const PENALTY_PROBES: usize = 8;

/// The two cases' bounds and what went into them.
#[derive(Clone, Debug, PartialEq)]
pub struct Cases {
    /// No error-free answer scores below this (`∞` when none exists).
    pub free: f64,
    /// No answer with at least one error scores below this.
    pub errors: f64,
    /// Colours whose minimum over N-Queens boards was proven (the search finished).
    pub proven: usize,
    /// The cell prices (per cell of the board, 0 on walls) of the best error-free bound: the
    /// proof search's heuristic adds them (any prices `≥ 0` keep it admissible). Empty when
    /// the error-free climb made no step.
    pub prices: Vec<f64>,
    /// Regions the branch and bound on contested cells bounded (0: it did not run).
    pub nodes: usize,
    /// The branch and bound ended on disjoint cheapest boards: `free` is the optimum of the
    /// relaxation (walls-only matchings onto disjoint N-Queens boards), so only blocking can
    /// lift the error-free case further.
    pub solved: bool,
}

/// The two cases' bounds for `problem` (whose queens must be all of the board's), computed
/// until `deadline`; `floor` is the plain bound (penalty `N`), which bounds both cases: the
/// with-errors bound is only climbed when the error-free one is above it. With `branching`,
/// where every colour's minimum is exact, the time left raises the error-free bound by
/// branching on contested cells (`branch`).
///
/// # Complexity
/// One climb with (almost) uncapped weights, one one-colour branch and bound per colour (`N ≤ 32`) and a few capped
/// climbs, each cut by `deadline`.
pub(super) fn two_cases(
    problem: &Problem,
    walls: &[bool],
    floor: f64,
    branching: bool,
    deadline: Instant,
) -> Cases {
    let mut cases = Cases {
        free: floor,
        errors: floor,
        proven: 0,
        prices: Vec::new(),
        nodes: 0,
        solved: false,
    };
    let free = climb(problem, FREE_CAP * problem.n as f64, deadline);
    if free.steps == 0 {
        return cases;
    }
    cases.free = cases.free.max(free.best);
    // the floors may take a share of the time left; the with-errors climbs the rest
    let now = Instant::now();
    let floors_by = now + deadline.saturating_duration_since(now).mul_f64(FLOOR_SHARE);
    let priced = price_climb(problem, walls, &free.weights, &free.prices, &[], floors_by);
    cases.free = cases.free.max(priced.value);
    cases.proven = priced.proven;
    cases.prices = vec![0.0; walls.len()];
    for (&cell, &p) in problem.cells.iter().zip(&priced.prices) {
        cases.prices[cell] = p;
    }
    if cases.free <= floor + 1e-9 {
        return cases;
    }
    // every colour exact: the branching may raise the error-free bound up to the with-errors
    // one, which is then wanted in full (its climbs converge in milliseconds on such boards)
    let branching = branching && priced.boards.iter().all(Option::is_some);
    let enough = if branching { f64::INFINITY } else { cases.free };
    // dropping one queen bounds the answers with errors at once; the penalty's climbs only
    // while that is not enough
    cases.errors = cases
        .errors
        .max(one_error(problem, &free.weights, &priced, deadline));
    if cases.errors < enough {
        cases.errors = cases.errors.max(with_errors(problem, enough, deadline));
    }
    if branching && cases.errors > cases.free {
        let branched = branch(
            problem,
            walls,
            &free.weights,
            priced,
            cases.errors,
            deadline,
        );
        cases.free = cases.free.max(branched.value);
        (cases.nodes, cases.solved) = (branched.nodes, branched.solved);
    }
    cases
}

/// The error-free bound at prices `p`: `Σ_c max(Lagrangian term, floor) − Σ p` (see
/// [`colour_floors`]), then the prices climbed by projected supergradient while every colour's
/// minimum is exact: `h_j` = (colours whose cheapest board holds cell `j`) − 1, Polyak steps
/// toward [`PRICE_TARGET`] above the best value, `θ` halved after [`PRICE_PATIENCE`] steps
/// without a better one. Every evaluated value is a bound (any `p ≥ 0`) on the error-free
/// answers that put no queen of colour `c` on free cell `j` where `forbidden[c·M + j]` (empty:
/// nothing forbidden); returns the best, with its prices and boards.
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
    let (mut theta, mut stale) = (1.0, 0);
    let mut count = vec![0i32; prices.len()];
    for _ in 0..PRICE_STEPS {
        if theta < PRICE_THETA_MIN || Instant::now() >= deadline {
            break;
        }
        let Some(exact) = boards
            .iter()
            .map(Option::as_ref)
            .collect::<Option<Vec<_>>>()
        else {
            break; // a colour not exact: no supergradient
        };
        count.fill(-1);
        for &j in exact.iter().flat_map(|b| b.iter()) {
            count[j] += 1;
        }
        let active = |(&p, &h): (&f64, &i32)| p > 0.0 || h > 0;
        let norm: f64 = prices
            .iter()
            .zip(&count)
            .filter(|&x| active(x))
            .map(|(_, &h)| f64::from(h * h))
            .sum();
        if norm == 0.0 {
            break; // the boards are disjoint and every priced cell used: optimal prices
        }
        let target = best.value + best.value.abs() * PRICE_TARGET + PRICE_TARGET;
        let step = theta * (target - value) / norm;
        for (p, &h) in prices.iter_mut().zip(&count) {
            *p = (*p + step * f64::from(h)).max(0.0);
        }
        (values, boards) = free_bound(problem, walls, weights, &prices, forbidden, deadline);
        value = values.iter().sum::<f64>() - prices.iter().sum::<f64>();
        if value > best.value + 1e-9 {
            stale = 0;
            best.value = value;
            best.prices.clone_from(&prices);
            best.values.clone_from(&values);
            best.boards.clone_from(&boards);
        } else {
            stale += 1;
            if stale >= PRICE_PATIENCE {
                (theta, stale) = (theta / 2.0, 0);
            }
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

/// The with-errors bound `max_μ L_μ + N − μ`: `L_μ` is concave in `μ` (the best bound over a
/// convex set of weights growing linearly with `μ`), so a golden-section search over
/// `μ ∈ [0, N]` finds the maximum up to the climbs' accuracy; every probe is a bound. Stops
/// once a probe reaches `enough` (the error-free bound: the smaller case decides) or at
/// `deadline`; `−∞` when no climb made a step.
fn with_errors(problem: &Problem, enough: f64, deadline: Instant) -> f64 {
    let n = problem.n as f64;
    let mut left_probes = PENALTY_PROBES + 2;
    let mut probe = |mu: f64| {
        // an equal share of the time left for each probe still to come (a cut climb still
        // gives a bound)
        let now = Instant::now();
        let by = now + deadline.saturating_duration_since(now) / left_probes as u32;
        left_probes = left_probes.saturating_sub(1).max(1);
        let capped = climb(problem, mu, by);
        if capped.steps > 0 {
            capped.best + n - mu
        } else {
            f64::NEG_INFINITY
        }
    };
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (0.0, n);
    let (mut left, mut right) = (high - golden * (high - low), low + golden * (high - low));
    let (mut at_left, mut at_right) = (probe(left), probe(right));
    let mut best = at_left.max(at_right);
    for _ in 0..PENALTY_PROBES {
        if best >= enough || Instant::now() >= deadline {
            break;
        }
        if at_left < at_right {
            (low, left, at_left) = (left, right, at_right);
            right = low + golden * (high - low);
            at_right = probe(right);
        } else {
            (high, right, at_right) = (right, left, at_left);
            left = high - golden * (high - low);
            at_left = probe(left);
        }
        best = best.max(at_left).max(at_right);
    }
    best
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
