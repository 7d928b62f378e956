//! The `tester` command line: the subcommands in [`command`] (one module each, with its clap
//! `Args` and a `run(&Args)` function), the helpers they share beside it (a helper never imports
//! a subcommand); [`Command`] ties them together and the binary only calls [`run()`]. The
//! helpers import each other one way only: no circle, not even through an intra-doc link (a
//! unit test, `import_graph.rs`, reads the sources and names any circle).
//!
//! To add a subcommand, add a module to [`command`] with `Args` and `run`, a variant to
//! [`Command`] and an arm to [`run()`].

use clap::{Parser, Subcommand};

pub mod args;
pub mod bests;
pub mod command;
pub mod cpu;
pub mod date;
pub mod exec;
pub mod features;
pub mod filter;
pub mod folder;
pub mod guardian;
#[cfg(test)]
mod import_graph;
pub mod lock;
pub mod out;
pub mod pages;
pub mod proctable;
pub mod progress;
pub mod provenance;
pub mod quote;
pub mod readcap;
pub mod reaper;
pub mod replace;
pub mod report;
pub mod resources;
pub mod root;
pub mod runfile;
pub mod runqueue;
pub mod same_file;
pub mod select;
pub mod stats;
pub mod stdin_feed;
pub mod suggest;

use args::LIMITS_HELP;
use command::{ab, compare, gen, merge, rescore, run as run_cmd, runs, score, vis};

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

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the case of one seed, or write SEED.in files for a list of seeds.
    Gen(gen::Args),
    /// Judge one output: prints `Score = X` like the official tester (after the error message
    /// if the output is invalid).
    Score(score::Args),
    /// Run a solver on many seeds in parallel, judge each output, print a table and a summary.
    Run(Box<run_cmd::Args>),
    /// Write a commented `tester.toml` (the project file of `tester run`).
    Init(run_cmd::init::InitArgs),
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
    /// List the run folders under a folder (default: `runs/` of the project's top folder),
    /// newest first.
    #[command(visible_alias = "history")]
    Runs(runs::Args),
    /// Decide whether B beats A with the fewest runs: pairs of runs on the same seeds, side by
    /// side, read by a sequential test (SPRT) that stops as soon as it knows; A and B are git
    /// revisions (built in worktrees), commands, or the current build.
    Ab(Box<ab::Args>),
}

/// Runs a parsed command line and returns the exit code (0, or what `tester score`, `tester
/// run`, `tester merge`, `tester rescore`, `tester vis` and `tester ab` document). `Err` is a message for the user (the binary prints it and exits with
/// code 2).
pub fn run(cli: &Cli) -> Result<i32, String> {
    let done = |r: Result<(), String>| r.map(|()| 0);
    match &cli.command {
        Command::Gen(args) => done(gen::run(args)),
        Command::Score(args) => score::run(args),
        Command::Run(args) => run_cmd::run(args),
        Command::Init(args) => done(run_cmd::init::init(args)),
        Command::Merge(args) => merge::run(args),
        Command::Rescore(args) => rescore::run(args),
        Command::Vis(args) => vis::run(args),
        Command::Compare(args) => done(compare::run(args)),
        Command::Runs(args) => done(runs::run(args)),
        Command::Ab(args) => ab::run(args),
    }
}
