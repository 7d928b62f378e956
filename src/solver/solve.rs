//! The orchestrator: [`solve`] runs the stages as phases under one [`Budget`], one function
//! per phase: the first answer and the early stop, the distance tables (stage 1), the exact
//! boards (stage 2), the board phase (stages 3–5), a first round of reordering on the best
//! boards (stage 6, after which the board phase may resume once) and the finish (stage 6 on
//! the winner, the polish and the post-optimiser, stage 7).

use super::answer::{RunStats, Solution, Stop};
use super::board::{Board, Move};
use super::budget::Budget;
use super::checkpoint::RunScope;
use super::params::Params;
use super::paths::Paths;
use super::problem::Problem;
use super::score::replay;
use super::stage::candidates::{estimate, Annealer, Pool};
use super::stage::exact;
use super::stage::first::{self, bound};
use super::stage::improve::{lns, multistart};
use super::stage::reorder::{polish, reorder};
use super::stage::route::{Routed, Simulator};
use super::stage::tables::{distance_tables, Tables};
use super::Options;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

/// Scores this close to the lower bound are equal to it (`f32` path costs).
const OPTIMAL_EPS: f64 = 1e-6;

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
    solve_with_stats(board, options, started, &mut RunStats::default())
}

/// [`solve`], also telling in `stats` what the run did (boards made).
///
/// A long run (`time_limit` at least twice `first_run`) is two runs, best kept: one of
/// `first_run` seconds with `options.seed`, the run the solver was tuned for, then one of the
/// time left with another seed. More time then never gives a worse answer than the first run
/// alone would (up to timing), and the second run is a restart, not idle time.
pub fn solve_with_stats(
    board: &Board,
    options: Options,
    started: Instant,
    stats: &mut RunStats,
) -> Solution {
    // every better answer a stage keeps goes to the checkpoint at once (a signal writes it)
    let _scope = RunScope::enter(options.checkpoint);
    let first_run = options.params.first_run;
    stats.runs = 1;
    if first_run <= 0.0 || options.time_limit < 2.0 * first_run {
        return offered(options, solve_once(board, options, started, stats));
    }
    let first = solve_once(
        board,
        Options {
            time_limit: first_run,
            ..options
        },
        started,
        stats,
    );
    let first = offered(options, first);
    if first.stop == Stop::Optimal {
        return first;
    }
    let second_started = Instant::now();
    let spent = second_started.duration_since(started).as_secs_f64();
    let mut second_stats = RunStats::default();
    let second = solve_once(
        board,
        Options {
            time_limit: second_limit(&options.params, options.time_limit, spent),
            // any other stream: the second run must not retrace the first
            seed: options.seed ^ SECOND_RUN_SEED,
            ..options
        },
        second_started,
        &mut second_stats,
    );
    stats.boards += second_stats.boards;
    stats.runs = 2;
    let log = Log {
        started,
        verbose: options.verbose,
    };
    log.say(format!(
        "two runs: {:.3} (the first {first_run} s), {:.3} (the rest)",
        first.outcome.score, second.outcome.score
    ));
    offered(
        options,
        if second.outcome.score < first.outcome.score {
            second
        } else {
            first
        },
    )
}

/// `solution`, offered to the run's checkpoint (if any) on the way.
fn offered(options: Options, solution: Solution) -> Solution {
    if let Some(checkpoint) = options.checkpoint {
        checkpoint.offer(&solution);
    }
    solution
}

/// Mixed into the seed of a long run's second run.
const SECOND_RUN_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The time limit of a long run's second run, begun `spent` seconds into `time_limit`: the
/// one whose planned end ([`Params::run_end_share`]) falls where a single run of the whole
/// limit would end. The time left itself ended the second run at 19.18 s of 20 s (95.9 %,
/// past the 95 % the docs promise), since each run keeps its own margin.
fn second_limit(params: &Params, time_limit: f64, spent: f64) -> f64 {
    let end = params.run_end_share(time_limit) * time_limit - spent;
    // the share depends on the limit's length class: settle it from the whole limit's class
    let mut limit = end / params.run_end_share(time_limit);
    for _ in 0..2 {
        limit = end / params.run_end_share(limit);
    }
    limit.max(0.0)
}

/// One run of the phases under one budget of `options.time_limit` seconds from `started`.
fn solve_once(board: &Board, options: Options, started: Instant, stats: &mut RunStats) -> Solution {
    let params = &options.params;
    let budget = Budget::new(options.time_limit, started, params);
    let log = Log {
        started,
        verbose: options.verbose,
    };
    let mut problem = Problem::new(board);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    log.start(&problem, board);
    // Anytime: a legal first answer at once, and an early stop when it cannot be beaten.
    let lower = bound::lower_bound(board);
    let first = offered(options, first::first_answer(board, &budget, params));
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
    let mut paths = Paths::new(problem.n, problem.walls.clone());
    problem.tables = match distance_tables(&problem, &mut paths, &budget, params) {
        Tables::Ready(tables) => tables,
        Tables::TooSlow { per_table } => {
            log.say(format!(
                "paths would take {:.3} s a table: greedy descent only",
                per_table.as_secs_f64()
            ));
            return first::descent_only(board, first, budget.end(), params);
        }
        Tables::OutOfTime => {
            log.say("out of time in paths");
            return first::descent_only(board, first, budget.end(), params);
        }
    };
    log.say(format!("paths done ({} tables)", problem.tables.len()));
    let problem = &problem;
    let mut sim = Simulator {
        problem,
        paths: &mut paths,
        params,
    };

    // Stages 2–5: candidate target boards (exact ones where the board is small, then
    // annealed ones), matched and routed; the pool keeps the best.
    let mut pool = Pool::new(problem, params, &mut rng);
    let exact = exact_boards(&budget, &log, &mut pool, &mut sim, options.seed);
    stats.boards = exact;
    let mut annealer = Annealer::new(problem, &budget, params);
    let (mut boards_end, mut second_round) = (budget.boards_end(), false);
    let top = loop {
        if let Some(best) = optimal(&log, board, &pool, lower) {
            return best;
        }
        let phase = Phase {
            budget: &budget,
            log: &log,
            boards_end,
        };
        make_boards(phase, &mut pool, &mut annealer, &mut sim, &mut rng);
        stats.boards = exact + annealer.runs();
        if let Some(best) = optimal(&log, board, &pool, lower) {
            return best;
        }
        if pool.top.is_empty() {
            // no board in the time (a loaded core): what is left goes to the descent
            return first::descent_only(board, first, budget.end(), params);
        }
        // Stage 6: a short reordering of each of the best boards.
        let before = pool.top[0].score;
        let improved = reorder_top(&budget, &log, &mut pool, &mut sim, &mut rng);
        let now = Instant::now();
        let gained = improved[0].score < before - 1e-9;
        let again = budget
            .second_round_end(now, budget.multi_start(problem.colours))
            .filter(|_| !second_round && !gained);
        if let Some(again) = again {
            // Reordering found nothing (routing already meets the estimate, as with one
            // colour): new boards are worth more, so most of the time left goes to them
            // (but not the post-optimiser's share).
            second_round = true;
            boards_end = again;
            log.say("reordering gains nothing: back to making boards");
            pool.top = improved;
            continue;
        }
        break improved;
    };
    finish(&budget, &log, &mut sim, top, first, &mut rng)
}

/// The best board of the pool as the answer when it scores the lower bound.
fn optimal(log: &Log, board: &Board, pool: &Pool, lower: f64) -> Option<Solution> {
    let best = pool
        .top
        .first()
        .filter(|b| b.score <= lower + OPTIMAL_EPS)?;
    let answer = Solution::of(board, best.moves.clone(), Stop::Optimal)?;
    log.say("stop: a routed board scores the lower bound");
    Some(answer)
}

/// The progress log of one run (`--verbose`).
struct Log {
    started: Instant,
    verbose: bool,
}

impl Log {
    /// The board's size and its score before any move.
    fn start(&self, problem: &Problem, board: &Board) {
        self.say(format!(
            "N={} C={} queens={}, start score {:.3}",
            problem.n,
            problem.colours,
            problem.queens.len(),
            replay(board, &[]).map_or(f64::NAN, |o| o.score)
        ));
    }

    fn say(&self, msg: impl AsRef<str>) {
        if self.verbose {
            let t = self.started.elapsed().as_secs_f64();
            crate::diag!("[{t:6.3}s] {}", msg.as_ref());
        }
    }
}

/// Stage 2: the best error-free boards of [`exact`] (small boards only), routed into the pool;
/// how many were found.
fn exact_boards(
    budget: &Budget,
    log: &Log,
    pool: &mut Pool,
    sim: &mut Simulator<'_>,
    seed: u64,
) -> usize {
    let problem = sim.problem;
    let found = exact::boards(problem, budget, sim.params, seed);
    let count = found.len();
    if found.is_empty() {
        return 0;
    }
    let (best, worst) = (found[0].cost, found[found.len() - 1].cost);
    // all of them are routed: on crowded small boards the routed scores of boards with
    // nearly equal estimates spread widely
    for b in found {
        if pool.consider(problem, &b.cells, 0).is_some() {
            pool.route(sim, b.cells, problem.walls_only(), budget.end());
        }
    }
    log.say(format!(
        "exact: {} error-free boards, estimates {best:.3}..{worst:.3}, best routed score {:.3}",
        pool.distinct(),
        pool.top[0].score
    ));
    count
}

/// The board phase's clock and log: it ends at `boards_end` (once lengthened when routing is
/// slow).
#[derive(Clone, Copy)]
struct Phase<'a> {
    budget: &'a Budget,
    log: &'a Log,
    boards_end: Instant,
}

/// Stages 3–5: annealing runs until the phase's end (once lengthened when routing is slow),
/// and at least until the pool holds one board (or the compute budget ends).
fn make_boards(
    phase: Phase<'_>,
    pool: &mut Pool,
    annealer: &mut Annealer<'_>,
    sim: &mut Simulator<'_>,
    rng: &mut impl Rng,
) {
    let Phase {
        budget,
        log,
        mut boards_end,
    } = phase;
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
        let Some(made) = annealer.next(pool, sim, time, budget.end(), rng) else {
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

/// Stage 6, first round: a short reordering of each of the best boards of the pool (as many
/// as get a few hundred simulations each in a third of the time left), best first, then the
/// pool's other routed boards as they were.
fn reorder_top(
    budget: &Budget,
    log: &Log,
    pool: &mut Pool,
    sim: &mut Simulator<'_>,
    rng: &mut impl Rng,
) -> Vec<Routed> {
    let mut top = std::mem::take(&mut pool.top);
    let (boards, share) = budget.top_round(pool.per_sim(), top.len(), Instant::now());
    // the rest stay candidates of the multi-start post-optimiser, which takes further boards
    // while its descents converge early
    let rest = top.split_off(boards.min(top.len()));
    let mut improved: Vec<Routed> = top
        .into_iter()
        .map(|candidate| {
            let (better, _) = reorder(sim, candidate, rng, Instant::now() + share);
            log.say(format!("reordering a top board: score {:.3}", better.score));
            better
        })
        .collect();
    improved.sort_by(|a, b| a.score.total_cmp(&b.score));
    improved.extend(rest);
    improved
}

/// Stage 6 on the winner (the first of `top`, the best routed boards) until shortly before
/// the end, then the polish and the post-optimiser (stage 7, [`lns::search`]; on long budgets on
/// several of `top`, [`multistart`]); the first answer replaces anything worse or illegal.
fn finish(
    budget: &Budget,
    log: &Log,
    sim: &mut Simulator<'_>,
    mut top: Vec<Routed>,
    first: Solution,
    rng: &mut impl Rng,
) -> Solution {
    let (board, params) = (&sim.problem.board, sim.params);
    let winner = top.remove(0);
    // the post-optimiser starts a little before the end of the compute budget: on crowded
    // boards it gains more per second than the reordering
    let long = budget.multi_start(board.colours);
    let (best, sims) = reorder(sim, winner, rng, budget.reorder_end(long));
    log.say(format!(
        "reordering: {sims} simulations, score {:.3}",
        best.score
    ));

    let before = best.score;
    let score = |moves: &[Move]| replay(board, moves).map_or(f64::NAN, |o| o.score);
    let moves = if long {
        top.insert(0, best);
        if params.multi_start_ranked == 1 {
            // a tenth of the time left at most (a few ms on the contest's boards)
            let now = Instant::now();
            let by = now + budget.improve_end().saturating_duration_since(now) / 10;
            top = estimate::by_estimate(sim.problem, top, by);
            let took = now.elapsed().as_secs_f64() * 1e3;
            log.say(format!(
                "{} boards ranked by estimate in {took:.1} ms",
                top.len()
            ));
        }
        let candidates = top.into_iter().map(|r| r.moves).collect();
        let (moves, rounds) =
            multistart::best_of(board, candidates, budget.improve_end(), params, rng);
        log.say(format!(
            "multi-start improve: {before:.3} → {:.3} after its descent; {} neighbourhood \
             rounds ({} kept) → {:.3}",
            rounds.descended,
            rounds.tried,
            rounds.kept,
            score(&moves)
        ));
        moves
    } else {
        let moves = polish(board, best.moves, Some(budget.polish_end()));
        log.say(format!("polish: {before:.3} → {:.3}", score(&moves)));
        let before = score(&moves);
        let (moves, rounds) = lns::search(board, moves, budget.improve_end(), params, rng);
        log.say(format!(
            "improve: {before:.3} → {:.3} after its descent; {} neighbourhood rounds ({} \
             kept) → {:.3}",
            rounds.descended,
            rounds.tried,
            rounds.kept,
            score(&moves)
        ));
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
            crate::diag!("queenattack: internal error, falling back to the first answer: {e}");
            first
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long run's second run ends where one run of the whole limit would (at most 95 % of
    /// it), from any point its first run may have ended at.
    #[test]
    fn the_second_run_ends_with_the_whole_limits_run() {
        let params = Params::default();
        for limit in [20.0, 25.0, 60.0, 480.0] {
            let whole = params.run_end_share(limit) * limit;
            assert!(whole <= 0.95 * limit, "{limit}: {whole}");
            for spent in [9.0, 9.24, 9.5] {
                let second = second_limit(&params, limit, spent);
                let end = spent + params.run_end_share(second) * second;
                assert!(
                    (end - whole).abs() < 1e-9,
                    "{limit}, {spent}: {end} vs {whole}"
                );
                assert!(second > 0.0, "{limit}, {spent}");
            }
        }
    }
}
