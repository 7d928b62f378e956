//! `nqueens verify`: checks a board in any of the formats the other subcommands print.

use crate::io::{read_stdin, usage, Usage};
use nqueens::placement::is_no_answer;
use nqueens::verify::peaceful_text;
use nqueens::{find_conflict, parse_placement};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Check a board read from standard input: no two queens may share a row, column or diagonal
/// (and, with --nightrider, a line of slope ±2 or ±1/2).
///
/// Input (docs/nqueens.md): what `solve` prints (`N`, then N lines with the 1-based column of
/// the queen in that row, 0 for an empty row), what `complete` prints (`YES`, then one column
/// per row; a `NO` has no board), or what `gen-composition` prints (`N K`, then K lines
/// `row col`, 1-based). Prints `OK` and exits 0 for a full peaceful board. Exit code 1: a
/// `CONFLICT:` naming the first attacking pair (1-based); a `PARTIAL:` board (peaceful but
/// with empty rows; accepted with --partial); or a `NO` answer (nothing to verify). Malformed
/// input: a message on stderr, exit code 2.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Also forbid two queens on a nightrider line (slopes ±2 and ±1/2).
    #[arg(long)]
    nightrider: bool,
    /// Accept a peaceful board with empty rows (a composition) as `OK`.
    #[arg(long)]
    partial: bool,
    /// Print the time spent reading, parsing and checking on stderr.
    #[arg(long)]
    timings: bool,
}

/// Runs `nqueens verify`.
pub fn run(args: VerifyArgs) -> ExitCode {
    let before = usage();
    let started = Instant::now();
    let text = match read_stdin() {
        Ok(t) => t,
        Err(e) => {
            nqueens::diag!("nqueens verify: cannot read standard input: {e}");
            return ExitCode::from(2);
        }
    };
    let read = (started.elapsed(), usage());
    // "label t s (cpu c s)" for the stage from `from` to `to`.
    let span = |label: &str, from: (Duration, Usage), to: (Duration, Usage)| {
        format!(
            "{label} {:.3} s (cpu {:.3} s)",
            (to.0 - from.0).as_secs_f64(),
            to.1.cpu - from.1.cpu
        )
    };
    let start = (Duration::ZERO, before);
    if is_no_answer(&text) {
        println!("NOTHING TO VERIFY: the input is a NO answer, which holds no board");
        return ExitCode::from(1);
    }
    // One streaming pass settles the common case, a peaceful board in `solve`'s or
    // `complete`'s shape; any other answer comes from the exact reader and checker below.
    if let Some((n, queens)) = (!args.nightrider).then(|| peaceful_text(&text)).flatten() {
        if args.timings {
            let end = (started.elapsed(), usage());
            nqueens::diag!(
                "nqueens verify: N = {n}, {queens} queens: {}, {}, {}, peak memory {:.1} MB",
                span("read", start, read),
                span("parse + check in one pass", read, end),
                span("total", start, end),
                end.1.peak as f64 / 1e6,
            );
        }
        return verdict_peaceful(n, queens, args.partial);
    }
    let placement = match parse_placement(&text) {
        Ok(p) => p,
        Err(e) => {
            nqueens::diag!("nqueens verify: malformed input: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = (started.elapsed(), usage());
    drop(text);
    let conflict = find_conflict(&placement, args.nightrider);
    if args.timings {
        let end = (started.elapsed(), usage());
        nqueens::diag!(
            "nqueens verify: N = {}, {} queens: {}, {}, {}, {}, peak memory {:.1} MB",
            placement.n(),
            placement.count(),
            span("read", start, read),
            span("parse", read, parsed),
            span("check", parsed, end),
            span("total", start, end),
            end.1.peak as f64 / 1e6,
        );
    }
    match conflict {
        None => verdict_peaceful(placement.n(), placement.count(), args.partial),
        Some(c) => {
            println!("CONFLICT: {c}");
            ExitCode::from(1)
        }
    }
}

/// The answer for a board on which no two of the `queens` queens attack each other.
fn verdict_peaceful(n: usize, queens: usize, partial: bool) -> ExitCode {
    if queens == n {
        println!("OK");
        return ExitCode::SUCCESS;
    }
    if partial {
        nqueens::diag!("nqueens verify: partial board: {queens} of {n} rows hold a queen");
        println!("OK");
        return ExitCode::SUCCESS;
    }
    println!(
        "PARTIAL: no two queens attack each other, but only {queens} of {n} rows hold a queen \
         (--partial accepts this)"
    );
    ExitCode::from(1)
}
