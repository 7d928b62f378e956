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
mod budget;
pub mod candidates;
pub mod exact;
pub mod improve;
pub mod multistart;
mod params;
pub mod paths;
pub mod quick;
pub mod reorder;
pub mod route;
pub mod score;
pub mod stayers;
pub mod targets;

use anytime::{distance_tables, Tables};
use board::{Board, Move};
use budget::Budget;
use candidates::{Annealer, Pool};
pub use params::{ParamError, ParamLine, Params};
use paths::Paths;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reorder::{Context, Routed};
use score::{replay, Outcome};
use std::time::Instant;

/// Solver settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Wall-clock budget in seconds for the whole run, output included.
    pub time_limit: f64,
    /// Seed of the random generator (same seed, same machine speed → same answer).
    pub seed: u64,
    /// Progress on stderr.
    pub verbose: bool,
    /// The tuning parameters.
    pub params: Params,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time_limit: 10.0,
            seed: 1,
            verbose: false,
            params: Params::default(),
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
    let params = &options.params;
    let budget = Budget::new(options.time_limit, started, params);
    let log = Log {
        started,
        verbose: options.verbose,
    };
    let queens = board.queens();
    let walls = board.walls();
    let starts: Vec<usize> = queens.iter().map(|q| q.start).collect();
    let colour: Vec<usize> = queens.iter().map(|q| q.colour).collect();
    let (n, mut second_round) = (board.n, false);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    log.say(format!(
        "N={n} C={} queens={}, start score {:.3}",
        board.colours,
        queens.len(),
        replay(board, &[]).map_or(f64::NAN, |o| o.score)
    ));
    // Anytime: a legal first answer at once, and an early stop when it cannot be beaten.
    let lower = bound::lower_bound(board);
    let first = anytime::first_answer(board, &budget, params);
    log.say(format!(
        "first answer: {} moves, score {:.3}; lower bound {lower:.3}",
        first.moves.len(),
        first.outcome.score
    ));
    if first.outcome.score <= lower + OPTIMAL_EPS {
        log.say("stop: the first answer is optimal");
        return Solution {
            stop: Stop::Optimal,
            ..first
        };
    }

    // Stage 1: walls-only distances from every queen's start, and a second table that also
    // knows the pieces of the initial board (half of each), since many of them never move;
    // on boards where they do not fit in the time, the greedy descent has all of it.
    let mut paths = Paths::new(n, walls.clone());
    let tables = match distance_tables(board, &mut paths, &starts, &budget, params) {
        Tables::Ready(tables) => tables,
        Tables::TooSlow { per_table } => {
            log.say(format!(
                "paths would take {:.3} s a table: greedy descent only",
                per_table.as_secs_f64()
            ));
            return anytime::descent_only(board, first, budget.end(), params);
        }
        Tables::OutOfTime => {
            log.say("out of time in paths");
            return first;
        }
    };
    log.say(format!("paths done ({} tables)", tables.len()));
    let mut ctx = Context {
        board,
        walls: &walls,
        starts: &starts,
        colour: &colour,
        paths: &mut paths,
        params,
    };

    // Stages 2-4: candidate target boards (exact ones where the board is small, then
    // annealed ones), matched and routed; the pool keeps the best.
    let mut pool = Pool::new(&queens, n, board.colours, params, &mut rng);
    exact_boards(&budget, &log, &mut pool, &mut ctx, &queens, &tables[0]);
    let mut annealer = Annealer::new(&queens, &walls, &tables, &budget, params);
    let mut boards_end = budget.boards_end();
    let top = loop {
        if let Some(best) = optimal(&log, board, &pool, lower) {
            return best;
        }
        make_boards(
            &budget,
            &log,
            &mut pool,
            &mut annealer,
            &mut ctx,
            boards_end,
            &mut rng,
        );
        if let Some(best) = optimal(&log, board, &pool, lower) {
            return best;
        }
        if pool.top.is_empty() {
            return first;
        }
        // Stage 5: a short reordering of each of the best boards.
        let before = pool.top[0].score;
        let improved = reorder_top(&budget, &log, &mut pool, &mut ctx, &mut rng);
        let now = Instant::now();
        if !second_round && improved[0].score >= before - 1e-9 && now < budget.end() {
            // Reordering found nothing (routing already meets the estimate, as with one
            // colour): new boards are worth more, so most of the time left goes to them
            // (but not the post-optimiser's share).
            second_round = true;
            boards_end = budget.second_round_end(now, budget.multi_start(board.colours));
            log.say("reordering gains nothing: back to making boards");
            pool.top = improved;
            continue;
        }
        break improved;
    };
    finish(&budget, &log, &mut ctx, top, first, &mut rng)
}

/// The best board of the pool as the answer when it scores the lower bound.
fn optimal(log: &Log, board: &Board, pool: &Pool, lower: f64) -> Option<Solution> {
    let best = pool
        .top
        .first()
        .filter(|b| b.score <= lower + OPTIMAL_EPS)?;
    let answer = solution(board, best.moves.clone(), Stop::Optimal)?;
    log.say("stop: a routed board scores the lower bound");
    Some(answer)
}

/// The progress log of one run (`--verbose`).
struct Log {
    started: Instant,
    verbose: bool,
}

impl Log {
    fn say(&self, msg: impl AsRef<str>) {
        if self.verbose {
            let t = self.started.elapsed().as_secs_f64();
            eprintln!("[{t:6.3}s] {}", msg.as_ref());
        }
    }
}

/// Stage 2a: the best error-free boards of [`exact`] (small boards only), routed into the pool.
fn exact_boards(
    budget: &Budget,
    log: &Log,
    pool: &mut Pool,
    ctx: &mut Context<'_>,
    queens: &[board::Queen],
    dist: &[f32],
) {
    let (board, params) = (ctx.board, ctx.params);
    // N = 14 with several colours: listing every board pays from `exact_n14_budget` on;
    // below it the boards are made one colour after another
    let listing = !(board.n == 14 && board.colours > 1 && !budget.lists_n14());
    let exact_end = budget.exact_end(board.colours == 1, Instant::now());
    let keep = if board.n * board.n <= params.exact_small_cells {
        params.exact_keep
    } else {
        params.exact_keep_big
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
            pool.route(ctx, b.cells, dist, budget.end());
        }
    }
    log.say(format!(
        "exact: {} error-free boards, estimates {best:.3}..{worst:.3}, best routed score {:.3}",
        pool.distinct(),
        pool.top[0].score
    ));
}

/// Stages 2-4: annealing runs until `boards_end` (once lengthened when routing is slow), and
/// at least until the pool holds one board (or the compute budget ends).
fn make_boards(
    budget: &Budget,
    log: &Log,
    pool: &mut Pool,
    annealer: &mut Annealer<'_>,
    ctx: &mut Context<'_>,
    mut boards_end: Instant,
    rng: &mut impl Rng,
) {
    let mut extended = false;
    let slice = budget.run_slice(boards_end, Instant::now());
    loop {
        let now = Instant::now();
        if now >= boards_end && !extended && pool.sims() > 0 {
            // When a simulation is so slow that reordering gets only a few hundred of them,
            // new boards are worth more: lengthen the board phase once.
            extended = true;
            if let Some(end) = budget.boards_end_slow(pool.per_sim(), now) {
                boards_end = end;
            }
        }
        if !(now < boards_end || (pool.top.is_empty() && now < budget.end())) {
            break;
        }
        let runs = annealer.runs() + 1;
        let time = budget.run_time(slice, pool.top.is_empty(), now);
        let Some(made) = annealer.next(pool, ctx, time, budget.end(), rng) else {
            continue;
        };
        if let Some((score, sim)) = made.routed {
            log.say(format!(
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
    log.say(format!(
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
    budget: &Budget,
    log: &Log,
    pool: &mut Pool,
    ctx: &mut Context<'_>,
    rng: &mut impl Rng,
) -> Vec<Routed> {
    let mut top = std::mem::take(&mut pool.top);
    let (boards, share) = budget.top_round(pool.per_sim(), top.len(), Instant::now());
    top.truncate(boards);
    let mut improved: Vec<Routed> = top
        .into_iter()
        .map(|candidate| {
            let (better, _) = ctx.improve(candidate, rng, Instant::now() + share);
            log.say(format!("reordering a top board: score {:.3}", better.score));
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
    budget: &Budget,
    log: &Log,
    ctx: &mut Context<'_>,
    mut top: Vec<Routed>,
    first: Solution,
    rng: &mut impl Rng,
) -> Solution {
    let (board, params) = (ctx.board, ctx.params);
    let winner = top.remove(0);
    // the post-optimiser starts a little before the end of the compute budget: on crowded
    // boards it gains more per second than the reordering
    let long = budget.multi_start(board.colours);
    let (best, sims) = ctx.improve(winner, rng, budget.reorder_end(long));
    log.say(format!(
        "reordering: {sims} simulations, score {:.3}",
        best.score
    ));

    let before = best.score;
    let score = |moves: &[Move]| replay(board, moves).map_or(f64::NAN, |o| o.score);
    let moves = if long {
        let mut candidates = vec![best.moves];
        candidates.extend(top.into_iter().map(|r| r.moves));
        let moves = multistart::best_of(board, candidates, budget.improve_end(), params);
        log.say(format!(
            "multi-start improve: {before:.3} → {:.3}",
            score(&moves)
        ));
        moves
    } else {
        let moves = reorder::polish(board, best.moves, Some(budget.polish_end()));
        log.say(format!("polish: {before:.3} → {:.3}", score(&moves)));
        let before = score(&moves);
        let moves = improve::improve(board, moves, Some(budget.improve_end()), params);
        log.say(format!("improve: {before:.3} → {:.3}", score(&moves)));
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
