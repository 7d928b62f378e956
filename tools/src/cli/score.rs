//! `tester score`: judge one output like the official tester.

use std::path::PathBuf;

use clap::{ArgGroup, Args as ClapArgs};

use super::args::RangeArgs;
use super::readcap::{read_text_capped, INPUT_MAX, OUTPUT_MAX};
use crate::gen::generate;
use crate::input::Input;
use crate::judge::judge;

/// Options of `tester score`.
#[derive(ClapArgs, Debug)]
#[command(group(ArgGroup::new("case").required(true).args(["seed", "input"])))]
#[command(after_help = super::LIMITS_HELP)]
pub struct Args {
    /// Judge on the case of this seed (generated like the official tester).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Judge on the case in this file (the official input text).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The solution's output to judge; `-` reads standard input.
    #[arg(value_name = "OUTPUT")]
    pub output: PathBuf,
    /// Print one JSON object (score, errors, moves, penalty, error, fatal_move) instead of the
    /// official text. On a fatal error (score -1) errors, moves and penalty are null.
    #[arg(long)]
    pub json: bool,
    /// Parameter overrides (`--n`, `--c`, `--p`).
    #[command(flatten)]
    pub ranges: RangeArgs,
}

/// Reads an output file as text (`-`: standard input), at most [`OUTPUT_MAX`] bytes; bytes
/// that are not UTF-8 become U+FFFD, as Java's reader makes them.
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    read_text_capped(path, OUTPUT_MAX, "an output")
}

/// Reads an input file as text (`-`: standard input), at most [`INPUT_MAX`] bytes.
pub fn read_input_text(path: &std::path::Path) -> Result<String, String> {
    read_text_capped(path, INPUT_MAX, "an input")
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

/// Runs `tester score`.
pub fn run(args: &Args) -> Result<(), String> {
    let input = load_case(args.seed, args.input.as_deref(), &args.ranges)?;
    let output = read_text(&args.output)?;
    let verdict = judge(&input, &output);
    if args.json {
        println!("{}", verdict.to_json());
    } else {
        print!("{}", verdict.report());
    }
    Ok(())
}
