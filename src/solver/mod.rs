//! The QueenAttack solver pipeline, one module per stage:
//!
//! 1. [`paths`]: walls-only cheapest routes (`√L` per straight move of length `L`);
//! 2. [`targets`]: annealed target boards (errors × N + path cost), first from scratch, then
//!    mostly by re-planning one colour of the best board against the others;
//! 3. [`assign`]: per-colour Hungarian matching of queens to target cells;
//! 4. [`route`]: playing the moves on the real board (free moves, detours, clearing the way);
//! 5. [`reorder`]: local search over the routing order and the assignment;
//! 6. [`improve`]: a post-optimiser that re-plans one or two queens at a time on the final moves
//!    (on long budgets on several of the best boards: [`multistart`]).
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
pub mod candidates;
pub mod exact;
pub mod improve;
pub mod lower_bound;
pub mod multistart;
pub mod paths;
pub mod quick;
pub mod reorder;
pub mod route;
pub mod score;
pub mod stayers;
pub mod targets;

use anytime::{distance_tables, Tables};
use board::{Board, Move};
use candidates::{Annealer, Pool};
use paths::Paths;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reorder::{Context, Routed};
use score::{replay, Outcome};
use std::time::{Duration, Instant};

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
/// 0.15 and 0.3 against 0.04 on the 37 seeds of 1–100 with C ≥ 4 and N ≥ 13 at 2 s (load 9,
/// interleaved): sums 8264 and 8085 against 8195, each worse on 22–23 seeds: no gain seen.
const IMPROVE_EARLY: f64 = 0.04;
/// The same for compute budgets of at least `MULTI_START_BUDGET` seconds on boards of several
/// colours, where the polish and [`improve`] run on the best `MULTI_START_BOARDS` boards
/// ([`multistart`]) instead of the winner alone. 24 seeds of 1–100 at 10 s (2 runs each,
/// interleaved, load 10–12): mean ours/reference 0.8895 against 0.8945; crowded big boards
/// gained 2–5 % (seeds 44, 65, 77, 78), one colour did not (seed 27, N = 26: 48.4 and 46.0
/// against 46.0 twice), hence several colours only.
const IMPROVE_EARLY_LONG: f64 = 0.15;
const MULTI_START_BUDGET: f64 = 4.0;
const MULTI_START_BOARDS: usize = 6;

/// Whether [`finish`] runs [`multistart`] (long budgets, several colours).
fn multi_start(clock: &Clock, board: &Board) -> bool {
    clock.budget.as_secs_f64() >= MULTI_START_BUDGET && board.colours >= 2
}
/// Share of the compute time spent making candidate target boards (the rest: reordering).
const BOARD_SHARE: f64 = 0.75;
/// The board phase's share when a routing simulation is slow: slower than the rest of the
/// time divided by `SLOW_SIMULATIONS`.
const BOARD_SHARE_SLOW: f64 = 0.85;
const SLOW_SIMULATIONS: f64 = 1000.0;
/// The board phase is cut into this many annealing runs (each also routed).
const RUNS_PER_PHASE: f64 = 6.0;
/// How many of the best routed boards get a first round of reordering (more when the
/// simulations are cheap).
const TOP_BOARDS_MIN: usize = 3;
/// Share of the compute budget the exact search ([`exact`]) may take.
const EXACT_SHARE: f64 = 0.3;
/// ... with one colour: the search (any N ≤ 32) finishes up to N ≈ 15 and, cut short on
/// bigger boards, still gives better boards than the annealer. 69 one-colour seeds (N 13–30,
/// from 1–100, 1001–1200, 2001–4000), 1 s, side by side, one run each, geometric mean of the
/// score ratio: 0.5 against 0.3 0.996, 0.7 against 0.5 0.995, 0.85 against 0.7 0.999.
const EXACT_SHARE_ONE_COLOUR: f64 = 0.7;
/// ... but at most this long (seconds): on big boards the annealer's later boards beat a
/// longer search. 20 of those seeds with N ≥ 17 at 10 s, against main: capped at 1 s 0.976
/// (14 better, 4 worse); uncapped (0.7 of the budget), 35 seeds of N 13–30: 0.987 (15
/// better, 5 worse, all N ≥ 23; seed 90, N = 30: +10 %).
const EXACT_CAP_ONE_COLOUR: f64 = 1.0;
/// N = 14 with several colours needs this much compute budget for the listing search to
/// finish in its share (0.4–1.3 s on seeds 48, 1005, 1013 at load 10); below it the boards
/// are made colour by colour ([`exact::colour_by_colour`]). 77 seeds with N = 14, C ≥ 2
/// (1–100, 1001–1200, 2001–4000) at 1 s, side by side, one run each: 0.852 against no exact
/// boards (74 better, 2 worse), 0.840 against the listing cut short; 19 of them at 5 s:
/// listing against colour by colour 0.999 (8 better, 5 worse). N = 11–13, 120 seeds at 1 s:
/// colour by colour against listing 1.008 (43 better, 58 worse), so listing stays there. One
/// colour no longer needs the gate (seed 1061, N = 14: the search takes 0.05–0.09 s since the
/// Lagrangian bound; at 1 s, 21 seeds with N = 14 and C = 1 against main: 0.976, 12 better,
/// 0 worse).
const EXACT_N14_BUDGET: f64 = 5.0;
/// How many of its boards are routed: on crowded boards the routed scores of boards with
/// nearly equal estimates spread widely (seed 60: estimates 57.0–58.4, routed 83–148).
/// 61 small seeds (N ≤ 11 with several colours, N ≤ 14 with one) at 1 s: 300 against 50
/// summed 2240 against 2309.
const EXACT_KEEP: usize = 300;
/// ... on boards of more than 128 cells (N = 12, 13), where the search prunes with the
/// `keep`-th best board found: seed 12 (N = 13, C = 6) at 2 s found no board with 300 or 50
/// under load, and 20 boards in 0.30 s with 20.
const EXACT_KEEP_BIG: usize = 20;
/// Weight of the initial-board distances in the second distance table.
const PIECES_SHARE: f32 = 0.5;

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
    let clock = Clock::new(&options, started);
    let queens = board.queens();
    let walls = board.walls();
    let starts: Vec<usize> = queens.iter().map(|q| q.start).collect();
    let colour: Vec<usize> = queens.iter().map(|q| q.colour).collect();
    let (n, mut second_round) = (board.n, false);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    clock.log(format!(
        "N={n} C={} queens={}, start score {:.3}",
        board.colours,
        queens.len(),
        replay(board, &[]).map_or(f64::NAN, |o| o.score)
    ));
    // Anytime: a legal first answer at once, and an early stop when it cannot be beaten.
    let lower = bound::lower_bound(board);
    let first = anytime::first_answer(board, started, clock.budget);
    clock.log(format!(
        "first answer: {} moves, score {:.3}; lower bound {lower:.3}",
        first.moves.len(),
        first.outcome.score
    ));
    if first.outcome.score <= lower + OPTIMAL_EPS {
        clock.log("stop: the first answer is optimal");
        return Solution {
            stop: Stop::Optimal,
            ..first
        };
    }

    // Stage 1: walls-only distances from every queen's start, and a second table that also
    // knows the pieces of the initial board (half of each), since many of them never move;
    // on boards where they do not fit in the time, the greedy descent has all of it.
    let mut paths = Paths::new(n, walls.clone());
    let tables = match distance_tables(board, &mut paths, &starts, clock.end, PIECES_SHARE) {
        Tables::Ready(tables) => tables,
        Tables::TooSlow { per_table } => {
            clock.log(format!(
                "paths would take {:.3} s a table: greedy descent only",
                per_table.as_secs_f64()
            ));
            return anytime::descent_only(board, first, clock.end);
        }
        Tables::OutOfTime => {
            clock.log("out of time in paths");
            return first;
        }
    };
    clock.log(format!("paths done ({} tables)", tables.len()));
    let mut ctx = Context {
        board,
        walls: &walls,
        starts: &starts,
        colour: &colour,
        paths: &mut paths,
    };

    // Stages 2-4: candidate target boards (exact ones where the board is small, then
    // annealed ones), matched and routed; the pool keeps the best.
    let mut pool = Pool::new(&queens, n, board.colours, &mut rng);
    exact_boards(&clock, &mut pool, &mut ctx, &queens, &tables[0]);
    let mut annealer = Annealer::new(&queens, &walls, &tables, clock.budget);
    let mut boards_end = clock.at(BOARD_SHARE);
    let top = loop {
        if let Some(best) = optimal(&clock, board, &pool, lower) {
            return best;
        }
        make_boards(
            &clock,
            &mut pool,
            &mut annealer,
            &mut ctx,
            boards_end,
            &mut rng,
        );
        if let Some(best) = optimal(&clock, board, &pool, lower) {
            return best;
        }
        if pool.top.is_empty() {
            return first;
        }
        // Stage 5: a short reordering of each of the best boards.
        let before = pool.top[0].score;
        let improved = reorder_top(&clock, &mut pool, &mut ctx, &mut rng);
        let now = Instant::now();
        if !second_round && improved[0].score >= before - 1e-9 && now < clock.end {
            // Reordering found nothing (routing already meets the estimate, as with one
            // colour): new boards are worth more, so most of the time left goes to them.
            second_round = true;
            boards_end = now + clock.end.saturating_duration_since(now).mul_f64(0.8);
            if multi_start(&clock, board) {
                // ... but not the post-optimiser's share
                boards_end = boards_end.min(clock.end - clock.budget.mul_f64(IMPROVE_EARLY_LONG));
            }
            clock.log("reordering gains nothing: back to making boards");
            pool.top = improved;
            continue;
        }
        break improved;
    };
    finish(&clock, &mut ctx, top, first, &mut rng)
}

/// The best board of the pool as the answer when it scores the lower bound.
fn optimal(clock: &Clock, board: &Board, pool: &Pool, lower: f64) -> Option<Solution> {
    let best = pool
        .top
        .first()
        .filter(|b| b.score <= lower + OPTIMAL_EPS)?;
    let answer = solution(board, best.moves.clone(), Stop::Optimal)?;
    clock.log("stop: a routed board scores the lower bound");
    Some(answer)
}

/// The time budget of one run and its progress log.
struct Clock {
    started: Instant,
    /// Compute budget: the search ends at `started + budget`.
    budget: Duration,
    end: Instant,
    verbose: bool,
}

impl Clock {
    fn new(options: &Options, started: Instant) -> Clock {
        let share = if options.time_limit >= 5.0 {
            COMPUTE_SHARE_LONG
        } else if options.time_limit > 2.0 {
            COMPUTE_SHARE
        } else {
            COMPUTE_SHARE_SHORT
        };
        let budget = Duration::from_secs_f64((options.time_limit * share).max(0.0));
        Clock {
            started,
            budget,
            end: started + budget,
            verbose: options.verbose,
        }
    }

    /// The instant when `share` of the compute budget has passed.
    fn at(&self, share: f64) -> Instant {
        self.started + self.budget.mul_f64(share)
    }

    fn log(&self, msg: impl AsRef<str>) {
        if self.verbose {
            let t = self.started.elapsed().as_secs_f64();
            eprintln!("[{t:6.3}s] {}", msg.as_ref());
        }
    }
}

/// Stage 2a: the best error-free boards of [`exact`] (small boards only), routed into the pool.
fn exact_boards(
    clock: &Clock,
    pool: &mut Pool,
    ctx: &mut Context<'_>,
    queens: &[board::Queen],
    dist: &[f32],
) {
    let board = ctx.board;
    // N = 14 with several colours: listing every board pays from EXACT_N14_BUDGET on; below
    // it the boards are made one colour after another
    let listing =
        !(board.n == 14 && board.colours > 1 && clock.budget.as_secs_f64() < EXACT_N14_BUDGET);
    let exact_end = if board.colours == 1 {
        clock
            .at(EXACT_SHARE_ONE_COLOUR)
            .min(Instant::now() + Duration::from_secs_f64(EXACT_CAP_ONE_COLOUR))
    } else {
        clock.at(EXACT_SHARE)
    };
    let keep = if board.n * board.n <= 128 {
        EXACT_KEEP
    } else {
        EXACT_KEEP_BIG
    };
    let found = if listing {
        exact::best_boards(board.n, ctx.walls, queens, dist, keep, exact_end)
    } else {
        exact::colour_by_colour(board.n, ctx.walls, queens, dist, exact_end)
    };
    if found.is_empty() {
        return;
    }
    let (best, worst) = (found[0].cost, found[found.len() - 1].cost);
    // all of them are routed: on crowded small boards the routed scores of boards with
    // nearly equal estimates spread widely
    for b in found {
        if pool.consider(ctx.walls, dist, &b.cells, 0).is_some() {
            pool.route(ctx, b.cells, dist, clock.end);
        }
    }
    clock.log(format!(
        "exact: {} error-free boards, estimates {best:.3}..{worst:.3}, best routed score {:.3}",
        pool.distinct(),
        pool.top[0].score
    ));
}

/// Stages 2-4: annealing runs until `boards_end` (once lengthened when routing is slow), and
/// at least until the pool holds one board (or the compute budget ends).
fn make_boards(
    clock: &Clock,
    pool: &mut Pool,
    annealer: &mut Annealer<'_>,
    ctx: &mut Context<'_>,
    mut boards_end: Instant,
    rng: &mut impl Rng,
) {
    let mut extended = false;
    let slice = boards_end
        .saturating_duration_since(Instant::now())
        .div_f64(RUNS_PER_PHASE);
    let routing_budget = clock.budget.mul_f64(BOARD_SHARE);
    loop {
        let now = Instant::now();
        if now >= boards_end && !extended && pool.sims() > 0 {
            // When a simulation is so slow that reordering gets only a few hundred of them,
            // new boards are worth more: lengthen the board phase once.
            extended = true;
            if pool.per_sim().as_secs_f64() * SLOW_SIMULATIONS
                > clock.end.saturating_duration_since(now).as_secs_f64()
            {
                boards_end = clock.at(BOARD_SHARE_SLOW);
            }
        }
        if !(now < boards_end || (pool.top.is_empty() && now < clock.end)) {
            break;
        }
        let left = clock.end.saturating_duration_since(now);
        // the first board must come even when the paths took the board phase's time
        let slice = if pool.top.is_empty() {
            slice.max(left / 4)
        } else {
            slice
        };
        let runs = annealer.runs() + 1;
        let Some(made) = annealer.next(
            pool,
            ctx,
            slice.min(left / 2),
            routing_budget,
            clock.end,
            rng,
        ) else {
            continue;
        };
        if let Some((score, sim)) = made.routed {
            clock.log(format!(
                "board {runs} ({}, table {}): errors {} estimate {:.3} → routed score {score:.3} \
                 in {:.1} ms",
                made.kind,
                made.table,
                made.errors,
                made.estimate.unwrap_or(f64::NAN),
                sim.as_secs_f64() * 1e3
            ));
        }
    }
    clock.log(format!(
        "{} boards ({} distinct, {} routed), best estimate {:.3}, best routed score {:.3}",
        annealer.runs(),
        pool.distinct(),
        pool.sims(),
        pool.ranked.first().map_or(f64::NAN, |b| b.0),
        pool.top.first().map_or(f64::NAN, |b| b.score)
    ));
}

/// Stage 5, first round: a short reordering of each of the best boards of the pool (as many
/// as get a few hundred simulations each in a third of the time left); best first.
fn reorder_top(
    clock: &Clock,
    pool: &mut Pool,
    ctx: &mut Context<'_>,
    rng: &mut impl Rng,
) -> Vec<Routed> {
    let left = clock.end.saturating_duration_since(Instant::now());
    let per_sim = pool.per_sim().as_secs_f64();
    let affordable = left.as_secs_f64() / 3.0 / (per_sim * 300.0).max(1e-9);
    let mut top = std::mem::take(&mut pool.top);
    top.truncate((affordable as usize).clamp(TOP_BOARDS_MIN, candidates::POOL_SIZE));
    let share = left.div_f64(3.0 * top.len() as f64);
    let mut improved: Vec<Routed> = top
        .into_iter()
        .map(|candidate| {
            let (better, _) = ctx.improve(candidate, rng, Instant::now() + share);
            clock.log(format!("reordering a top board: score {:.3}", better.score));
            better
        })
        .collect();
    improved.sort_by(|a, b| a.score.total_cmp(&b.score));
    improved
}

/// Stage 5 on the winner (the first of `top`, the best routed boards) until shortly before
/// the end, then the polish and the post-optimiser ([`improve`]; on long budgets on several
/// of `top`, [`multistart`]); the first answer replaces anything worse or illegal.
fn finish(
    clock: &Clock,
    ctx: &mut Context<'_>,
    mut top: Vec<Routed>,
    first: Solution,
    rng: &mut impl Rng,
) -> Solution {
    let board = ctx.board;
    let winner = top.remove(0);
    // the post-optimiser starts a little before the end of the compute budget: on crowded
    // boards it gains more per second than the reordering
    let long = multi_start(clock, board);
    let early = if long {
        IMPROVE_EARLY_LONG
    } else {
        IMPROVE_EARLY
    };
    let (best, sims) = ctx.improve(winner, rng, clock.end - clock.budget.mul_f64(early));
    clock.log(format!(
        "reordering: {sims} simulations, score {:.3}",
        best.score
    ));

    let before = best.score;
    let share = 1.0 + POLISH_SHARE + IMPROVE_SHARE;
    let score = |moves: &[Move]| replay(board, moves).map_or(f64::NAN, |o| o.score);
    let moves = if long {
        let mut candidates = vec![best.moves];
        candidates.extend(top.into_iter().map(|r| r.moves));
        let moves = multistart::best_of(board, candidates, MULTI_START_BOARDS, clock.at(share));
        clock.log(format!(
            "multi-start improve: {before:.3} → {:.3}",
            score(&moves)
        ));
        moves
    } else {
        let moves = reorder::polish(board, best.moves, Some(clock.at(1.0 + POLISH_SHARE)));
        clock.log(format!("polish: {before:.3} → {:.3}", score(&moves)));
        let before = score(&moves);
        let moves = improve::improve(board, moves, Some(clock.at(share)));
        clock.log(format!("improve: {before:.3} → {:.3}", score(&moves)));
        moves
    };

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
