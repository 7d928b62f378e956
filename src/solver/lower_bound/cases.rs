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
//! Every answer is in one case, so it scores at least the smaller of the two bounds. The
//! error-free bound at given prices and its price climb are in `floors`, below this module,
//! the drop and the branching beside it (`one_error`, `branch`).

use super::branch::branch;
use super::floors::price_climb;
use super::joint::climb;
use super::one_error::one_error;
use super::Problem;
use std::time::Instant;

/// The error-free case's weights need no cap; this finite one (times `N`) keeps the climb's
/// arithmetic finite where no error-free answer exists (the dual is then unbounded and the
/// weights would grow to infinity). Any cap keeps the bound valid; on seeds 1–100 the climb's
/// best weights stay below `0.4 N` and its prices below 0.9.
const FREE_CAP: f64 = 100.0;
/// Share of the time left after the uncapped climb that the per-colour floors may take (the
/// with-errors climbs take the rest).
const FLOOR_SHARE: f64 = 0.85;

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
