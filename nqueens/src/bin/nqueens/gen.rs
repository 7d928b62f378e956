//! `nqueens gen-composition`: K queens of a random full board, a partial placement that can
//! always be completed.

use crate::io::{positive_seconds, write_failed, write_values};
use nqueens::complete::memory_needed;
use nqueens::composition::random_composition;
use nqueens::mem::check_memory;
use nqueens::placement::MAX_N;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Print a random consistent composition: K queens of a random full N×N board.
///
/// The composition can always be completed (seed 004 §7). Output (docs/nqueens.md) in seed
/// 000's format (`N K`, then K lines `row col`, 1-based, by row), which `complete` and
/// `verify --partial` read, or, with `--format cols`, `N` and one line per row (0 = empty).
/// Exit code 2 when no full board exists, none is found within the time limit, or the board
/// does not fit in the memory available.
#[derive(clap::Args)]
pub struct GenArgs {
    /// Board size N.
    n: usize,
    /// Number of queens K to keep (0..=N).
    #[arg(long)]
    k: usize,
    /// Seed of the random board and of the rows kept.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nightrider-queens board (needs N = 1 or N >= 10).
    #[arg(long)]
    nightrider: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GenFormat::Pairs)]
    format: GenFormat,
    /// Wall-clock budget in seconds for the whole run (finding the random full board and
    /// writing the composition).
    #[arg(long, default_value_t = 600.0, value_parser = positive_seconds, allow_negative_numbers = true)]
    time_limit: f64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum GenFormat {
    /// `N K`, then K lines `row col` (seed 000).
    Pairs,
    /// `N`, then N lines: the 1-based column, or 0 for an empty row (seed 004).
    Cols,
}

/// Runs `nqueens gen-composition`; `t0` is when the process started (the budget counts from
/// there).
pub fn run(args: GenArgs, t0: Instant) -> ExitCode {
    let GenArgs {
        n,
        k,
        seed,
        nightrider,
        format,
        time_limit,
    } = args;
    if n == 0 || n > MAX_N {
        nqueens::diag!("nqueens gen-composition: N must be between 1 and {MAX_N}, got {n}");
        return ExitCode::from(2);
    }
    if k > n {
        nqueens::diag!("nqueens gen-composition: K = {k} queens cannot be taken from a board of size N = {n} (K > N)");
        return ExitCode::from(2);
    }
    if let Err(e) = check_memory(
        &format!("a random full board of size N = {n}"),
        memory_needed(n, nightrider),
    ) {
        nqueens::diag!("nqueens gen-composition: {e}");
        return ExitCode::from(2);
    }
    let budget = Duration::from_secs_f64(time_limit).saturating_sub(t0.elapsed());
    let queens = match random_composition(n, k, nightrider, seed, budget) {
        Ok(q) => q,
        Err(e) => {
            nqueens::diag!("nqueens gen-composition: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match format {
        GenFormat::Pairs => {
            let head = format!("{n} {k}\n");
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            let mut buf = head.into_bytes();
            let mut res = Ok(());
            for &(r, c) in &queens {
                buf.extend_from_slice(format!("{} {}\n", r + 1, c + 1).as_bytes());
                if buf.len() >= 1 << 20 {
                    res = res.and(lock.write_all(&buf));
                    buf.clear();
                }
            }
            res.and(lock.write_all(&buf)).and(lock.flush())
        }
        GenFormat::Cols => {
            let mut cols = vec![0u32; n];
            for &(r, c) in &queens {
                cols[r as usize] = c + 1;
            }
            write_values(
                format!("{n}\n").as_bytes(),
                cols.iter().map(|&c| c as u64),
                b'\n',
                b"",
            )
        }
    };
    if let Err(e) = result {
        return write_failed("gen-composition", "the composition", &e);
    }
    ExitCode::SUCCESS
}
