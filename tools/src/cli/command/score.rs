//! `tester score`: judge one output like the official tester.

use crate::cli::out::outln;
use clap::Args as ClapArgs;

use crate::cli::args::{CaseArgs, RangeArgs};
use crate::cli::readcap::{read_input_text, read_text};
use crate::gen::generate;
use crate::input::Input;
use crate::judge::judge;

/// Exit codes of `tester score`, as `tester score --help` states them.
pub const EXIT_HELP: &str = "Exit codes: 0 the output is valid (its score printed); 1 it is \
not (the judge's message, then `Score = -1.0`, as the official tester prints them; with --json \
the object); 2 bad usage or input (a case or an output that cannot be read: nothing judged).";

/// Options of `tester score`.
#[derive(ClapArgs, Debug)]
#[command(after_help = format!("{EXIT_HELP}\n\n{}", crate::cli::args::LIMITS_HELP))]
pub struct Args {
    /// The case (`--seed` or `--input`) and the output to judge.
    #[command(flatten)]
    pub case: CaseArgs,
    /// Print one JSON object (score, errors, moves, penalty, error, fatal_move) instead of the
    /// official text. On a fatal error (score -1) errors, moves and penalty are null.
    #[arg(long)]
    pub json: bool,
}

/// Reads the case named by `--seed` (with ranges) or `--input`.
pub fn load_case(
    seed: Option<u64>,
    input: Option<&std::path::Path>,
    ranges: &RangeArgs,
) -> Result<Input, String> {
    match (seed, input) {
        (_, Some(path)) => {
            Input::parse(&read_input_text(path)?).map_err(|e| format!("{}: {e}", path.display()))
        }
        (Some(seed), None) => Ok(generate(seed, &ranges.ranges()).input),
        (None, None) => Err("give --seed or --input".into()),
    }
}

/// Runs `tester score`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    let case = &args.case;
    let input = load_case(case.seed, case.input.as_deref(), &case.ranges)?;
    let output = read_text(&case.output)?;
    let verdict = judge(&input, &output);
    if args.json {
        outln!("{}", verdict.to_json());
    } else {
        crate::cli::out::print(&verdict.report());
    }
    Ok(if verdict.fatal.is_some() { 1 } else { 0 })
}
