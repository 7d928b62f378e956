//! The proof search's heuristic: per colour, the cheapest matching of the colour's queens (as
//! they stand in a state) to the cells of any N-Queens board on free cells, each queen paying
//! its walls-only distance to its cell plus the cell's price. Queens of one colour are
//! interchangeable, so the value depends only on the colour's set of cells, and it is
//! remembered per set.

use super::super::Dijkstra;
use ahash::{AHashMap, AHashSet};
use std::time::Instant;

/// Taken off every value, so that rounding in the distance sums and the matching can never lift
/// the heuristic above a true cost (far above `f64` error on sums of ≤ 128 square roots).
const SLACK: f64 = 1e-9;
/// Most values remembered (about 40 bytes each).
const MAX_REMEMBERED: usize = 4_000_000;
/// Most N-Queens boards kept (N = 11 has 2 680 without walls); beyond, no proof is tried.
pub(super) const MAX_BOARDS: usize = 20_000;

/// The N-Queens boards on the free cells and the walls-only distances between cells.
pub(super) struct Heuristic {
    n: usize,
    /// `dist[x * n² + y]`: walls-only distance from cell `x` to cell `y` (`∞` if cut off), plus
    /// the price of `y`.
    dist: Vec<f64>,
    /// The cells of each N-Queens board avoiding the walls.
    boards: Vec<Vec<usize>>,
    /// Every board's cell mask, for the goal test.
    board_masks: AHashSet<u128>,
    /// `near[x * B + b]`: distance from `x` to the nearest cell of board `b` (`B` boards; by
    /// cell, so that a colour's bounds on every board are sums of contiguous rows).
    near: Vec<f64>,
    /// Values already computed, by cell mask.
    memo: AHashMap<u128, f64>,
    matcher: Matcher,
    /// The best board of the last set computed.
    last_best: Option<usize>,
    /// Per cell, whether its distance to every board is finite.
    finite: Vec<bool>,
    /// The last parent set met by [`Heuristic::value_after_move`] and its per-board bounds.
    parent: Option<(u128, Vec<f64>)>,
}

impl Heuristic {
    /// The tables for an `n × n` board with `walls` and cell prices `prices` (`≥ 0`, one per
    /// cell); `None` when the deadline comes first or the board has more than [`MAX_BOARDS`]
    /// N-Queens boards (`n² ≤ 128`).
    pub(super) fn new(
        n: usize,
        walls: &[bool],
        prices: &[f64],
        deadline: Instant,
    ) -> Option<Heuristic> {
        let nn = n * n;
        let boards = queens_boards(n, walls, deadline)?;
        let mut search = Dijkstra::new(n);
        let mut dist = vec![f64::INFINITY; nn * nn];
        for x in (0..nn).filter(|&x| !walls[x]) {
            search.run(x, walls);
            for y in 0..nn {
                dist[x * nn + y] = search.dist[y] + prices[y];
            }
        }
        if Instant::now() >= deadline {
            return None;
        }
        let count = boards.len();
        let mut near = vec![f64::INFINITY; count * nn];
        for (b, cells) in boards.iter().enumerate() {
            for x in 0..nn {
                near[x * count + b] = cells
                    .iter()
                    .map(|&s| dist[x * nn + s])
                    .fold(f64::INFINITY, f64::min);
            }
        }
        if Instant::now() >= deadline {
            return None;
        }
        let board_masks = boards.iter().map(|cells| mask_of(cells)).collect();
        let finite = (0..nn)
            .map(|x| {
                near[x * count..(x + 1) * count]
                    .iter()
                    .all(|d| d.is_finite())
            })
            .collect();
        Some(Heuristic {
            n,
            dist,
            boards,
            board_masks,
            near,
            memo: AHashMap::new(),
            matcher: Matcher::new(n),
            last_best: None,
            finite,
            parent: None,
        })
    }

    /// `true` when `mask` is an N-Queens board (a colour there has no attacking pair).
    pub(super) fn is_board(&self, mask: u128) -> bool {
        self.board_masks.contains(&mask)
    }

    /// A lower bound on the cost of moving the queens on `mask` (one colour, `n` of them) onto
    /// any N-Queens board, even through other pieces, plus the prices of the board's cells:
    /// the least matching cost, less a slack; `∞` when no board is reachable.
    pub(super) fn value(&mut self, mask: u128) -> f64 {
        if let Some(&v) = self.memo.get(&mask) {
            return v;
        }
        let v = self.compute(mask);
        if self.memo.len() >= MAX_REMEMBERED {
            self.memo.clear(); // memory stays bounded; values are only recomputed
        }
        self.memo.insert(mask, v);
        v
    }

    /// [`Heuristic::value`] of `mask`, which is `parent` with one queen moved from `from` to
    /// `to`: the per-board bounds are the parent's (kept for the last parent) with two rows
    /// changed, instead of a sum of `N` rows.
    pub(super) fn value_after_move(
        &mut self,
        mask: u128,
        parent: u128,
        from: usize,
        to: usize,
    ) -> f64 {
        if let Some(&v) = self.memo.get(&mask) {
            return v;
        }
        let queens = cells_of(mask);
        // differences of infinite bounds are no bounds: those rows are summed again
        let bounds = if self.finite[from] && self.finite[to] {
            if self.parent.as_ref().is_none_or(|(m, _)| *m != parent) {
                let rows = self.row_bounds(&cells_of(parent));
                self.parent = Some((parent, rows));
            }
            let count = self.boards.len();
            let (old, new) = (&self.near[from * count..], &self.near[to * count..]);
            let rows = &self.parent.as_ref().expect("just set").1;
            (0..count).map(|b| rows[b] - old[b] + new[b]).collect()
        } else {
            self.row_bounds(&queens)
        };
        let v = self.compute_with(&queens, &bounds);
        if self.memo.len() >= MAX_REMEMBERED {
            self.memo.clear();
        }
        self.memo.insert(mask, v);
        v
    }

    /// Per board, the sum of every queen's distance to the board's nearest cell (at most the
    /// board's matching cost).
    fn row_bounds(&self, queens: &[usize]) -> Vec<f64> {
        let count = self.boards.len();
        let mut bounds = vec![0.0; count];
        for &x in queens {
            let near = &self.near[x * count..(x + 1) * count];
            for (bound, &d) in bounds.iter_mut().zip(near) {
                *bound += d;
            }
        }
        bounds
    }

    /// The least matching cost over the boards: each board's cost is at least the sum of every
    /// queen's distance to its nearest cell, so boards are matched exactly cheapest bound
    /// first, until the bound reaches the best matching.
    fn compute(&mut self, mask: u128) -> f64 {
        let queens = cells_of(mask);
        let bounds = self.row_bounds(&queens);
        self.compute_with(&queens, &bounds)
    }

    /// [`Heuristic::compute`] with the per-board bounds given (each at most the board's
    /// matching cost, up to rounding far below the slack).
    fn compute_with(&mut self, queens: &[usize], bounds: &[f64]) -> f64 {
        let count = self.boards.len();
        let Some(cheapest) = (0..bounds.len()).min_by(|&a, &b| bounds[a].total_cmp(&bounds[b]))
        else {
            return f64::INFINITY;
        };
        // the last set's best board first: sets met one after another differ by a move
        let first = self.last_best.filter(|&b| b < count).unwrap_or(cheapest);
        let mut best = self.matching(queens, first, f64::INFINITY);
        if first != cheapest {
            best = best.min(self.matching(queens, cheapest, best));
        }
        let mut best_board = first;
        // only boards whose bound is below the first matching can beat it
        let mut order: Vec<(f64, usize)> = bounds
            .iter()
            .enumerate()
            .filter(|&(b, &bound)| bound < best && b != first && b != cheapest)
            .map(|(b, &bound)| (bound, b))
            .collect();
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for &(bound, b) in &order {
            if bound >= best {
                break;
            }
            let cost = self.matching(queens, b, best);
            if cost < best {
                (best, best_board) = (cost, b);
            }
        }
        self.last_best = Some(best_board);
        best - SLACK
    }

    /// The least matching cost of `queens` to board `b`, or `∞` once it is known to be at
    /// least `cutoff`.
    fn matching(&mut self, queens: &[usize], b: usize, cutoff: f64) -> f64 {
        let nn = self.n * self.n;
        let cells = &self.boards[b];
        let dist = &self.dist;
        // every cell of the board takes some queen: a bound in O(N²), before the O(N³) matching
        let columns: f64 = cells
            .iter()
            .map(|&j| {
                queens
                    .iter()
                    .map(|&x| dist[x * nn + j])
                    .fold(f64::INFINITY, f64::min)
            })
            .sum();
        if columns >= cutoff {
            return f64::INFINITY;
        }
        self.matcher
            .solve(|i, j| dist[queens[i] * nn + cells[j]], cutoff)
    }
}

/// The cell mask of `cells` (each below 128).
pub(super) fn mask_of(cells: &[usize]) -> u128 {
    cells.iter().fold(0, |m, &c| m | 1u128 << c)
}

/// The cells of `mask`, ascending.
pub(super) fn cells_of(mut mask: u128) -> Vec<usize> {
    let mut out = Vec::with_capacity(mask.count_ones() as usize);
    while mask != 0 {
        out.push(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
    out
}

/// Every N-Queens board on the free cells of an `n × n` board, row by row; `None` past the
/// deadline or [`MAX_BOARDS`].
fn queens_boards(n: usize, walls: &[bool], deadline: Instant) -> Option<Vec<Vec<usize>>> {
    let mut boards = Vec::new();
    let mut cells = Vec::with_capacity(n);
    let mut visits = 0u32;
    let ok = place(n, walls, 0, [0, 0, 0], &mut cells, &mut boards, &mut || {
        visits = visits.wrapping_add(1);
        visits % 1024 != 0 || Instant::now() < deadline
    });
    ok.then_some(boards)
}

/// Places a queen on row `row` in every free column no earlier queen attacks (`used`: columns,
/// diagonals `r − c + n`, anti-diagonals `r + c`), recursing to the next row; `false` to stop.
fn place(
    n: usize,
    walls: &[bool],
    row: usize,
    used: [u64; 3],
    cells: &mut Vec<usize>,
    boards: &mut Vec<Vec<usize>>,
    go_on: &mut impl FnMut() -> bool,
) -> bool {
    if !go_on() || boards.len() > MAX_BOARDS {
        return false;
    }
    if row == n {
        boards.push(cells.clone());
        return true;
    }
    for c in 0..n {
        let (d, a) = (row + n - c, row + c);
        if walls[row * n + c] || used[0] >> c & 1 == 1 || used[1] >> d & 1 == 1 {
            continue;
        }
        if used[2] >> a & 1 == 1 {
            continue;
        }
        cells.push(row * n + c);
        let next = [used[0] | 1 << c, used[1] | 1 << d, used[2] | 1 << a];
        let ok = place(n, walls, row + 1, next, cells, boards, go_on);
        cells.pop();
        if !ok {
            return false;
        }
    }
    true
}

/// A dense minimum-cost perfect matching of `k` rows to `k` columns (shortest augmenting
/// paths with potentials), for the small `k ≤ 11` of the proof search.
struct Matcher {
    k: usize,
    /// Row potentials `u` and column potentials `v` (index 0 is a virtual column).
    u: Vec<f64>,
    v: Vec<f64>,
    /// Row matched to column `j` (1-based, 0 none).
    row_of: Vec<usize>,
    way: Vec<usize>,
    min: Vec<f64>,
    used: Vec<bool>,
}

/// Stands in for an infinite cost inside the matching (far above any finite sum of distances).
const FAR: f64 = 1e12;

impl Matcher {
    fn new(k: usize) -> Matcher {
        Matcher {
            k,
            u: vec![0.0; k + 1],
            v: vec![0.0; k + 1],
            row_of: vec![0; k + 1],
            way: vec![0; k + 1],
            min: vec![0.0; k + 1],
            used: vec![false; k + 1],
        }
    }

    /// The least total `cost(i, j)` of a perfect matching (`∞` when every matching uses an
    /// infinite cost, or as soon as the rows matched so far cost at least `cutoff`: their
    /// least matching is at most the whole one's).
    fn solve(&mut self, cost: impl Fn(usize, usize) -> f64, cutoff: f64) -> f64 {
        let k = self.k;
        let c = |i: usize, j: usize| {
            let x = cost(i - 1, j - 1);
            if x.is_finite() {
                x
            } else {
                FAR
            }
        };
        self.u.fill(0.0);
        self.v.fill(0.0);
        self.row_of.fill(0);
        for i in 1..=k {
            self.row_of[0] = i;
            let mut j0 = 0;
            self.min.fill(f64::INFINITY);
            self.used.fill(false);
            loop {
                self.used[j0] = true;
                let (i0, mut delta, mut j1) = (self.row_of[j0], f64::INFINITY, 0);
                for j in 1..=k {
                    if self.used[j] {
                        continue;
                    }
                    let reduced = c(i0, j) - self.u[i0] - self.v[j];
                    if reduced < self.min[j] {
                        (self.min[j], self.way[j]) = (reduced, j0);
                    }
                    if self.min[j] < delta {
                        (delta, j1) = (self.min[j], j);
                    }
                }
                for j in 0..=k {
                    if self.used[j] {
                        self.u[self.row_of[j]] += delta;
                        self.v[j] -= delta;
                    } else {
                        self.min[j] -= delta;
                    }
                }
                j0 = j1;
                if self.row_of[j0] == 0 {
                    break;
                }
            }
            while j0 != 0 {
                let j1 = self.way[j0];
                self.row_of[j0] = self.row_of[j1];
                j0 = j1;
            }
            // −v₀ is the least cost of matching the rows so far
            if -self.v[0] >= cutoff {
                return f64::INFINITY;
            }
        }
        let total: f64 = (1..=k).map(|j| c(self.row_of[j], j)).sum();
        if total >= FAR {
            f64::INFINITY
        } else {
            total
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The least matching cost by trying every permutation.
    fn brute(k: usize, cost: &[f64], row: usize, used: &mut [bool]) -> f64 {
        if row == k {
            return 0.0;
        }
        let mut best = f64::INFINITY;
        for j in 0..k {
            if !used[j] {
                used[j] = true;
                best = best.min(cost[row * k + j] + brute(k, cost, row + 1, used));
                used[j] = false;
            }
        }
        best
    }

    #[test]
    fn the_matcher_finds_the_least_matching() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..300 {
            let k = rng.random_range(1..=6);
            let cost: Vec<f64> = (0..k * k)
                .map(|_| match rng.random_bool(0.2) {
                    true => f64::INFINITY,
                    false => rng.random_range(0.0..10.0),
                })
                .collect();
            let mut matcher = Matcher::new(k);
            let got = matcher.solve(|i, j| cost[i * k + j], f64::INFINITY);
            let want = brute(k, &cost, 0, &mut vec![false; k]);
            assert!(
                got == want || (got - want).abs() < 1e-9,
                "{got} vs {want} on {cost:?}"
            );
            // a cutoff above the least cost changes nothing; at or below it, ∞ or the cost
            if want.is_finite() {
                let above = matcher.solve(|i, j| cost[i * k + j], want + 0.5);
                assert!((above - want).abs() < 1e-9, "{above} vs {want}");
                let below = matcher.solve(|i, j| cost[i * k + j], want - 0.5);
                assert!(below == f64::INFINITY || (below - want).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn boards_are_the_n_queens_solutions_avoiding_walls() {
        let far = Instant::now() + std::time::Duration::from_secs(30);
        for (n, count) in [(4, 2), (5, 10), (6, 4), (8, 92), (10, 724)] {
            let boards = queens_boards(n, &vec![false; n * n], far).expect("in time");
            assert_eq!(boards.len(), count, "n = {n}");
        }
        let mut walls = vec![false; 64];
        walls[0] = true;
        let boards = queens_boards(8, &walls, far).expect("in time");
        // the boards through the corner (4 of the 92) are gone
        assert_eq!(boards.len(), 88);
        assert!(boards.iter().all(|b| !b.contains(&0)));
    }
}
