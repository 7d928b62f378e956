//! `nqueens solve`: one solution for any N, by the closed form or by random search.

use crate::io::{usage, write_failed};
use crate::outfile::create_output;
use clap::ValueEnum;
use nqueens::explicit::{explicit_column, explicit_fill, has_solution};
use nqueens::mem::check_memory;
use nqueens::output::{write_cols, write_matrix, MAX_MATRIX_N};
use nqueens::quote::quote;
use nqueens::search::{search_with, Progress, BYTES_PER_QUEEN};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Print one solution for N queens on an N×N board.
///
/// N = 1 is the single queen; N = 2 and N = 3 have no solution (message on stderr, exit
/// code 1); N = 0 or a bad argument is an error (exit code 2). Progress goes to stderr for
/// N ≥ 10^7. `--method search` needs about 5 bytes per queen: a board that does not fit in the
/// memory available (or under `ulimit -v`) is refused with exit code 2.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// Board size (1 ≤ N < 2^32 − 1).
    n: u64,
    /// How to find the solution.
    #[arg(long, value_enum, default_value_t = Method::Explicit)]
    method: Method,
    /// Random seed for `--method search` (same seed, same solution).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads of `--method search`: 2 (the default from N = 2^24) lets a second thread
    /// place rows too (faster when both cores are free), but the board then depends on the
    /// threads' timing as well as on the seed; 1 (the default below 2^24) is deterministic
    /// per seed.
    #[arg(long)]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Cols)]
    format: Format,
    /// Write the solution to FILE instead of standard output: a new file renamed over FILE
    /// once whole (a symbolic link there is replaced, never written through; a device or a
    /// pipe such as /dev/stdout is written as it is).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// How `solve` finds its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// The closed-form construction (deterministic, O(1) per row, streamed: no O(N) memory).
    Explicit,
    /// A random solution by greedy placement and conflict repair (about 5 bytes per queen).
    Search,
}

/// How `solve` prints its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// First line N, then N lines: the 1-based column of the queen in each row (what
    /// `nqueens verify` reads).
    Cols,
    /// N lines of N characters `0`/`1` (at most N = 20000).
    Matrix,
    /// Nothing on stdout; only a summary on stderr (time, memory).
    None,
}

/// Boards from this size on get progress lines on stderr.
const PROGRESS_FROM: usize = 10_000_000;

/// Boards from this size on are searched with two threads unless `--threads` says
/// otherwise (smaller boards stay deterministic per seed; the second thread gains little
/// below it).
const THREADS_FROM: usize = 1 << 24;

/// Runs `nqueens solve`.
pub fn run(args: SolveArgs) -> ExitCode {
    let SolveArgs {
        n,
        method,
        seed,
        threads,
        format,
        output,
    } = args;
    if n == 0 || n >= u64::from(u32::MAX) {
        nqueens::diag!(
            "nqueens solve: N must be between 1 and {}, got {n}",
            u32::MAX - 1
        );
        return ExitCode::from(2);
    }
    let n = n as usize;
    if format == Format::Matrix && n > MAX_MATRIX_N {
        nqueens::diag!(
            "nqueens solve: --format matrix is limited to N ≤ {MAX_MATRIX_N} \
             ({n}×{n} characters is too much); use --format cols"
        );
        return ExitCode::from(2);
    }
    if !has_solution(n) {
        nqueens::diag!("nqueens solve: no solution exists for N = {n}");
        return ExitCode::from(1);
    }
    if method == Method::Search {
        let need = (BYTES_PER_QUEEN * n as f64) as u64;
        if let Err(e) = check_memory(&format!("--method search at N = {n}"), need) {
            nqueens::diag!("nqueens solve: {e}; --method explicit needs no memory");
            return ExitCode::from(2);
        }
    }
    let loud = n >= PROGRESS_FROM;
    let before = usage();
    let started = Instant::now();
    // The explicit columns are computed while writing; search needs the whole board first.
    let searched = match method {
        Method::Explicit => None,
        Method::Search => {
            let threads = threads.unwrap_or(if n >= THREADS_FROM { 2 } else { 1 });
            let stats = loud || format == Format::None;
            let Some(cols) = search_board(n, seed, threads, stats, loud, started) else {
                nqueens::diag!("nqueens solve: no solution exists for N = {n}");
                return ExitCode::from(1);
            };
            Some(cols)
        }
    };
    let solved = started.elapsed();
    let after_solve = usage();
    let written = Instant::now();
    let result = match (&output, format) {
        (_, Format::None) => Ok(()),
        // A link at the path is replaced, never written through (as tester's outputs).
        (Some(path), _) => match create_output(path) {
            Ok(mut file) => {
                emit(&mut file, n, searched.as_deref(), format, loud).and_then(|()| file.finish())
            }
            Err(e) => {
                let name = quote(path.as_os_str().as_encoded_bytes());
                nqueens::diag!("nqueens solve: cannot create {name}: {e}");
                return ExitCode::from(2);
            }
        },
        (None, _) => emit(std::io::stdout(), n, searched.as_deref(), format, loud),
    };
    if let Err(e) = result {
        return write_failed("solve", "the solution", &e);
    }
    if loud || format == Format::None {
        let method = match method {
            Method::Explicit => "explicit",
            Method::Search => "search",
        };
        let end = usage();
        nqueens::diag!(
            "nqueens solve: N = {n}, method {method}: solve {:.3} s (cpu {:.3} s), \
             write {:.3} s (cpu {:.3} s), total {:.3} s, peak memory {:.1} MB \
             ({:.2} bytes/queen)",
            solved.as_secs_f64(),
            after_solve.cpu - before.cpu,
            written.elapsed().as_secs_f64(),
            end.cpu - after_solve.cpu,
            started.elapsed().as_secs_f64(),
            end.peak as f64 / 1e6,
            end.peak as f64 / n as f64,
        );
    }
    ExitCode::SUCCESS
}

/// A random solution by `--method search` (0-based columns), `None` when none exists;
/// progress lines on stderr when `loud` (times from `started`), the search's statistics when
/// `stats`.
fn search_board(
    n: usize,
    seed: u64,
    threads: usize,
    stats: bool,
    loud: bool,
    started: Instant,
) -> Option<Vec<u32>> {
    let report = |p: Progress| {
        if !loud {
            return;
        }
        let t = started.elapsed().as_secs_f64();
        match p {
            Progress::Greedy { done, total } => nqueens::diag!(
                "[{t:7.2}s] search: greedy {done}/{total} rows ({:.0}%)",
                100.0 * done as f64 / total as f64
            ),
            Progress::Repairing { deferred } => {
                nqueens::diag!("[{t:7.2}s] search: repairing {deferred} deferred rows")
            }
            Progress::Restart { attempt } => {
                nqueens::diag!("[{t:7.2}s] search: repair stalled, restart {attempt}")
            }
        }
    };
    let (cols, st) = search_with(n, seed, threads, report)?;
    if stats {
        nqueens::diag!(
            "search: {} greedy tries, {} deferred rows, {} repair swaps of {} tries, {} restarts",
            st.greedy_tries,
            st.deferred,
            st.repair_swaps,
            st.repair_tries,
            st.restarts
        );
    }
    Some(cols)
}

/// Writes the solution (`searched`, or the explicit construction when `None`).
///
/// The writers hand over blocks of hundreds of kilobytes: `out` gets no buffering layer
/// (which would only copy them once more).
fn emit(
    mut out: impl Write + Send,
    n: usize,
    searched: Option<&[u32]>,
    format: Format,
    loud: bool,
) -> std::io::Result<()> {
    let started = Instant::now();
    let mut next_report = n / 10;
    let progress = |done: usize| {
        if loud && done >= next_report {
            nqueens::diag!(
                "[{:7.2}s] write: {done}/{n} rows",
                started.elapsed().as_secs_f64()
            );
            next_report += n / 10;
        }
    };
    match (format, searched) {
        (Format::Cols, Some(cols)) => write_cols(
            &mut out,
            n,
            |s, block| block.copy_from_slice(&cols[s..s + block.len()]),
            progress,
        ),
        (Format::Cols, None) => write_cols(&mut out, n, |s, b| explicit_fill(n, s, b), progress),
        (Format::Matrix, Some(cols)) => write_matrix(&mut out, n, |r| cols[r] as usize),
        (Format::Matrix, None) => write_matrix(&mut out, n, |r| explicit_column(n, r)),
        (Format::None, _) => Ok(()),
    }
}
