//! A certified lower bound on the score of every legal answer: a Lagrangian relaxation whose
//! steps are assignment problems. The proof is in `docs/solver.md` ("The certified lower
//! bound"); in short:
//!
//! * **Relaxation.** Every queen ends on a distinct free cell `j`, paying the walls-only
//!   distance `d(q, j)` (cheapest `Σ √L` of queen moves blocked by walls only: no legal route
//!   is cheaper), plus `N` per same-colour attacking pair of the final cells. Any subset of the
//!   queens relaxes further (all terms are non-negative).
//! * **Pairs.** A line (row, column, diagonal, anti-diagonal) holding `k` queens of one colour
//!   makes `C(k, 2)` pairs, and `N·C(k, 2) ≥ λ·(k − 1)` for every integer `k ≥ 0` when
//!   `0 ≤ λ ≤ N`.
//! * **Cells.** With prices `p_j ≥ 0` on the cells, `Σ_q p_{cell(q)} ≤ Σ_j p_j` for distinct
//!   cells.
//!
//! So for any weights `λ ∈ [0, N]` and prices `p ≥ 0` every answer scores at least
//! `Σ_q min_j (d(q, j) + Λ_q(j) + p_j) − Σ_j p_j − Σ λ` (`certificate`), where `Λ_q(j)` sums
//! the weights of `q`'s colour on `j`'s four lines. The weights climb by projected subgradient;
//! the prices are the optimal duals of the assignment problem for those weights (Hungarian
//! method, `Hungarian`), so each step's bound is that assignment's optimum. The bound is
//! evaluated from `(λ, p)` by the formula, so it stays valid whatever the iterate, the step
//! size or the deadline.

use super::board::{Board, DIRS, WALL};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Subgradient steps at most. On seeds 1–100 (`testcases/bound_1-100.tsv`) every climb that
/// was not cut by the deadline converged within 500–900 steps.
const MAX_STEPS: usize = 1500;
/// The step-size factor starts here (Polyak steps toward the best relaxed answer) ...
const THETA_START: f64 = 1.0;
/// ... is halved after this many steps without a better bound ...
const THETA_PATIENCE: usize = 25;
/// ... and the climb stops below this.
const THETA_MIN: f64 = 1e-3;
/// Polyak target at most this share above the best bound. Seeds 2 and 208 (N = 30, 29; C = 6,
/// 5), bound after 100 steps: 0.1 gives 169.7 and 160.0, 0.3 gives 173.8 and 166.0 at twice the
/// CPU time (longer augmenting paths), 1.0 gives 142.0 and 142.0; after 250 steps 0.1 gives
/// 186.4 and 179.6, 0.03 gives 175.8 and 166.0.
const TARGET_SHARE: f64 = 0.1;
/// Cost of a cell a queen cannot reach, for the Hungarian method only (the certificate skips
/// such cells): far above any sum of reachable costs.
const UNREACHABLE: f64 = 1e9;

/// Why [`lower_bound`] stopped climbing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundStop {
    /// The bound met the best relaxed answer: the relaxation is solved exactly.
    Exact,
    /// The step size fell below its floor: the weights stopped improving.
    Converged,
    /// `MAX_STEPS` steps were made.
    Steps,
    /// The deadline came first (the bound is the best one certified before it).
    Deadline,
}

/// A certified lower bound and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerBound {
    /// No legal answer scores below this (rounded down for floating point).
    pub value: f64,
    /// Score of the best answer of the relaxation seen (walls-only distances plus `N` per pair,
    /// queens on distinct cells): the relaxation's optimum lies in `[value, relaxed]`. Infinite
    /// when no assignment was solved.
    pub relaxed: f64,
    /// Assignment problems solved (subgradient steps).
    pub steps: usize,
    /// Queens in the relaxation: all of them unless the deadline cut the distance tables short.
    pub queens: usize,
    /// Why the climb stopped.
    pub stop: BoundStop,
}

/// A certified lower bound on the score of every legal answer for `board`, computed until
/// `deadline` at the latest (any iterate is valid, so a cut run returns the best so far).
///
/// # Complexity
/// Distance tables `O(Q·M·N·log M)` for `Q` queens and `M` free cells, then per step one
/// Hungarian solve, `O(M²)` when the duals carried over from the previous step are nearly
/// optimal and `O(M³)` at worst, at most `MAX_STEPS` steps. On contest boards (`N ≤ 30`,
/// `C ≤ 6`) well under a second.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, lower_bound::lower_bound};
/// use std::time::{Duration, Instant};
/// let deadline = Instant::now() + Duration::from_secs(1);
/// // four queens of one colour on the top row of a 4 × 4 board: 6 pairs × 4 if nothing moves
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let bound = lower_bound(&board, deadline);
/// assert!(bound.value > 2.0 && bound.value <= bound.relaxed);
/// // a valid 4-queens board: nothing to pay
/// let board = Board::parse("4 1  0 1 0 0  0 0 0 1  1 0 0 0  0 0 1 0").unwrap();
/// assert_eq!(lower_bound(&board, deadline).value, 0.0);
/// ```
pub fn lower_bound(board: &Board, deadline: Instant) -> LowerBound {
    let problem = Problem::new(board, deadline);
    let mut result = LowerBound {
        value: 0.0,
        relaxed: f64::INFINITY,
        steps: 0,
        queens: problem.queens.len(),
        stop: BoundStop::Deadline,
    };
    if problem.queens.is_empty() {
        result.stop = BoundStop::Exact;
        return result;
    }
    let lines = line_count(board.n);
    let mut weights = vec![0.0; board.colours * lines];
    let mut hungarian = Hungarian::new(problem.cells.len());
    let mut best = f64::NEG_INFINITY;
    let (mut theta, mut stale) = (THETA_START, 0);
    let mut cost = vec![0.0; problem.queens.len() * problem.cells.len()];
    let n = board.n as f64;
    while result.steps < MAX_STEPS {
        if Instant::now() >= deadline {
            return finish(result, best);
        }
        problem.costs(&weights, &mut cost);
        let Some(assigned) = hungarian.solve(problem.queens.len(), &cost, deadline) else {
            return finish(result, best);
        };
        result.steps += 1;
        let prices = hungarian.prices();
        let bound = problem.certificate(&weights, &prices, &cost);
        let counts = problem.line_counts(&assigned, weights.len());
        let relaxed = problem.relaxed_score(&assigned, &counts);
        result.relaxed = result.relaxed.min(relaxed);
        if bound > best + 1e-9 {
            best = bound;
            stale = 0;
        } else {
            stale += 1;
            if stale >= THETA_PATIENCE {
                theta /= 2.0;
                stale = 0;
            }
        }
        if result.relaxed - best <= 1e-9 {
            result.stop = BoundStop::Exact;
            return finish(result, best);
        }
        if theta < THETA_MIN {
            result.stop = BoundStop::Converged;
            return finish(result, best);
        }
        // projected subgradient: g = k − 1 per (colour, line), zero where the clamp holds
        let g = |i: usize| counts[i] as f64 - 1.0;
        let active = |i: usize| !(weights[i] <= 0.0 && g(i) < 0.0 || weights[i] >= n && g(i) > 0.0);
        let norm: f64 = (0..weights.len())
            .filter(|&i| active(i))
            .map(|i| g(i) * g(i))
            .sum();
        if norm == 0.0 {
            // no ascent direction: these weights are optimal
            result.stop = BoundStop::Converged;
            return finish(result, best);
        }
        // target: the best relaxed answer, but no farther above the bound than a share of it
        // (the first relaxed answers, nothing moved, are far above the optimum)
        let target = result
            .relaxed
            .min(best.max(0.0) * (1.0 + TARGET_SHARE) + 1.0);
        let step = theta * (target - bound).max(1e-3) / norm;
        for (i, w) in weights.iter_mut().enumerate() {
            *w = (*w + step * g(i)).clamp(0.0, n);
        }
    }
    result.stop = BoundStop::Steps;
    finish(result, best)
}

/// `result` with the best certified bound `best`, rounded down so that floating-point error
/// in the distances and sums cannot lift it above a true score.
fn finish(mut result: LowerBound, best: f64) -> LowerBound {
    if best > 0.0 {
        result.value = (best * (1.0 - 1e-12) - 1e-9).max(0.0);
    }
    result
}

/// Lines per colour on an `n × n` board: `n` rows, `n` columns, `2n − 1` diagonals and
/// `2n − 1` anti-diagonals.
fn line_count(n: usize) -> usize {
    6 * n - 2
}

/// The four lines through `(r, c)`: row, column, diagonal `r − c`, anti-diagonal `r + c`.
fn lines_of(n: usize, r: usize, c: usize) -> [usize; 4] {
    [r, n + c, 2 * n + (r + n - 1 - c), 4 * n - 1 + r + c]
}

/// The relaxation's data: which queens, which cells, and the walls-only distances.
struct Problem {
    n: usize,
    /// Colour of each queen in the relaxation.
    queens: Vec<usize>,
    /// The free (non-wall) cells.
    cells: Vec<usize>,
    /// The four lines of each free cell.
    cell_lines: Vec<[usize; 4]>,
    /// `dist[q * M + j]`: walls-only distance of queen `q` to free cell `j` (infinite if
    /// unreachable).
    dist: Vec<f64>,
}

impl Problem {
    /// Tables for the queens of `board`, those in an attacking pair first; queens whose table is
    /// not done halfway to `deadline` are left out (a relaxation of fewer queens is still a
    /// bound).
    fn new(board: &Board, deadline: Instant) -> Problem {
        let n = board.n;
        let cells: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] != WALL).collect();
        let cell_lines = cells.iter().map(|&c| lines_of(n, c / n, c % n)).collect();
        let mut index = vec![usize::MAX; n * n];
        for (j, &c) in cells.iter().enumerate() {
            index[c] = j;
        }
        let mut starts: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] > 0).collect();
        let attacked = attacked(board);
        // attacked queens first, colour by colour, so that a cut-short table keeps pairs
        starts.sort_by_key(|&c| (!attacked[c], board.cells[c]));
        let m = cells.len();
        let walls = board.walls();
        let mut search = Dijkstra::new(n);
        let (mut queens, mut dist) = (Vec::new(), Vec::new());
        // the tables may take half the time left, so that some steps follow a cut
        let now = Instant::now();
        let tables_by = now + deadline.saturating_duration_since(now) / 2;
        for &start in &starts {
            if Instant::now() >= tables_by {
                break;
            }
            search.run(start, &walls);
            queens.push(board.cells[start] as usize - 1);
            dist.extend(cells.iter().map(|&c| search.dist[c]));
        }
        debug_assert_eq!(dist.len(), queens.len() * m);
        Problem {
            n,
            queens,
            cells,
            cell_lines,
            dist,
        }
    }

    /// `cost[q * M + j] = d(q, j) + Λ_q(j)` for the weights ([`UNREACHABLE`] where `d` is
    /// infinite).
    fn costs(&self, weights: &[f64], cost: &mut [f64]) {
        let (m, lines) = (self.cells.len(), line_count(self.n));
        for (q, &colour) in self.queens.iter().enumerate() {
            let w = &weights[colour * lines..(colour + 1) * lines];
            for j in 0..m {
                let d = self.dist[q * m + j];
                cost[q * m + j] = if d.is_finite() {
                    let [a, b, c, e] = self.cell_lines[j];
                    d + w[a] + w[b] + w[c] + w[e]
                } else {
                    UNREACHABLE
                };
            }
        }
    }

    /// The certified bound of weights `weights` and cell prices `prices ≥ 0`:
    /// `Σ_q min_j (cost + p_j) − Σ p − Σ λ` over the cells each queen can reach.
    fn certificate(&self, weights: &[f64], prices: &[f64], cost: &[f64]) -> f64 {
        let m = self.cells.len();
        let mut total = -prices.iter().sum::<f64>() - weights.iter().sum::<f64>();
        for q in 0..self.queens.len() {
            let row = &cost[q * m..(q + 1) * m];
            let dist = &self.dist[q * m..(q + 1) * m];
            total += (0..m)
                .filter(|&j| dist[j].is_finite())
                .map(|j| row[j] + prices[j])
                .fold(f64::INFINITY, f64::min);
        }
        total
    }

    /// Queens of each (colour, line) when queen `q` stands on free cell `assigned[q]`, indexed
    /// like the weights (`total` of them).
    fn line_counts(&self, assigned: &[usize], total: usize) -> Vec<u32> {
        let lines = line_count(self.n);
        let mut counts = vec![0u32; total];
        for (q, &j) in assigned.iter().enumerate() {
            for line in self.cell_lines[j] {
                counts[self.queens[q] * lines + line] += 1;
            }
        }
        counts
    }

    /// The relaxation's score of an assignment: distances plus `N` per same-colour pair.
    fn relaxed_score(&self, assigned: &[usize], counts: &[u32]) -> f64 {
        let m = self.cells.len();
        let moves: f64 = assigned
            .iter()
            .enumerate()
            .map(|(q, &j)| self.dist[q * m + j])
            .sum();
        let pairs: u64 = counts
            .iter()
            .map(|&k| k as u64 * (k as u64).saturating_sub(1) / 2)
            .sum();
        moves + (pairs * self.n as u64) as f64
    }
}

/// `true` on the start cell of every queen that attacks a queen of its colour.
fn attacked(board: &Board) -> Vec<bool> {
    let n = board.n;
    let lines = line_count(n);
    let mut counts = vec![0u32; board.colours * lines];
    let queens: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] > 0).collect();
    let key = |c: usize| (board.cells[c] as usize - 1) * lines;
    for &c in &queens {
        for line in lines_of(n, c / n, c % n) {
            counts[key(c) + line] += 1;
        }
    }
    let mut out = vec![false; n * n];
    for &c in &queens {
        out[c] = lines_of(n, c / n, c % n)
            .iter()
            .any(|&l| counts[key(c) + l] > 1);
    }
    out
}

/// Dijkstra over queen moves blocked by walls only, a move of length `L` costing `√L`, in
/// `f64` (the distances enter a certified bound).
struct Dijkstra {
    n: usize,
    sqrt: Vec<f64>,
    dist: Vec<f64>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Dijkstra {
    fn new(n: usize) -> Dijkstra {
        Dijkstra {
            n,
            sqrt: (0..=n).map(|l| (l as f64).sqrt()).collect(),
            dist: vec![f64::INFINITY; n * n],
            heap: BinaryHeap::new(),
        }
    }

    /// Fills `self.dist` with the distances from `source`.
    fn run(&mut self, source: usize, walls: &[bool]) {
        let n = self.n as i64;
        self.dist.fill(f64::INFINITY);
        self.dist[source] = 0.0;
        // non-negative f64 order like their bit patterns
        self.heap.push(Reverse((0f64.to_bits(), source)));
        while let Some(Reverse((bits, cell))) = self.heap.pop() {
            let d = f64::from_bits(bits);
            if d > self.dist[cell] {
                continue;
            }
            let (r, c) = (cell as i64 / n, cell as i64 % n);
            for &(dr, dc) in &DIRS {
                let (mut rr, mut cc, mut len) = (r + dr as i64, c + dc as i64, 1);
                while (0..n).contains(&rr) && (0..n).contains(&cc) {
                    let next = (rr * n + cc) as usize;
                    if walls[next] {
                        break;
                    }
                    let nd = d + self.sqrt[len];
                    if nd < self.dist[next] {
                        self.dist[next] = nd;
                        self.heap.push(Reverse((nd.to_bits(), next)));
                    }
                    rr += dr as i64;
                    cc += dc as i64;
                    len += 1;
                }
            }
        }
    }
}

/// Minimum-cost assignment of `q` rows (queens) to distinct columns of `m ≥ q` (free cells),
/// made square with `m − q` dummy rows of cost 0 (a dummy-matched column is an unused cell).
/// Shortest augmenting paths with potentials (the Hungarian method, Jonker–Volgenant form).
/// The potentials and the matching carry over between solves: after a small change of the
/// costs most matched edges stay tight and only the other rows need a path.
struct Hungarian {
    m: usize,
    /// Row potentials (rows `q..m` are the dummies).
    u: Vec<f64>,
    /// Column potentials: the reduced cost of `(i, j)` is `cost − u_i − v_j ≥ 0`.
    v: Vec<f64>,
    /// Row matched to each column, or `NONE`.
    row_of: Vec<usize>,
    /// Column matched to each row, or `NONE`.
    col_of: Vec<usize>,
    // per-path workspace
    dist: Vec<f64>,
    pred: Vec<usize>,
    scanned: Vec<bool>,
    done: Vec<usize>,
    /// The cost row of every dummy.
    zeros: Vec<f64>,
}

const NONE: usize = usize::MAX;

impl Hungarian {
    fn new(m: usize) -> Hungarian {
        Hungarian {
            m,
            u: vec![0.0; m],
            v: vec![0.0; m],
            row_of: vec![NONE; m],
            col_of: vec![NONE; m],
            dist: vec![0.0; m],
            pred: vec![0; m],
            scanned: vec![false; m],
            done: Vec::new(),
            zeros: vec![0.0; m],
        }
    }

    /// The optimal column of each of the `q` real rows of `cost` (`q × m`, row-major), or
    /// `None` when `deadline` passes first.
    fn solve(&mut self, q: usize, cost: &[f64], deadline: Instant) -> Option<Vec<usize>> {
        let m = self.m;
        // feasible row potentials for the new costs; dummy rows: cost 0
        let top = self.v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for i in 0..m {
            self.u[i] = if i < q {
                let row = &cost[i * m..(i + 1) * m];
                (0..m)
                    .map(|j| row[j] - self.v[j])
                    .fold(f64::INFINITY, f64::min)
            } else {
                -top
            };
        }
        // keep the matched edges that are still tight (exact: the same expression as above)
        let mut open = Vec::new();
        for i in 0..m {
            let j = self.col_of[i];
            let tight = j != NONE
                && if i < q {
                    cost[i * m + j] - self.v[j] == self.u[i]
                } else {
                    self.v[j] == top
                };
            if !tight {
                if j != NONE {
                    self.row_of[j] = NONE;
                    self.col_of[i] = NONE;
                }
                open.push(i);
            }
        }
        // open dummy rows take the free columns of the highest potential directly (tight)
        let free_top: Vec<usize> = (0..m)
            .filter(|&j| self.row_of[j] == NONE && self.v[j] == top)
            .collect();
        let mut free_top = free_top.into_iter();
        open.retain(|&i| {
            if i < q {
                return true;
            }
            match free_top.next() {
                Some(j) => {
                    self.row_of[j] = i;
                    self.col_of[i] = j;
                    false
                }
                None => true,
            }
        });
        for &i in &open {
            // one clock read per path: a path costs at least O(m)
            if Instant::now() >= deadline {
                return None;
            }
            self.augment(i, q, cost);
        }
        // potentials drift from solve to solve: keep the largest at 0
        let top = self.v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        self.v.iter_mut().for_each(|v| *v -= top);
        self.u.iter_mut().for_each(|u| *u += top);
        Some(self.col_of[..q].to_vec())
    }

    /// Matches the free row `root` by a shortest augmenting path (Dijkstra on reduced costs),
    /// then moves the potentials so that the path and every scanned column stay tight.
    fn augment(&mut self, root: usize, q: usize, cost: &[f64]) {
        let m = self.m;
        self.dist.fill(f64::INFINITY);
        let (mut row, mut reach) = (root, 0.0);
        let sink = loop {
            let costs = if row < q {
                &cost[row * m..(row + 1) * m]
            } else {
                &self.zeros[..]
            };
            let base = reach - self.u[row];
            let (mut best, mut best_j) = (f64::INFINITY, NONE);
            let columns = self.dist.iter_mut().zip(&mut self.pred).zip(&self.scanned);
            for (j, ((dist, pred), &scanned)) in columns.enumerate() {
                if scanned {
                    continue;
                }
                let d = base + costs[j] - self.v[j];
                if d < *dist {
                    *dist = d;
                    *pred = row;
                }
                // among equals a free column ends the path at once
                if *dist < best || *dist == best && self.row_of[j] == NONE {
                    best = *dist;
                    best_j = j;
                }
            }
            if self.row_of[best_j] == NONE {
                break best_j;
            }
            self.scanned[best_j] = true;
            self.done.push(best_j);
            row = self.row_of[best_j];
            reach = best;
        };
        let total = self.dist[sink];
        self.u[root] += total;
        for &j in &self.done {
            let shift = total - self.dist[j];
            self.v[j] -= shift;
            self.u[self.row_of[j]] += shift;
            self.scanned[j] = false;
        }
        self.done.clear();
        // flip the path
        let mut j = sink;
        loop {
            let i = self.pred[j];
            let next = self.col_of[i];
            self.row_of[j] = i;
            self.col_of[i] = j;
            if i == root {
                break;
            }
            j = next;
        }
    }

    /// Cell prices `p_j = −v_j ≥ 0` of the last solve.
    fn prices(&self) -> Vec<f64> {
        self.v.iter().map(|&v| (-v).max(0.0)).collect()
    }
}

#[cfg(test)]
mod tests;
