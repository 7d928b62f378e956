//! The fast climb: the weights and the cell prices both by projected subgradient, with no
//! assignment problem to solve. Each step evaluates the certificate `B(λ, p)` itself: every
//! queen takes its cheapest cell `argmin_j d(q, j) + Λ_q(j) + p_j` (several queens may take
//! the same cell), which costs `O(Q·M)`, and the supergradient of `B` is the line counts minus
//! one for the weights and the cell counts minus one for the prices.

use super::{line_count, BoundStop, Problem, Progress};
use std::time::{Duration, Instant};

/// The step-size factor starts here (Polyak steps toward a target above the best bound) ...
const THETA_START: f64 = 1.0;
/// ... is halved after this many steps without a better bound ...
const THETA_PATIENCE: usize = 50;
/// ... and the climb stops below this.
const THETA_MIN: f64 = 1e-3;
/// Polyak target: this share above the best bound, plus 1.
///
/// Measured on seeds 2, 208, 5, 10, 33, 77, 3, 4 (sum of the bounds, deadline 0.1 s / 0.25 s,
/// shared machine): patience 50 and share 0.3 give 767.5 / 783.7; patience 100, share 0.3:
/// 539.4 (seed 2 cut) / 783.9; θ from 2, patience 200, share 0.1: 743.7 / 779.1. Converged
/// (no deadline) all three agree within 0.2 % (seed 2: 199.05–199.26, seed 208: 195.29–195.45,
/// 0.3–0.7 s), above the assignment-based climb's converged 198.35 and 193.89 (10–15 s).
const TARGET_SHARE: f64 = 0.3;
/// Queens between two clock reads within a step.
const CLOCK_EVERY: usize = 64;
/// Steps at most (a guard: the step-size rule ends every climb measured long before).
const MAX_STEPS: usize = 100_000;

/// What a climb found: the best certified value, where, and how the climb went.
pub(super) struct Climbed {
    /// The best `B(λ, p)` evaluated (`−∞` before the first step).
    pub best: f64,
    /// The weights and prices of the best value.
    pub weights: Vec<f64>,
    /// See `weights`.
    pub prices: Vec<f64>,
    /// Steps made.
    pub steps: usize,
    /// Mean time of a step.
    pub per_step: Duration,
    /// Why the climb stopped.
    pub stop: BoundStop,
}

/// Climbs `B(λ, p)` with weights `λ ∈ [0, cap]` from `λ = 0`, `p = 0` until `deadline`, the
/// step size's floor or a point with no ascent direction. `cap = N` bounds every answer;
/// a smaller `cap` bounds the moves plus `cap` per pair, `cap = ∞` the error-free answers
/// (`docs/solver.md`, "Two cases").
///
/// # Complexity
/// `O(Q·M + C·M)` per step for `Q` queens, `M` free cells and `C` colours: about 0.15 ms on
/// seed 2 (N = 30, C = 6); every climb on seeds 1–100 ends within 0.6 s of CPU.
pub(super) fn climb(problem: &Problem, cap: f64, deadline: Instant) -> Climbed {
    climb_reporting(problem, cap, deadline, None)
}

/// [`climb`], raising `progress` with every better value: only with `cap ≤ N`, where the
/// value bounds every answer.
pub(super) fn climb_reporting(
    problem: &Problem,
    cap: f64,
    deadline: Instant,
    progress: Option<&Progress>,
) -> Climbed {
    debug_assert!(progress.is_none() || cap <= problem.n as f64);
    let (q_count, m) = (problem.queens.len(), problem.cells.len());
    let lines = line_count(problem.n);
    let colours = problem.queens.iter().max().map_or(0, |&c| c + 1);
    let mut weights = vec![0.0f64; colours * lines];
    let mut prices = vec![0.0f64; m];
    let mut extra = vec![0.0f64; colours * m];
    let mut line_counts = vec![0i32; colours * lines];
    let mut cell_counts = vec![0i32; m];
    let mut out = Climbed {
        best: f64::NEG_INFINITY,
        weights: weights.clone(),
        prices: prices.clone(),
        steps: 0,
        per_step: Duration::ZERO,
        stop: BoundStop::Deadline,
    };
    let started = Instant::now();
    let (mut theta, mut stale) = (THETA_START, 0);
    while out.steps < MAX_STEPS {
        if Instant::now() >= deadline {
            return out;
        }
        // Λ + p per colour and cell
        for c in 0..colours {
            let w = &weights[c * lines..(c + 1) * lines];
            let row = &mut extra[c * m..(c + 1) * m];
            for ((e, &[a, b, d, f]), &p) in row.iter_mut().zip(&problem.cell_lines).zip(&prices) {
                *e = p + w[a] + w[b] + w[d] + w[f];
            }
        }
        line_counts.fill(0);
        cell_counts.fill(0);
        // the certificate B(λ, p), term by term as docs/solver.md states it
        let mut bound = -prices.iter().sum::<f64>() - weights.iter().sum::<f64>();
        for q in 0..q_count {
            // on huge boards one step takes long (N = 128, C = 100: 10⁸ cells × queens); a cut
            // step's partial sum is no bound and is dropped
            if q % CLOCK_EVERY == CLOCK_EVERY - 1 && Instant::now() >= deadline {
                return out;
            }
            let c = problem.queens[q];
            let (value, j) = argmin(
                &problem.dist[q * m..(q + 1) * m],
                &extra[c * m..(c + 1) * m],
            );
            bound += value;
            cell_counts[j] += 1;
            for line in problem.cell_lines[j] {
                line_counts[c * lines + line] += 1;
            }
        }
        out.steps += 1;
        out.per_step = started.elapsed() / out.steps as u32;
        if bound > out.best + 1e-9 {
            out.best = bound;
            if let Some(progress) = progress {
                progress.raise(bound);
            }
            out.weights.copy_from_slice(&weights);
            out.prices.copy_from_slice(&prices);
            stale = 0;
        } else {
            stale += 1;
            if stale >= THETA_PATIENCE {
                theta /= 2.0;
                stale = 0;
            }
        }
        if theta < THETA_MIN {
            out.stop = BoundStop::Converged;
            return out;
        }
        let target = out.best.max(0.0) * (1.0 + TARGET_SHARE) + 1.0;
        let counts = (&line_counts[..], &cell_counts[..]);
        if !ascend(
            &mut weights,
            &mut prices,
            counts,
            cap,
            theta * (target - bound).max(1e-3),
        ) {
            // no ascent direction: (λ, p) is optimal
            out.stop = BoundStop::Converged;
            return out;
        }
    }
    out.stop = BoundStop::Steps;
    out
}

/// One projected supergradient step of Polyak length `gain / |g|²`: `g` is `k − 1` per
/// (colour, line) and per cell for the counts `(lines, cells)`, zero where the clamps
/// (`0 ≤ λ ≤ cap`, `p ≥ 0`) hold. `false`, and nothing moved, when `g` is zero.
fn ascend(
    weights: &mut [f64],
    prices: &mut [f64],
    (lines, cells): (&[i32], &[i32]),
    cap: f64,
    gain: f64,
) -> bool {
    let active = |x: f64, g: i32, top: f64| !(x <= 0.0 && g < 0 || x >= top && g > 0);
    let mut norm = 0.0;
    for (&w, &k) in weights.iter().zip(lines) {
        if active(w, k - 1, cap) {
            norm += f64::from((k - 1) * (k - 1));
        }
    }
    for (&p, &k) in prices.iter().zip(cells) {
        if active(p, k - 1, f64::INFINITY) {
            norm += f64::from((k - 1) * (k - 1));
        }
    }
    if norm == 0.0 {
        return false;
    }
    let step = gain / norm;
    for (w, &k) in weights.iter_mut().zip(lines) {
        *w = (*w + step * f64::from(k - 1)).clamp(0.0, cap);
    }
    for (p, &k) in prices.iter_mut().zip(cells) {
        *p = (*p + step * f64::from(k - 1)).max(0.0);
    }
    true
}

/// `min_j dist[j] + extra[j]` and the first `j` reaching it (`dist` may hold `∞`).
pub(super) fn argmin(dist: &[f64], extra: &[f64]) -> (f64, usize) {
    // lanes first (no dependency chain between them), then the index by the same sums
    let mut lanes = [f64::INFINITY; 8];
    let mut chunks = dist.chunks_exact(8).zip(extra.chunks_exact(8));
    for (d, e) in &mut chunks {
        for k in 0..8 {
            let v = d[k] + e[k];
            lanes[k] = if v < lanes[k] { v } else { lanes[k] };
        }
    }
    let tail = dist.len() / 8 * 8;
    let mut best = lanes.iter().copied().fold(f64::INFINITY, f64::min);
    for j in tail..dist.len() {
        best = best.min(dist[j] + extra[j]);
    }
    let j = (0..dist.len())
        .find(|&j| dist[j] + extra[j] == best)
        .unwrap_or(0);
    (best, j)
}
