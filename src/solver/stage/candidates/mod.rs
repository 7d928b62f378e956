//! The board phase, stages 3–5 for one board at a time: candidate target boards, matched,
//! routed and kept in a [`Pool`].
//!
//! [`Annealer`] makes one board per call: a whole-board annealing run from the initial board,
//! a warm restart from the best board, or (iterated local search) a re-plan of one colour of
//! the best board against the others, or a lift (stage 3b, `elite`): one or two colours of an
//! elite routed board placed again by the exact one-colour search. Each board is matched
//! ([`assign`]), ranked by the stayer-aware estimate ([`estimate`]), routed
//! ([`Simulator::evaluate`]) when it ranks among the best (a lift's always), and kept in the
//! pool, which holds the best few distinct boards (Zobrist hashes).

mod elite;
pub(crate) mod estimate;
mod pool;

use super::anneal::{anneal, reset_colour, Schedule, TargetBoard};
use super::assign;
use super::exact::MAX_N_ONE_COLOUR;
use super::route::Simulator;
use crate::solver::board::Queen;
use crate::solver::budget::Budget;
use crate::solver::params::Params;
use crate::solver::problem::Problem;
#[cfg(doc)]
use estimate::Estimator;
pub(crate) use pool::Pool;
use rand::Rng;
use std::time::{Duration, Instant};

/// Length of a one-colour re-plan (iterations per queen of the colour, × N) for `colours`
/// colours.
fn ils_iterations_per_queen(params: &Params, colours: usize) -> f64 {
    match colours {
        1 => params.ils_iterations_per_queen_one_colour,
        2 | 3 => params.ils_iterations_per_queen_few_colours,
        _ => params.ils_iterations_per_queen,
    }
}

/// What one annealing run made.
pub(crate) struct Made {
    /// `"whole board"`, `"warm restart"`, `"one colour"` or `"lift"`.
    pub(crate) kind: &'static str,
    /// Distance table used.
    pub(crate) table: usize,
    /// Errors of the board.
    pub(crate) errors: usize,
    /// Its stayer-aware estimate ([`Estimator`]), `None` if the board was met before.
    pub(crate) estimate: Option<f64>,
    /// Routed score and routing time, `None` if the board was not routed.
    pub(crate) routed: Option<(f64, Duration)>,
}

/// Which run comes next: a lift of an elite routed board, a one-colour re-plan of the best
/// board, a warm restart from it, or a whole-board run from the initial board.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Lift,
    OneColour,
    Warm,
    Whole,
}

/// The adaptive state of the board phase: which run comes next and how long it is.
pub(crate) struct Annealer<'a> {
    problem: &'a Problem,
    params: Params,
    /// The board phase's time (what re-plans measure routing against).
    boards_time: Duration,
    runs: usize,
    per_queen: f64,
    stale: bool,
}

impl<'a> Annealer<'a> {
    /// The board phase's start under `budget`: no run made yet, the first run's length.
    pub(crate) fn new(problem: &'a Problem, budget: &Budget, params: &Params) -> Annealer<'a> {
        let colours = problem.colour.iter().map(|c| c + 1).max().unwrap_or(0);
        let per_queen = if colours >= params.crowded_colours && budget.crowded() {
            params.iterations_per_queen_crowded
        } else {
            params.iterations_per_queen_min
        };
        Annealer {
            problem,
            params: *params,
            boards_time: budget.boards_time(),
            runs: 0,
            per_queen,
            stale: false,
        }
    }

    /// Runs made.
    pub(crate) fn runs(&self) -> usize {
        self.runs
    }

    /// The kind of the next run, and the colours with errors of the best board.
    fn choose(&self, pool: &Pool, rng: &mut impl Rng) -> (Kind, Vec<usize>) {
        let (p, problem) = (&self.params, self.problem);
        // the lift search shares the board phase once a board is routed (no draw when it is
        // off, so the other runs see the random stream they saw before it)
        if p.lift_share > 0.0
            && !pool.top.is_empty()
            && problem.n <= MAX_N_ONE_COLOUR
            && rng.random_bool(p.lift_share)
        {
            return (Kind::Lift, Vec::new());
        }
        // After a few boards from scratch, most runs re-plan one colour of the best routed
        // board against the others (a far smaller search, which leaves the basins where
        // whole-board annealing gets stuck); the rest start again from the initial board.
        // (re-plans gain less per board than whole-board runs: they need many boards, so
        // routing must be fast)
        let fast_routing = pool.sims() > 0
            && pool.per_sim().as_secs_f64() * p.ils_min_boards < self.boards_time.as_secs_f64();
        // (a base with errors is worth re-plans however slow routing is: only a re-plan of a
        // colour with errors removes them, and each costs N. At 1 s, side by side per seed, one
        // run each: the 42 seeds of 1–100 with C ≥ 4 and 30 held-out ones, geometric mean of
        // the score ratio 0.967 against re-plans only with fast routing)
        let faulty = pool.ranked.first().map_or(Vec::new(), |(_, cells)| {
            faulty_colours(&problem.queens, problem.n, cells, problem.colours)
        });
        let ils = (problem.colours == 1 || problem.queens.len() >= p.ils_min_queens)
            && (fast_routing || !faulty.is_empty())
            && pool.ranked.len() >= p.ils_after
            && self.runs % p.ils_every != 0
            && !self.stale;
        // Of the other runs, every other one refines the best board so far (cooler,
        // shorter) instead of starting again from the initial board.
        let kind = if ils {
            Kind::OneColour
        } else if self.runs % 2 == 0 && !pool.ranked.is_empty() {
            Kind::Warm
        } else {
            Kind::Whole
        };
        (kind, faulty)
    }

    /// One annealing run of at most `slice`, matched, routed (until `deadline`) and offered
    /// to `pool`; `None` when a one-colour re-plan could not start.
    pub(crate) fn next(
        &mut self,
        pool: &mut Pool,
        sim: &mut Simulator<'_>,
        slice: Duration,
        deadline: Instant,
        rng: &mut impl Rng,
    ) -> Option<Made> {
        let (p, problem) = (self.params, self.problem);
        let (n, nq) = (problem.n, problem.queens.len());
        self.runs += 1;
        let (kind, faulty) = self.choose(pool, rng);
        if kind == Kind::Lift {
            return Some(self.lift(pool, sim, slice, deadline, rng));
        }
        let table = if kind == Kind::OneColour {
            0
        } else {
            rng.random_range(0..problem.tables.len())
        };
        let dist = &problem.tables[table];
        let schedule = Schedule {
            error_weight: n as f64,
            error_weight_start: n as f64,
            iterations: (self.per_queen as u64 * nq as u64).max(p.min_iterations as u64),
            t0: p.t0_min * (p.t0_max / p.t0_min).powf(rng.random::<f64>()),
            t1: p.t1,
            only_colour: None,
            duration: Some(slice),
        };
        let mut found = match kind {
            Kind::OneColour => {
                let base = &pool.ranked[0].1;
                self.replan(base, &faulty, dist, schedule, rng)?
            }
            Kind::Warm => {
                let spread = 1.0 - p.warm_t0_spread + 2.0 * p.warm_t0_spread * rng.random::<f64>();
                let schedule = Schedule {
                    t0: p.warm_t0 * spread,
                    iterations: (schedule.iterations as f64 * p.warm_iterations) as u64,
                    ..schedule
                };
                anneal(problem, dist, &pool.ranked[0].1, schedule, rng)
            }
            Kind::Lift => unreachable!("lifts return above"),
            Kind::Whole => {
                // Run length adapts: short runs give more diverse boards (best for easy
                // cases), but a run that ends with errors asks for longer ones (crowded boards).
                let found = anneal(problem, dist, &problem.starts, schedule, rng);
                self.per_queen = if found.errors > 0 {
                    (self.per_queen * p.run_growth).min(p.iterations_per_queen_max)
                } else {
                    (self.per_queen * p.run_shrink).max(p.iterations_per_queen_min)
                };
                found
            }
        };
        assign::assign(&problem.queens, &mut found.cells, |q, cell| {
            dist[q * n * n + cell]
        });
        let offered = pool.offer(sim, found.cells, found.errors, dist, deadline);
        // a one-colour run that only finds a known board asks for a run from scratch
        self.stale = kind == Kind::OneColour && offered.is_none();
        Some(Made {
            kind: match kind {
                Kind::Lift => "lift",
                Kind::OneColour => "one colour",
                Kind::Warm => "warm restart",
                Kind::Whole => "whole board",
            },
            table,
            errors: found.errors,
            estimate: offered.map(|o| o.0),
            routed: offered.and_then(|o| o.1),
        })
    }

    /// A one-colour re-plan of `base` (its colours with errors: `faulty`) on the table `dist`;
    /// `None` when its start could not be made.
    fn replan(
        &self,
        base: &[usize],
        faulty: &[usize],
        dist: &[f32],
        schedule: Schedule,
        rng: &mut impl Rng,
    ) -> Option<TargetBoard> {
        let (p, problem) = (&self.params, self.problem);
        let colour = replan_colour(faulty, problem.colours, p.faulty_colour_chance, rng);
        let share = p.ils_reset_min + (1.0 - p.ils_reset_min) * rng.random::<f64>();
        let cells = reset_colour(problem, dist, base, colour, share, rng)?;
        let schedule = Schedule {
            t0: p.ils_t0,
            iterations: (ils_iterations_per_queen(p, problem.colours) * problem.n as f64) as u64,
            only_colour: Some(colour),
            ..schedule
        };
        Some(anneal(problem, dist, &cells, schedule, rng))
    }
}

/// The colours with errors on `cells`.
fn faulty_colours(queens: &[Queen], n: usize, cells: &[usize], colours: usize) -> Vec<usize> {
    (0..colours)
        .filter(|&c| colour_errors(queens, n, cells, c) > 0)
        .collect()
}

/// The colour a re-plan changes: while the base board has errors (`faulty`: its colours with
/// errors), mostly one of those (errors are between queens of one colour, so only a re-plan
/// of such a colour can remove them); otherwise any colour.
/// (`chance`: how often a colour with errors is picked).
fn replan_colour(faulty: &[usize], colours: usize, chance: f64, rng: &mut impl Rng) -> usize {
    if !faulty.is_empty() && rng.random_bool(chance) {
        faulty[rng.random_range(0..faulty.len())]
    } else {
        rng.random_range(0..colours)
    }
}

/// Attacking pairs among the queens of `colour` on `cells` (walls do not block attacks).
pub(super) fn colour_errors(queens: &[Queen], n: usize, cells: &[usize], colour: usize) -> usize {
    let mine: Vec<(usize, usize)> = queens
        .iter()
        .zip(cells)
        .filter(|(q, _)| q.colour == colour)
        .map(|(_, &cell)| (cell / n, cell % n))
        .collect();
    let mut pairs = 0;
    for (i, &(r1, c1)) in mine.iter().enumerate() {
        for &(r2, c2) in &mine[i + 1..] {
            if r1 == r2 || c1 == c2 || r1 + c2 == r2 + c1 || r1 + c1 == r2 + c2 {
                pairs += 1;
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::Board;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Crowded boards (many colours) start with the longer annealing runs at short budgets,
    /// the others (and every board at longer budgets) with the shortest.
    #[test]
    fn first_run_length_follows_the_colours() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for c in 1..=6 {
            let board = Board::random(20, c, 0.1, &mut rng);
            let problem = Problem::new(&board);
            let p = Params::default();
            let start = std::time::Instant::now();
            // the 1 s limit's compute budget (0.7 s) and the 2 s limit's (1.4 s)
            let short = Budget::new(1.0, start, &p);
            let annealer = Annealer::new(&problem, &short, &p);
            let want = if c >= p.crowded_colours {
                p.iterations_per_queen_crowded
            } else {
                p.iterations_per_queen_min
            };
            assert_eq!(annealer.per_queen, want, "C = {c}");
            assert_eq!(annealer.runs(), 0);
            let long = Annealer::new(&problem, &Budget::new(2.0, start, &p), &p);
            assert_eq!(long.per_queen, p.iterations_per_queen_min, "C = {c}");
        }
    }

    /// The errors counted per colour add up to the board's errors (line counts), and a
    /// re-plan of a board with errors mostly picks a colour that has some.
    #[test]
    fn colour_errors_match_the_line_counts() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..200 {
            let n = rng.random_range(4..9);
            // at most half the cells hold queens, so the walls leave room
            let colours = rng.random_range(1..=n / 2).min(3);
            let board = Board::random(n, colours, 0.1, &mut rng);
            let queens = board.queens();
            // the queens on random distinct cells
            let mut free: Vec<usize> = (0..n * n).collect();
            let cells: Vec<usize> = queens
                .iter()
                .map(|_| free.swap_remove(rng.random_range(0..free.len())))
                .collect();
            let mut grid = vec![0i8; n * n];
            for (q, &cell) in queens.iter().zip(&cells) {
                grid[cell] = q.colour as i8 + 1;
            }
            let per_colour: usize = (0..board.colours)
                .map(|c| colour_errors(&queens, n, &cells, c))
                .sum();
            assert_eq!(
                per_colour,
                crate::solver::score::errors(n, board.colours, &grid)
            );
            if per_colour > 0 && board.colours > 1 {
                let picks = (0..200)
                    .filter(|_| {
                        let faulty = faulty_colours(&queens, n, &cells, board.colours);
                        let c = replan_colour(&faulty, board.colours, 0.8, &mut rng);
                        colour_errors(&queens, n, &cells, c) > 0
                    })
                    .count();
                assert!(picks >= 140, "{picks} of 200 picks had errors");
            }
        }
    }
}
