//! The options of `tester run` (`--help` text included) and the default solver.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::project;
use crate::cli::args::{parse_seed_list, parse_shard, RangeArgs, SeedList, Shard};
use crate::cli::exec::Solver;
use crate::cli::select;

/// Exit codes of `tester run`, as `tester run --help` states them.
pub const EXIT_HELP: &str = "Exit codes: 0 every seed ok (or --allow-failures); 1 some seed not \
ok (invalid, timeout, crash, too-long), or the run stopped early because each of its first 3 \
seeds timed out waiting for more input on stdin (results.json holds them; stdin stays open until \
the solver answers); 2 bad usage or input (nothing judged: a --filter or \
--group-by mistake is found before the first seed runs; one seen only on the seeds' results, a \
[DATA] key no seed printed or an error on a seed's values, is a warning and the report, \
results.json and --update-bests are kept; or tester itself cannot go on, never the solver's \
fault: a thread or process it needs cannot start, a limit on open files (ulimit -n) or file size \
(ulimit -f), a file it cannot write (a full disk); results.json then holds the finished seeds \
and --resume finishes the rest); 130 interrupted by \
SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP (results.json then holds the finished seeds, \
\"interrupted\": true; --resume finishes the rest; during the build step nothing ran); 3 the \
build step failed (nothing ran). If tester is killed outright (SIGKILL), its solvers and its \
build are killed too (they die with it, and a guardian process ends their children). A closed \
stdout or stderr (a pipe to `head`) changes neither the exit code nor the run folder.

Project file: `tester.toml` in the current folder or above, up to the repository's top folder \
(one holding .git) or the home folder (`tester init` writes a commented one), gives solver, \
build, seeds, jobs, time_limit, bests and out; tester then works in its folder, and options \
given here win over it (with --exec, its build is not run). It must belong to you or root and \
be writable by nobody else, else tester refuses it (exit 2); --no-project ignores it. Without \
one, a run in a folder below the project's top folder (the nearest above holding \
testcases/bests.json or testcases/bounds.json, not past .git, the home folder or a cache folder \
such as cargo's target/) puts its run folders in that folder's runs/ and uses its testcases/.

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
    /// Solver command line, run with `sh -c` as given (input on stdin, moves on stdout), with
    /// `{time_limit}` in it replaced by the run's limit in seconds and `{seed}` by the case's
    /// seed. Default: `solver` of
    /// tester.toml, else the `queenattack` binary next to this `tester` binary, run with
    /// `--time-limit SECS` appended. A command gets nothing appended: pass the limit in CMD
    /// (`--exec "./target/release/queenattack --time-limit {time_limit}"`), else the solver
    /// runs to its own limit and is killed at SECS (a warning says so before the run when the
    /// command names a longer `--time-limit`, and after it when most seeds time out).
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Seeds run at the same time. Default: the number of cores.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Wall-clock limit per seed in seconds; a solver still running then is killed (with its
    /// whole process group) and the seed scores -1 with status `timeout`. Default:
    /// `time_limit` of tester.toml, else 10.
    #[arg(long, value_name = "SECS", value_parser = parse_secs, allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Folder for `SEED.in`, `SEED.out`, `SEED.err` and `results.json` (and `SEED.html` with
    /// --vis).
    /// Default: `runs/YYYYMMDD-HHMMSS` (UTC) in the current folder, or in the project's top
    /// folder (see below) (`…-shardKofM` with --shard). A folder that already holds a run is
    /// refused unless --resume or --force.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Finish the run in --out: keep the results of its finished seeds (their outputs judged
    /// again: a verdict that changed is named and replaced) and run only the missing ones,
    /// with the options the run stored (solver, --time-limit, --n/--c/--p, --shard, seeds,
    /// --comment) wherever none is given; options given must match the run's (--seeds may add
    /// seeds).
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
    /// Best known scores for the relative score. Default: `testcases/bests.json` (of the
    /// project's top folder, see below) if it exists. Not used with --n/--c/--p (the cases
    /// then differ from the official ones).
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
    /// Write every score that beats the bests file back into it, with the source
    /// `tester run YYYY-MM-DD: CMD`, and keep that output (judged again) as `best/SEED.out`
    /// beside the bests file: the table and its answers change together or not at all. A
    /// missing bests file is created (--bests FILE, else `testcases/bests.json`); a `best`
    /// that is a symbolic link is refused.
    #[arg(long)]
    pub update_bests: bool,
    /// Certified lower bounds per seed, for the `gap%` column: `100 · (score − bound) /
    /// score`. Default: `testcases/bounds.json` (of the project's top folder, see below) if it
    /// exists. Not used with --n/--c/--p.
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
    /// Record each ok seed's `[DATA] bound = X` (a lower bound the solver certifies, e.g.
    /// `queenattack --with-bound`) in the bounds file where it is higher than the file's, with
    /// the source `tester run YYYY-MM-DD: CMD`; a bound above the seed's judged score or its
    /// best known score is refused with a warning. A missing file is created (--bounds FILE,
    /// else `testcases/bounds.json`).
    #[arg(long)]
    pub update_bounds: bool,
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
    /// Whether `seeds` is already the shard's part (read back from the run by --resume).
    #[arg(skip)]
    pub shard_selected: bool,
}

/// What a solver command holds where the run's time limit in seconds goes.
pub const TIME_LIMIT_MARK: &str = "{time_limit}";

/// `command` with [`TIME_LIMIT_MARK`] replaced by `secs` (written as `--time-limit` takes it:
/// `1`, `0.5`).
///
/// # Examples
///
/// ```
/// use tools::cli::command::run::with_limit;
///
/// assert_eq!(with_limit("./q --time-limit {time_limit}", 0.5), "./q --time-limit 0.5");
/// assert_eq!(with_limit("./q", 1.0), "./q");
/// ```
pub fn with_limit(command: &str, secs: f64) -> String {
    command.replace(TIME_LIMIT_MARK, &secs.to_string())
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

/// Parses a time limit in seconds (0 < SECS <= 86400).
pub fn parse_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if crate::cli::args::is_time_limit(s) => Ok(s),
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
