//! `tester run`: run a solver on many seeds in parallel, judge every output, summarise.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use clap::Args as ClapArgs;
use serde_json::json;

use super::args::{parse_seed_list, RangeArgs, SeedList};
use super::bests::Bests;
use super::exec::{run_solver, Ending, Solver};
use super::progress::Progress;
use super::report::{summary, summary_json, table, SeedResult, Status};
use super::vis::write_page;
use super::{date, load_bests};
use crate::gen::generate;
use crate::vis::PageData;

/// Options of `tester run`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Seeds to run, as a list like `1-100`, `1,4,9` or `1-10,20`.
    #[arg(long, value_name = "LIST", value_parser = parse_seed_list, default_value = "1-10")]
    pub seeds: SeedList,
    /// Solver command line, run with `sh -c` as given (input on stdin, moves on stdout).
    /// Default: the `queenattack` binary next to this `tester` binary, run with
    /// `--time-limit SECS` appended.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Seeds run at the same time. Default: the number of cores.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Wall-clock limit per seed in seconds; a solver still running then is killed (with its
    /// whole process group) and the seed scores -1 with status `timeout`.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_secs)]
    pub time_limit: f64,
    /// Folder for `SEED.in`, `SEED.out`, `SEED.err` and `results.json` (and `SEED.html` with
    /// --vis).
    /// Default: `runs/YYYYMMDD-HHMMSS` (UTC) in the current folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Best known scores for the relative score. Default: `testcases/bests.json` if it exists.
    /// Not used with --n/--c/--p (the cases then differ from the official ones).
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
    /// Write every score that beats the bests file back into it, with the source
    /// `tester run YYYY-MM-DD: CMD`.
    #[arg(long)]
    pub update_bests: bool,
    /// No progress line on standard error.
    #[arg(long)]
    pub quiet: bool,
    /// Also write `SEED.html` for every seed: a self-contained visualizer page of its output
    /// (see `tester vis`).
    #[arg(long)]
    pub vis: bool,
    /// Parameter overrides (`--n`, `--c`, `--p`).
    #[command(flatten)]
    pub ranges: RangeArgs,
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

/// Runs the solver on one seed and judges it.
fn run_seed(
    seed: u64,
    args: &Args,
    solver: &Solver,
    dir: &Path,
    limit: Duration,
) -> Result<SeedResult, String> {
    let case = generate(seed, &args.ranges.ranges());
    let (inp, out, err) = (
        dir.join(format!("{seed}.in")),
        dir.join(format!("{seed}.out")),
        dir.join(format!("{seed}.err")),
    );
    fs::write(&inp, case.input.to_string())
        .map_err(|e| format!("cannot write {}: {e}", inp.display()))?;
    let p = Some(case.p);
    let outcome = match run_solver(solver, &inp, &out, &err, limit) {
        Ok(outcome) => outcome,
        // Nothing ran (for example a missing program): report it on the seed, keep going.
        Err(message) => {
            return Ok(SeedResult::failed(
                seed,
                &case.input,
                p,
                Status::Crash,
                message,
            ));
        }
    };
    let mut result = match outcome.ending {
        Ending::TimedOut => SeedResult::failed(
            seed,
            &case.input,
            p,
            Status::Timeout,
            format!("killed after the time limit of {} s", args.time_limit),
        ),
        Ending::Exited(0) => {
            let bytes =
                fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
            SeedResult::judged(seed, &case.input, p, &String::from_utf8_lossy(&bytes))
        }
        Ending::Exited(code) => SeedResult::failed(
            seed,
            &case.input,
            p,
            Status::Crash,
            format!("exit code {code}{}", last_line_of(&err)),
        ),
        Ending::Signaled(signal) => SeedResult::failed(
            seed,
            &case.input,
            p,
            Status::Crash,
            format!("killed by signal {signal}{}", last_line_of(&err)),
        ),
    };
    result.wall_ms = Some(outcome.wall.as_millis() as u64);
    if args.vis {
        // Whatever the solver printed, even after a timeout or crash, is worth a look.
        let output = fs::read(&out).ok();
        let data = PageData {
            input: case.input.to_string(),
            output: output.map(|b| String::from_utf8_lossy(&b).into_owned()),
            seed: Some(seed),
            p,
            title: format!("seed {seed}: {} {}", result.status.as_str(), result.score),
        };
        write_page(&dir.join(format!("{seed}.html")), &data)?;
    }
    Ok(result)
}

/// `; stderr: <last non-empty line>` of a solver's stderr file, or nothing.
fn last_line_of(path: &Path) -> String {
    let text = fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => {
            let line: String = line.chars().take(200).collect();
            format!("; stderr: {line}")
        }
        None => String::new(),
    }
}

/// Runs `tester run`.
pub fn run(args: &Args) -> Result<(), String> {
    let seeds = &args.seeds.0;
    let limit = Duration::from_secs_f64(args.time_limit);
    let solver = match &args.exec {
        Some(cmd) => Solver::Shell(cmd.clone()),
        None => default_solver(args.time_limit)?,
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(date::stamp()));
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (bests_path, mut bests) = if args.ranges.any() {
        if args.bests.is_some() || args.update_bests {
            return Err(
                "--bests and --update-bests need the official cases (no --n/--c/--p)".into(),
            );
        }
        (None, None)
    } else {
        load_bests(args.bests.as_deref())?
    };
    if args.update_bests && bests_path.is_none() {
        return Err(
            "--update-bests needs a bests file (--bests FILE or testcases/bests.json)".into(),
        );
    }
    if !args.quiet {
        eprintln!(
            "tester run: {} seeds, {jobs} jobs, limit {} s, solver `{}`, output in {}",
            seeds.len(),
            args.time_limit,
            solver.describe(),
            dir.display()
        );
    }

    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SeedResult>>> = Mutex::new(vec![None; seeds.len()]);
    let progress = Mutex::new(Progress::new(seeds.len()));
    let failure: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(seeds.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= seeds.len() || failure.lock().unwrap().is_some() {
                    break;
                }
                match run_seed(seeds[i], args, &solver, &dir, limit) {
                    Ok(result) => {
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
                        results.lock().unwrap()[i] = Some(result);
                    }
                    Err(message) => {
                        failure.lock().unwrap().get_or_insert(message);
                    }
                }
            });
        }
    });
    if !args.quiet {
        progress.lock().unwrap().finish();
    }
    if let Some(message) = failure.into_inner().unwrap() {
        return Err(message);
    }
    let results: Vec<SeedResult> = results
        .into_inner()
        .unwrap()
        .into_iter()
        .flatten()
        .collect();

    let results_file = dir.join("results.json");
    let doc = json!({
        "command": solver.describe(),
        "time_limit": args.time_limit,
        "date": date::today(),
        "ranges": {
            "n": args.ranges.n.map(|(a, b)| [a, b]),
            "c": args.ranges.c.map(|(a, b)| [a, b]),
            "p": args.ranges.p.map(|(a, b)| [a, b]),
        },
        "results": results.iter().map(SeedResult::to_json).collect::<Vec<_>>(),
        "summary": summary_json(&results, bests.as_ref()),
    });
    let text = serde_json::to_string_pretty(&doc).expect("JSON values always serialise");
    fs::write(&results_file, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", results_file.display()))?;

    print!("{}", table(&results, bests.as_ref()));
    println!();
    print!("{}", summary(&results, bests.as_ref()));
    println!("results: {}", results_file.display());

    if args.update_bests {
        let (path, bests) = (
            bests_path.expect("checked above"),
            bests.as_mut().expect("loaded"),
        );
        let source = format!("tester run {}: {}", date::today(), solver.describe());
        let improved = update_bests(bests, &results, &source);
        bests.save(&path)?;
        println!("bests: {improved} improved in {}", path.display());
    }
    Ok(())
}

/// Records every ok result that beats `bests`; returns how many did.
fn update_bests(bests: &mut Bests, results: &[SeedResult], source: &str) -> usize {
    results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter(|r| bests.improve(r.seed, r.score, source))
        .count()
}
