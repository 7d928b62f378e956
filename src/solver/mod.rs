//! The QueenAttack solver pipeline, one module per stage:
//!
//! 1. [`paths`]: walls-only cheapest routes (`√L` per straight move of length `L`);
//! 2. [`targets`]: annealed target boards (errors × N + path cost), first from scratch, then
//!    mostly by re-planning one colour of the best board against the others;
//! 3. [`assign`]: per-colour Hungarian matching of queens to target cells;
//! 4. [`route`]: playing the moves on the real board (free moves, detours, clearing the way);
//! 5. [`reorder`]: local search over the routing order and the assignment;
//! 6. [`improve`]: a post-optimiser that re-plans one or two queens at a time on the final moves.
//!
//! [`board`] reads the input and [`score`] is the solver's own referee: the answer is replayed
//! before it is printed, and the first answer (always legal) replaces anything wrong.
//!
//! Anytime: [`quick`] makes a legal first answer in the first few percent of the time, and
//! the solver stops at once when an answer's score equals the lower bound of [`bound`].

pub mod anytime;
pub mod assign;
pub mod board;
pub mod bound;
pub mod improve;
pub mod paths;
pub mod quick;
pub mod reorder;
pub mod route;
pub mod score;
pub mod targets;

use ahash::AHashSet;
use anytime::{distance_tables, Tables};
use board::{Board, Move};
use paths::Paths;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reorder::{Context, Routed};
use score::{replay, Outcome};
use std::time::{Duration, Instant};
use targets::{anneal, Problem, Schedule, Zobrist};

/// Solver settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Wall-clock budget in seconds for the whole run, output included.
    pub time_limit: f64,
    /// Seed of the random generator (same seed, same machine speed → same answer).
    pub seed: u64,
    /// Progress on stderr.
    pub verbose: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time_limit: 10.0,
            seed: 1,
            verbose: false,
        }
    }
}

/// The answer: legal moves and their score.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The moves to print.
    pub moves: Vec<Move>,
    /// Their score under the contest rules.
    pub outcome: Outcome,
    /// Why the solver stopped.
    pub stop: Stop,
}

/// Why [`solve`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// An answer scored the lower bound of [`bound::lower_bound`]: nothing can beat it, so the
    /// solver stopped early.
    Optimal,
    /// The time budget ran out; the answer is the best found.
    Budget,
}

/// Scores this close to the lower bound are equal to it (`f32` path costs).
const OPTIMAL_EPS: f64 = 1e-6;

/// The legal answer `moves` as a [`Solution`] stopped for `stop`, or `None` if the moves are
/// not legal.
fn solution(board: &Board, moves: Vec<Move>, stop: Stop) -> Option<Solution> {
    let outcome = replay(board, &moves).ok()?;
    Some(Solution {
        moves,
        outcome,
        stop,
    })
}

/// Share of the time limit spent computing; the rest covers output, process start/exit and
/// the stalls of a loaded machine (the target is 95 % of the limit). Measured on a machine
/// with load average ~6 on 2 cores: with 0.8 at a 1 s limit, 13 of 1000 runs were stalled
/// past 1 s, so short limits keep a wider margin.
const COMPUTE_SHARE: f64 = 0.80;
/// The same for limits of 2 s and less.
const COMPUTE_SHARE_SHORT: f64 = 0.70;
/// Extra share of the compute budget the final polish may use.
const POLISH_SHARE: f64 = 0.02;
/// Extra share of the compute budget for [`improve`] (re-planning single queens and pairs),
/// after the polish.
const IMPROVE_SHARE: f64 = 0.03;
/// The same for limits of 5 s and more.
const COMPUTE_SHARE_LONG: f64 = 0.88;
/// Share of the compute budget taken from the reordering for the polish and [`improve`].
const IMPROVE_EARLY: f64 = 0.04;
/// Share of the compute time spent making candidate target boards (the rest: reordering).
const BOARD_SHARE: f64 = 0.75;
/// The board phase's share when a routing simulation is slow: slower than the rest of the
/// time divided by `SLOW_SIMULATIONS`.
const BOARD_SHARE_SLOW: f64 = 0.85;
const SLOW_SIMULATIONS: f64 = 1000.0;
/// The board phase is cut into this many annealing runs (each also routed).
const RUNS_PER_PHASE: f64 = 6.0;
/// Iterations of one annealing run per queen: the shortest and the longest runs.
const ITERATIONS_PER_QUEEN_MIN: f64 = 1_500.0;
const ITERATIONS_PER_QUEEN_MAX: f64 = 60_000.0;
/// Annealing temperatures (in units of path cost; an error costs `N`): each run starts at a
/// random temperature between these two (log-uniform) and cools to `T1`.
const T0_MIN: f64 = 1.0;
const T0_MAX: f64 = 10.0;
const T1: f64 = 0.05;
/// Start temperature (± 50 %) of a run that refines the best board so far.
const WARM_T0: f64 = 0.7;
/// How many of the best routed boards get a first round of reordering (more when the
/// simulations are cheap).
const TOP_BOARDS_MIN: usize = 3;
const TOP_BOARDS_MAX: usize = 40;
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
/// Each queen of the re-planned colour goes back to its start with a probability drawn
/// between this and 1 (small: a local change; 1: the whole colour from scratch).
const ILS_RESET_MIN: f64 = 0.2;
/// Weight of the initial-board distances in the second distance table.
const PIECES_SHARE: f32 = 0.5;

/// The polish runs after the search, inside the margin between the compute share and 95 %.
fn polish_budget(budget: Duration) -> Duration {
    budget.mul_f64(1.0 + POLISH_SHARE)
}

/// Solves `board` within `options.time_limit` seconds counted from `started`.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, solve, Options};
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let options = Options { time_limit: 0.5, ..Options::default() };
/// let solution = solve(&board, options, std::time::Instant::now());
/// assert_eq!(solution.outcome.errors, 0);
/// ```
pub fn solve(board: &Board, options: Options, started: Instant) -> Solution {
    let log = |msg: String| {
        if options.verbose {
            eprintln!("[{:6.3}s] {msg}", started.elapsed().as_secs_f64());
        }
    };
    let share = if options.time_limit >= 5.0 {
        COMPUTE_SHARE_LONG
    } else if options.time_limit > 2.0 {
        COMPUTE_SHARE
    } else {
        COMPUTE_SHARE_SHORT
    };
    let budget = Duration::from_secs_f64((options.time_limit * share).max(0.0));
    let end = started + budget;
    let n = board.n;
    let nn = n * n;
    let queens = board.queens();
    let nq = queens.len();
    let walls = board.walls();
    let starts: Vec<usize> = queens.iter().map(|q| q.start).collect();
    let colour: Vec<usize> = queens.iter().map(|q| q.colour).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    log(format!(
        "N={n} C={} queens={nq}, start score {:.3}",
        board.colours,
        replay(board, &[]).map_or(f64::NAN, |o| o.score)
    ));
    // Anytime: a legal first answer at once, and an early stop when it cannot be beaten.
    let lower = bound::lower_bound(board);
    let first = anytime::first_answer(board, started, budget);
    log(format!(
        "first answer: {} moves, score {:.3}; lower bound {lower:.3}",
        first.moves.len(),
        first.outcome.score
    ));
    if first.outcome.score <= lower + OPTIMAL_EPS {
        log("stop: the first answer is optimal".into());
        return Solution {
            stop: Stop::Optimal,
            ..first
        };
    }

    // Stage 1: walls-only distances from every queen's start, and a second table that also
    // knows the pieces of the initial board (half of each), since many of them never move;
    // on boards where they do not fit in the time, the greedy descent has all of it.
    let mut paths = Paths::new(n, walls.clone());
    let tables = match distance_tables(board, &mut paths, &starts, end, PIECES_SHARE) {
        Tables::Ready(tables) => tables,
        Tables::TooSlow { per_table } => {
            log(format!(
                "paths would take {:.3} s a table: greedy descent only",
                per_table.as_secs_f64()
            ));
            return anytime::descent_only(board, first, end);
        }
        Tables::OutOfTime => {
            log("out of time in paths".into());
            return first;
        }
    };
    log(format!("paths done ({} tables)", tables.len()));

    // Stages 2-4: candidate target boards, matched and routed; keep the best.
    let zobrist = Zobrist::new(nn, board.colours, &mut rng);
    let mut seen = AHashSet::new();
    let mut boards_end = started + budget.mul_f64(BOARD_SHARE);
    let mut extended = false;
    let slice = boards_end
        .saturating_duration_since(Instant::now())
        .div_f64(RUNS_PER_PHASE);
    let mut ctx = Context {
        board,
        walls: &walls,
        starts: &starts,
        colour: &colour,
        paths: &mut paths,
    };
    // The best few distinct routed boards, best first.
    let mut top: Vec<Routed> = Vec::new();
    let (mut sim_time, mut sim_count) = (Duration::ZERO, 0u32);
    let mut runs = 0;
    // Run length adapts: short runs give more diverse boards (best for easy cases), but a run
    // that ends with errors asks for longer ones (crowded boards).
    let min_per_queen = ITERATIONS_PER_QUEEN_MIN;
    let mut per_queen = min_per_queen;
    let mut second_round = false;
    let mut sims = 0;
    let mut stale = false;
    let winner = loop {
        loop {
            let now = Instant::now();
            if now >= boards_end && !extended && sim_count > 0 {
                // When a simulation is so slow that reordering gets only a few hundred of them,
                // new boards are worth more: lengthen the board phase once.
                extended = true;
                let per_sim = sim_time / sim_count;
                if per_sim.as_secs_f64() * SLOW_SIMULATIONS
                    > end.saturating_duration_since(now).as_secs_f64()
                {
                    boards_end = started + budget.mul_f64(BOARD_SHARE_SLOW);
                }
            }
            if !(now < boards_end || (top.is_empty() && now < end)) {
                break;
            }
            runs += 1;
            // After a few boards from scratch, most runs re-plan one colour of the best routed
            // board against the others (a far smaller search, which leaves the basins where
            // whole-board annealing gets stuck); the rest start again from the initial board.
            // (re-plans gain less per board than whole-board runs: they need many boards, so
            // routing must be fast)
            let fast_routing = sim_count > 0
                && (sim_time / sim_count).as_secs_f64() * ILS_MIN_BOARDS
                    < budget.as_secs_f64() * BOARD_SHARE;
            let ils = (board.colours == 1 || nq >= ILS_MIN_QUEENS)
                && fast_routing
                && top.len() >= ILS_AFTER
                && runs % ILS_EVERY != 0
                && !stale;
            // Of the other runs, every other one refines the best board so far (cooler,
            // shorter) instead of starting again from the initial board.
            let warm = !ils && runs % 2 == 0 && !top.is_empty();
            let table = if ils {
                0
            } else {
                rng.random_range(0..tables.len())
            };
            let dist = &tables[table];
            let problem = Problem {
                n,
                colours: board.colours,
                queens: &queens,
                walls: &walls,
                dist,
            };
            let schedule = Schedule {
                error_weight: n as f64,
                error_weight_start: n as f64,
                iterations: (per_queen as u64 * nq as u64).max(20_000),
                t0: T0_MIN * (T0_MAX / T0_MIN).powf(rng.random::<f64>()),
                t1: T1,
                only_colour: None,
                duration: Some({
                    let left = end.saturating_duration_since(Instant::now());
                    // the first board must come even when the paths took the board phase's time
                    let slice = if top.is_empty() {
                        slice.max(left / 4)
                    } else {
                        slice
                    };
                    slice.min(left / 2)
                }),
            };
            let mut found = if ils {
                let colour = rng.random_range(0..board.colours);
                let share = ILS_RESET_MIN + (1.0 - ILS_RESET_MIN) * rng.random::<f64>();
                let base = &top[0].targets;
                let Some(cells) =
                    targets::reset_colour(&queens, &walls, dist, base, colour, share, &mut rng)
                else {
                    continue;
                };
                let schedule = Schedule {
                    t0: ILS_T0,
                    iterations: (ILS_ITERATIONS_PER_QUEEN * n as f64) as u64,
                    only_colour: Some(colour),
                    ..schedule
                };
                anneal(problem, &cells, schedule, &mut rng)
            } else if warm {
                let schedule = Schedule {
                    t0: WARM_T0 * (0.5 + rng.random::<f64>()),
                    iterations: schedule.iterations / 2,
                    ..schedule
                };
                anneal(problem, &top[0].targets, schedule, &mut rng)
            } else {
                anneal(problem, &starts, schedule, &mut rng)
            };
            per_queen = if warm || ils {
                per_queen
            } else if found.errors > 0 {
                (per_queen * 2.0).min(ITERATIONS_PER_QUEEN_MAX)
            } else {
                (per_queen * 0.8).max(min_per_queen)
            };
            assign::assign(&queens, &mut found.cells, |q, cell| dist[q * nn + cell]);
            let fresh = seen.insert(zobrist.hash(&queens, &found.cells));
            // a one-colour run that only finds a known board asks for a run from scratch
            stale = ils && !fresh;
            if !fresh {
                continue;
            }
            let mut order: Vec<usize> = (0..nq).collect();
            order.sort_by(|&a, &b| {
                dist[a * nn + found.cells[a]].total_cmp(&dist[b * nn + found.cells[b]])
            });
            let sim_started = Instant::now();
            let routed = ctx.evaluate(found.cells.clone(), order, Some(end));
            let sim = sim_started.elapsed();
            sim_time += sim;
            sim_count += 1;
            log(format!(
                "board {runs} ({}, table {table}): errors {} estimate {:.3} → routed score {:.3} \
                 in {:.1} ms",
                if ils { "one colour" } else { "whole board" },
                found.errors,
                found.move_cost,
                routed.score,
                sim.as_secs_f64() * 1e3
            ));
            if routed.score <= lower + OPTIMAL_EPS {
                if let Some(best) = solution(board, routed.moves.clone(), Stop::Optimal) {
                    log("stop: a routed board scores the lower bound".into());
                    return best;
                }
            }
            top.push(routed);
            top.sort_by(|a, b| a.score.total_cmp(&b.score));
            top.truncate(TOP_BOARDS_MAX);
        }
        if top.is_empty() {
            return first;
        }
        log(format!(
            "{runs} boards ({} distinct), best routed score {:.3}",
            seen.len(),
            top[0].score
        ));

        // Stage 5: a short local search on each of the best boards, then the rest of the time on
        // the one that came out best.
        // As many boards as get a few hundred simulations each in a third of the time left.
        let left = end.saturating_duration_since(Instant::now());
        let per_sim = sim_time / sim_count.max(1);
        let affordable = left.as_secs_f64() / 3.0 / (per_sim.as_secs_f64() * 300.0).max(1e-9);
        top.truncate((affordable as usize).clamp(TOP_BOARDS_MIN, TOP_BOARDS_MAX));
        let share = left.div_f64(3.0 * top.len() as f64);
        let best_routed = top[0].score;
        let mut improved: Vec<Routed> = Vec::new();
        for candidate in top {
            let (better, s) = ctx.improve(candidate, &mut rng, Instant::now() + share);
            sims += s;
            log(format!("reordering a top board: score {:.3}", better.score));
            improved.push(better);
        }
        improved.sort_by(|a, b| a.score.total_cmp(&b.score));
        let now = Instant::now();
        if !second_round && improved[0].score >= best_routed - 1e-9 && now < end {
            // Reordering found nothing (routing already meets the estimate, as with one
            // colour): new boards are worth more, so most of the time left goes to them.
            second_round = true;
            boards_end = now + end.saturating_duration_since(now).mul_f64(0.8);
            log("reordering gains nothing: back to making boards".into());
            top = improved;
            continue;
        }
        break improved.swap_remove(0);
    };
    // the post-optimiser starts a little before the end of the compute budget: on crowded
    // boards it gains more per second than the reordering
    let (best, s) = ctx.improve(winner, &mut rng, end - budget.mul_f64(IMPROVE_EARLY));
    log(format!(
        "reordering: {} simulations, score {:.3}",
        sims + s,
        best.score
    ));

    let before = best.score;
    let moves = reorder::polish(board, best.moves, Some(started + polish_budget(budget)));
    log(format!(
        "polish: {before:.3} → {:.3}",
        replay(board, &moves).map_or(f64::NAN, |o| o.score)
    ));

    let before = replay(board, &moves).map_or(f64::NAN, |o| o.score);
    let moves = improve::improve(
        board,
        moves,
        Some(started + budget.mul_f64(1.0 + POLISH_SHARE + IMPROVE_SHARE)),
    );
    log(format!(
        "improve: {before:.3} → {:.3}",
        replay(board, &moves).map_or(f64::NAN, |o| o.score)
    ));

    match replay(board, &moves) {
        Ok(outcome) if outcome.score <= first.outcome.score => Solution {
            moves,
            outcome,
            stop: Stop::Budget,
        },
        Ok(_) => first,
        Err(e) => {
            eprintln!("queenattack: internal error, falling back to the first answer: {e}");
            first
        }
    }
}
