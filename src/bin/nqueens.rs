//! `nqueens`: N-Queens solutions for any N, completion of partial placements, and a verifier.

use clap::{Parser, Subcommand};
use queenattack::nqueens::{find_conflict, parse_placement};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "nqueens",
    version,
    about = "N-Queens tools: solve any N, complete a partial placement, verify in O(N)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a placement read from standard input: no two queens may share a row, column or
    /// diagonal (and, with --nightrider, a line of slope ±2 or ±1/2).
    ///
    /// Input: `cols` format (first line N, then N lines with the 1-based column of the queen in
    /// that row, 0 for an empty row) or seed 000's format (`N K`, then K lines `row col`,
    /// 1-based). Prints `OK` and exits 0, or names the first attacking pair (1-based) and
    /// exits 1. Malformed input: a message on stderr, exit code 2.
    Verify {
        /// Also forbid two queens on a nightrider line (slopes ±2 and ±1/2).
        #[arg(long)]
        nightrider: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Verify { nightrider } => verify(nightrider),
    }
}

fn verify(nightrider: bool) -> ExitCode {
    let mut text = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut text) {
        eprintln!("nqueens verify: cannot read standard input: {e}");
        return ExitCode::from(2);
    }
    let placement = match parse_placement(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("nqueens verify: malformed input: {e}");
            return ExitCode::from(2);
        }
    };
    drop(text);
    match find_conflict(&placement, nightrider) {
        None => {
            println!("OK");
            ExitCode::SUCCESS
        }
        Some(c) => {
            println!("CONFLICT: {c}");
            ExitCode::from(1)
        }
    }
}
