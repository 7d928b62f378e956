//! The `tester` command line: one module per subcommand, each with its clap `Args` and a
//! `run(&Args)` function; [`Command`] ties them together and the binary only calls [`run()`].
//!
//! To add a subcommand, add a module with `Args` and `run`, a variant to [`Command`] and an
//! arm to [`run()`].

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

pub mod args;
pub mod bests;
pub mod compare;
pub mod date;
pub mod exec;
pub mod features;
pub mod folder;
pub mod gen;
pub mod guardian;
pub mod history;
pub mod merge;
pub mod progress;
pub mod project;
pub mod provenance;
pub mod quote;
pub mod readcap;
pub mod reaper;
pub mod report;
pub mod rescore;
pub mod run;
pub mod runfile;
pub mod score;
pub mod select;
pub mod stats;
pub mod vis;

/// Local twin of the official QueenAttack tester (Topcoder Marathon Match 150): generate the
/// official cases byte for byte, judge outputs exactly like the official judge, and run a solver
/// on many seeds.
#[derive(Parser, Debug)]
#[command(name = "tester", version, after_help = LIMITS_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// What every command accepts as a case, stated in `--help`.
pub const LIMITS_HELP: &str = "Boards: N in 1..=128, C in 1..=100, and exactly N queens of every \
colour 1..=C (so C <= N); any other input is refused with exit code 2 and a message naming the \
colour and its count. Error messages quote at most 80 bytes of a bad token, escaped. Reads are \
capped: an output at 134217792 bytes (the output cap of `tester run` at N = 128), an input at 4 \
MiB, a results.json or bests file at 256 MiB; a larger file or stream is refused (exit code 2).";

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the case of one seed, or write SEED.in files for a list of seeds.
    Gen(gen::Args),
    /// Judge one output: prints `Score = X` like the official tester (after the error message
    /// if the output is invalid).
    Score(score::Args),
    /// Run a solver on many seeds in parallel, judge each output, print a table and a summary.
    Run(Box<run::Args>),
    /// Write a commented `tester.toml` (the project file of `tester run`).
    Init(project::InitArgs),
    /// Join the folders of `tester run --shard K/M` runs into one run folder.
    Merge(merge::Args),
    /// Judge the saved outputs of a `tester run` folder again.
    Rescore(rescore::Args),
    /// Write one self-contained HTML page that replays an output move by move (the web
    /// visualizer with the case and the output inlined; opens offline in any browser), and/or
    /// the replay as an animated GIF (`--gif`).
    Vis(vis::Args),
    /// Compare run folders seed by seed: table, wins/losses, relative scores, a significance
    /// test, groups by C and N; `--html` writes a page with plots.
    Compare(compare::Args),
    /// List the run folders under a folder (default `runs/`), newest first.
    #[command(visible_alias = "history")]
    Runs(history::Args),
}

/// Runs a parsed command line and returns the exit code (0, or what `tester run`, `tester
/// merge` and `tester rescore` document). `Err` is a message for the user (the binary prints it and exits with
/// code 2).
pub fn run(cli: &Cli) -> Result<i32, String> {
    let done = |r: Result<(), String>| r.map(|()| 0);
    match &cli.command {
        Command::Gen(args) => done(gen::run(args)),
        Command::Score(args) => done(score::run(args)),
        Command::Run(args) => run::run(args),
        Command::Init(args) => done(project::init(args)),
        Command::Merge(args) => merge::run(args),
        Command::Rescore(args) => rescore::run(args),
        Command::Vis(args) => done(vis::run(args)),
        Command::Compare(args) => done(compare::run(args)),
        Command::Runs(args) => done(history::run(args)),
    }
}

/// The bests file to use: `path` if given (it must exist), else `testcases/bests.json` in the
/// current folder if it exists, else none.
pub fn load_bests(path: Option<&Path>) -> Result<(Option<PathBuf>, Option<bests::Bests>), String> {
    match path {
        Some(p) => Ok((Some(p.to_path_buf()), Some(bests::Bests::load(p)?))),
        None => {
            let default = PathBuf::from("testcases/bests.json");
            if default.is_file() {
                let loaded = bests::Bests::load(&default)?;
                Ok((Some(default), Some(loaded)))
            } else {
                Ok((None, None))
            }
        }
    }
}
