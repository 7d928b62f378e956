//! Lower bound for the one-colour branch and bound (`one_colour`, which uses it): Lagrangian
//! weights on the queens, the columns and the diagonals.
//!
//! For numbers `u[i]` (one per queen), `λ[c]` (one per column) and `μ[d] ≥ 0` (one per
//! diagonal and anti-diagonal), let a cell's reduced cost be `red[x] = min_i (dist[i][x] −
//! u[i]) + λ[col x] + μ[diag x] + μ[anti x]`. Every N-Queens board `S` then obeys
//! `cost(S) ≥ Σ u − Σ λ − Σ μ + Σ_{x ∈ S} red[x]`: each queen pays `u[i]` plus at least
//! its cell's share, `S` has exactly one cell in each column (so the `λ` cancel) and at most
//! one on each diagonal (so the `μ ≥ 0` add at most `Σ μ`). With all weights zero this is
//! "each cell costs at least its nearest queen". Any weights give a valid bound; two
//! subgradient ascents choose good ones: the line weights on the relaxation "one cell per
//! row, each queen matched to a row" (an assignment problem per step), then the queen
//! potentials for those line weights.

use super::assignment::Assignment;
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use std::time::Instant;

/// Steps of the queen-potential ascent (each `O(n²)`).
const STEPS: usize = 300;
/// Steps of the column and diagonal ascent (each an `n × n` assignment); seeds 74 and 39
/// (N = 15): 100 steps reach the bound of 300 or 1 000 to 10⁻³.
const WEIGHT_STEPS: usize = 100;
/// Steps without a better bound before the ascent's step is halved.
const PATIENCE: usize = 5;
/// Integer scale of costs for the Hungarian method.
const SCALE: f64 = 1e6;

/// The Lagrangian bound `Σ u + Σ_r min_i (row_cost[i][r] − u[i])` and, per row, the queen
/// that attains its minimum. `row_cost[i * n + r]`: queen `i`'s cheapest free cell of row `r`.
fn bound(n: usize, row_cost: &[f64], u: &[f64], argmin: &mut [usize]) -> f64 {
    let mut total: f64 = u.iter().sum();
    for (r, slot) in argmin.iter_mut().enumerate() {
        let (mut best, mut at) = (f64::INFINITY, 0);
        for (i, &ui) in u.iter().enumerate() {
            let v = row_cost[i * n + r] - ui;
            if v < best {
                (best, at) = (v, i);
            }
        }
        total += best;
        *slot = at;
    }
    total
}

/// Cell weights of the relaxation and queen potentials, with the bound they give.
pub struct Potentials {
    /// `u[i]`, indexed like `members`.
    pub queens: Vec<f64>,
    /// Added to each cell's cost: the weight of its column and of its two diagonals.
    pub cells: Vec<f64>,
    /// Taken off every board's reduced sum: Σ of the column and diagonal weights (each board
    /// has one cell in every column and at most one on every diagonal, whose weights are ≥ 0).
    pub offset: f64,
    /// `Σ u − offset + Σ_r min_{c in row r} red[c]`: a lower bound on every board's cost
    /// (∞ when some row has no cell a queen can reach: there is no board).
    pub bound: f64,
    /// The line weights `cells` sums: `n` columns, `2n − 1` diagonals (`r + c`), `2n − 1`
    /// anti-diagonals (`r + n − 1 − c`).
    pub lines: Vec<f64>,
}

/// `row_cost[i * n + r]`: queen `i`'s cheapest free cell of row `r` with the cell weights
/// `extra`, and that cell.
fn row_costs(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    extra: &[f64],
) -> (Vec<f64>, Vec<usize>) {
    let nn = n * n;
    let k = members.len();
    let mut cost = vec![f64::INFINITY; k * n];
    let mut at = vec![0; k * n];
    for (i, &q) in members.iter().enumerate() {
        for cell in (0..nn).filter(|&c| !walls[c]) {
            let v = dist[q * nn + cell] as f64 + extra[cell];
            let slot = i * n + cell / n;
            if v < cost[slot] {
                (cost[slot], at[slot]) = (v, cell);
            }
        }
    }
    (cost, at)
}

/// The cheapest assignment of queens to rows under `row_cost`, and each queen's row.
fn row_assignment(n: usize, row_cost: &[f64]) -> (f64, Vec<usize>) {
    let k = row_cost.len() / n;
    let weights = Matrix::from_fn(k, n, |(i, r)| (row_cost[i * n + r] * SCALE).round() as i64);
    let (total, rows) = kuhn_munkres_min(&weights);
    (total as f64 / SCALE, rows)
}

/// The weights of a cell's three lines: `w[0..n]` columns, then `2n − 1` diagonals
/// (`r + c`), then `2n − 1` anti-diagonals (`r + n − 1 − c`).
fn lines(n: usize, cell: usize) -> [usize; 3] {
    let (r, c) = (cell / n, cell % n);
    [c, n + r + c, 3 * n - 1 + r + n - 1 - c]
}

/// The cell weights that the line weights `w` add up to.
fn cell_weights(n: usize, w: &[f64]) -> Vec<f64> {
    (0..n * n)
        .map(|cell| lines(n, cell).iter().map(|&j| w[j]).sum())
        .collect()
}

/// Potentials for the bound above. `dist[q * n² + cell]`: walls-only path cost from queen `q`
/// to `cell` (∞ if unreachable). Column and diagonal weights come from a subgradient ascent
/// on the relaxation "one cell per row, each queen matched to a row"; the queen potentials
/// then from [`queen_ascent`]. Without weights (the nearest-queen bound) when some queen
/// cannot reach some row.
///
/// # Complexity
/// `O(WEIGHT_STEPS · n³)` plus `O(STEPS · n²)`.
pub fn queen_potentials(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    deadline: Instant,
) -> Potentials {
    let k = members.len();
    let mut w = vec![0.0; 5 * n - 2];
    let (row_cost, _) = row_costs(n, walls, members, dist, &cell_weights(n, &w));
    if k != n || row_cost.iter().any(|c| !c.is_finite()) {
        let mut argmin = vec![0; n];
        let zeros = vec![0.0; k];
        let bound = bound(n, &row_cost, &zeros, &mut argmin);
        return Potentials {
            queens: zeros,
            cells: vec![0.0; n * n],
            offset: 0.0,
            bound,
            lines: w,
        };
    }
    let mut best = (w.clone(), f64::NEG_INFINITY);
    let mut scale = 1.0;
    let mut since = 0;
    // each step's assignment starts from the last one's duals and matching: the weights
    // move little between steps
    let mut lap = Assignment::new(n);
    for step in 0..WEIGHT_STEPS {
        if Instant::now() >= deadline {
            break;
        }
        let (row_cost, at) = row_costs(n, walls, members, dist, &cell_weights(n, &w));
        for (i, costs) in lap.cost.iter_mut().enumerate().take(n) {
            costs[..n].copy_from_slice(&row_cost[i * n..(i + 1) * n]);
        }
        let solved = if step == 0 {
            lap.solve(f64::INFINITY)
        } else {
            lap.resolve(f64::INFINITY)
        };
        if !solved {
            break;
        }
        let total = lap.value();
        let mut rows = vec![0; n];
        for (r, &i) in lap.duals.queen_of.iter().enumerate().take(n) {
            rows[i as usize] = r;
        }
        let value = total - w.iter().sum::<f64>();
        if value > best.1 + 1e-9 {
            (best, since) = ((w.clone(), value), 0);
        } else {
            since += 1;
            if since == PATIENCE {
                (scale, since) = (scale / 2.0, 0);
            }
        }
        // subgradient: (cells of the relaxed solution on the line) − 1
        let mut g = vec![-1.0; w.len()];
        for (i, &r) in rows.iter().enumerate() {
            for j in lines(n, at[i * n + r]) {
                g[j] += 1.0;
            }
        }
        // a diagonal's weight stays ≥ 0 (at most one cell): no push below zero
        for (j, gj) in g.iter_mut().enumerate().skip(n) {
            if w[j] <= 0.0 && *gj < 0.0 {
                *gj = 0.0;
            }
        }
        let norm: f64 = g.iter().map(|x| x * x).sum();
        if norm == 0.0 {
            break; // the relaxed solution is a board: nothing left to gain
        }
        // Polyak's step towards a guess 10 % above the best bound so far
        let step = scale * (0.1 * best.1.abs() + 1e-3) / norm;
        for (j, (wj, gj)) in w.iter_mut().zip(&g).enumerate() {
            *wj += step * gj;
            if j >= n {
                *wj = wj.max(0.0);
            }
        }
    }
    let cells = cell_weights(n, &best.0);
    let offset: f64 = best.0.iter().sum();
    let (row_cost, _) = row_costs(n, walls, members, dist, &cells);
    let (queens, value) = queen_ascent(n, &row_cost);
    Potentials {
        queens,
        cells,
        offset,
        bound: value - offset,
        lines: best.0,
    }
}

/// Queen potentials `u` for fixed row costs, by subgradient ascent towards the row
/// assignment's cost (the maximum of the bound), and the bound `Σ u + Σ_r min_i (row_cost −
/// u)` they reach.
fn queen_ascent(n: usize, row_cost: &[f64]) -> (Vec<f64>, f64) {
    let k = row_cost.len() / n;
    let target = row_assignment(n, row_cost).0;
    let mut argmin = vec![0; n];
    let mut u = vec![0.0; k];
    let mut best = (u.clone(), bound(n, row_cost, &u, &mut argmin));
    for _ in 0..STEPS {
        let value = bound(n, row_cost, &u, &mut argmin);
        if value > best.1 {
            best = (u.clone(), value);
        }
        // subgradient: 1 − (rows whose minimum is queen i)
        let mut g = vec![1.0; k];
        for &i in &argmin {
            g[i] -= 1.0;
        }
        let norm: f64 = g.iter().map(|x| x * x).sum();
        let gap = target - value;
        if norm == 0.0 || gap <= 1e-9 {
            break;
        }
        let step = gap / norm; // Polyak's step towards the known maximum
        for (ui, gi) in u.iter_mut().zip(&g) {
            *ui += step * gi;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    /// Every N-Queens board avoiding the walls, as one cell per row.
    fn boards(n: usize, walls: &[bool]) -> Vec<Vec<usize>> {
        fn go(n: usize, walls: &[bool], cells: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            let r = cells.len();
            if r == n {
                out.push(cells.clone());
                return;
            }
            for c in 0..n {
                let free = cells.iter().all(|&x| {
                    let (r2, c2) = (x / n, x % n);
                    c2 != c && r2 + c != r + c2 && r2 + c2 != r + c
                });
                if free && !walls[r * n + c] {
                    cells.push(r * n + c);
                    go(n, walls, cells, out);
                    cells.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(n, walls, &mut Vec::new(), &mut out);
        out
    }

    /// The cheapest matching of queens `0..n` to `cells`, over all permutations.
    fn matching_cost(n: usize, cells: &[usize], dist: &[f32]) -> f64 {
        fn go(k: usize, cells: &mut Vec<usize>, n: usize, dist: &[f32]) -> f64 {
            if k == cells.len() {
                return (0..k).map(|i| dist[i * n * n + cells[i]] as f64).sum();
            }
            let mut best = f64::INFINITY;
            for i in k..cells.len() {
                cells.swap(k, i);
                best = best.min(go(k + 1, cells, n, dist));
                cells.swap(k, i);
            }
            best
        }
        go(0, &mut cells.to_vec(), n, dist)
    }

    #[test]
    fn bounds_every_board_through_its_reduced_costs() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let far = Instant::now() + Duration::from_secs(3600);
        let mut tight = 0;
        for case in 0..60 {
            let n = rng.random_range(4..=6);
            let nn = n * n;
            let walls: Vec<bool> = (0..nn).map(|_| rng.random_bool(0.1)).collect();
            let dist: Vec<f32> = (0..n * nn)
                .map(|_| rng.random_range(0..40) as f32 / 4.0)
                .collect();
            let members: Vec<usize> = (0..n).collect();
            let p = queen_potentials(n, &walls, &members, &dist, far);
            let red = |x: usize| {
                (0..n)
                    .map(|i| dist[i * nn + x] as f64 - p.queens[i])
                    .fold(f64::INFINITY, f64::min)
                    + p.cells[x]
            };
            let base = p.queens.iter().sum::<f64>() - p.offset;
            let all = boards(n, &walls);
            let mut best = f64::INFINITY;
            for cells in &all {
                let cost = matching_cost(n, cells, &dist);
                let reduced = base + cells.iter().map(|&x| red(x)).sum::<f64>();
                assert!(
                    reduced <= cost + 1e-6,
                    "case {case}: {reduced} above {cost}"
                );
                best = best.min(cost);
            }
            assert!(
                p.bound <= best + 1e-6,
                "case {case}: bound {} above {best}",
                p.bound
            );
            if all.is_empty() {
                continue;
            }
            // the weights do work: the bound is usually well above the weightless one
            let weightless: f64 = (0..n)
                .map(|r| {
                    (r * n..r * n + n)
                        .filter(|&x| !walls[x])
                        .map(|x| {
                            (0..n)
                                .map(|i| dist[i * nn + x] as f64)
                                .fold(f64::INFINITY, f64::min)
                        })
                        .fold(f64::INFINITY, f64::min)
                })
                .sum();
            if p.bound > weightless + 0.5 * (best - weightless) {
                tight += 1;
            }
        }
        assert!(tight >= 20, "only {tight} cases closed half the gap");
    }

    #[test]
    fn no_board_when_a_row_is_walled() {
        let n = 4;
        let mut walls = vec![false; 16];
        walls[4..8].fill(true);
        let dist = vec![1.0f32; 4 * 16];
        let far = Instant::now() + Duration::from_secs(3600);
        let p = queen_potentials(n, &walls, &[0, 1, 2, 3], &dist, far);
        assert_eq!(p.bound, f64::INFINITY);
    }
}
