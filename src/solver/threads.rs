//! `--threads`: independent runs side by side, the best answer kept.
//!
//! The contest gives one core, and that is the default. A user who builds a table of
//! best-known answers on a machine with many cores can instead spend them on one board: the
//! runs do not cooperate (the search settles into a basin early and another seed moves the
//! score more than more time does, see docs/benchmarks.md), so run `i` is exactly the
//! one-thread run with `--seed (seed + i)` under the same time limit, and the answer is the
//! best of them. On a machine with fewer free cores than threads every run keeps the limit
//! but gets less of a core.

use super::answer::{RunStats, Solution};
use super::board::Board;
use super::solve::solve_with_stats;
use super::Options;
use std::time::Instant;

/// Most threads `--threads` accepts. Each run holds its own tables (on seed 2, N = 30, C = 6:
/// 8.6 MB peak with one thread, 20.4 MB with four), so memory is not what limits them; more
/// threads than cores only makes every run weaker.
pub const MAX_THREADS: usize = 64;

/// The best of `threads` independent runs of [`solve_with_stats`] under `options`, run `i`
/// (from 0) with seed `options.seed + i` (wrapping), all at once against the same
/// `options.time_limit` from `started`: run 0 on the calling thread, the others on threads of
/// their own. Returns the answer with the lowest score (of equal scores, the lowest seed's)
/// and every run's score, in seed order. Only run 0 logs (`options.verbose`); every run
/// offers its answers to `options.checkpoint`. `stats` gets the boards and runs of all of
/// them. All threads have ended when it returns.
///
/// A run whose thread the system cannot start is left out (one line on stderr says so).
///
/// # Panics
/// When `threads` is 0, or when a run panics.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, solve_threads, Options};
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let options = Options { time_limit: 0.5, ..Options::default() };
/// let mut stats = Default::default();
/// let (best, scores) = solve_threads(&board, options, 2, std::time::Instant::now(), &mut stats);
/// assert_eq!(scores.len(), 2);
/// assert_eq!(best.outcome.score, scores.iter().cloned().fold(f64::INFINITY, f64::min));
/// ```
pub fn solve_threads(
    board: &Board,
    options: Options,
    threads: usize,
    started: Instant,
    stats: &mut RunStats,
) -> (Solution, Vec<f64>) {
    assert!(threads > 0, "solve_threads needs at least one thread");
    let one = |i: usize| {
        let mut stats = RunStats::default();
        (
            solve_with_stats(board, run_options(options, i), started, &mut stats),
            stats,
        )
    };
    let runs: Vec<(Solution, RunStats)> = std::thread::scope(|scope| {
        // runs 1.. on threads of their own, run 0 on the calling thread (the contest's one
        // run stays where it always ran)
        let handles: Vec<_> = (1..threads)
            .filter_map(|i| {
                let spawned = std::thread::Builder::new()
                    .name(format!("run {i}"))
                    .stack_size(RUN_STACK)
                    .spawn_scoped(scope, move || one(i));
                if let Err(e) = &spawned {
                    crate::diag!("queenattack: run {i} not started (one run fewer): {e}");
                }
                spawned.ok()
            })
            .collect();
        let mut runs = vec![one(0)];
        for h in handles {
            runs.push(h.join().expect("a run of solve_threads panicked"));
        }
        runs
    });
    let scores = runs.iter().map(|(s, _)| s.outcome.score).collect();
    *stats = RunStats::default();
    for (_, run) in &runs {
        stats.boards += run.boards;
        stats.runs += run.runs;
    }
    let best = runs
        .into_iter()
        .map(|(solution, _)| solution)
        .reduce(|best, s| {
            if s.outcome.score < best.outcome.score {
                s
            } else {
                best
            }
        })
        .expect("at least one run");
    (best, scores)
}

/// Stack of each run's thread: what a main thread gets on Linux (a spawned thread's default
/// is 2 MiB), so a run on a thread of its own is the run on the main thread.
const RUN_STACK: usize = 8 << 20;

/// The options of run `i`: seed `options.seed + i` (wrapping), the log for run 0 only.
fn run_options(options: Options, i: usize) -> Options {
    Options {
        seed: options.seed.wrapping_add(i as u64),
        verbose: options.verbose && i == 0,
        ..options
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::score::replay;

    /// A 6 × 6 board with two colours and a wall (not solved to its lower bound: the runs go
    /// on until their limit).
    const BOARD: &str = "6 2  1 1 1 1 1 1  0 0 -1 0 0 0  0 0 0 0 0 0  0 0 0 0 0 0  \
                         0 0 0 0 0 0  2 2 2 2 2 2";

    #[test]
    fn the_best_run_is_kept() {
        let board = Board::parse(BOARD).unwrap();
        let options = Options {
            time_limit: 0.5,
            seed: 7,
            ..Options::default()
        };
        let mut stats = RunStats::default();
        let started = Instant::now();
        let (best, scores) = solve_threads(&board, options, 6, started, &mut stats);
        // side by side, not one after the other (that would take 6 × 0.47 s); the rest is a
        // margin for a loaded machine
        assert!(
            started.elapsed().as_secs_f64() < 2.0,
            "{:?}",
            started.elapsed()
        );
        assert_eq!(scores.len(), 6);
        let legal = replay(&board, &best.moves).expect("the kept answer is legal");
        assert!((legal.score - best.outcome.score).abs() < 1e-9);
        let lowest = scores.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(best.outcome.score, lowest);
        assert_eq!(stats.runs, 6, "{stats:?}");
        assert!(stats.boards >= 6, "{stats:?}");
    }

    #[test]
    fn run_i_is_the_one_thread_run_of_seed_plus_i() {
        let options = Options {
            seed: u64::MAX - 1,
            verbose: true,
            ..Options::default()
        };
        let runs: Vec<Options> = (0..3).map(|i| run_options(options, i)).collect();
        let seeds: Vec<u64> = runs.iter().map(|o| o.seed).collect();
        assert_eq!(seeds, vec![u64::MAX - 1, u64::MAX, 0]);
        let logs: Vec<bool> = runs.iter().map(|o| o.verbose).collect();
        assert_eq!(logs, vec![true, false, false]);
        assert_eq!(runs[2].time_limit, options.time_limit);
    }

    #[test]
    #[should_panic(expected = "at least one thread")]
    fn no_threads_no_run() {
        let board = Board::parse(BOARD).unwrap();
        solve_threads(
            &board,
            Options::default(),
            0,
            Instant::now(),
            &mut RunStats::default(),
        );
    }
}
