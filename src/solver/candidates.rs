//! Stages 2–4 together: candidate target boards, matched, routed and kept in a [`Pool`].
//!
//! [`Annealer`] makes one board per call: a whole-board annealing run from the initial board,
//! a warm restart from the best board, or (iterated local search) a re-plan of one colour of
//! the best board against the others. Each board is matched ([`assign`]), routed
//! ([`Context::evaluate`]) and offered to the pool, which keeps the best few distinct routed
//! boards (Zobrist hashes).

use super::assign;
use super::board::Queen;
use super::reorder::{Context, Routed};
use super::stayers::Estimator;
use super::targets::{self, anneal, Problem, Schedule, Zobrist};
use ahash::AHashSet;
use rand::Rng;
use std::time::{Duration, Instant};

/// Iterations of one annealing run per queen: the shortest and the longest runs.
const ITERATIONS_PER_QUEEN_MIN: f64 = 1_500.0;
const ITERATIONS_PER_QUEEN_MAX: f64 = 60_000.0;
/// ... and the first run's on crowded boards (at least `CROWDED_COLOURS` colours), where
/// shorter runs end with many errors and are thrown away (seed 2, N = 30, C = 6, at 1 s: 14,
/// 13, 10 errors in the first three boards). At 1 s, A/B run side by side per seed (load
/// 4–9), geometric mean of the score ratio, 6 000 against 1 500 for every board: seeds 1–100
/// 0.978 (C ≥ 4 and N ≥ 16: 0.929, the other 68 seeds 0.999–1.010); held-out seeds 1001–1100
/// 0.993 (C ≥ 4: 0.975–0.982, but C ≤ 3 and N < 16: 1.015, hence crowded boards only); the 37
/// seeds of 1–100 with C ≥ 4 and N ≥ 13, two runs each: 0.941, and 20 000 against 6 000
/// 0.995 (no further gain).
/// At 2 s it lost on the same 37 seeds (one run, load 5: 1.034, 11 better, 25 worse; at 1 s in
/// the same sitting 0.982), so it applies only to compute budgets below `CROWDED_BUDGET`
/// (the 1 s limit's 0.7 s; the 2 s limit's is 1.4 s).
const ITERATIONS_PER_QUEEN_CROWDED: f64 = 6_000.0;
const CROWDED_COLOURS: usize = 4;
const CROWDED_BUDGET: Duration = Duration::from_secs(1);
/// Annealing temperatures (in units of path cost; an error costs `N`): each run starts at a
/// random temperature between these two (log-uniform) and cools to `T1`.
const T0_MIN: f64 = 1.0;
const T0_MAX: f64 = 10.0;
const T1: f64 = 0.05;
/// Start temperature (± 50 %) of a run that refines the best board so far.
const WARM_T0: f64 = 0.7;
/// Re-planning one colour of the best board (iterated local search) starts once this many
/// boards are routed; every `ILS_EVERY`-th run still starts from scratch.
const ILS_AFTER: usize = 2;
const ILS_EVERY: usize = 8;
/// ... and with one colour (the re-plan is then a perturbation of the whole best board) or at
/// least this many queens: on smaller boards of several colours a whole-board run costs as
/// little as a one-colour run and finds more varied boards. Seeds with fewer than 20 queens
/// among 1–100 at 10 s: one colour gained (seed 8: 24.33 → 22.00), two colours lost (seed 1:
/// 16.71 → 17.36, seed 57: 19.19 → 19.81) with the re-plans.
const ILS_MIN_QUEENS: usize = 20;
/// ... and when routing is fast enough for this many boards in the board phase. At N = 64,
/// C = 10 (0.6 s per routing) re-plans after the first two boards ended at 2640 (15 errors)
/// where whole-board runs reached 2220 (4 errors). With 50 instead of 20, crowded contest
/// boards at 1–2 s lost the re-plans and some did worse (seed 55 at 2 s: +70).
const ILS_MIN_BOARDS: f64 = 20.0;
/// Start temperature and length (iterations per queen of the colour, × N) of a one-colour
/// run. Measured on seeds 1–20 at 10 s (sum of scores): 4 000 → 2087, 8 000 → 1990,
/// 16 000 → 1975, 32 000 → 2049.
const ILS_T0: f64 = 1.0;
const ILS_ITERATIONS_PER_QUEEN: f64 = 16_000.0;
/// ... and with one colour, where a re-plan perturbs the whole board and more, shorter
/// re-plans win. The 44 one-colour seeds of 1–100 and 1001–1200, side by side per seed,
/// geometric mean of the score ratio against 16 000: at 1 s 1 000 → 0.985, 2 000 → 0.987,
/// 4 000 → 0.988, 8 000 → 0.992 (2–5 runs each); at 2 s 4 000 → 0.981, at 5 s 0.994, at
/// 10 s 0.996 (one run each). On crowded boards short re-plans lose (4 000 at 1 s, the 72
/// seeds with C ≥ 4: 1.028).
const ILS_ITERATIONS_PER_QUEEN_ONE_COLOUR: f64 = 4_000.0;
/// ... and with two or three colours. The 62 seeds with C = 2 or 3 of 1–100 and 1001–1060,
/// side by side, against 16 000: at 1 s 8 000 → 0.992 (2 runs), 4 000 → 0.987 (1 run); at 2 s
/// 8 000 → 0.990; at 10 s (31 of them) 0.987. (The choice of 16 000 above was on seeds 1–20
/// together, most of them crowded.)
const ILS_ITERATIONS_PER_QUEEN_FEW_COLOURS: f64 = 8_000.0;

fn ils_iterations_per_queen(colours: usize) -> f64 {
    match colours {
        1 => ILS_ITERATIONS_PER_QUEEN_ONE_COLOUR,
        2 | 3 => ILS_ITERATIONS_PER_QUEEN_FEW_COLOURS,
        _ => ILS_ITERATIONS_PER_QUEEN,
    }
}
/// Each queen of the re-planned colour goes back to its start with a probability drawn
/// between this and 1 (small: a local change; 1: the whole colour from scratch).
const ILS_RESET_MIN: f64 = 0.2;
/// While the best board has errors, a re-plan picks one of the colours with errors with this
/// probability (else any colour). At 1 s, run side by side per seed (one run each, geometric
/// mean of the score ratio against picking any colour): the 42 seeds of 1–100 with C ≥ 4
/// 0.981, the first 50 held-out seeds 1001–1200 with C ≥ 4 0.988. (Boards at 10 s are mostly
/// error-free early, where this does nothing.)
const FAULTY_COLOUR_CHANCE: f64 = 0.8;
/// The pool keeps this many routed boards, and as many ranked ones.
pub const POOL_SIZE: usize = 40;
/// A board is routed when it ranks among this many best by estimate as it comes (so the
/// routed pool holds the best candidates, and routing does not slow the re-plans down).
const ROUTE_RANK: usize = 4;

/// The best distinct boards so far: ranked by the stayer-aware estimate ([`Estimator`]), and
/// the routed ones by their real score; and how long routing takes.
pub struct Pool {
    /// The best routed boards, best first (at most [`POOL_SIZE`]).
    pub top: Vec<Routed>,
    /// The best boards by estimate, best first (at most [`POOL_SIZE`]): the re-plans' base.
    pub ranked: Vec<(f64, Vec<usize>)>,
    queens: Vec<Queen>,
    seen: AHashSet<u64>,
    zobrist: Zobrist,
    estimator: Estimator,
    sim_time: Duration,
    sim_count: u32,
}

impl Pool {
    /// An empty pool for the `queens` of an `n × n` board of `colours` colours.
    pub fn new(queens: &[Queen], n: usize, colours: usize, rng: &mut impl Rng) -> Pool {
        Pool {
            top: Vec::new(),
            ranked: Vec::new(),
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
    /// ([`POOL_SIZE`] when it ranks below them all).
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
        if rank < POOL_SIZE {
            self.ranked.insert(rank, (estimate, cells.to_vec()));
            self.ranked.truncate(POOL_SIZE);
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
        self.top.truncate(POOL_SIZE);
        (score, sim)
    }

    /// [`Pool::consider`], then [`Pool::route`] when the board ranks among the best
    /// `ROUTE_RANK`: `None` if the board was met before, else its estimate and, if it was
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
        let routed = (rank < ROUTE_RANK).then(|| self.route(ctx, cells, dist, deadline));
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
    runs: usize,
    per_queen: f64,
    stale: bool,
}

impl<'a> Annealer<'a> {
    /// The board phase's start for a compute budget of `budget`: no run made yet, the first
    /// run's length.
    pub fn new(
        queens: &'a [Queen],
        walls: &'a [bool],
        tables: &'a [Vec<f32>],
        budget: Duration,
    ) -> Annealer<'a> {
        let colours = queens.iter().map(|q| q.colour + 1).max().unwrap_or(0);
        let per_queen = if colours >= CROWDED_COLOURS && budget < CROWDED_BUDGET {
            ITERATIONS_PER_QUEEN_CROWDED
        } else {
            ITERATIONS_PER_QUEEN_MIN
        };
        Annealer {
            queens,
            walls,
            tables,
            runs: 0,
            per_queen,
            stale: false,
        }
    }

    /// Runs made.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// One annealing run of at most `slice`, matched, routed and offered to `pool`; `None`
    /// when a one-colour re-plan could not start.
    pub fn next(
        &mut self,
        pool: &mut Pool,
        ctx: &mut Context<'_>,
        slice: Duration,
        routing_budget: Duration,
        deadline: Instant,
        rng: &mut impl Rng,
    ) -> Option<Made> {
        let board = ctx.board;
        let (n, nq) = (board.n, self.queens.len());
        self.runs += 1;
        // After a few boards from scratch, most runs re-plan one colour of the best routed
        // board against the others (a far smaller search, which leaves the basins where
        // whole-board annealing gets stuck); the rest start again from the initial board.
        // (re-plans gain less per board than whole-board runs: they need many boards, so
        // routing must be fast)
        let fast_routing = pool.sims() > 0
            && pool.per_sim().as_secs_f64() * ILS_MIN_BOARDS < routing_budget.as_secs_f64();
        // (a base with errors is worth re-plans however slow routing is: only a re-plan of a
        // colour with errors removes them, and each costs N. At 1 s, side by side per seed, one
        // run each: the 42 seeds of 1–100 with C ≥ 4 and 30 held-out ones, geometric mean of
        // the score ratio 0.967 against re-plans only with fast routing)
        let faulty = pool.ranked.first().map_or(Vec::new(), |(_, cells)| {
            faulty_colours(self.queens, n, cells, board.colours)
        });
        let ils = (board.colours == 1 || nq >= ILS_MIN_QUEENS)
            && (fast_routing || !faulty.is_empty())
            && pool.ranked.len() >= ILS_AFTER
            && self.runs % ILS_EVERY != 0
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
            iterations: (self.per_queen as u64 * nq as u64).max(20_000),
            t0: T0_MIN * (T0_MAX / T0_MIN).powf(rng.random::<f64>()),
            t1: T1,
            only_colour: None,
            duration: Some(slice),
        };
        let (kind, mut found) = if ils {
            let base = &pool.ranked[0].1;
            let colour = replan_colour(&faulty, board.colours, rng);
            let share = ILS_RESET_MIN + (1.0 - ILS_RESET_MIN) * rng.random::<f64>();
            let cells =
                targets::reset_colour(self.queens, self.walls, dist, base, colour, share, rng)?;
            let schedule = Schedule {
                t0: ILS_T0,
                iterations: (ils_iterations_per_queen(board.colours) * n as f64) as u64,
                only_colour: Some(colour),
                ..schedule
            };
            ("one colour", anneal(problem, &cells, schedule, rng))
        } else if warm {
            let schedule = Schedule {
                t0: WARM_T0 * (0.5 + rng.random::<f64>()),
                iterations: schedule.iterations / 2,
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
                (self.per_queen * 2.0).min(ITERATIONS_PER_QUEEN_MAX)
            } else {
                (self.per_queen * 0.8).max(ITERATIONS_PER_QUEEN_MIN)
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
fn replan_colour(faulty: &[usize], colours: usize, rng: &mut impl Rng) -> usize {
    if !faulty.is_empty() && rng.random_bool(FAULTY_COLOUR_CHANCE) {
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
            let short = Duration::from_millis(700);
            let annealer = Annealer::new(&queens, &walls, &tables, short);
            let want = if c >= CROWDED_COLOURS {
                ITERATIONS_PER_QUEEN_CROWDED
            } else {
                ITERATIONS_PER_QUEEN_MIN
            };
            assert_eq!(annealer.per_queen, want, "C = {c}");
            assert_eq!(annealer.runs(), 0);
            let long = Annealer::new(&queens, &walls, &tables, Duration::from_millis(1400));
            assert_eq!(long.per_queen, ITERATIONS_PER_QUEEN_MIN, "C = {c}");
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
                        let c = replan_colour(&faulty, board.colours, &mut rng);
                        colour_errors(&queens, n, &cells, c) > 0
                    })
                    .count();
                assert!(picks >= 140, "{picks} of 200 picks had errors");
            }
        }
    }
}
