//! Answers with errors, bounded by dropping one queen per error (`docs/solver.md`, "Two
//! cases").
//!
//! An answer whose final board has `e ≥ 1` same-colour attacking pairs scores `N·e` plus its
//! moves. Taking away one queen of each pair (at most `e` queens) leaves no pair, so the
//! error-free case's argument holds for the queens left: at the error-free climb's line
//! weights (all `≥ 0`) and prices, a colour that keeps its queens pays its value
//! (`max(Lagrangian term, floor)`), one that loses `k` its Lagrangian term less its `k`
//! largest queen shares (`drop_losses`); the most that `e` drops can take off is a knapsack
//! over the colours (`most_lost`). For `e = 1` the moves are also at least assignments of
//! each colour's queens to distinct rows (and, apart, columns), one colour with a queen left
//! free (`one_error_moves`), with no prices and with the error-free prices less their sum.
//! The penalty's relaxation (`L_μ + N − μ`) lets every colour buy many pairs at `μ` each, so
//! it stays far lower where queens start crowded on a few lines (seed 27, N = 26: 39.2542
//! against 55.94).

use super::floors::Priced;
use super::{line_count, Problem};
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use std::time::Instant;

/// Integer scale of the assignments' costs (rounded down: the assignments stay at most the
/// true ones).
const SCALE: f64 = 1e6;
/// The cost of an entry no queen can take (a line with no cell the queen reaches); sums of up
/// to 129 of them stay far inside `i64`.
const NEVER: i64 = 1 << 50;

/// The with-errors bound of the module's documentation for `problem`, whose queens must be
/// all of the board's: for `e` errors, `N·e` plus the error-free case's bound (at the line
/// weights `weights` and the prices of `priced`) with `e` queens dropped; for `e = 1` also
/// the assignments with no prices and with those prices. `−∞` when nothing applies (a colour
/// without `N` queens there, `deadline` past).
///
/// # Complexity
/// `O(Q · M)` (`Q` queens, `M` free cells), four `N × N` assignments per colour, and
/// `O(C · E²)` for the drops, `E ≈` the error-free bound over `N`.
pub(super) fn one_error(
    problem: &Problem,
    weights: &[f64],
    priced: &Priced,
    deadline: Instant,
) -> f64 {
    let n = problem.n as f64;
    let zero = vec![0.0; problem.cells.len()];
    let assigned = [&zero[..], &priced.prices]
        .iter()
        .map(|p| one_error_moves(problem, p, deadline))
        .fold(f64::NEG_INFINITY, f64::max);
    let kept = priced.values.iter().sum::<f64>() - priced.prices.iter().sum::<f64>();
    let losses = drop_losses(problem, weights, priced).filter(|_| kept.is_finite());
    let Some(losses) = losses else {
        return (2.0 * n).min(n + assigned);
    };
    // from `most + 1` errors on, `N` per error alone passes the error-free bound
    let most = ((kept / n).ceil().max(1.0) as usize).min(problem.queens.len().max(1));
    let lost = most_lost(&losses, most);
    let mut bound = n * (most + 1) as f64;
    for (e, &lost) in lost.iter().enumerate().skip(1) {
        let mut moves = kept - lost;
        if e == 1 {
            moves = moves.max(assigned);
        }
        bound = bound.min(n * e as f64 + moves);
    }
    bound
}

/// Per colour, what dropping `k` of its queens can take off the error-free case's bound at
/// the line weights `weights` (all `≥ 0`) and the prices of `priced`: its value
/// (`max(Lagrangian term, floor)`) falls to its Lagrangian term less the `k` dearest queens'
/// shares (the `N − k` others still hold at most one queen per line, so their weights still
/// sum to at most `Σ λ`). `losses[c][k]`, `k = 0..=N`; `None` where the weights or prices do
/// not fit or a queen reaches no cell.
fn drop_losses(problem: &Problem, weights: &[f64], priced: &Priced) -> Option<Vec<Vec<f64>>> {
    let (m, lines, colours) = (
        problem.cells.len(),
        line_count(problem.n),
        problem.colours(),
    );
    let prices = &priced.prices;
    let fits = weights.len() == colours * lines
        && weights.iter().all(|&w| w >= 0.0)
        && prices.len() == m
        && prices.iter().all(|&p| p >= 0.0)
        && priced.values.len() == colours;
    if !fits {
        return None;
    }
    let mut terms: Vec<f64> = (0..colours)
        .map(|c| -weights[c * lines..(c + 1) * lines].iter().sum::<f64>())
        .collect();
    let mut shares = vec![Vec::new(); colours];
    let by_queen = problem.queen_shares(weights, prices, &[]);
    for (&colour, share) in problem.queens.iter().zip(by_queen) {
        if !share.is_finite() {
            return None;
        }
        terms[colour] += share;
        shares[colour].push(share);
    }
    let losses = (0..colours)
        .map(|c| {
            shares[c].sort_by(|a, b| b.total_cmp(a));
            let mut loss = vec![0.0];
            let mut dropped = priced.values[c] - terms[c];
            for &share in &shares[c] {
                dropped += share;
                loss.push(dropped);
            }
            loss
        })
        .collect();
    Some(losses)
}

/// The most that dropping at most `e` queens in all can take off, for `e = 0..=most`
/// (a knapsack over the colours' `losses`).
fn most_lost(losses: &[Vec<f64>], most: usize) -> Vec<f64> {
    let mut lost = vec![0.0f64; most + 1];
    for colour in losses {
        let mut next = lost.clone();
        for e in 1..=most {
            for k in 1..colour.len().min(e + 1) {
                next[e] = next[e].max(lost[e - k] + colour[k]);
            }
        }
        lost = next;
    }
    lost
}

/// The least moves of an answer with one error by the assignments with cell prices `prices`
/// (one per free cell of `problem`, each `≥ 0`), less their sum (`−∞`: see [`one_error`]).
fn one_error_moves(problem: &Problem, prices: &[f64], deadline: Instant) -> f64 {
    let n = problem.n;
    if prices.len() != problem.cells.len() || !prices.iter().all(|&p| p >= 0.0) {
        return f64::NEG_INFINITY;
    }
    let (mut rows, mut columns) = (Vec::new(), Vec::new());
    for colour in 0..problem.colours() {
        if Instant::now() >= deadline {
            return f64::NEG_INFINITY;
        }
        let members = problem.members(colour);
        if members.len() != n {
            return f64::NEG_INFINITY;
        }
        let (by_row, by_column) = nearest_on_lines(problem, &members, prices);
        rows.push((assign(n, &by_row, false), assign(n, &by_row, true)));
        columns.push((assign(n, &by_column, false), assign(n, &by_column, true)));
    }
    let paid: f64 = prices.iter().sum();
    one_dropped(&rows).max(one_dropped(&columns)) - paid
}

/// Each member's walls-only distance plus price to the cheapest free cell of every row and
/// of every column (`members.len() × N` each, row-major by member).
fn nearest_on_lines(problem: &Problem, members: &[usize], prices: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (n, m) = (problem.n, problem.cells.len());
    let mut by_row = vec![f64::INFINITY; members.len() * n];
    let mut by_column = vec![f64::INFINITY; members.len() * n];
    for (i, &q) in members.iter().enumerate() {
        for (j, &cell) in problem.cells.iter().enumerate() {
            let d = problem.dist[q * m + j] + prices[j];
            let (r, c) = (cell / n, cell % n);
            by_row[i * n + r] = by_row[i * n + r].min(d);
            by_column[i * n + c] = by_column[i * n + c].min(d);
        }
    }
    (by_row, by_column)
}

/// The least cost of giving each of the `n` queens of `cost` (`n × n`, queen by line) its own
/// line; with `drop`, one queen is left free and one line empty. `∞` when no such assignment
/// has a finite cost.
fn assign(n: usize, cost: &[f64], drop: bool) -> f64 {
    let entry = |d: f64| {
        if d.is_finite() {
            (d * SCALE).floor() as i64
        } else {
            NEVER
        }
    };
    let size = n + usize::from(drop);
    // with `drop`: column `n` is the free slot (cost 0 for a queen), row `n` a queen of no
    // cost that takes the line left empty (it cannot take the slot)
    let weights = Matrix::from_fn(size, size, |(i, j)| match (i < n, j < n) {
        (true, true) => entry(cost[i * n + j]),
        (true, false) | (false, true) => 0,
        (false, false) => NEVER,
    });
    let (total, _) = kuhn_munkres_min(&weights);
    if total >= NEVER {
        f64::INFINITY
    } else {
        total as f64 / SCALE
    }
}

/// The least moves with every colour on its lines but one, which drops a queen:
/// `min_c (R'_c + Σ_{c' ≠ c} R_c')` over the colours' `(R, R')`.
fn one_dropped(colours: &[(f64, f64)]) -> f64 {
    (0..colours.len())
        .map(|c| {
            let others: f64 = (0..colours.len())
                .filter(|&k| k != c)
                .map(|k| colours[k].0)
                .sum();
            others + colours[c].1
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assignment_with_a_queen_dropped_leaves_out_the_dearest_line() {
        // two queens, two lines: 1 + 1 with both placed; one free: the cheaper one, 1
        let cost = [1.0, 5.0, 5.0, 1.0];
        assert_eq!(assign(2, &cost, false), 2.0);
        assert_eq!(assign(2, &cost, true), 1.0);
        // a queen that reaches no line: no assignment, unless it is the one dropped
        let cost = [f64::INFINITY, f64::INFINITY, 2.0, 3.0];
        assert_eq!(assign(2, &cost, false), f64::INFINITY);
        assert_eq!(assign(2, &cost, true), 2.0);
    }

    #[test]
    fn costs_are_rounded_down() {
        let third = 1.0 / 3.0;
        assert!(assign(1, &[third], false) <= third);
        assert!(assign(1, &[third], false) > third - 1e-6);
    }

    #[test]
    fn one_colour_drops_its_own_queen_and_others_keep_theirs() {
        assert_eq!(one_dropped(&[(10.0, 7.0)]), 7.0);
        // drop in the second colour: 10 + 4 beats 8 + 9
        assert_eq!(one_dropped(&[(10.0, 8.0), (9.0, 4.0)]), 14.0);
        assert_eq!(one_dropped(&[(f64::INFINITY, 1.0), (9.0, 4.0)]), 10.0);
    }
}
