//! `queenattack`: reads an official QueenAttack input on stdin, prints the moves on stdout.

use clap::Parser;
use queenattack::solver::{board::Board, solve, Options};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Solver for Topcoder Marathon Match 150 QueenAttack.
///
/// Reads N, C and the N*N cells (-1 wall, 0 empty, k = queen of colour k) from stdin and
/// prints the number of moves, then one move per line as `r1 c1 r2 c2` (0-based).
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Cli {
    /// Wall-clock budget in seconds for the whole run, output included (finishes by 95 % of it).
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    time_limit: f64,
    /// Seed of the random generator, for reproducible runs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print progress on stderr: phase, boards found, best score so far.
    #[arg(long)]
    verbose: bool,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = Cli::parse();
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("queenattack: cannot read stdin: {e}");
        return ExitCode::from(2);
    }
    let board = match Board::parse(&input) {
        Ok(board) => board,
        Err(e) => {
            eprintln!("queenattack: bad input: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        time_limit: cli.time_limit,
        seed: cli.seed,
        verbose: cli.verbose,
    };
    let solution = solve(&board, options, started);
    if cli.verbose {
        eprintln!(
            "[{:6.3}s] final: {} moves, {} errors, score {:.4}",
            started.elapsed().as_secs_f64(),
            solution.moves.len(),
            solution.outcome.errors,
            solution.outcome.score
        );
    }
    let n = board.n;
    let mut out = String::with_capacity(solution.moves.len() * 12 + 8);
    out.push_str(&format!("{}\n", solution.moves.len()));
    for mv in &solution.moves {
        out.push_str(&format!(
            "{} {} {} {}\n",
            mv.from / n,
            mv.from % n,
            mv.to / n,
            mv.to % n
        ));
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        eprintln!("queenattack: cannot write the answer: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
