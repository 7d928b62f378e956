//! `--threads`: independent runs side by side, the best answer kept.
//!
//! The contest gives one core, and that is the default. A user who builds a table of
//! best-known answers on a machine with many cores can instead spend them on one board: the
//! runs do not cooperate (the search settles into a basin early and another seed moves the
//! score more than more time does, see docs/benchmarks.md), so run `i` is exactly the
//! one-thread run with `--seed (seed + i)` under the same time limit, and the answer is the
//! best of them. At most one run per core starts, and fewer when memory is short (a line on
//! stderr says so); the runs that start keep the limit however loaded the machine is, since
//! the main thread writes the best answer at its deadline whatever they are doing.

use super::answer::{RunStats, Solution, Stop};
use super::board::Board;
use super::memory;
use super::solve::solve_with_stats;
use super::Options;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Most threads `--threads` accepts. Each run holds its own tables (on seed 2, N = 30, C = 6:
/// 8.6 MB peak with one thread, 20.4 MB with four; N = 128, C = 1: 60 MB more per run), and
/// under a memory limit fewer runs start ([`memory::runs_that_fit`]); so do more runs than
/// cores.
pub const MAX_THREADS: usize = 64;

/// Latest share of the time limit by which [`solve_threads`] returns with several runs,
/// whatever they are doing: 50 ms before 95 % of the limit, so that the process can end by
/// then, but never before the runs' planned end.
pub const ANSWER_SHARE: f64 = 0.94;

/// Time kept after the answer for the end of the process: every run still going must be
/// scheduled once to die, and the memory it holds freed, before the process has ended. With
/// 64 runs on 2 cores (before runs were capped by the cores) that took 12-36 ms quiet,
/// 23-94 ms beside three busy loops, 330 ms for 60 runs of N = 128, C = 100 on one loaded
/// core; with a run per core, a few milliseconds.
const EXIT_ROOM: f64 = 0.05;

/// The best of `threads` independent runs of [`solve_with_stats`] under `options`, run `i`
/// (from 0) with seed `options.seed + i` (wrapping), all against the same
/// `options.time_limit` from `started`. Returns the answer with the lowest score (of equal
/// scores, the lowest seed's) and the score of every run started, in seed order (`None` for
/// a run that did not end in time, failed or whose thread did not start). Only run 0 logs (`options.verbose`); every run
/// offers its answers to `options.checkpoint`. `stats` gets the boards and runs of the runs
/// that ended.
///
/// One run runs on the calling thread. Several run on threads of their own (fewer than
/// `threads` when there are fewer cores or the memory left holds fewer),
/// and the call returns when all have
/// ended or at their deadline (at most [`ANSWER_SHARE`] of the time limit),
/// whichever comes first: a run still going
/// then is left behind (it ends with the process), its answers so far in the checkpoint, which
/// holds an answer at least as good as the one returned. A run whose thread cannot start, that
/// panics or whose memory runs out (see [`memory`]) is left out; one line on stderr says so.
/// When none ended, the answer is the checkpoint's best or else the empty answer.
///
/// # Panics
/// When `threads` is 0.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, solve_threads, Options};
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let options = Options { time_limit: 0.5, ..Options::default() };
/// let mut stats = Default::default();
/// let (best, scores) = solve_threads(&board, options, 2, std::time::Instant::now(), &mut stats);
/// assert!((1..=2).contains(&scores.len())); // one run per core at most
/// let lowest = scores.iter().flatten().cloned().fold(f64::INFINITY, f64::min);
/// assert_eq!(best.outcome.score, lowest);
/// ```
pub fn solve_threads(
    board: &Board,
    options: Options,
    threads: usize,
    started: Instant,
    stats: &mut RunStats,
) -> (Solution, Vec<Option<f64>>) {
    assert!(threads > 0, "solve_threads needs at least one thread");
    let runs = if threads > 1 {
        runs_to_start(threads)
    } else {
        1
    };
    if runs == 1 {
        let mut one = RunStats::default();
        let solution = solve_with_stats(board, run_options(options, 0), started, &mut one);
        *stats = one;
        let score = solution.outcome.score;
        return (solution, vec![Some(score)]);
    }
    let deadline = started + Duration::from_secs_f64(answer_by(&options));
    let shared = Arc::new(board.clone());
    let run = move |i: usize| {
        let mut stats = RunStats::default();
        let solution = solve_with_stats(&shared, run_options(options, i), started, &mut stats);
        (solution, stats)
    };
    let ended = side_by_side(runs, deadline, run);
    let scores: Vec<Option<f64>> = ended
        .iter()
        .map(|r| r.as_ref().map(|(s, _)| s.outcome.score))
        .collect();
    *stats = RunStats::default();
    for (_, run) in ended.iter().flatten() {
        stats.boards += run.boards;
        stats.runs += run.runs;
    }
    let best = ended
        .into_iter()
        .flatten()
        .map(|(solution, _)| solution)
        .reduce(|best, s| {
            if s.outcome.score < best.outcome.score {
                s
            } else {
                best
            }
        });
    let kept = options.checkpoint.and_then(|c| c.best());
    let best = match (best, kept) {
        (Some(best), Some(kept)) if kept.outcome.score < best.outcome.score => (*kept).clone(),
        (Some(best), _) => best,
        (None, Some(kept)) => (*kept).clone(),
        (None, None) => Solution::of(board, Vec::new(), Stop::Budget).expect("no move is legal"),
    };
    (best, scores)
}

/// Seconds from the start by which the runs are left behind: [`EXIT_ROOM`] before 95 % of
/// the time limit, but never before a run's planned end (its budget and the polish and the
/// post-optimiser after it) and never after [`ANSWER_SHARE`] of the limit.
fn answer_by(options: &Options) -> f64 {
    let limit = options.time_limit;
    let planned = options.params.run_end_share(limit) + 0.01;
    limit * (0.95 - EXIT_ROOM / limit).max(planned).min(ANSWER_SHARE)
}

/// How many of `threads` runs start: at most one per core (more runs than cores only share
/// them: 64 runs on 2 cores, each with a 32nd of a core, wrote empty first answers at a 1 s
/// limit, and the 60 still going at the deadline took 330 ms to end on a loaded core), and no
/// more than fit in memory ([`memory::runs_that_fit`]). A line on stderr says why when fewer.
pub fn runs_to_start(threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cores {
        crate::diag!(
            "queenattack: --threads {threads}: {cores} run{}, one per core ({} fewer: more \
             would only share the cores)",
            plural(cores),
            threads - cores
        );
    }
    let wanted = threads.min(cores);
    let (runs, room) = memory::runs_that_fit(wanted);
    if let Some(room) = room {
        crate::diag!(
            "queenattack: --threads {threads}: {runs} run{} fit in the {} MiB left under {} \
             ({} fewer)",
            plural(runs),
            room.left >> 20,
            room.what,
            wanted - runs
        );
    }
    runs
}

/// `"s"` unless `count` is 1.
fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// Stack of each run's thread: what a main thread gets on Linux (a spawned thread's default
/// is 2 MiB), so a run on a thread of its own is the run on the main thread.
pub const RUN_STACK: usize = 8 << 20;

/// How a run on a thread of its own ended.
enum Slot<T> {
    Running,
    Ended(T),
    /// Not started, or panicked.
    Failed,
}

/// The runs' slots, and a condition variable the main thread waits on.
struct Slots<T> {
    slots: Mutex<Vec<Slot<T>>>,
    changed: Condvar,
}

impl<T> Slots<T> {
    fn lock(&self) -> MutexGuard<'_, Vec<Slot<T>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn put(&self, i: usize, slot: Slot<T>) {
        self.lock()[i] = slot;
        self.changed.notify_all();
    }
}

/// Longest sleep of the waiting main thread between two looks at the runs (a run stopped by
/// a failed allocation never says so).
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// Runs `run(i)` for every `i` in `0..count`, each on a thread of its own (run 0 on the
/// calling thread when its thread cannot start); returns when every run has ended or at
/// `deadline`, each run's result (`None`: not ended in time, panicked, stopped by a failed
/// allocation, or not started).
fn side_by_side<T: Send + 'static>(
    count: usize,
    deadline: Instant,
    run: impl Fn(usize) -> T + Send + Sync + 'static,
) -> Vec<Option<T>> {
    // workers stopped before these runs are none of them
    let stopped_before = memory::stopped_workers();
    let slots = Arc::new(Slots {
        slots: Mutex::new((0..count).map(|_| Slot::Running).collect()),
        changed: Condvar::new(),
    });
    let run = Arc::new(run);
    let start = |i: usize| {
        let (mine, run) = (Arc::clone(&slots), Arc::clone(&run));
        let spawned = std::thread::Builder::new()
            .name(format!("run {i}"))
            .stack_size(RUN_STACK)
            .spawn(move || {
                memory::mark_worker();
                let slot = match catch_unwind(AssertUnwindSafe(|| run(i))) {
                    Ok(result) => Slot::Ended(result),
                    Err(_) => {
                        crate::diag!("queenattack: run {i} panicked (one run fewer)");
                        Slot::Failed
                    }
                };
                mine.put(i, slot);
            });
        if let Err(e) = &spawned {
            crate::diag!("queenattack: run {i} not started (one run fewer): {e}");
            slots.put(i, Slot::Failed);
        }
        spawned.is_ok()
    };
    let first = start(0);
    for i in 1..count {
        start(i);
    }
    if !first {
        crate::diag!("queenattack: run 0 runs on the main thread");
        let slot = match catch_unwind(AssertUnwindSafe(|| run(0))) {
            Ok(result) => Slot::Ended(result),
            Err(_) => Slot::Failed,
        };
        slots.put(0, slot);
    }
    let mut held = slots.lock();
    loop {
        let running = held.iter().filter(|s| matches!(s, Slot::Running)).count();
        let now = Instant::now();
        if running <= memory::stopped_workers() - stopped_before || now >= deadline {
            break;
        }
        let nap = deadline.saturating_duration_since(now).min(LOOK_EVERY);
        held = match slots.changed.wait_timeout(held, nap) {
            Ok((held, _)) => held,
            Err(e) => e.into_inner().0,
        };
    }
    held.iter_mut()
        .map(|slot| match std::mem::replace(slot, Slot::Failed) {
            Slot::Ended(result) => Some(result),
            _ => None,
        })
        .collect()
}

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

    fn counting() -> MutexGuard<'static, ()> {
        memory::STOPPED_WORKERS_TEST
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
    use crate::solver::score::replay;

    /// A 6 × 6 board with two colours and a wall (not solved to its lower bound: the runs go
    /// on until their limit).
    const BOARD: &str = "6 2  1 1 1 1 1 1  0 0 -1 0 0 0  0 0 0 0 0 0  0 0 0 0 0 0  \
                         0 0 0 0 0 0  2 2 2 2 2 2";

    #[test]
    fn the_best_run_is_kept() {
        let _counting = counting();
        let board = Board::parse(BOARD).unwrap();
        let options = Options {
            time_limit: 0.5,
            seed: 7,
            ..Options::default()
        };
        let mut stats = RunStats::default();
        let started = Instant::now();
        let (best, scores) = solve_threads(&board, options, 6, started, &mut stats);
        // the answer by the deadline of a 0.5 s limit; the rest is a margin for a loaded machine
        assert!(
            started.elapsed().as_secs_f64() < 2.0,
            "{:?}",
            started.elapsed()
        );
        // one run per core at most
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(scores.len(), cores.min(6), "{scores:?}");
        // a run late by more than 57 ms on a loaded machine is left behind
        let ran = scores.iter().flatten().count();
        assert!(ran >= 1, "{scores:?}");
        let legal = replay(&board, &best.moves).expect("the kept answer is legal");
        assert!((legal.score - best.outcome.score).abs() < 1e-9);
        let lowest = scores
            .iter()
            .flatten()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        assert_eq!(best.outcome.score, lowest);
        assert_eq!(stats.runs, ran, "{stats:?}");
        assert!(stats.boards >= ran, "{stats:?}");
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
    fn the_answer_comes_after_the_runs_planned_end_and_leaves_room_to_exit() {
        for (limit, share) in [
            (0.2, 0.745),
            (1.0, 0.9),
            (2.0, 0.925),
            (10.0, 0.94),
            (60.0, 0.94),
        ] {
            let options = Options {
                time_limit: limit,
                ..Options::default()
            };
            let by = answer_by(&options);
            assert!((by - limit * share).abs() < 1e-9, "{limit} s: {by}");
            let planned = options.params.run_end_share(limit) * limit;
            assert!(
                by > planned && by <= limit * ANSWER_SHARE,
                "{limit} s: {by}"
            );
        }
    }

    #[test]
    fn a_run_past_the_deadline_is_left_behind() {
        let _counting = counting();
        let started = Instant::now();
        let deadline = started + Duration::from_millis(300);
        let ended = side_by_side(3, deadline, |i| {
            if i == 1 {
                std::thread::sleep(Duration::from_secs(60));
            }
            i
        });
        assert_eq!(ended, vec![Some(0), None, Some(2)]);
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        // the margin is for a loaded machine; the run left behind sleeps for a minute
        assert!(took < Duration::from_secs(20), "{took:?}");
    }

    #[test]
    fn the_runs_go_side_by_side() {
        let _counting = counting();
        let started = Instant::now();
        let nap = |i: usize| {
            std::thread::sleep(Duration::from_millis(500));
            i
        };
        let ended = side_by_side(6, started + Duration::from_secs(60), nap);
        assert_eq!(ended, (0..6).map(Some).collect::<Vec<_>>());
        // one after the other: 3 s
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_panicking_run_is_left_out_without_a_wait() {
        let _counting = counting();
        let started = Instant::now();
        let ended = side_by_side(3, started + Duration::from_secs(60), |i| {
            assert!(i != 2, "run 2 fails");
            i
        });
        assert_eq!(ended, vec![Some(0), Some(1), None]);
        assert!(started.elapsed() < Duration::from_secs(30));
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
