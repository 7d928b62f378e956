//! `tester run`: run a solver on many seeds in parallel, judge every output, summarise.
//!
//! Nothing is lost: `results.json` is rewritten (atomically) as seeds finish, SIGINT/SIGTERM/
//! SIGHUP stop the run cleanly (see [`crate::cli::reaper`]), and `--resume` finishes an interrupted run.

mod answers;
pub mod build;
mod hints;
pub mod init;
pub(crate) mod kept;
mod known;
mod options;
pub mod project;
mod recorder;
mod resume;

pub use options::{default_solver, parse_secs, with_limit, Args, EXIT_HELP, TIME_LIMIT_MARK};
use recorder::Recorder;

use std::collections::HashSet;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;

use crate::cli::bests::Bests;
use crate::cli::date;
use crate::cli::exec::{output_cap, run_solver, Ending, Failure, Solver};
use crate::cli::features::read_data;
use crate::cli::progress::Progress;
use crate::cli::quote::{count, printable};
use crate::cli::reaper::{self, Target};
use crate::cli::replace::replace_file;
use crate::cli::report::{self, SeedResult, Status};
use crate::cli::resources::explained;
use crate::cli::runfile::RunInfo;
use crate::cli::select::{self, Selection};
use crate::gen::{generate, Ranges};

/// Runs the solver on one seed and judges it; `None` when the run was interrupted before the
/// solver finished (the seed is then not finished). `ranges` draws the case, `vis` writes
/// `SEED.html`, `secs` is the limit as typed (for the message), `marker` the value of the
/// solver's process marker (`tester ab` runs two solvers of one seed at once, each with its
/// own).
pub fn run_seed(
    seed: u64,
    (ranges, vis, secs, marker): (&Ranges, bool, f64, &str),
    solver: &Solver,
    dir: &Path,
    limit: Duration,
) -> Result<Option<SeedResult>, String> {
    let case = generate(seed, ranges);
    let (inp, out, err) = (
        dir.join(format!("{seed}.in")),
        dir.join(format!("{seed}.out")),
        dir.join(format!("{seed}.err")),
    );
    // A symbolic link planted at SEED.in is replaced, not written through.
    replace_file(&inp, case.input.to_string().as_bytes())
        .map_err(|e| explained(&format!("seed {seed}: cannot write {}", inp.display()), &e))?;
    let (p, input) = (Some(case.p), &case.input);
    let cap = output_cap(input.n);
    let solver = &solver.for_seed(seed);
    let outcome = run_solver(solver, [&inp, &out, &err], limit, cap, marker);
    // Whatever of this seed's processes left the process group ends now.
    reaper::sweep(Target::Seed(marker));
    let outcome = match outcome {
        Ok(outcome) => outcome,
        // Nothing ran (for example a missing program): report it on the seed, keep going.
        Err(Failure::Seed(message)) => {
            let failed = SeedResult::failed(seed, input, p, Status::Crash, message);
            return Ok(Some(failed));
        }
        // tester itself cannot go on: no verdict on the seed, the run stops.
        Err(Failure::Tester(message)) => return Err(format!("seed {seed}: {message}")),
    };
    let failed = |status, message| SeedResult::failed(seed, input, p, status, message);
    let mut result = match outcome.ending {
        Ending::Interrupted => return Ok(None),
        Ending::TimedOut if outcome.waited_for_input => {
            failed(Status::Timeout, hints::waited_message(secs, input.n))
        }
        Ending::TimedOut => failed(
            Status::Timeout,
            format!("killed after the time limit of {secs} s"),
        ),
        Ending::TooLong => failed(
            Status::TooLong,
            format!(
                "stopped at the output cap of {cap} bytes (64 + 2·N³ moves × 32 bytes for \
                 N = {}): no legal answer is that long",
                input.n
            ),
        ),
        Ending::Exited(0) => {
            let bytes = fs::read(&out)
                .map_err(|e| explained(&format!("cannot read {}", out.display()), &e))?;
            SeedResult::judged(seed, input, p, &String::from_utf8_lossy(&bytes))
        }
        Ending::Exited(code) => failed(
            Status::Crash,
            format!("exit code {code}{}", last_line_of(&err)),
        ),
        Ending::Signaled(libc::SIGXFSZ) => {
            let limit = cap.max(crate::cli::exec::FILE_LIMIT_FLOOR);
            if let Some(lowered) = outcome.lowered_file_limit {
                // The limit it met is the one tester runs under, not the one it gives.
                return Err(format!(
                    "seed {seed}: the solver was killed by SIGXFSZ at the file-size limit of \
                     {lowered} bytes: tester's own hard limit (`ulimit -Hf`) is below the \
                     {limit} bytes it gives a solver ({})",
                    crate::cli::resources::NOT_THE_SOLVERS
                ));
            }
            failed(
                Status::Crash,
                format!(
                    "killed by signal {} (SIGXFSZ: a file it wrote reached the limit of {limit} \
                     bytes on solver files){}",
                    libc::SIGXFSZ,
                    last_line_of(&err)
                ),
            )
        }
        Ending::Signaled(signal) => failed(
            Status::Crash,
            format!("killed by signal {signal}{}", last_line_of(&err)),
        ),
    };
    result.wall_ms = Some(outcome.wall.as_millis() as u64);
    result.cpu_ms = Some(outcome.cpu.as_millis() as u64);
    result.wait_ms = outcome.wait.map(|w| w.as_millis() as u64);
    result.data = read_data(&err);
    if vis {
        crate::cli::pages::write_seed_page(dir, seed, p, input, &result)?;
    }
    Ok(Some(result))
}

/// `; stderr: <last non-empty line>` of a solver's stderr file (its last 4 KiB only), or
/// nothing.
fn last_line_of(path: &Path) -> String {
    let mut tail = Vec::new();
    if let Ok(mut file) = fs::File::open(path) {
        let len = file.metadata().map_or(0, |m| m.len());
        let _ = file.seek(SeekFrom::Start(len.saturating_sub(4096)));
        let _ = file.take(4096).read_to_end(&mut tail);
    }
    let text = String::from_utf8_lossy(&tail);
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        // The solver's own text: its control characters must not reach the terminal.
        Some(line) => format!("; stderr: {}", printable(line, 200)),
        None => String::new(),
    }
}

/// Runs the seeds of `todo` on `jobs` threads into `recorder`; stops early on an interrupt or
/// on an error that is not a seed's (a file that cannot be written, a thread that cannot
/// start). Fewer workers than `jobs` when some cannot start (said on stderr); none is an
/// error.
fn run_all(
    todo: &[u64],
    args: &Args,
    solver: &Solver,
    dir: &Path,
    jobs: usize,
    (recorder, watch): (&Recorder<'_>, &Mutex<hints::Watch>),
) -> Result<(), String> {
    let limit = Duration::from_secs_f64(args.limit());
    let next = AtomicUsize::new(0);
    let progress = Mutex::new(Progress::new(todo.len()));
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let wanted = jobs.min(todo.len());
    let ended = AtomicUsize::new(0);
    let saver = std::thread::current();
    std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(wanted);
        for k in 0..wanted {
            let work = || {
                let (next, failure, progress) = (&next, &failure, &progress);
                let job = (args, solver, dir, limit);
                // A panic is a bug of tester: said, and it stops the run instead of hanging it.
                let run = || run_worker(todo, next, failure, (progress, watch), job, recorder);
                if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                    let what = panic_text(panic.as_ref());
                    lock(failure).get_or_insert(format!(
                        "a worker thread of tester panicked ({what}): a bug, please report it"
                    ));
                }
                ended.fetch_add(1, Ordering::Release);
                saver.unpark();
            };
            match std::thread::Builder::new()
                .name(format!("worker {k}"))
                .spawn_scoped(scope, work)
            {
                Ok(worker) => workers.push(worker),
                Err(e) => {
                    refused_workers(workers.len(), wanted, &e, &failure);
                    break;
                }
            }
        }
        save_while_working(&workers, &ended, recorder, dir);
    });
    if !args.quiet {
        lock(&progress).finish();
    }
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(message) => Err(message),
        None => Ok(()),
    }
}

/// A lock that a panicking thread left poisoned is still taken: what it guards stays usable
/// (a counter, the results), and the run must end, not panic in turn.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The message of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    printable(&text.unwrap_or_else(|| "no message".into()), 300)
}

/// Says that only `started` of `wanted` worker threads started (`error`): the run goes on with
/// them, or, when none started, fails.
fn refused_workers(
    started: usize,
    wanted: usize,
    error: &std::io::Error,
    failure: &Mutex<Option<String>>,
) {
    let why = format!("{error}; {}", crate::cli::exec::RESOURCE_HINT);
    if started == 0 {
        lock(failure).get_or_insert(format!("cannot start a worker thread: {why}"));
    } else {
        crate::diag!(
            "tester run: only {started} of {wanted} worker threads could start, the seeds run \
             {started} at a time: {why}"
        );
    }
}

/// How long the workers get to stop after a signal before `tester` exits without them (a
/// worker blocked in a system call that the signal does not end).
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Saves the results of seeds that finished while the other seeds still run, until every
/// worker has ended (`ended` counts them; each wakes this thread as it ends, so the run ends
/// with its last seed, not up to a poll later). After a signal the workers get [`STOP_GRACE`]
/// to stop; then `tester` saves what it can and exits (128 + the signal) without them, so a
/// signal always ends it.
fn save_while_working(
    workers: &[std::thread::ScopedJoinHandle<'_, ()>],
    ended: &AtomicUsize,
    recorder: &Recorder<'_>,
    dir: &Path,
) {
    let mut signalled: Option<std::time::Instant> = None;
    while ended.load(Ordering::Acquire) < workers.len() {
        std::thread::park_timeout(Duration::from_millis(100));
        if ended.load(Ordering::Acquire) == workers.len() {
            break;
        }
        recorder.save_if_due();
        let Some(signal) = reaper::interrupted() else {
            continue;
        };
        if signalled
            .get_or_insert_with(std::time::Instant::now)
            .elapsed()
            < STOP_GRACE
        {
            continue;
        }
        reaper::sweep(Target::All);
        let stuck = workers.iter().filter(|w| !w.is_finished()).count();
        let saved = recorder.save_if_free();
        crate::diag!(
            "tester run: interrupted by {}: {stuck} worker thread(s) did not stop within {} s \
             (blocked in a system call); every solver was stopped; {} `tester run --resume \
             --out {}` finishes the rest (with the run's own options)",
            reaper::signal_name(signal),
            STOP_GRACE.as_secs(),
            if saved {
                "the finished seeds are saved;"
            } else {
                "the seeds finished until the last save are kept;"
            },
            dir.display()
        );
        std::process::exit(128 + signal);
    }
}

/// One worker of [`run_all`]: takes the next seed of `todo` until none is left, an error is
/// recorded in `failure`, the run is interrupted, or `watch` stopped it.
fn run_worker(
    todo: &[u64],
    next: &AtomicUsize,
    failure: &Mutex<Option<String>>,
    (progress, watch): (&Mutex<Progress>, &Mutex<hints::Watch>),
    (args, solver, dir, limit): (&Args, &Solver, &Path, Duration),
    recorder: &Recorder<'_>,
) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let stop = lock(failure).is_some() || lock(watch).stopped();
        if i >= todo.len() || stop || reaper::interrupted().is_some() {
            break;
        }
        let seed = todo[i];
        let how = (
            &args.ranges.ranges(),
            args.vis,
            args.limit(),
            &*reaper::marker(seed),
        );
        match run_seed(seed, how, solver, dir, limit) {
            Ok(Some(result)) => {
                if !args.quiet {
                    let what = format!(
                        "seed {} {} {:.3}",
                        result.seed,
                        result.status.as_str(),
                        result.score
                    );
                    lock(progress).tick(result.status != Status::Ok, &what);
                }
                if args.select.jsonl {
                    select::print_line(&result, recorder.bests);
                }
                // Said when met, not only after every seed has timed out in turn.
                if let Some(said) = lock(watch).count(&result) {
                    lock(progress).note(&format!("tester run: warning: {said}"));
                }
                recorder.record(result);
            }
            Ok(None) => break,
            Err(message) => {
                lock(failure).get_or_insert(message);
            }
        }
    }
}

/// Runs `tester run`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    reaper::install()?;
    let given = args;
    let args = &project::apply(args)?;
    let args = &resume::stored_options(given, args);
    if let Some(code) = project::build_step(args) {
        return Ok(code);
    }
    let solver = solver_of(args)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let dir = run_folder(args);
    let listed = match args.shard.filter(|_| !args.shard_selected) {
        Some(shard) => shard.select(&args.seed_list()),
        None => args.seed_list(),
    };
    // Checked before anything runs: a mistake in the expression costs no seed.
    let selection = Selection::new(
        args.select.filter.as_deref(),
        args.select.group_by.as_deref(),
    )?;
    let (seeds, unselectable) = selection.seeds(listed.clone(), &args.ranges.ranges());
    select::warn_all(&Vec::from_iter(unselectable));
    let mut info = RunInfo::now(&solver, args.limit(), ranges_of(args), args.comment.clone());
    info.shard = args.shard.map(|s| s.to_string());
    let (bests_path, bests) = known::bests_for(args)?;
    let (bounds_path, bounds) = known::bounds_for(args)?;
    // Held until the run ends: a second run in this folder is refused.
    let _lock = crate::cli::lock::lock_folder(&dir, "tester run")?;
    let (kept, mut all_seeds) = resume::prepare_folder(&dir, args, &info, &seeds)?;
    let tree = info.record_tree(&dir)?;
    // Said before any seed runs: the record would name code the solver is not.
    let provenance = [info.stale_solver(), info.left_out_note()];
    select::warn_all(&provenance.into_iter().flatten().collect::<Vec<_>>());
    let finished: HashSet<u64> = kept.iter().map(|r| r.seed).collect();
    let shuffle_seed = args.select.shuffle_seed();
    let todo = seeds_to_run(&seeds, &finished, shuffle_seed);
    for &seed in &seeds {
        if !all_seeds.contains(&seed) {
            all_seeds.push(seed);
        }
    }
    info.seeds = all_seeds;
    if !args.quiet {
        let shuffled = shuffle_seed.map(|k| format!(" shuffled (--shuffle-seed {k})"));
        print_start(&todo, &finished, &info, shuffled, (jobs, &solver, &dir));
        select::notes(&selection, (seeds.len(), listed.len()), &tree, &dir);
    }
    let recorder = Recorder::new(&dir, &info, kept, (bests.as_ref(), bounds.as_ref()));
    // Written before any solver starts: from now on the folder is known to hold this run (for
    // --resume and --force), even if tester is killed within the first seconds.
    recorder.save()?;
    let watch = Mutex::new(hints::Watch::default());
    let outcome = run_all(&todo, args, &solver, &dir, jobs, (&recorder, &watch));
    reaper::sweep(Target::All);
    let signal = reaper::interrupted();
    let stopped = lock(&watch).stopped();
    let unfinished = signal.is_some() || stopped;
    let (results_file, mut results) = saved(&recorder, unfinished, &outcome, &dir)?;
    let bound_warnings = report::set_bounds(&mut results, bounds.as_ref());
    outcome.map_err(|e| {
        format!(
            "{e}\n{} of {} seeds finished, saved in {}: `tester run --resume --out {}` \
             finishes the rest (with the run's own options)",
            results.len(),
            info.seeds.len(),
            results_file.display(),
            dir.display()
        )
    })?;
    // Never an error: the run is judged and saved, its report and bests must not be lost.
    let (shown, warnings) = selection.report(results.clone(), args.select.group_by.as_deref());
    let text = select::report(&args.select, &shown, results.len(), bests.as_ref());
    select::emit(
        &args.select,
        &format!("{text}results: {}\n", results_file.display()),
    );
    select::warn_all(&warnings);
    select::warn_all(&bound_warnings);
    select::warn_all(&hints::after_run(&solver, &results, args.limit()));
    // A run stopped for its solver's input has a fault to mend first.
    if bests.is_none() && !args.ranges.any() && !stopped {
        select::warn_all(&[hints::no_bests_hint()]);
    }
    if let Some(signal) = signal {
        print_interrupted(signal, results.len(), info.seeds.len(), &dir);
        return Ok(128 + signal);
    }
    if stopped {
        let said = hints::stopped_early(results.len(), info.seeds.len(), &dir);
        crate::diag!("tester run: {said}");
        return Ok(1);
    }
    let known = (bests_path, bests.as_ref(), bounds_path);
    update_known(args, &results, known, &solver, &dir)?;
    let all_ok = results.iter().all(|r| r.status == Status::Ok);
    Ok(if all_ok || args.allow_failures { 0 } else { 1 })
}

/// The `--n`, `--c` and `--p` ranges a run was limited to, as its record keeps them.
fn ranges_of(args: &Args) -> serde_json::Value {
    json!({
        "n": args.ranges.n.map(|(a, b)| [a, b]),
        "c": args.ranges.c.map(|(a, b)| [a, b]),
        "p": args.ranges.p.map(|(a, b)| [a, b]),
    })
}

/// The seeds still to run, in `seeds`' order less those `finished` (a resumed run), shuffled
/// when `--shuffle-seed` is given.
fn seeds_to_run(seeds: &[u64], finished: &HashSet<u64>, shuffle_seed: Option<u64>) -> Vec<u64> {
    let todo: Vec<u64> = seeds
        .iter()
        .copied()
        .filter(|s| !finished.contains(s))
        .collect();
    shuffle_seed.map_or(todo.clone(), |k| select::shuffled(&todo, k))
}

/// Writes the final `results.json` (marked interrupted after a signal or a failure,
/// `outcome`); returns its path and the results. When the save fails after the run failed,
/// both are said: the run's own failure first, the save's may only follow from it (a full
/// disk).
fn saved(
    recorder: &Recorder<'_>,
    unfinished: bool,
    outcome: &Result<(), String>,
    dir: &Path,
) -> Result<(PathBuf, Vec<SeedResult>), String> {
    recorder
        .finish(unfinished || outcome.is_err())
        .map_err(|save| match outcome {
            Err(first) => format!(
                "{first}\n{save}: the seeds finished since the last save are lost; `tester run \
                 --resume --out {}` runs them again",
                dir.display()
            ),
            Ok(()) => save,
        })
}

/// The solver of the run: `--exec` (or tester.toml's) with its `{time_limit}` filled in, else
/// the default solver; a command aiming past the run's limit is warned about here, before
/// any seed runs.
fn solver_of(args: &Args) -> Result<Solver, String> {
    let solver = match &args.exec {
        Some(cmd) => Solver::Shell(with_limit(cmd, args.limit())),
        None => default_solver(args.limit())?,
    };
    let warning = hints::longer_limit_warning(&solver, args.limit());
    select::warn_all(&Vec::from_iter(warning));
    Ok(solver)
}

/// `--update-bests` and `--update-bounds` with the run's `results`; `known` holds the bests
/// file's path and scores and the bounds file's path.
fn update_known(
    args: &Args,
    results: &[SeedResult],
    (bests_path, bests, bounds_path): (Option<PathBuf>, Option<&Bests>, Option<PathBuf>),
    solver: &Solver,
    dir: &Path,
) -> Result<(), String> {
    if args.update_bests {
        let path = bests_path.expect("set with --update-bests");
        let (improved, warnings) = known::update_bests(&path, results, solver, dir)?;
        select::warn_all(&warnings);
        select::emit(
            &args.select,
            &format!("bests: {improved} improved in {}\n", path.display()),
        );
    }
    if args.update_bounds {
        let path = bounds_path.expect("set with --update-bounds");
        let (raised, warnings) = known::update_bounds(&path, results, bests, solver)?;
        select::warn_all(&warnings);
        select::emit(
            &args.select,
            &format!("bounds: {raised} raised in {}\n", path.display()),
        );
    }
    Ok(())
}

/// The run's folder: `--out`, else a new dated folder under `runs/` (or tester.toml's `out`).
fn run_folder(args: &Args) -> PathBuf {
    args.out.clone().unwrap_or_else(|| {
        // Shards started in the same second on one host must not share a default folder.
        let shard = args
            .shard
            .map_or(String::new(), |s| format!("-shard{}of{}", s.k, s.m));
        let runs = args
            .project
            .runs_dir
            .as_deref()
            .unwrap_or(Path::new("runs"));
        runs.join(date::stamp() + &shard)
    })
}

/// The first line on stderr: what runs, how, and where its files go.
fn print_start(
    todo: &[u64],
    finished: &std::collections::HashSet<u64>,
    info: &RunInfo,
    shuffled: Option<String>,
    (jobs, solver, dir): (usize, &Solver, &Path),
) {
    crate::diag!(
        "tester run: {}{}{}{}, {}, limit {} s, solver `{}`, output in {}",
        count(todo.len(), "seed"),
        info.shard
            .as_ref()
            .map_or(String::new(), |s| format!(" (shard {s})")),
        if finished.is_empty() {
            String::new()
        } else {
            format!(", {} kept", finished.len())
        },
        shuffled.unwrap_or_default(),
        count(jobs, "job"),
        info.time_limit,
        solver.describe(),
        dir.display()
    );
}

/// Says on stderr that `signal` stopped the run, and how to finish it.
fn print_interrupted(signal: i32, finished: usize, seeds: usize, dir: &Path) {
    // After SIGHUP the terminal may be gone: a failed write must not end in a panic.
    crate::diag!(
        "tester run: interrupted by {}: {finished} of {seeds} seeds finished; every solver was \
         stopped; `tester run --resume --out {}` finishes the rest (with the run's own \
         options)",
        reaper::signal_name(signal),
        dir.display()
    );
}
