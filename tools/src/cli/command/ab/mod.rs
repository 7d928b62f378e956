//! `tester ab`: decide an A/B question with the fewest runs. Paired runs (the same seed and
//! solver seed for A and B, side by side), read in order by a sequential probability-ratio
//! test ([`sprt`]) that stops as soon as B is shown better by `--delta` or not better.
//!
//! [`arms`] makes the two solvers (git revisions built in worktrees, commands, the current
//! build), [`open`] starts or resumes the folder (locked), [`pairs`] runs the pairs, [`folder`]
//! keeps `ab.json` and the seed stream, [`report`] prints; `tester ab --verdict DIR…` reads the
//! folders of many hosts ([`verdict`]); [`clean`] removes the worktrees it made ([`worktrees`]).
//! It is the one subcommand built on another: it runs its seeds with `tester run`'s
//! `run_seed`, builds with its build step and reads its `tester.toml`.

pub mod arms;
pub mod clean;
pub mod current;
pub mod folder;
pub mod open;
pub mod pairs;
pub mod reading;
pub mod report;
pub mod sign;
pub mod sprt;
pub mod verdict;
pub mod walk;
pub mod worktrees;

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use crate::cli::args::{parse_seed_list, parse_shard, SeedList, Shard};
use crate::cli::command::run::{parse_secs, project};
use crate::cli::out::print;
use crate::cli::reaper::{self, Target};
use crate::cli::runfile::RunInfo;
use arms::{Arm, ArmSpec, Source};
use folder::{Record, SeedStream, AB_JSON, MAX_PAIRS};
use pairs::Session;
use sprt::Sprt;

/// Exit codes of `tester ab`, as `tester ab --help` states them.
pub const EXIT_HELP: &str = "Exit codes: 0 accepted (B is better than A by at least --delta); 1 \
rejected (B is not better than A); 3 inconclusive (--max-pairs reached, or --verdict over pairs \
with one not finished); 4 no verdict because the machine was too busy (more than half of the pairs \
read starved: an arm got less than half a core while ready to run, or less than 90% of the other \
arm's share; --resume runs them again) or because the arms got unequal CPU on average (over 3% \
more for the arm the verdict favoured, over the runs ready to run 90% of their time); 2 bad usage or an error (a build that failed, a folder \
that cannot be written: nothing decided); with --shard, 0 once the shard's pairs are finished (the \
verdict comes from `tester ab --verdict`); 130, 143, 129 interrupted by SIGINT (Ctrl-C), SIGTERM, \
SIGHUP: ab.json and both run folders keep every finished pair, the verdict so far is printed, \
--resume continues. Both arms failing on every pair is an error (2): nothing was compared.

The test (docs/tester.md, \"tester ab\"): x = ln(score_B / score_A) per pair, clipped to +-ln 1.25 \
(a side that failed loses the pair: x = +ln 2 when B failed, -ln 2 when A failed, 0 when both \
did); starved pairs are not counted. A run is judged on the CPU the machine gave it (its CPU time \
over the time it was ready to run: CPU time plus run-queue wait) only when it answered or timed \
out, ran at least half its time limit and was ready to run at least half of its wall time: a run \
that sleeps, hangs, crashes or computes little by its own choice is never starved (its failure is \
its arm's loss). Two sequential tests read the counted pairs, the first to cross a bound deciding, \
never before 15 pairs, each with 0.8 (GSPRT) or 0.2 (sign test) of alpha and beta: the GSPRT of H0 \
mean(x) = 0 against H1 mean(x) = ln(1 - delta), LLR = n/2 * ln(sum (x - 0)^2 / sum (x - ln(1 - \
delta))^2), accepted at LLR >= ln((1 - 0.8 beta) / (0.8 alpha)), rejected at LLR <= ln(0.8 beta / \
(1 - 0.8 alpha)); and a sequential sign test (ties left out): accepted when the pairs where B is \
better by delta outnumber the others enough (each adds ln 1.6, each other takes ln 2.5, until ln(1 \
/ (0.2 alpha))), the mean agreeing and B never failing; rejected alike on the pairs where B is \
worse.

Examples:
  tester ab --base HEAD --time-limit 1                  # the current build (uncommitted changes) against HEAD
  tester ab --new-args \"--param t1=0.2\" --time-limit 1  # a parameter against its default
  tester ab --base-time-limit 0.5 --new-time-limit 1    # one build at two time limits
  tester ab --base-exec \"./old --seed {seed}\" --new-exec \"./new --seed {seed}\"";

/// Options of `tester ab`.
#[derive(ClapArgs, Clone, Debug, Default)]
#[command(after_help = EXIT_HELP)]
pub struct Args {
    /// A (the base) as a git revision (HEAD, HEAD~1, a branch, a hash): checked out with `git
    /// worktree add` into OUT/src/COMMIT and built there (its tester.toml's `build`, else
    /// `cargo build --release`); runs its tester.toml's `solver`, else its
    /// target/release/queenattack. Without --base and --base-exec: the current build
    /// (tester.toml's `solver` after its `build`, else the `queenattack` beside tester; copied
    /// into OUT/bin, a queenattack given --seed; when that is the build of the repository
    /// tester ab runs in, `cargo build --release --bin queenattack` builds the working tree
    /// first into target/tester-ab, leaving target/release as it was).
    #[arg(long, value_name = "REV", conflicts_with = "base_exec")]
    pub base: Option<String>,
    /// A as a command run with `sh -c` as given; `{seed}` in it becomes the pair's seed.
    #[arg(long, value_name = "CMD")]
    pub base_exec: Option<String>,
    /// Arguments appended to A's solver, split at spaces (e.g. "--param t1=0.2").
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub base_args: Option<String>,
    /// A's time limit in seconds. Default: --time-limit.
    #[arg(long, value_name = "SECS", value_parser = parse_secs, allow_negative_numbers = true)]
    pub base_time_limit: Option<f64>,
    /// B (the new solver) as a git revision; see --base.
    #[arg(long, value_name = "REV", conflicts_with = "new_exec")]
    pub new: Option<String>,
    /// B as a command; see --base-exec.
    #[arg(long, value_name = "CMD")]
    pub new_exec: Option<String>,
    /// Arguments appended to B's solver, split at spaces.
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub new_args: Option<String>,
    /// B's time limit in seconds. Default: --time-limit.
    #[arg(long, value_name = "SECS", value_parser = parse_secs, allow_negative_numbers = true)]
    pub new_time_limit: Option<f64>,
    /// The seeds of the pairs, in this order (`20001-20500`). Default: 10001 and up,
    /// shuffled by a fixed seed (seeds no tuning set uses).
    #[arg(long, value_name = "LIST", value_parser = parse_seed_list)]
    pub seeds: Option<SeedList>,
    /// Wall-clock limit per seed in seconds for both arms (queenattack gets it as
    /// --time-limit). Default: tester.toml's `time_limit`, else 10.
    #[arg(long, value_name = "SECS", value_parser = parse_secs, allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Solvers run at the same time: 1 (A and B of a pair one after the other) or an even
    /// number K (K/2 pairs at once, the two solvers of a pair side by side). Default: with
    /// --resume the A/B's own (ab.json's `jobs`), else tester.toml's `jobs`, else the cores
    /// rounded down to even.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=folder::MAX_JOBS as i64))]
    pub jobs: Option<u32>,
    /// The improvement B must show, in percent of A's score: H1 is ratio B/A = 1 - delta/100.
    /// Default 1.
    #[arg(long, value_name = "PCT")]
    pub delta: Option<f64>,
    /// The rate at which a B that is no better is accepted. Default 0.05.
    #[arg(long, value_name = "A")]
    pub alpha: Option<f64>,
    /// The rate at which a B better by delta is rejected. Default 0.05.
    #[arg(long, value_name = "B")]
    pub beta: Option<f64>,
    /// The most pairs the test reads before it says inconclusive (15 at least: the test
    /// decides from 15 pairs on). Default 1000.
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u64).range(1..=MAX_PAIRS as u64))]
    pub max_pairs: Option<u64>,
    /// The run folder: ab.json, base/ and new/ (ordinary run folders), src/ (worktrees), bin/.
    /// Default: runs/ab-YYYYMMDD-HHMMSS (UTC; `…-shardKofM` with --shard).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the A/B in --out with the same pairs and the --jobs it ran with (options given
    /// must match its ab.json; --max-pairs and --jobs may change), or start again one stopped
    /// before it wrote its ab.json. A folder that holds no A/B is refused (exit 2).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Run only the pairs at stream positions K, K+M, … below --max-pairs (one host of M),
    /// with no verdict of its own; `tester ab --verdict DIR…` decides on the folders of all.
    #[arg(long, value_name = "K/M", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Print the verdict of the A/B folders given (one, or the shards of many hosts) and
    /// exit with its code; runs nothing.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["resume", "shard", "base", "new", "base_exec", "new_exec"])]
    pub verdict: Vec<PathBuf>,
    /// Remove the worktrees (OUT/src, a checkout and a build each) of the A/B folders given,
    /// with `git worktree remove`: only those the A/B recorded making there (OUT/worktrees.json),
    /// real folders registered by git at that path; anything else is left alone and named.
    /// Their results stay. Runs nothing.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["resume", "shard", "base", "new", "base_exec", "new_exec", "verdict"])]
    pub clean: Vec<PathBuf>,
    /// Keep the worktrees when the A/B reaches its verdict (by default they are removed then;
    /// they stay while the A/B is unfinished or inconclusive, for --resume).
    #[arg(long)]
    pub keep_worktrees: bool,
    /// No progress line and no start lines on standard error.
    #[arg(long)]
    pub quiet: bool,
    /// Do not look for tester.toml.
    #[arg(long)]
    pub no_project: bool,
}

/// The default δ (percent), α, β and --max-pairs.
const DEFAULTS: (f64, f64, f64, usize) = (1.0, 0.05, 0.05, 1000);

/// The default time limit in seconds.
const DEFAULT_TIME_LIMIT: f64 = 10.0;

impl Args {
    /// The test of the options.
    fn sprt(&self) -> Sprt {
        Sprt {
            delta: self.delta.unwrap_or(DEFAULTS.0) / 100.0,
            alpha: self.alpha.unwrap_or(DEFAULTS.1),
            beta: self.beta.unwrap_or(DEFAULTS.2),
        }
    }

    /// The two arms as the command line gives them.
    fn specs(&self, time_limit: f64) -> [ArmSpec; 2] {
        let split = |s: &Option<String>| {
            s.as_deref().map_or(Vec::new(), |s| {
                s.split_whitespace().map(str::to_string).collect()
            })
        };
        [
            ArmSpec {
                rev: self.base.clone(),
                exec: self.base_exec.clone(),
                args: split(&self.base_args),
                time_limit: self.base_time_limit.unwrap_or(time_limit),
            },
            ArmSpec {
                rev: self.new.clone(),
                exec: self.new_exec.clone(),
                args: split(&self.new_args),
                time_limit: self.new_time_limit.unwrap_or(time_limit),
            },
        ]
    }
}

/// Solvers at once: `--jobs`, tester.toml's, else the cores rounded down to even; refuses an
/// odd number above 1.
fn jobs(args: &Args, found: Option<&project::Found>) -> Result<usize, String> {
    let given = args.jobs.or(found.and_then(|f| f.project.jobs));
    let jobs = match given {
        Some(j) => j as usize,
        None => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            // At most what ab.json may record (a record `--resume` refuses is no record).
            if cores < 2 {
                1
            } else {
                (cores / 2 * 2).min(folder::MAX_JOBS)
            }
        }
    };
    if jobs > 1 && jobs % 2 == 1 {
        return Err(format!(
            "--jobs {jobs}: must be 1 or even (each pair runs its two solvers side by side)"
        ));
    }
    Ok(jobs)
}

/// Refuses a test that can never give a verdict: `--max-pairs` or a `--seeds` list below the
/// test's minimum of pairs, a `--delta` too small for the LLR to reach its bounds.
fn check_pairs(sprt: &Sprt, max_pairs: usize, seeds: &SeedStream) -> Result<(), String> {
    folder::check_decidable(sprt, max_pairs, seeds, ["--max-pairs", "--seeds"])
}

/// The solvers at once of a session that resumes a record whose last session ran `stored`
/// (`None`: an older record), `jobs` the command line's (or tester.toml's, or the default):
/// the stored number unless `--jobs` gives another, said either way.
fn resumed_jobs(args: &Args, jobs: usize, stored: Option<usize>) -> usize {
    let Some(stored) = stored.filter(|&s| s != jobs) else {
        return jobs;
    };
    if args.jobs.is_some() {
        if !args.quiet {
            crate::diag!(
                "tester ab: --resume: --jobs {jobs} as given (its last session ran --jobs \
                 {stored})"
            );
        }
        return jobs;
    }
    if !args.quiet {
        crate::diag!(
            "tester ab: --resume: goes on with --jobs {stored}, as its last session ran \
             (--jobs K sets another)"
        );
    }
    stored
}

/// Runs `tester ab`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    if !args.verdict.is_empty() {
        return verdict::run(&args.verdict);
    }
    if !args.clean.is_empty() {
        return clean::run(&args.clean);
    }
    if let Some(dir) = args.out.as_ref().filter(|_| args.resume) {
        open::check_resumable(dir)?;
    }
    args.sprt().check()?;
    let recorded = args.out.as_ref().is_some_and(|d| d.join(AB_JSON).is_file());
    if !(args.resume && recorded) {
        let seeds = args
            .seeds
            .as_ref()
            .map_or(SeedStream::Default, |s| SeedStream::List(s.0.clone()));
        let max_pairs = args.max_pairs.map_or(DEFAULTS.3, |m| m as usize);
        check_pairs(&args.sprt(), max_pairs, &seeds)?;
    }
    reaper::install()?;
    let found = if args.no_project {
        None
    } else {
        let cwd = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
        project::find(&cwd)?
    };
    let jobs = jobs(args, found.as_ref())?;
    if args.resume && !recorded && !args.quiet {
        crate::diag!(
            "tester ab: --resume: no {AB_JSON} in --out yet: the A/B stopped before its first \
             record starts again"
        );
    }
    let opened = open::open(args, found.as_ref())?;
    let (dir, mut record, infos) = (opened.dir, opened.record, opened.infos);
    let jobs = if args.resume && recorded {
        resumed_jobs(args, jobs, record.jobs)
    } else {
        jobs
    };
    record.jobs = Some(jobs);
    let settings = &record.settings;
    check_pairs(&settings.sprt, settings.max_pairs, &settings.seeds)
        .map_err(|e| format!("{e} (--resume --max-pairs M sets another)"))?;
    if !args.quiet {
        warn_same_solver(&record.arms, &infos);
        if !crate::cli::runqueue::available() {
            crate::diag!(
                "tester ab: warning: this kernel does not report how long a process waits for \
                 a CPU (/proc/PID/schedstat) or a thread's children (/proc/PID/task/TID/\
                 children): no pair can be told starved, so run it on a quiet machine"
            );
        }
    }
    for i in 0..2 {
        let built = record.arms[i].build(args.quiet);
        record.save(&dir, true)?;
        match built {
            Ok(None) => {}
            Ok(Some(code)) => return Ok(code),
            Err(message) => return Err(message),
        }
    }
    let session = Session::new(&dir, record, infos, jobs, args.quiet);
    if !args.quiet {
        print_start(&session, &dir, jobs);
    }
    let outcome = session.run();
    reaper::sweep(Target::All);
    let signal = reaper::interrupted();
    session.save(signal.is_some() || outcome.is_err())?;
    outcome?;
    let code = finish(&session.record(), &dir, signal)?;
    worktrees_at_the_end(args, &session.record(), &dir, code);
    drop(opened.locks);
    Ok(code)
}

/// Says when both arms run the same code (the same commit, command or build, with the same
/// args and time limit; or A a commit and B the current build of a clean tree at that commit,
/// as `tester ab --base HEAD` without uncommitted changes): such an A/B can only reject.
fn warn_same_solver(arms: &[Arm; 2], infos: &[RunInfo; 2]) {
    let [a, b] = arms;
    let same_run = a.args == b.args && a.time_limit == b.time_limit;
    let same_source = match (&a.source, &b.source) {
        (Source::Revision { commit: x, .. }, Source::Revision { commit: y, .. }) => x == y,
        (Source::Revision { commit, .. }, Source::Current) => {
            infos[1].git_dirty == Some(false) && infos[1].git_commit.as_ref() == Some(commit)
        }
        (x, y) => x == y,
    };
    if same_run && same_source {
        crate::diag!(
            "tester ab: warning: A ({}) and B ({}) run the same code with the same options: the \
             A/B can only say rejected. To test a change, leave it uncommitted and run \
             `tester ab --base HEAD` (B is built from the working tree), or commit it and run \
             `tester ab --base HEAD~1 --new HEAD`",
            a.describe(),
            b.describe()
        );
    }
}

/// At a verdict (accepted, rejected) the worktrees are removed unless --keep-worktrees; else
/// (unfinished, inconclusive, a shard) they stay for --resume, and the line to remove them is
/// said.
fn worktrees_at_the_end(args: &Args, record: &Record, dir: &Path, code: i32) {
    let revisions = record
        .arms
        .iter()
        .any(|a| matches!(a.source, Source::Revision { .. }));
    if !revisions || !dir.join("src").exists() {
        return;
    }
    let decided = record.settings.shard.is_none() && (code == 0 || code == 1);
    if decided && !args.keep_worktrees {
        match worktrees::remove_trees(dir) {
            Ok(removal) => {
                for tree in removal.removed.iter().filter(|_| !args.quiet) {
                    crate::diag!(
                        "tester ab: removed the worktree {} (the verdict is in; \
                         --keep-worktrees keeps them)",
                        tree.display()
                    );
                }
                for left in removal.left {
                    crate::diag!("tester ab: warning: {left}");
                }
            }
            Err(e) => crate::diag!("tester ab: warning: {e}"),
        }
    } else if !args.quiet {
        crate::diag!(
            "tester ab: the worktrees in {} stay for --resume; `tester ab --clean {}` removes \
             them (and git forgets them)",
            dir.join("src").display(),
            dir.display()
        );
    }
}

/// Prints the report and returns the exit code.
fn finish(record: &Record, dir: &Path, signal: Option<i32>) -> Result<i32, String> {
    let reading = record.reading();
    let settings = &record.settings;
    if let Some(shard) = settings.shard {
        let done = settings
            .positions()
            .iter()
            .filter(|p| record.pairs.contains_key(p))
            .count();
        print(&format!(
            "{}shard {shard}: {done} of {} pairs finished in {}; the verdict: tester ab \
             --verdict DIR… (this folder and the other shards')\n",
            report::arm_lines(&record.arms),
            settings.positions().len(),
            dir.display()
        ));
        warn_starved_shard(record, dir);
    } else {
        print(&format!(
            "{}{}ab.json: {}\n",
            report::arm_lines(&record.arms),
            report::text(settings, &reading, &[dir.to_path_buf()]),
            dir.join(AB_JSON).display()
        ));
        if let Some(warning) = report::starved_warning(&reading, dir) {
            crate::cli::quote::warn("tester ab", &warning);
        }
    }
    if let Some(signal) = signal {
        crate::diag!(
            "tester ab: interrupted by {}: every solver was stopped; `tester ab --resume --out \
             {}` continues with the same pairs",
            reaper::signal_name(signal),
            dir.display()
        );
        return Ok(128 + signal);
    }
    if settings.shard.is_some() {
        return Ok(0);
    }
    if let Some(error) = reading.error {
        return Err(error);
    }
    Ok(reading.exit_code())
}

/// Names the pairs of a shard that will not count (an arm starved, or uneven CPU).
fn warn_starved_shard(record: &Record, dir: &Path) {
    let limits = record.limits();
    let starved = record
        .pairs
        .values()
        .filter(|p| p.unfair(limits).is_some())
        .count();
    if starved > 0 {
        crate::cli::quote::warn(
            "tester ab",
            &format!(
                "{starved} of this shard's {} pairs starved (an arm got less than half a core \
                 while ready to run, or much less than the other): they will not count; `tester \
                 ab --resume --out {}` runs them again",
                record.pairs.len(),
                dir.display()
            ),
        );
    }
}

/// The first lines on standard error: the arms, the test, the folder.
fn print_start(session: &Session<'_>, dir: &Path, jobs: usize) {
    let record = session.record();
    let (s, settings) = (&record.settings.sprt, &record.settings);
    for line in report::arm_lines(&record.arms).lines() {
        crate::diag!("tester ab: {line}");
    }
    let seeds = match &settings.seeds {
        SeedStream::Default => "seeds 10001 and up, shuffled".to_string(),
        SeedStream::List(list) => format!("{} seeds of --seeds", list.len()),
    };
    let kept = record.pairs.len();
    crate::diag!(
        "tester ab: delta {}%, alpha {}, beta {}: accepted at LLR >= {:.3}, rejected at LLR <= \
         {:.3}, or by the sign test at {:.3}, after {} pairs at least and {} at most \
         ({seeds}{}){}; starved pairs not counted; {}, {} at a time; output in {}",
        sprt::short(s.delta * 100.0),
        s.alpha,
        s.beta,
        s.upper(),
        s.lower(),
        sign::SignTest::bounds(s).0,
        sprt::MIN_PAIRS,
        settings.max_pairs,
        settings
            .shard
            .map_or(String::new(), |k| format!(", shard {k}: no verdict here")),
        if kept > 0 {
            format!(", {kept} pairs kept")
        } else {
            String::new()
        },
        crate::cli::quote::count(jobs, "job"),
        match (jobs, session.slots()) {
            (1, _) => "1 solver".to_string(),
            (_, 1) => "1 pair".to_string(),
            (_, k) => format!("{k} pairs"),
        },
        dir.display()
    );
}
