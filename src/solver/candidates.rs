//! Stages 2–4 together: candidate target boards, matched, routed and kept in a [`Pool`].
//!
//! [`Annealer`] makes one board per call: a whole-board annealing run from the initial board,
//! a warm restart from the best board, or (iterated local search) a re-plan of one colour of
//! the best board against the others. Each board is matched ([`assign`]), routed
//! ([`Context::evaluate`]) and offered to the pool, which keeps the best few distinct routed
//! boards (Zobrist hashes).

use super::assign;
use super::board::Queen;
use super::budget::Budget;
use super::params::Params;
use super::reorder::{Context, Routed};
use super::stayers::Estimator;
use super::targets::{self, anneal, Problem, Schedule, Zobrist};
use ahash::AHashSet;
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

/// The best distinct boards so far: ranked by the stayer-aware estimate ([`Estimator`]), and
/// the routed ones by their real score; and how long routing takes.
pub struct Pool {
    /// The best routed boards, best first (at most `pool_size`).
    pub top: Vec<Routed>,
    /// The best boards by estimate, best first (at most `pool_size`): the re-plans' base.
    pub ranked: Vec<(f64, Vec<usize>)>,
    /// How many boards `top` and `ranked` keep (`pool_size`).
    size: usize,
    /// A board is routed when it ranks among this many (`route_rank`).
    route_rank: usize,
    queens: Vec<Queen>,
    seen: AHashSet<u64>,
    zobrist: Zobrist,
    estimator: Estimator,
    sim_time: Duration,
    sim_count: u32,
}

impl Pool {
    /// An empty pool for the `queens` of an `n × n` board of `colours` colours.
    pub fn new(
        queens: &[Queen],
        n: usize,
        colours: usize,
        params: &Params,
        rng: &mut impl Rng,
    ) -> Pool {
        Pool {
            top: Vec::new(),
            ranked: Vec::new(),
            size: params.pool_size,
            route_rank: params.route_rank,
            queens: queens.to_vec(),
            seen: AHashSet::new(),
            zobrist: Zobrist::new(n * n, colours, rng),
            estimator: Estimator::new(n),
            sim_time: Duration::ZERO,
            sim_count: 0,
        }
    }

    /// Mean time of one routing simulation (zero before the first).
    pub fn per_sim(&self) -> Duration {
        self.sim_time / self.sim_count.max(1)
    }

    /// How many routing simulations ran.
    pub fn sims(&self) -> u32 {
        self.sim_count
    }

    /// Distinct boards met.
    pub fn distinct(&self) -> usize {
        self.seen.len()
    }

    /// Ranks the matched target board `cells` (with `errors` attacking pairs) by its
    /// estimate; `walls_only` is the walls-only distance table (`q * n² + cell`). `None` if
    /// the board was met before, else its estimate and its rank among the boards kept
    /// (`pool_size` when it ranks below them all).
    pub fn consider(
        &mut self,
        walls: &[bool],
        walls_only: &[f32],
        cells: &[usize],
        errors: usize,
    ) -> Option<(f64, usize)> {
        if !self.seen.insert(self.zobrist.hash(&self.queens, cells)) {
            return None;
        }
        let estimate = self
            .estimator
            .estimate(walls, &self.queens, cells, walls_only, errors);
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
    pub fn route(
        &mut self,
        ctx: &mut Context<'_>,
        cells: Vec<usize>,
        dist: &[f32],
        deadline: Instant,
    ) -> (f64, Duration) {
        let nn = ctx.board.n * ctx.board.n;
        let mut order: Vec<usize> = (0..cells.len()).collect();
        order.sort_by(|&a, &b| dist[a * nn + cells[a]].total_cmp(&dist[b * nn + cells[b]]));
        let started = Instant::now();
        let routed = ctx.evaluate(cells, order, Some(deadline));
        let sim = started.elapsed();
        self.sim_time += sim;
        self.sim_count += 1;
        let score = routed.score;
        self.top.push(routed);
        self.top.sort_by(|a, b| a.score.total_cmp(&b.score));
        self.top.truncate(self.size);
        (score, sim)
    }

    /// [`Pool::consider`], then [`Pool::route`] when the board ranks among the best
    /// `route_rank`: `None` if the board was met before, else its estimate and, if it was
    /// routed, its score and the routing time.
    #[allow(clippy::too_many_arguments)]
    pub fn offer(
        &mut self,
        ctx: &mut Context<'_>,
        walls_only: &[f32],
        cells: Vec<usize>,
        errors: usize,
        dist: &[f32],
        deadline: Instant,
    ) -> Option<(f64, Option<(f64, Duration)>)> {
        let (estimate, rank) = self.consider(ctx.walls, walls_only, &cells, errors)?;
        let routed = (rank < self.route_rank).then(|| self.route(ctx, cells, dist, deadline));
        Some((estimate, routed))
    }
}

/// What one annealing run made.
pub struct Made {
    /// `"whole board"`, `"warm restart"` or `"one colour"`.
    pub kind: &'static str,
    /// Distance table used.
    pub table: usize,
    /// Errors of the board.
    pub errors: usize,
    /// Its stayer-aware estimate ([`Estimator`]), `None` if the board was met before.
    pub estimate: Option<f64>,
    /// Routed score and routing time, `None` if the board was not routed.
    pub routed: Option<(f64, Duration)>,
}

/// The adaptive state of the board phase: which run comes next and how long it is.
pub struct Annealer<'a> {
    /// The queens.
    pub queens: &'a [Queen],
    /// Wall flags per cell.
    pub walls: &'a [bool],
    /// Distance tables (`q * n² + cell`): walls-only first.
    pub tables: &'a [Vec<f32>],
    params: Params,
    /// The board phase's time (what re-plans measure routing against).
    boards_time: Duration,
    runs: usize,
    per_queen: f64,
    stale: bool,
}

impl<'a> Annealer<'a> {
    /// The board phase's start under `budget`: no run made yet, the first run's length.
    pub(crate) fn new(
        queens: &'a [Queen],
        walls: &'a [bool],
        tables: &'a [Vec<f32>],
        budget: &Budget,
        params: &Params,
    ) -> Annealer<'a> {
        let colours = queens.iter().map(|q| q.colour + 1).max().unwrap_or(0);
        let per_queen = if colours >= params.crowded_colours && budget.crowded() {
            params.iterations_per_queen_crowded
        } else {
            params.iterations_per_queen_min
        };
        Annealer {
            queens,
            walls,
            tables,
            params: *params,
            boards_time: budget.boards_time(),
            runs: 0,
            per_queen,
            stale: false,
        }
    }

    /// Runs made.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// One annealing run of at most `slice`, matched, routed (until `deadline`) and offered
    /// to `pool`; `None` when a one-colour re-plan could not start.
    pub fn next(
        &mut self,
        pool: &mut Pool,
        ctx: &mut Context<'_>,
        slice: Duration,
        deadline: Instant,
        rng: &mut impl Rng,
    ) -> Option<Made> {
        let board = ctx.board;
        let p = self.params;
        let (n, nq) = (board.n, self.queens.len());
        self.runs += 1;
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
            faulty_colours(self.queens, n, cells, board.colours)
        });
        let ils = (board.colours == 1 || nq >= p.ils_min_queens)
            && (fast_routing || !faulty.is_empty())
            && pool.ranked.len() >= p.ils_after
            && self.runs % p.ils_every != 0
            && !self.stale;
        // Of the other runs, every other one refines the best board so far (cooler,
        // shorter) instead of starting again from the initial board.
        let warm = !ils && self.runs % 2 == 0 && !pool.ranked.is_empty();
        let table = if ils {
            0
        } else {
            rng.random_range(0..self.tables.len())
        };
        let dist = &self.tables[table];
        let problem = Problem {
            n,
            colours: board.colours,
            queens: self.queens,
            walls: self.walls,
            dist,
        };
        let schedule = Schedule {
            error_weight: n as f64,
            error_weight_start: n as f64,
            iterations: (self.per_queen as u64 * nq as u64).max(p.min_iterations as u64),
            t0: p.t0_min * (p.t0_max / p.t0_min).powf(rng.random::<f64>()),
            t1: p.t1,
            only_colour: None,
            duration: Some(slice),
        };
        let (kind, mut found) = if ils {
            let base = &pool.ranked[0].1;
            let colour = replan_colour(&faulty, board.colours, p.faulty_colour_chance, rng);
            let share = p.ils_reset_min + (1.0 - p.ils_reset_min) * rng.random::<f64>();
            let cells =
                targets::reset_colour(self.queens, self.walls, dist, base, colour, share, rng)?;
            let schedule = Schedule {
                t0: p.ils_t0,
                iterations: (ils_iterations_per_queen(&p, board.colours) * n as f64) as u64,
                only_colour: Some(colour),
                ..schedule
            };
            ("one colour", anneal(problem, &cells, schedule, rng))
        } else if warm {
            let schedule = Schedule {
                t0: p.warm_t0
                    * (1.0 - p.warm_t0_spread + 2.0 * p.warm_t0_spread * rng.random::<f64>()),
                iterations: (schedule.iterations as f64 * p.warm_iterations) as u64,
                ..schedule
            };
            (
                "warm restart",
                anneal(problem, &pool.ranked[0].1, schedule, rng),
            )
        } else {
            // Run length adapts: short runs give more diverse boards (best for easy cases),
            // but a run that ends with errors asks for longer ones (crowded boards).
            let found = anneal(problem, ctx.starts, schedule, rng);
            self.per_queen = if found.errors > 0 {
                (self.per_queen * p.run_growth).min(p.iterations_per_queen_max)
            } else {
                (self.per_queen * p.run_shrink).max(p.iterations_per_queen_min)
            };
            ("whole board", found)
        };
        assign::assign(self.queens, &mut found.cells, |q, cell| {
            dist[q * n * n + cell]
        });
        let offered = pool.offer(
            ctx,
            &self.tables[0],
            found.cells,
            found.errors,
            dist,
            deadline,
        );
        // a one-colour run that only finds a known board asks for a run from scratch
        self.stale = ils && offered.is_none();
        Some(Made {
            kind,
            table,
            errors: found.errors,
            estimate: offered.map(|o| o.0),
            routed: offered.and_then(|o| o.1),
        })
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
fn colour_errors(queens: &[Queen], n: usize, cells: &[usize], colour: usize) -> usize {
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
            let (queens, walls) = (board.queens(), board.walls());
            let tables: Vec<Vec<f32>> = Vec::new();
            let p = Params::default();
            let start = std::time::Instant::now();
            // the 1 s limit's compute budget (0.7 s) and the 2 s limit's (1.4 s)
            let short = Budget::new(1.0, start, &p);
            let annealer = Annealer::new(&queens, &walls, &tables, &short, &p);
            let want = if c >= p.crowded_colours {
                p.iterations_per_queen_crowded
            } else {
                p.iterations_per_queen_min
            };
            assert_eq!(annealer.per_queen, want, "C = {c}");
            assert_eq!(annealer.runs(), 0);
            let long = Annealer::new(&queens, &walls, &tables, &Budget::new(2.0, start, &p), &p);
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
