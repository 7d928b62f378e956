//! `tester run`: run a solver on many seeds in parallel, judge every output, summarise.
//!
//! Nothing is lost: `results.json` is rewritten (atomically) as seeds finish, SIGINT/SIGTERM/
//! SIGHUP stop the run cleanly (see [`crate::cli::reaper`]), and `--resume` finishes an interrupted run.

pub mod build;
mod known;
mod options;
pub mod project;
mod recorder;

pub use options::{default_solver, parse_secs, Args, EXIT_HELP};
use recorder::Recorder;

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;

use crate::cli::date;
use crate::cli::exec::{output_cap, run_solver, Ending, Solver};
use crate::cli::features::read_data;
use crate::cli::progress::Progress;
use crate::cli::quote::printable;
use crate::cli::reaper::{self, Target};
use crate::cli::replace::replace_file;
use crate::cli::report::{self, SeedResult, Status};
use crate::cli::runfile::{read_run, recorded_run, refuse_foreign, RunInfo};
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
        .map_err(|e| format!("cannot write {}: {e}", inp.display()))?;
    let (p, input) = (Some(case.p), &case.input);
    let cap = output_cap(input.n);
    let outcome = run_solver(solver, [&inp, &out, &err], limit, cap, marker);
    // Whatever of this seed's processes left the process group ends now.
    reaper::sweep(Target::Seed(marker));
    let outcome = match outcome {
        Ok(outcome) => outcome,
        // Nothing ran (for example a missing program): report it on the seed, keep going.
        Err(message) => {
            let failed = SeedResult::failed(seed, input, p, Status::Crash, message);
            return Ok(Some(failed));
        }
    };
    let failed = |status, message| SeedResult::failed(seed, input, p, status, message);
    let mut result = match outcome.ending {
        Ending::Interrupted => return Ok(None),
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
            let bytes =
                fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
            SeedResult::judged(seed, input, p, &String::from_utf8_lossy(&bytes))
        }
        Ending::Exited(code) => failed(
            Status::Crash,
            format!("exit code {code}{}", last_line_of(&err)),
        ),
        Ending::Signaled(signal) => {
            let why = if signal == libc::SIGXFSZ {
                " (SIGXFSZ: a file it wrote reached the 64 MiB limit on solver files)"
            } else {
                ""
            };
            failed(
                Status::Crash,
                format!("killed by signal {signal}{why}{}", last_line_of(&err)),
            )
        }
    };
    result.wall_ms = Some(outcome.wall.as_millis() as u64);
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

/// Readies `dir` for a run of `seeds`: refuses a folder that holds a run (a `results.json`)
/// unless --resume (returns the finished results and the seed list of that run) or --force
/// (deletes that run's files: its `results.json` and the `SEED.*` files of its seeds, nothing
/// else), and refuses files of `seeds` that no recorded run wrote.
fn prepare_folder(
    dir: &Path,
    args: &Args,
    info: &RunInfo,
    seeds: &[u64],
) -> Result<(Vec<SeedResult>, Vec<u64>), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let recorded = recorded_run(dir).map_err(|e| {
        format!(
            "{e} (the run in {} cannot be read: move it away)",
            dir.display()
        )
    })?;
    let Some((old_seeds, files)) = recorded else {
        refuse_foreign(dir, seeds, &[])?;
        return Ok((Vec::new(), Vec::new()));
    };
    if args.force {
        refuse_foreign(dir, seeds, &old_seeds)?;
        for file in files {
            fs::remove_file(&file).map_err(|e| format!("cannot delete {}: {e}", file.display()))?;
        }
        return Ok((Vec::new(), Vec::new()));
    }
    if !args.resume {
        return Err(format!(
            "{} already holds a run ({} files of a run there); pass --resume to finish its \
             missing seeds, --force to replace it, or another --out",
            dir.display(),
            files.len()
        ));
    }
    refuse_foreign(dir, seeds, &old_seeds)?;
    let Some(old) = read_run(dir)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let same = old.info.command == info.command
        && old.info.time_limit == info.time_limit
        && old.info.ranges == info.ranges
        && old.info.shard == info.shard;
    if !same {
        return Err(format!(
            "--resume: the run in {} used `{}`, --time-limit {}, ranges {}, shard {}; this run \
             must use the same (or pass --force to replace it)",
            dir.display(),
            old.info.command,
            old.info.time_limit,
            old.info.ranges,
            old.info.shard.as_deref().unwrap_or("none")
        ));
    }
    Ok((old.results, old.info.seeds))
}

/// Runs the seeds of `todo` on `jobs` threads into `recorder`; stops early on an interrupt or
/// on an error that is not a seed's (a file that cannot be written).
fn run_all(
    todo: &[u64],
    args: &Args,
    solver: &Solver,
    dir: &Path,
    jobs: usize,
    recorder: &Recorder<'_>,
) -> Result<(), String> {
    let limit = Duration::from_secs_f64(args.limit());
    let next = AtomicUsize::new(0);
    let progress = Mutex::new(Progress::new(todo.len()));
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let workers = jobs.min(todo.len());
    let working = AtomicUsize::new(workers);
    std::thread::scope(|scope| {
        // Saves the results of seeds that finished while every other seed still runs.
        scope.spawn(|| {
            while working.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(100));
                recorder.save_if_due();
            }
        });
        for _ in 0..workers {
            scope.spawn(|| {
                run_worker(
                    todo,
                    &next,
                    &failure,
                    &progress,
                    (args, solver, dir, limit),
                    recorder,
                );
                working.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    if !args.quiet {
        progress.lock().unwrap().finish();
    }
    match failure.into_inner().unwrap() {
        Some(message) => Err(message),
        None => Ok(()),
    }
}

/// One worker of [`run_all`]: takes the next seed of `todo` until none is left, an error is
/// recorded in `failure`, or the run is interrupted.
fn run_worker(
    todo: &[u64],
    next: &AtomicUsize,
    failure: &Mutex<Option<String>>,
    progress: &Mutex<Progress>,
    (args, solver, dir, limit): (&Args, &Solver, &Path, Duration),
    recorder: &Recorder<'_>,
) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= todo.len() || failure.lock().unwrap().is_some() || reaper::interrupted().is_some() {
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
                    progress
                        .lock()
                        .unwrap()
                        .tick(result.status != Status::Ok, &what);
                }
                if args.select.jsonl {
                    select::print_line(&result, recorder.bests);
                }
                recorder.record(result);
            }
            Ok(None) => break,
            Err(message) => {
                failure.lock().unwrap().get_or_insert(message);
            }
        }
    }
}

/// Runs `tester run`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    reaper::install()?;
    let args = &project::apply(args)?;
    if let Some(code) = project::build_step(args) {
        return Ok(code);
    }
    let solver = match &args.exec {
        Some(cmd) => Solver::Shell(cmd.clone()),
        None => default_solver(args.limit())?,
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let dir = run_folder(args);
    let listed = match args.shard {
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
    let ranges = json!({
        "n": args.ranges.n.map(|(a, b)| [a, b]),
        "c": args.ranges.c.map(|(a, b)| [a, b]),
        "p": args.ranges.p.map(|(a, b)| [a, b]),
    });
    let mut info = RunInfo::now(&solver, args.limit(), ranges, args.comment.clone());
    info.shard = args.shard.map(|s| s.to_string());
    let (bests_path, bests) = known::bests_for(args)?;
    let (bounds_path, bounds) = known::bounds_for(args)?;
    let (kept, mut all_seeds) = prepare_folder(&dir, args, &info, &seeds)?;
    let tree = info.record_tree(&dir)?;
    let finished: std::collections::HashSet<u64> = kept.iter().map(|r| r.seed).collect();
    let mut todo: Vec<u64> = seeds
        .iter()
        .copied()
        .filter(|s| !finished.contains(s))
        .collect();
    let shuffle_seed = args.select.shuffle_seed();
    todo = shuffle_seed.map_or(todo.clone(), |k| select::shuffled(&todo, k));
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
    let recorder = Recorder::new(&dir, &info, kept, bests.as_ref());
    // Written before any solver starts: from now on the folder is known to hold this run (for
    // --resume and --force), even if tester is killed within the first seconds.
    recorder.save()?;
    let outcome = run_all(&todo, args, &solver, &dir, jobs, &recorder);
    reaper::sweep(Target::All);
    let signal = reaper::interrupted();
    let (results_file, mut results) = recorder.finish(signal.is_some() || outcome.is_err())?;
    report::set_bounds(&mut results, bounds.as_ref());
    outcome?;
    // Never an error: the run is judged and saved, its report and bests must not be lost.
    let (shown, warnings) = selection.report(results.clone(), args.select.group_by.as_deref());
    let text = select::report(&args.select, &shown, results.len(), bests.as_ref());
    select::emit(
        &args.select,
        &format!("{text}results: {}\n", results_file.display()),
    );
    select::warn_all(&warnings);
    if let Some(signal) = signal {
        print_interrupted(signal, results.len(), info.seeds.len(), &dir);
        return Ok(128 + signal);
    }
    if args.update_bests {
        let path = bests_path.expect("set with --update-bests");
        let improved = known::update_bests(&path, &results, &solver, &dir)?;
        select::emit(
            &args.select,
            &format!("bests: {improved} improved in {}\n", path.display()),
        );
    }
    if args.update_bounds {
        let path = bounds_path.expect("set with --update-bounds");
        let (raised, warnings) = known::update_bounds(&path, &results, bests.as_ref(), &solver)?;
        select::warn_all(&warnings);
        select::emit(
            &args.select,
            &format!("bounds: {raised} raised in {}\n", path.display()),
        );
    }
    let all_ok = results.iter().all(|r| r.status == Status::Ok);
    Ok(if all_ok || args.allow_failures { 0 } else { 1 })
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
        "tester run: {} seeds{}{}{}, {jobs} jobs, limit {} s, solver `{}`, output in {}",
        todo.len(),
        info.shard
            .as_ref()
            .map_or(String::new(), |s| format!(" (shard {s})")),
        if finished.is_empty() {
            String::new()
        } else {
            format!(", {} kept", finished.len())
        },
        shuffled.unwrap_or_default(),
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
         stopped; `tester run --resume --out {} ...` (same options) finishes the rest",
        reaper::signal_name(signal),
        dir.display()
    );
}
