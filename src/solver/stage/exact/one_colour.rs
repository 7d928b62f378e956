//! One colour: branch and bound over the N-Queens boards that avoid the walls, row by row.
//!
//! Every cell carries a reduced cost (its cheapest path cost from a queen less that queen's
//! weight, plus the weights of its column and diagonals: [`super::potentials`]), so that the
//! weights' constant plus `Σ_{chosen} reduced` bounds the matching cost of every board
//! through a node. Each row's free cells are tried cheapest
//! first, and every child looks ahead: each row still to fill must keep a cell that no queen
//! placed so far attacks (forward checking), and the cheapest such cell of every remaining row
//! is added to the bound. Complete boards are matched exactly (Hungarian method).

use super::{matching, potentials, Best, ExactBoard, CLOCK_EVERY};
use std::time::Instant;

/// The best `keep` boards of one colour (see [`super::best_boards`]).
///
/// # Panics
/// If `n > 32` (the search keeps columns in a `u32`).
pub(super) fn one_colour(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
) -> Vec<ExactBoard> {
    one_colour_search(n, walls, members, dist, keep, deadline).0
}

/// [`one_colour`], and whether the search finished (`false` when the deadline cut it: then
/// cheaper boards than those returned may exist). A finished search's boards are the best
/// `keep` of all (up to the pruning's `10⁻⁹` and the matching's integer scale).
///
/// # Panics
/// If `n > 32` (the search keeps columns in a `u32`).
pub(super) fn one_colour_search(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
) -> (Vec<ExactBoard>, bool) {
    assert!(n <= 32, "one-colour search needs n ≤ 32");
    let nn = n * n;
    // the bound's ascent may take half the time: a search cut short with no time left to
    // reach a board finds nothing (N = 30, C = 6 at 1 s: 6 ms per colour)
    let now = Instant::now();
    let ascent_end = now + deadline.saturating_duration_since(now) / 2;
    let potentials = potentials::queen_potentials(n, walls, members, dist, ascent_end);
    if potentials.bound == f64::INFINITY {
        return (Vec::new(), true); // some row has no cell a queen can reach
    }
    let u = &potentials.queens;
    let reduced: Vec<f64> = (0..nn)
        .map(|c| {
            let weight = potentials.cells[c];
            members
                .iter()
                .zip(u)
                .map(|(&q, ui)| dist[q * nn + c] as f64 + weight - ui)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    // free cells of each row, cheapest first (unreachable cells left out)
    let order: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|r| {
            let mut row: Vec<(u32, f64)> = (0..n)
                .filter(|&c| !walls[r * n + c] && reduced[r * n + c].is_finite())
                .map(|c| (c as u32, reduced[r * n + c]))
                .collect();
            row.sort_by(|a, b| a.1.total_cmp(&b.1));
            row
        })
        .collect();
    let mut search = OneColour {
        n,
        members,
        dist,
        order,
        best: Best::new(keep),
        cells: Vec::with_capacity(n),
        nodes: 0,
        deadline,
        out_of_time: false,
    };
    if let Some(ahead) = search.look_ahead(0, Attacks::default()) {
        let offset = u.iter().sum::<f64>() - potentials.offset;
        search.dfs(0, Attacks::default(), offset, ahead);
    }
    let finished = !search.out_of_time;
    let boards = search
        .best
        .into_sorted()
        .into_iter()
        .map(|(cost, assigned)| {
            let mut cells = vec![0; dist.len() / nn];
            for (&q, cell) in members.iter().zip(assigned) {
                cells[q] = cell;
            }
            ExactBoard { cells, cost }
        })
        .collect();
    (boards, finished)
}

/// Columns attacked in the current row by the queens placed so far: straight down, and
/// along the two diagonals (shifted one column per row).
#[derive(Clone, Copy, Default)]
struct Attacks {
    cols: u32,
    left: u32,
    right: u32,
}

impl Attacks {
    /// Attacked columns `k` rows below the current one.
    fn at(self, k: usize) -> u32 {
        self.cols | self.left.checked_shl(k as u32).unwrap_or(0) | self.right >> k.min(31)
    }

    /// The attacks on the next row once a queen stands at column `c` of this one.
    fn place(self, c: u32) -> Attacks {
        let bit = 1u32 << c;
        Attacks {
            cols: self.cols | bit,
            left: (self.left | bit) << 1,
            right: (self.right | bit) >> 1,
        }
    }
}

struct OneColour<'a> {
    n: usize,
    members: &'a [usize],
    dist: &'a [f32],
    /// Free cells of each row as (column, reduced cost), cheapest first.
    order: Vec<Vec<(u32, f64)>>,
    best: Best<Vec<usize>>,
    /// The cell chosen in each row so far.
    cells: Vec<usize>,
    nodes: u32,
    deadline: Instant,
    out_of_time: bool,
}

impl OneColour<'_> {
    /// Σ over rows `row..n` of the cheapest cell that `attacks` leaves free; `None` when some
    /// row has none left.
    fn look_ahead(&self, row: usize, attacks: Attacks) -> Option<f64> {
        let mut sum = 0.0;
        for (k, cells) in self.order[row..].iter().enumerate() {
            let blocked = attacks.at(k);
            sum += cells.iter().find(|(c, _)| blocked >> c & 1 == 0)?.1;
        }
        Some(sum)
    }

    /// `bound`: Σ u plus the reduced costs of the cells chosen so far; `ahead`: the look-ahead
    /// sum of rows `row..n` under `attacks`.
    fn dfs(&mut self, row: usize, attacks: Attacks, bound: f64, ahead: f64) {
        self.nodes += 1;
        if self.nodes % CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
            self.out_of_time = true;
        }
        if self.out_of_time {
            return;
        }
        if row == self.n {
            self.leaf();
            return;
        }
        let blocked = attacks.at(0);
        // the rows below this one cost at least their look-ahead without this row's cell
        let below = ahead
            - self.order[row]
                .iter()
                .find(|(c, _)| blocked >> c & 1 == 0)
                .map_or(0.0, |x| x.1);
        for i in 0..self.order[row].len() {
            let (c, cost) = self.order[row][i];
            if blocked >> c & 1 == 1 {
                continue;
            }
            let b = bound + cost;
            // cheapest first: once the static part fails, every later cell fails too
            if b + below >= self.best.threshold() - 1e-9 {
                break;
            }
            let next = attacks.place(c);
            let Some(rest) = self.look_ahead(row + 1, next) else {
                continue;
            };
            if b + rest >= self.best.threshold() - 1e-9 {
                continue;
            }
            self.cells.push(row * self.n + c as usize);
            self.dfs(row + 1, next, b, rest);
            self.cells.pop();
        }
    }

    /// A complete board: a cheap queen-side bound first, then the exact matching.
    fn leaf(&mut self) {
        let nn = self.n * self.n;
        let threshold = self.best.threshold();
        let queen_side: f64 = self
            .members
            .iter()
            .map(|&q| {
                self.cells
                    .iter()
                    .map(|&c| self.dist[q * nn + c] as f64)
                    .fold(f64::INFINITY, f64::min)
            })
            .sum();
        if queen_side >= threshold - 1e-9 {
            return;
        }
        let (cost, assigned) = matching(self.members, &self.cells, self.dist, nn);
        if cost.is_finite() {
            self.best.offer(cost, assigned);
        }
    }
}
