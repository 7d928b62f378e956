//! The pool of candidate boards: the best distinct boards by estimate and the best routed
//! ones, and how long routing takes.

use super::estimate::Estimator;
use crate::solver::checkpoint;
use crate::solver::params::Params;
use crate::solver::problem::Problem;
use crate::solver::stage::anneal::Zobrist;
use crate::solver::stage::route::{Routed, Simulator};
use ahash::AHashSet;
use rand::Rng;
use std::time::{Duration, Instant};

/// The best distinct boards so far: ranked by the stayer-aware estimate ([`Estimator`]), and
/// the routed ones by their real score; and how long routing takes.
pub(crate) struct Pool {
    /// The best routed boards, best first (at most `pool_size`).
    pub(crate) top: Vec<Routed>,
    /// The best boards by estimate, best first (at most `pool_size`): the re-plans' base.
    pub(crate) ranked: Vec<(f64, Vec<usize>)>,
    /// How many boards `top` and `ranked` keep (`pool_size`).
    size: usize,
    /// A board is routed when it ranks among this many (`route_rank`).
    route_rank: usize,
    seen: AHashSet<u64>,
    zobrist: Zobrist,
    estimator: Estimator,
    sim_time: Duration,
    sim_count: u32,
}

impl Pool {
    /// An empty pool for the boards of `problem`.
    pub(crate) fn new(problem: &Problem, params: &Params, rng: &mut impl Rng) -> Pool {
        Pool {
            top: Vec::new(),
            ranked: Vec::new(),
            size: params.pool_size,
            route_rank: params.route_rank,
            seen: AHashSet::new(),
            zobrist: Zobrist::new(problem.cells(), problem.colours, rng),
            estimator: Estimator::new(problem.n),
            sim_time: Duration::ZERO,
            sim_count: 0,
        }
    }

    /// Mean time of one routing simulation (zero before the first).
    pub(crate) fn per_sim(&self) -> Duration {
        self.sim_time / self.sim_count.max(1)
    }

    /// How many routing simulations ran.
    pub(crate) fn sims(&self) -> u32 {
        self.sim_count
    }

    /// Distinct boards met.
    pub(crate) fn distinct(&self) -> usize {
        self.seen.len()
    }

    /// Ranks the matched target board `cells` (with `errors` attacking pairs) of `problem` by
    /// its estimate (on the walls-only table). `None` if
    /// the board was met before, else its estimate and its rank among the boards kept
    /// (`pool_size` when it ranks below them all).
    pub(crate) fn consider(
        &mut self,
        problem: &Problem,
        cells: &[usize],
        errors: usize,
    ) -> Option<(f64, usize)> {
        if !self.seen.insert(self.zobrist.hash(&problem.queens, cells)) {
            return None;
        }
        let estimate = self.estimator.estimate(
            &problem.walls,
            &problem.queens,
            cells,
            problem.walls_only(),
            errors,
        );
        let rank = self.ranked.partition_point(|(e, _)| *e <= estimate);
        if rank < self.size {
            self.ranked.insert(rank, (estimate, cells.to_vec()));
            self.ranked.truncate(self.size);
        }
        Some((estimate, rank))
    }

    /// Routes the matched target board `cells` (queens by increasing path cost in `dist`,
    /// `q * n² + cell`) and keeps it if it is among the best; returns the routed board's score
    /// and the routing time.
    pub(crate) fn route(
        &mut self,
        sim: &mut Simulator<'_>,
        cells: Vec<usize>,
        dist: &[f32],
        deadline: Instant,
    ) -> (f64, Duration) {
        let nn = sim.problem.cells();
        let mut order: Vec<usize> = (0..cells.len()).collect();
        order.sort_by(|&a, &b| dist[a * nn + cells[a]].total_cmp(&dist[b * nn + cells[b]]));
        let started = Instant::now();
        let routed = sim.evaluate(cells, order, Some(deadline));
        let took = started.elapsed();
        self.sim_time += took;
        self.sim_count += 1;
        let score = routed.score;
        if self.top.first().is_none_or(|best| score < best.score) {
            checkpoint::keep(&sim.problem.board, &routed.moves, score);
        }
        self.top.push(routed);
        self.top.sort_by(|a, b| a.score.total_cmp(&b.score));
        self.top.truncate(self.size);
        (score, took)
    }

    /// [`Pool::consider`], then [`Pool::route`] when the board ranks among the best
    /// `route_rank`: `None` if the board was met before, else its estimate and, if it was
    /// routed, its score and the routing time.
    pub(crate) fn offer(
        &mut self,
        sim: &mut Simulator<'_>,
        cells: Vec<usize>,
        errors: usize,
        dist: &[f32],
        deadline: Instant,
    ) -> Option<(f64, Option<(f64, Duration)>)> {
        let (estimate, rank) = self.consider(sim.problem, &cells, errors)?;
        let routed = (rank < self.route_rank).then(|| self.route(sim, cells, dist, deadline));
        Some((estimate, routed))
    }
}
