//! `nqueens`: N-Queens solutions for any N, completion of partial placements, random
//! compositions, and a verifier that reads what the others print (formats: docs/nqueens.md).
//!
//! One module per subcommand; `io` holds what they share, `outfile` the file `-o` writes.

mod complete;
mod gen;
mod io;
mod outfile;
mod solve;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "nqueens",
    version,
    about = "N-Queens tools: solve any N, complete a partial placement, verify in O(N)",
    after_help = "Pipelines: `nqueens gen-composition 1000 --k 400 | nqueens complete | \
                  nqueens verify` prints OK. Formats: docs/nqueens.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Solve(solve::SolveArgs),
    Verify(verify::VerifyArgs),
    Complete(complete::CompleteArgs),
    GenComposition(gen::GenArgs),
}

fn main() -> ExitCode {
    let t0 = Instant::now();
    // Past a file-size limit (`ulimit -f`) a write then fails with EFBIG and is reported like
    // a full disk (exit 2, `-o`'s temporary file removed), instead of SIGXFSZ ending the
    // process without a word.
    // SAFETY: sets this process's disposition of one signal; no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprint!("{}", io::tame(&e.render().to_string()));
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
        Err(e) => e.exit(), // --help, --version: on stdout
    };
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Complete(args) => complete::run(args, t0),
        Command::GenComposition(args) => gen::run(args, t0),
    }
}
