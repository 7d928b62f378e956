//! `tester run`: run a solver on many seeds in parallel, judge every output, summarise.
//!
//! Nothing is lost: `results.json` is rewritten (atomically) as seeds finish, SIGINT/SIGTERM/
//! SIGHUP stop the run cleanly (see [`super::reaper`]), and `--resume` finishes an interrupted run.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use serde_json::json;

use super::args::{parse_seed_list, parse_shard, RangeArgs, SeedList, Shard};
use super::bests::Bests;
use super::exec::{output_cap, run_solver, Ending, Solver};
use super::features::read_data;
use super::progress::Progress;
use super::reaper::{self, Target};
use super::report::{SeedResult, Status};
use super::runfile::{read_run, recorded_run, refuse_foreign, write_run, RunInfo};
use super::select::{self, Selection};
use super::{date, load_bests, project, provenance};
use crate::gen::generate;

/// Exit codes of `tester run`, as `tester run --help` states them.
pub const EXIT_HELP: &str = "Exit codes: 0 every seed ok (or --allow-failures); 1 some seed not \
ok (invalid, timeout, crash, too-long); 2 bad usage or input (nothing judged); 130 interrupted by \
SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP (results.json then holds the finished seeds, \
\"interrupted\": true; --resume finishes the rest); 3 the build step failed (nothing ran). If \
tester is killed outright (SIGKILL), its solvers are killed too (they die with it, and a \
guardian process ends their children).

Project file: `tester.toml` in the current folder or above (`tester init` writes a commented \
one) gives solver, build, seeds, jobs, time_limit, bests and out; tester then works in its \
folder, and options given here win over it.

Every solver's output (and any file it writes) is capped at 64 + 2·N³·32 bytes, room for the \
largest legal answer; a solver reaching the cap is stopped and the seed is `too-long`. Solvers \
and everything they start are ended when their seed ends, also processes that left the \
process group (setsid).";

/// Options of `tester run`.
#[derive(ClapArgs, Clone, Debug)]
#[command(after_help = EXIT_HELP)]
pub struct Args {
    /// Seeds to run, as a list like `1-100`, `1,4,9` or `1-10,20`. Default: `seeds` of
    /// tester.toml, else 1-10.
    #[arg(long, value_name = "LIST", value_parser = parse_seed_list)]
    pub seeds: Option<SeedList>,
    /// Solver command line, run with `sh -c` as given (input on stdin, moves on stdout).
    /// Default: `solver` of tester.toml, else the `queenattack` binary next to this `tester`
    /// binary, run with `--time-limit SECS` appended.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Seeds run at the same time. Default: the number of cores.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Wall-clock limit per seed in seconds; a solver still running then is killed (with its
    /// whole process group) and the seed scores -1 with status `timeout`. Default:
    /// `time_limit` of tester.toml, else 10.
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub time_limit: Option<f64>,
    /// Folder for `SEED.in`, `SEED.out`, `SEED.err` and `results.json` (and `SEED.html` with
    /// --vis).
    /// Default: `runs/YYYYMMDD-HHMMSS` (UTC) in the current folder (`…-shardKofM` with
    /// --shard). A folder that already holds a run is refused unless --resume or --force.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Finish the run in --out: keep the results of its finished seeds and run only the
    /// missing ones (same --exec, --time-limit and --n/--c/--p required).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Replace the run in --out: delete its results.json and SEED.* files first.
    #[arg(long, requires = "out", conflicts_with = "resume")]
    pub force: bool,
    /// Run only part K of M of the seed list (seeds at positions K, K+M, …; K 0-based, taken
    /// modulo M, so 0..M-1 and 1..M both cover every seed once). Join the parts with
    /// `tester merge`.
    #[arg(long, value_name = "K/M", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// A note recorded in results.json (`comment`), e.g. what changed in the solver.
    #[arg(long, value_name = "TEXT")]
    pub comment: Option<String>,
    /// Exit with code 0 even when some seed is not ok.
    #[arg(long)]
    pub allow_failures: bool,
    /// Best known scores for the relative score. Default: `testcases/bests.json` if it exists.
    /// Not used with --n/--c/--p (the cases then differ from the official ones).
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
    /// Write every score that beats the bests file back into it, with the source
    /// `tester run YYYY-MM-DD: CMD`, and keep that output as `best/SEED.out` beside the bests
    /// file. A missing bests file is created (--bests FILE, else `testcases/bests.json`).
    #[arg(long)]
    pub update_bests: bool,
    /// No progress line on standard error.
    #[arg(long)]
    pub quiet: bool,
    /// Also write `SEED.html` for every seed: a self-contained visualizer page of its output
    /// (see `tester vis`).
    #[arg(long)]
    pub vis: bool,
    /// --jsonl, --shuffle, --filter, --group-by.
    #[command(flatten)]
    pub select: select::SelectArgs,
    /// Parameter overrides (`--n`, `--c`, `--p`).
    #[command(flatten)]
    pub ranges: RangeArgs,
    /// --build, --no-build and what tester.toml adds.
    #[command(flatten)]
    pub project: project::ProjectArgs,
}

/// The default seed list and time limit.
const DEFAULT_SEEDS: std::ops::RangeInclusive<u64> = 1..=10;
const DEFAULT_TIME_LIMIT: f64 = 10.0;

impl Args {
    /// Seconds per seed: `--time-limit`, tester.toml's, else 10.
    pub fn limit(&self) -> f64 {
        self.time_limit.unwrap_or(DEFAULT_TIME_LIMIT)
    }

    /// The seed list: `--seeds`, tester.toml's, else 1-10.
    pub fn seed_list(&self) -> Vec<u64> {
        self.seeds
            .as_ref()
            .map_or_else(|| DEFAULT_SEEDS.collect(), |s| s.0.clone())
    }
}

fn parse_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "`{text}` is not a time limit in seconds (0 < SECS <= 86400)"
        )),
    }
}

/// The default solver: `queenattack` in the folder of the running `tester`.
pub fn default_solver(time_limit: f64) -> Result<Solver, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot locate the tester binary: {e}"))?;
    let path = exe
        .parent()
        .ok_or("cannot locate the tester's folder")?
        .join(format!("queenattack{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        return Err(format!(
            "the default solver {} does not exist: build it with `cargo build --release` \
             (tester and queenattack go to the same folder) or pass --exec CMD",
            path.display()
        ));
    }
    Ok(Solver::Program {
        path,
        args: vec!["--time-limit".into(), time_limit.to_string()],
    })
}

/// Runs the solver on one seed and judges it; `None` when the run was interrupted before the
/// solver finished (the seed is then not finished).
fn run_seed(
    seed: u64,
    args: &Args,
    solver: &Solver,
    dir: &Path,
    limit: Duration,
) -> Result<Option<SeedResult>, String> {
    let case = generate(seed, &args.ranges.ranges());
    let (inp, out, err) = (
        dir.join(format!("{seed}.in")),
        dir.join(format!("{seed}.out")),
        dir.join(format!("{seed}.err")),
    );
    fs::write(&inp, case.input.to_string())
        .map_err(|e| format!("cannot write {}: {e}", inp.display()))?;
    let (p, input) = (Some(case.p), &case.input);
    let cap = output_cap(input.n);
    let marker = reaper::marker(seed);
    let outcome = run_solver(solver, [&inp, &out, &err], limit, cap, &marker);
    // Whatever of this seed's processes left the process group ends now.
    reaper::sweep(Target::Seed(&marker));
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
            format!("killed after the time limit of {} s", args.limit()),
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
    if args.vis {
        super::vis::write_seed_page(dir, seed, p, input, &result)?;
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
        Some(line) => {
            let line: String = line.chars().take(200).collect();
            format!("; stderr: {line}")
        }
        None => String::new(),
    }
}

/// How often at most `results.json` is rewritten while a run goes on; a finished seed is in it
/// within this time (so a `tester` killed outright loses at most the last second). A run of
/// 2000 seeds writes about 600 KB per save.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The results of a run as they come in, written to `results.json` at most every
/// [`SAVE_EVERY`] and within it of a seed finishing (so a crash of `tester` itself loses
/// little), and at the end.
struct Recorder<'a> {
    dir: &'a Path,
    info: &'a RunInfo,
    bests: Option<&'a Bests>,
    /// The results, the time of the last save, and whether a result came since.
    state: Mutex<(BTreeMap<u64, SeedResult>, Instant, bool)>,
}

impl<'a> Recorder<'a> {
    fn new(
        dir: &'a Path,
        info: &'a RunInfo,
        kept: Vec<SeedResult>,
        bests: Option<&'a Bests>,
    ) -> Self {
        let kept = kept.into_iter().map(|r| (r.seed, r)).collect();
        Recorder {
            dir,
            info,
            bests,
            state: Mutex::new((kept, Instant::now(), false)),
        }
    }

    /// Adds a finished seed and saves if due (see [`Recorder::save_if_due`]).
    fn record(&self, result: SeedResult) {
        let mut state = self.state.lock().unwrap();
        state.0.insert(result.seed, result);
        state.2 = true;
        drop(state);
        self.save_if_due();
    }

    /// Rewrites `results.json` (marked interrupted: the run goes on) if a result came since the
    /// last save and that save is [`SAVE_EVERY`] old.
    fn save_if_due(&self) {
        let mut state = self.state.lock().unwrap();
        if state.2 && state.1.elapsed() >= SAVE_EVERY {
            state.1 = Instant::now();
            state.2 = false;
            let _ = write_run(self.dir, &self.document(&state.0, true));
        }
    }

    fn document(
        &self,
        results: &BTreeMap<u64, SeedResult>,
        interrupted: bool,
    ) -> serde_json::Value {
        self.info
            .document(&self.ordered(results), interrupted, self.bests)
    }

    /// Results in the order of the run's seed list.
    fn ordered(&self, results: &BTreeMap<u64, SeedResult>) -> Vec<SeedResult> {
        self.info
            .seeds
            .iter()
            .filter_map(|s| results.get(s).cloned())
            .collect()
    }

    /// Writes `results.json` as it stands, marked interrupted (the run goes on).
    fn save(&self) -> Result<(), String> {
        let state = self.state.lock().unwrap();
        write_run(self.dir, &self.document(&state.0, true)).map(drop)
    }

    /// Writes the final `results.json` and returns the results in seed-list order.
    fn finish(&self, interrupted: bool) -> Result<(PathBuf, Vec<SeedResult>), String> {
        let state = self.state.lock().unwrap();
        let path = write_run(self.dir, &self.document(&state.0, interrupted))?;
        Ok((path, self.ordered(&state.0)))
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

/// The `about` text of a bests file created by `--update-bests`.
const NEW_BESTS_ABOUT: &str = "best known scores, written by `tester run --update-bests`";

/// The bests file and its scores for this run (created empty by --update-bests if missing).
fn bests_for(args: &Args) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    if args.ranges.any() {
        if args.bests.is_some() || args.update_bests {
            return Err(
                "--bests and --update-bests need the official cases (no --n/--c/--p)".into(),
            );
        }
        return Ok((None, None));
    }
    if !args.update_bests {
        return load_bests(args.bests.as_deref());
    }
    let path = args
        .bests
        .clone()
        .unwrap_or_else(|| PathBuf::from("testcases/bests.json"));
    let bests = if path.exists() {
        Bests::load(&path)?
    } else {
        Bests {
            about: NEW_BESTS_ABOUT.into(),
            ..Bests::default()
        }
    };
    Ok((Some(path), Some(bests)))
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
        match run_seed(todo[i], args, solver, dir, limit) {
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
    // Shards started in the same second on one host must not share a default folder.
    let dir = args.out.clone().unwrap_or_else(|| {
        let shard = args
            .shard
            .map_or(String::new(), |s| format!("-shard{}of{}", s.k, s.m));
        let runs = args
            .project
            .runs_dir
            .as_deref()
            .unwrap_or(Path::new("runs"));
        runs.join(date::stamp() + &shard)
    });
    let listed = match args.shard {
        Some(shard) => shard.select(&args.seed_list()),
        None => args.seed_list(),
    };
    let selection = Selection::new(args.select.filter.as_deref())?;
    let seeds = selection.seeds(listed.clone(), &args.ranges.ranges())?;
    let ranges = json!({
        "n": args.ranges.n.map(|(a, b)| [a, b]),
        "c": args.ranges.c.map(|(a, b)| [a, b]),
        "p": args.ranges.p.map(|(a, b)| [a, b]),
    });
    let mut info = RunInfo::now(&solver, args.limit(), ranges, args.comment.clone());
    info.shard = args.shard.map(|s| s.to_string());
    let (bests_path, bests) = bests_for(args)?;
    let (kept, mut all_seeds) = prepare_folder(&dir, args, &info, &seeds)?;
    let tree = provenance::record(&dir, &mut info)?;
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
        eprintln!(
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
            shuffle_seed.map_or(String::new(), |k| format!(" shuffled (--shuffle-seed {k})")),
            args.limit(),
            solver.describe(),
            dir.display()
        );
        select::notes(&selection, (seeds.len(), listed.len()), &tree, &dir);
    }
    let recorder = Recorder::new(&dir, &info, kept, bests.as_ref());
    // Written before any solver starts: from now on the folder is known to hold this run (for
    // --resume and --force), even if tester is killed within the first seconds.
    recorder.save()?;
    let outcome = run_all(&todo, args, &solver, &dir, jobs, &recorder);
    reaper::sweep(Target::All);
    let signal = reaper::interrupted();
    let (results_file, results) = recorder.finish(signal.is_some() || outcome.is_err())?;
    outcome?;
    let shown = selection.report(results.clone())?;
    let text = select::report(&args.select, &shown, results.len(), bests.as_ref());
    select::emit(
        &args.select,
        &format!("{text}results: {}\n", results_file.display()),
    );
    if let Some(signal) = signal {
        // After SIGHUP the terminal may be gone: a failed write must not end in a panic.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "tester run: interrupted by {}: {} of {} seeds finished; every solver was \
             stopped; `tester run --resume --out {} ...` (same options) finishes the rest",
            reaper::signal_name(signal),
            results.len(),
            info.seeds.len(),
            dir.display()
        );
        return Ok(128 + signal);
    }
    if args.update_bests {
        let path = bests_path.expect("set with --update-bests");
        let source = format!("tester run {}: {}", date::today(), solver.describe());
        let improved = Bests::update_locked(&path, NEW_BESTS_ABOUT, |bests| {
            super::bests::record_run(bests, &results, &source, &dir, &path)
        })?;
        select::emit(
            &args.select,
            &format!("bests: {improved} improved in {}\n", path.display()),
        );
    }
    let all_ok = results.iter().all(|r| r.status == Status::Ok);
    Ok(if all_ok || args.allow_failures { 0 } else { 1 })
}
