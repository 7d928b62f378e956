//! Minimum-cost assignment by shortest augmenting paths (the Hungarian method), warm-started:
//! the last step of the climb polishes its best weights with one exact solve.

use std::time::Instant;

/// Minimum-cost assignment of `q` rows (queens) to distinct columns of `m ≥ q` (free cells),
/// made square with `m − q` dummy rows of cost 0 (a dummy-matched column is an unused cell).
/// Shortest augmenting paths with potentials (the Hungarian method, Jonker–Volgenant form).
/// The potentials and the matching carry over between solves: after a small change of the
/// costs most matched edges stay tight and only the other rows need a path.
pub(super) struct Hungarian {
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
/// Rows scanned by one augmenting path between two clock reads (a clock read costs about as
/// much as 20 cells of one row).
const CLOCK_EVERY: usize = 16;

impl Hungarian {
    pub(super) fn new(m: usize) -> Hungarian {
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

    /// Forgets the matching and starts the next solve from cell prices `prices` (column
    /// potentials `−p`): near-optimal prices leave short augmenting paths.
    pub(super) fn start_from(&mut self, prices: &[f64]) {
        for (v, &p) in self.v.iter_mut().zip(prices) {
            *v = -p;
        }
        self.row_of.fill(NONE);
        self.col_of.fill(NONE);
    }

    /// The optimal column of each of the `q` real rows of `cost` (`q × m`, row-major), or
    /// `None` when `deadline` passes first.
    pub(super) fn solve(
        &mut self,
        q: usize,
        cost: &[f64],
        deadline: Instant,
    ) -> Option<Vec<usize>> {
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
            // one clock read per path (a path costs at least O(m)), and more inside long ones
            if Instant::now() >= deadline || !self.augment(i, q, cost, deadline) {
                return None;
            }
        }
        // potentials drift from solve to solve: keep the largest at 0
        let top = self.v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        self.v.iter_mut().for_each(|v| *v -= top);
        self.u.iter_mut().for_each(|u| *u += top);
        Some(self.col_of[..q].to_vec())
    }

    /// Matches the free row `root` by a shortest augmenting path (Dijkstra on reduced costs),
    /// then moves the potentials so that the path and every scanned column stay tight. `false`
    /// when `deadline` passed first (the solve is then abandoned: `start_from` before the next).
    fn augment(&mut self, root: usize, q: usize, cost: &[f64], deadline: Instant) -> bool {
        let m = self.m;
        self.dist.fill(f64::INFINITY);
        let (mut row, mut reach) = (root, 0.0);
        let sink = loop {
            // on huge boards one path may scan thousands of rows of thousands of cells
            if self.done.len() % CLOCK_EVERY == CLOCK_EVERY - 1 && Instant::now() >= deadline {
                for &j in &self.done {
                    self.scanned[j] = false;
                }
                self.done.clear();
                return false;
            }
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
        true
    }

    /// Cell prices `p_j = −v_j ≥ 0` of the last solve.
    pub(super) fn prices(&self) -> Vec<f64> {
        self.v.iter().map(|&v| (-v).max(0.0)).collect()
    }
}
