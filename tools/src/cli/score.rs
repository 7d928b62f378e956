//! `tester score`: judge one output like the official tester.

use std::fs;
use std::io::Read;
use std::path::PathBuf;

use clap::{ArgGroup, Args as ClapArgs};

use super::args::RangeArgs;
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

/// Reads a file as text; bytes that are not UTF-8 become U+FFFD, as Java's reader makes them.
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        buf
    } else {
        fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    // Valid UTF-8 (the usual case) is taken without a copy: a big output costs its size once.
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Reads the case named by `--seed` (with ranges) or `--input`.
pub fn load_case(
    seed: Option<u64>,
    input: Option<&std::path::Path>,
    ranges: &RangeArgs,
) -> Result<Input, String> {
    match (seed, input) {
        (_, Some(path)) => {
            Input::parse(&read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))
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
