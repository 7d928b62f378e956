//! Cheapest queen routes, where one straight move of length `L` costs `√L`: the ground floor
//! that stage 1 builds its tables from and the later stages search with.
//!
//! [`Search`] is Dijkstra over queen moves on any set of blocked cells (walls only for the
//! table, walls and pieces while routing), or A* towards one cell guided by its walls-only
//! distances ([`Search::run_guided`]). [`Paths`] caches walls-only distances per source
//! cell, computed on demand: all `N⁴` pairs fit for `N ≤ 30`, and for `N = 64` only the rows
//! the pipeline asks for are built.

use super::board::DIRS;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Distance of an unreachable cell.
pub const UNREACHABLE: f32 = f32::INFINITY;

/// Extra cost of a queen that the queens staying home wall off from a cell completely: one of
/// them must step aside and back (two moves of at least 1). The stayer-aware estimate and the
/// lifts' prices charge it on top of the walls-only distance.
pub const WALLED_OFF: f32 = 2.0;

/// `√L` for every move length `L` of an `n × n` board.
pub fn sqrt_table(n: usize) -> Vec<f32> {
    (0..=n).map(|l| (l as f32).sqrt()).collect()
}

/// Reusable Dijkstra workspace for one board size.
#[derive(Clone, Debug)]
pub struct Search {
    n: usize,
    sqrt: Vec<f32>,
    dist: Vec<f32>,
    parent: Vec<u32>,
    /// `seen[cell] == stamp`: `dist`/`parent` are valid for this run.
    seen: Vec<u32>,
    /// `settled[cell] == stamp`: the cell left the queue.
    settled: Vec<u32>,
    stamp: u32,
    heap: BinaryHeap<Reverse<u64>>,
}

impl Search {
    /// A workspace for an `n × n` board.
    pub fn new(n: usize) -> Search {
        let nn = n * n;
        Search {
            n,
            sqrt: sqrt_table(n),
            dist: vec![UNREACHABLE; nn],
            parent: vec![u32::MAX; nn],
            seen: vec![0; nn],
            settled: vec![0; nn],
            stamp: 0,
            heap: BinaryHeap::new(),
        }
    }

    /// Runs Dijkstra from `source` over queen moves that never enter or cross a cell where
    /// `blocked` is true (the source itself may be blocked). Stops early once `stop` is settled.
    ///
    /// A ray stops at the first settled cell: everything beyond it was already offered by
    /// that cell's own ray in the same direction, at a cost no higher.
    ///
    /// # Complexity
    /// `O(N² · N log N)` in the worst case, far less in practice thanks to the ray cut.
    pub fn run(&mut self, source: usize, blocked: impl Fn(usize) -> bool, stop: Option<usize>) {
        self.run_until(source, blocked, |u, _| Some(u) == stop);
    }

    /// [`Search::run`] that calls `settled(cell, distance)` for every cell as it is settled
    /// (the source first) and stops once it returns `true`.
    pub fn run_until(
        &mut self,
        source: usize,
        blocked: impl Fn(usize) -> bool,
        mut settled: impl FnMut(usize, f32) -> bool,
    ) {
        self.explore(source, blocked, |_| 0.0, |u, du, _| settled(u, du));
    }

    /// A* towards one cell: [`Search::run_until`] where cells are settled by their distance
    /// plus `guide[cell]`, a lower bound on the rest of the way (the walls-only distance to
    /// the goal: a consistent bound, since every move open on the board is open through the
    /// walls). `settled(cell, distance, distance + guide)` is called as cells are settled;
    /// the distances of settled cells are exact, and no cell that cannot reach the goal
    /// through the walls (`guide` infinite) is reached. Finding a route to a goal `g` settles
    /// only the cells whose `distance + guide` is below the route's cost, where Dijkstra
    /// settles every cell closer than the route's cost.
    ///
    /// # Panics
    /// If `guide` is shorter than the board's `N²` cells.
    pub fn run_guided(
        &mut self,
        source: usize,
        blocked: impl Fn(usize) -> bool,
        guide: &[f32],
        settled: impl FnMut(usize, f32, f32) -> bool,
    ) {
        self.explore(source, blocked, |c| guide[c], settled);
    }

    /// The search of [`Search::run_until`] and [`Search::run_guided`], with the lower bound
    /// `guide(cell)` on the way left (zero for Dijkstra).
    fn explore(
        &mut self,
        source: usize,
        blocked: impl Fn(usize) -> bool,
        guide: impl Fn(usize) -> f32,
        mut settled: impl FnMut(usize, f32, f32) -> bool,
    ) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.settled.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let n = self.n as i32;
        self.heap.clear();
        self.seen[source] = stamp;
        self.dist[source] = 0.0;
        self.parent[source] = u32::MAX;
        self.heap.push(Reverse(key(guide(source), source)));
        while let Some(Reverse(key_u)) = self.heap.pop() {
            let u = (key_u & 0xffff_ffff) as usize;
            // the first time a cell leaves the queue it has its least key, hence (the guide
            // being consistent) its final distance; later copies are stale
            if self.settled[u] == stamp {
                continue;
            }
            self.settled[u] = stamp;
            let du = self.dist[u];
            if settled(u, du, f32::from_bits((key_u >> 32) as u32)) {
                break;
            }
            let (ur, uc) = ((u / self.n) as i32, (u % self.n) as i32);
            for &(dr, dc) in &DIRS {
                let (mut r, mut c) = (ur + dr, uc + dc);
                let mut len = 1;
                while r >= 0 && r < n && c >= 0 && c < n {
                    let v = (r * n + c) as usize;
                    if blocked(v) {
                        break;
                    }
                    if self.settled[v] == stamp {
                        if self.dist[v] <= du {
                            // its own ray offered the cells beyond at no higher cost (always
                            // so for Dijkstra, which settles by distance)
                            break;
                        }
                    } else {
                        let dv = du + self.sqrt[len];
                        if self.seen[v] != stamp || dv < self.dist[v] {
                            let rest = guide(v);
                            if rest.is_finite() {
                                self.seen[v] = stamp;
                                self.dist[v] = dv;
                                self.parent[v] = u as u32;
                                self.heap.push(Reverse(key(dv + rest, v)));
                            }
                        }
                    }
                    r += dr;
                    c += dc;
                    len += 1;
                }
            }
        }
    }

    /// Distance of `cell` from the last source ([`UNREACHABLE`] if not reached).
    #[inline]
    pub fn dist(&self, cell: usize) -> f32 {
        if self.seen[cell] == self.stamp {
            self.dist[cell]
        } else {
            UNREACHABLE
        }
    }

    /// Whether `cell` was settled by the last run (its distance is final).
    #[inline]
    pub fn settled(&self, cell: usize) -> bool {
        self.settled[cell] == self.stamp
    }

    /// The cells where the moves of a cheapest route from the last source to `cell` start and
    /// end: `[source, …, cell]`; empty if `cell` was not settled.
    pub fn route(&self, cell: usize) -> Vec<usize> {
        if !self.settled(cell) {
            return Vec::new();
        }
        let mut route = vec![cell];
        let mut at = cell;
        while self.parent[at] != u32::MAX {
            at = self.parent[at] as usize;
            route.push(at);
        }
        route.reverse();
        route
    }

    /// Copies all distances of the last run into `out` (unreached cells get [`UNREACHABLE`]).
    pub fn copy_dist(&self, out: &mut [f32]) {
        for (cell, d) in out.iter_mut().enumerate() {
            *d = self.dist(cell);
        }
    }
}

/// The queue key of `cell` at `priority` (non-negative, so its bits order as the number).
fn key(priority: f32, cell: usize) -> u64 {
    ((priority.to_bits() as u64) << 32) | cell as u64
}

/// Walls-only distances between cells, one row per source cell, built on first use.
///
/// Queen moves are reversible, so `dist(a, b) == dist(b, a)`.
#[derive(Clone, Debug)]
pub struct Paths {
    n: usize,
    walls: Vec<bool>,
    rows: Vec<Option<Box<[f32]>>>,
    search: Search,
}

impl Paths {
    /// An empty cache for an `n × n` board with the given walls.
    pub fn new(n: usize, walls: Vec<bool>) -> Paths {
        Paths {
            n,
            rows: vec![None; n * n],
            walls,
            search: Search::new(n),
        }
    }

    /// Builds the row of `source` if it is missing.
    pub fn ensure(&mut self, source: usize) {
        if self.rows[source].is_none() {
            let walls = &self.walls;
            self.search.run(source, |c| walls[c], None);
            let mut row = vec![UNREACHABLE; self.n * self.n].into_boxed_slice();
            self.search.copy_dist(&mut row);
            self.rows[source] = Some(row);
        }
    }

    /// Distances from `source` to every cell, built if needed.
    pub fn row(&mut self, source: usize) -> &[f32] {
        self.ensure(source);
        self.rows[source].as_deref().expect("row was just built")
    }

    /// The rows of `a` and `b` ([`Paths::row`] of both at once).
    pub fn rows(&mut self, a: usize, b: usize) -> (&[f32], &[f32]) {
        self.ensure(a);
        self.ensure(b);
        let built = |c: usize| self.rows[c].as_deref().expect("row was just built");
        (built(a), built(b))
    }

    /// Distances from `source`, if that row was built.
    pub fn get(&self, source: usize) -> Option<&[f32]> {
        self.rows[source].as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Brute force: Bellman-Ford style relaxation over every straight move until stable.
    fn brute(n: usize, walls: &[bool], source: usize) -> Vec<f64> {
        let nn = n * n;
        let mut d = vec![f64::INFINITY; nn];
        d[source] = 0.0;
        loop {
            let mut changed = false;
            for u in 0..nn {
                if !d[u].is_finite() {
                    continue;
                }
                for &(dr, dc) in &DIRS {
                    let (mut r, mut c) = ((u / n) as i32 + dr, (u % n) as i32 + dc);
                    let mut len = 1.0f64;
                    while r >= 0 && r < n as i32 && c >= 0 && c < n as i32 {
                        let v = r as usize * n + c as usize;
                        if walls[v] {
                            break;
                        }
                        if d[u] + len.sqrt() < d[v] - 1e-9 {
                            d[v] = d[u] + len.sqrt();
                            changed = true;
                        }
                        r += dr;
                        c += dc;
                        len += 1.0;
                    }
                }
            }
            if !changed {
                return d;
            }
        }
    }

    #[test]
    fn matches_brute_force_on_random_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..40 {
            let n = rng.random_range(2..=9);
            let p = rng.random_range(0.0..0.4);
            let walls: Vec<bool> = (0..n * n).map(|_| rng.random_bool(p)).collect();
            let mut paths = Paths::new(n, walls.clone());
            for source in 0..n * n {
                let want = brute(n, &walls, source);
                let got = paths.row(source).to_vec();
                for cell in 0..n * n {
                    if want[cell].is_finite() {
                        assert!(
                            (got[cell] as f64 - want[cell]).abs() < 1e-4,
                            "n={n} {source}->{cell}"
                        );
                    } else {
                        assert_eq!(got[cell], UNREACHABLE);
                    }
                }
            }
        }
    }

    #[test]
    fn guided_search_finds_the_cheapest_route() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for _ in 0..1000 {
            let n = rng.random_range(2..=16);
            let walls: Vec<bool> = (0..n * n).map(|_| rng.random_bool(0.15)).collect();
            // pieces on top of the walls: the guide (walls only) stays a lower bound
            let blocked: Vec<bool> = walls.iter().map(|&w| w || rng.random_bool(0.2)).collect();
            let (source, goal) = (rng.random_range(0..n * n), rng.random_range(0..n * n));
            let mut paths = Paths::new(n, walls);
            let guide = paths.row(goal).to_vec();
            let mut search = Search::new(n);
            search.run(source, |c| blocked[c], Some(goal));
            let want = search.dist(goal);
            search.run_guided(source, |c| blocked[c], &guide, |u, _, _| u == goal);
            if !want.is_finite() {
                assert!(!search.settled(goal), "n={n} {source}->{goal}");
                continue;
            }
            assert!(search.settled(goal), "n={n} {source}->{goal}");
            assert!(
                (search.dist(goal) - want).abs() < 1e-4,
                "n={n} {source}->{goal}"
            );
            let route = search.route(goal);
            let mut cost = 0.0;
            for w in route.windows(2) {
                let len = crate::solver::board::line_length(n, w[0], w[1]).unwrap();
                assert!(crate::solver::board::line_cells(n, w[0], w[1])
                    .chain([w[1]])
                    .all(|c| !blocked[c]));
                cost += (len as f32).sqrt();
            }
            assert!((cost - want).abs() < 1e-4);
        }
    }

    #[test]
    fn routes_are_legal_and_cost_the_distance() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for _ in 0..40 {
            let n = rng.random_range(2..=10);
            let blocked: Vec<bool> = (0..n * n).map(|_| rng.random_bool(0.3)).collect();
            let source = rng.random_range(0..n * n);
            let mut search = Search::new(n);
            search.run(source, |c| blocked[c], None);
            for cell in 0..n * n {
                let route = search.route(cell);
                if route.is_empty() {
                    continue;
                }
                let mut cost = 0.0;
                for w in route.windows(2) {
                    let len = crate::solver::board::line_length(n, w[0], w[1]).unwrap();
                    cost += (len as f32).sqrt();
                }
                assert!((cost - search.dist(cell)).abs() < 1e-4);
            }
        }
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn search_example() {
        use crate::solver::paths::Search;
        // 3×3 board, wall in the centre: corner to opposite corner needs two moves of length 2.
        let blocked = [false, false, false, false, true, false, false, false, false];
        let mut search = Search::new(3);
        search.run(0, |c| blocked[c], None);
        assert!((search.dist(8) - 2.0 * 2f32.sqrt()).abs() < 1e-5);
        assert_eq!(search.route(8), vec![0, 2, 8]);
    }

    #[test]
    fn paths_example() {
        use crate::solver::paths::Paths;
        let walls = vec![false; 9];
        let mut paths = Paths::new(3, walls);
        assert_eq!(paths.row(0)[8], 2f32.sqrt()); // one diagonal move of length 2
        assert_eq!(paths.row(0)[5], 2.0); // (0,0) → (1,2): two moves of length 1
    }
}
