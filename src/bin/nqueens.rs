//! `nqueens`: N-Queens solutions for any N, completion of partial placements, and a verifier.

use clap::{Parser, Subcommand, ValueEnum};
use queenattack::nqueens::complete::{complete, Options, Verdict};
use queenattack::nqueens::composition::random_composition;
use queenattack::nqueens::explicit::{explicit_column, explicit_fill, has_solution};
use queenattack::nqueens::output::{write_cols, write_matrix, MAX_MATRIX_N};
use queenattack::nqueens::search::{search_with, Progress};
use queenattack::nqueens::verify::peaceful_text;
use queenattack::nqueens::{find_conflict, parse_placement};
use std::fs::File;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    /// Print one solution for N queens on an N×N board.
    ///
    /// N = 1 is the single queen; N = 2 and N = 3 have no solution (message on stderr, exit
    /// code 1); N = 0 or a bad argument is an error (exit code 2). Progress goes to stderr for
    /// N ≥ 10^7.
    Solve {
        /// Board size (1 ≤ N < 2^32 − 1).
        n: u64,
        /// How to find the solution.
        #[arg(long, value_enum, default_value_t = Method::Explicit)]
        method: Method,
        /// Random seed for `--method search` (same seed, same solution).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Cols)]
        format: Format,
        /// Write the solution to FILE instead of standard output.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
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
        /// Print the time spent reading, parsing and checking on stderr.
        #[arg(long)]
        timings: bool,
    },
    Complete(CompleteArgs),
    GenComposition(GenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Verify {
            nightrider,
            timings,
        } => verify(nightrider, timings),
        Command::Solve {
            n,
            method,
            seed,
            format,
            output,
        } => solve(n, method, seed, format, output),
        Command::Complete(args) => complete_cmd(args),
        Command::GenComposition(args) => gen_composition_cmd(args),
    }
}

/// How `solve` finds its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Method {
    /// The closed-form construction (deterministic, O(1) per row, streamed: no O(N) memory).
    Explicit,
    /// A random solution by greedy placement and conflict repair (about 5 bytes per queen).
    Search,
}

/// How `solve` prints its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
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

fn solve(n: u64, method: Method, seed: u64, format: Format, output: Option<PathBuf>) -> ExitCode {
    if n == 0 || n >= u64::from(u32::MAX) {
        eprintln!(
            "nqueens solve: N must be between 1 and {}, got {n}",
            u32::MAX - 1
        );
        return ExitCode::from(2);
    }
    let n = n as usize;
    if format == Format::Matrix && n > MAX_MATRIX_N {
        eprintln!(
            "nqueens solve: --format matrix is limited to N ≤ {MAX_MATRIX_N} \
             ({n}×{n} characters is too much); use --format cols"
        );
        return ExitCode::from(2);
    }
    if !has_solution(n) {
        eprintln!("nqueens solve: no solution exists for N = {n}");
        return ExitCode::from(1);
    }
    let loud = n >= PROGRESS_FROM;
    let before = usage();
    let started = Instant::now();
    // The explicit columns are computed while writing; search needs the whole board first.
    let searched = match method {
        Method::Explicit => None,
        Method::Search => {
            let report = |p: Progress| {
                if !loud {
                    return;
                }
                let t = started.elapsed().as_secs_f64();
                match p {
                    Progress::Greedy { done, total } => eprintln!(
                        "[{t:7.2}s] search: greedy {done}/{total} rows ({:.0}%)",
                        100.0 * done as f64 / total as f64
                    ),
                    Progress::Repairing { deferred } => {
                        eprintln!("[{t:7.2}s] search: repairing {deferred} deferred rows")
                    }
                    Progress::Restart { attempt } => {
                        eprintln!("[{t:7.2}s] search: repair stalled, restart {attempt}")
                    }
                }
            };
            let Some((cols, stats)) = search_with(n, seed, report) else {
                eprintln!("nqueens solve: no solution exists for N = {n}");
                return ExitCode::from(1);
            };
            if loud || format == Format::None {
                eprintln!(
                    "search: {} greedy tries, {} deferred rows, {} repair swaps of {} tries, {} restarts",
                    stats.greedy_tries, stats.deferred, stats.repair_swaps, stats.repair_tries, stats.restarts
                );
            }
            Some(cols)
        }
    };
    let solved = started.elapsed();
    let after_solve = usage();
    let written = Instant::now();
    let result = match (&output, format) {
        (_, Format::None) => Ok(()),
        (Some(path), _) => match File::create(path) {
            Ok(file) => emit(file, n, searched.as_deref(), format, loud),
            Err(e) => {
                eprintln!("nqueens solve: cannot create {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        (None, _) => emit(std::io::stdout(), n, searched.as_deref(), format, loud),
    };
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            // The reader stopped early (e.g. `| head`): not our error.
            return ExitCode::SUCCESS;
        }
        eprintln!("nqueens solve: cannot write the solution: {e}");
        return ExitCode::from(2);
    }
    if loud || format == Format::None {
        let method = match method {
            Method::Explicit => "explicit",
            Method::Search => "search",
        };
        let end = usage();
        eprintln!(
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
            eprintln!(
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

/// What this process has used so far: CPU seconds (user + system) and peak resident memory
/// in bytes, from `getrusage`. CPU time is reported beside wall time because the benchmark
/// machine is shared: wall time includes waiting for a core.
#[derive(Clone, Copy)]
struct Usage {
    cpu: f64,
    peak: u64,
}

fn usage() -> Usage {
    // SAFETY: getrusage only writes the struct we pass, which is plain data and zeroed.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return Usage { cpu: 0.0, peak: 0 };
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
        // Linux reports kilobytes.
        peak: ru.ru_maxrss as u64 * 1024,
    }
}

fn verify(nightrider: bool, timings: bool) -> ExitCode {
    let before = usage();
    let started = Instant::now();
    let text = match read_stdin() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("nqueens verify: cannot read standard input: {e}");
            return ExitCode::from(2);
        }
    };
    let read = started.elapsed();
    let after_read = usage();
    // One streaming pass settles the common case, a peaceful board in `solve`'s shape; any
    // other answer comes from the exact reader and checker below.
    if let Some((n, queens)) = (!nightrider).then(|| peaceful_text(&text)).flatten() {
        if timings {
            let (done, end) = (started.elapsed(), usage());
            eprintln!(
                "nqueens verify: N = {n}, {queens} queens: read {:.3} s (cpu {:.3} s), \
                 parse + check in one pass {:.3} s (cpu {:.3} s), total {:.3} s (cpu {:.3} s), \
                 peak memory {:.1} MB",
                read.as_secs_f64(),
                after_read.cpu - before.cpu,
                (done - read).as_secs_f64(),
                end.cpu - after_read.cpu,
                done.as_secs_f64(),
                end.cpu - before.cpu,
                end.peak as f64 / 1e6,
            );
        }
        println!("OK");
        return ExitCode::SUCCESS;
    }
    let placement = match parse_placement(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("nqueens verify: malformed input: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = started.elapsed();
    drop(text);
    let after_parse = usage();
    let conflict = find_conflict(&placement, nightrider);
    let checked = started.elapsed();
    let end = usage();
    if timings {
        eprintln!(
            "nqueens verify: N = {}, {} queens: read {:.3} s (cpu {:.3} s), parse {:.3} s \
             (cpu {:.3} s), check {:.3} s (cpu {:.3} s), total {:.3} s (cpu {:.3} s), \
             peak memory {:.1} MB",
            placement.n(),
            placement.count(),
            read.as_secs_f64(),
            after_read.cpu - before.cpu,
            (parsed - read).as_secs_f64(),
            after_parse.cpu - after_read.cpu,
            (checked - parsed).as_secs_f64(),
            end.cpu - after_parse.cpu,
            checked.as_secs_f64(),
            end.cpu - before.cpu,
            end.peak as f64 / 1e6,
        );
    }
    match conflict {
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

/// Standard input as bytes: a regular file is memory-mapped (no copy, no growing buffer),
/// anything else (a pipe) is read whole.
fn read_stdin() -> std::io::Result<Input> {
    #[cfg(unix)]
    {
        use std::io::Seek;
        use std::os::fd::AsFd;
        let mut file = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
        let regular = file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
        if regular && file.stream_position().is_ok_and(|p| p == 0) {
            // SAFETY: the map is read-only and lives only while we parse; if another process
            // truncated the file meanwhile we could fault, the usual caveat of reading a file
            // through a map, accepted for the speed on inputs of hundreds of megabytes.
            if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
                return Ok(Input::Mapped(map));
            }
        }
    }
    let mut text = Vec::with_capacity(1 << 24);
    std::io::stdin().lock().read_to_end(&mut text)?;
    Ok(Input::Read(text))
}

/// The bytes of the input, mapped or read.
enum Input {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(v) => v,
        }
    }
}

// ---- `complete` and `gen-composition` ------------------------------------------------------

/// Finish a partial placement read from standard input, or show it cannot be finished.
///
/// Input: seed 000's format (`N K`, then K lines `row col`, 1-based) or the `cols` format
/// (first line N, then N lines with the 1-based column of the queen in that row, 0 for an empty
/// row). Output (seed 000): `YES` and N lines, the 1-based column of the queen in row 1..N,
/// keeping the given queens; or `NO`. Standard error says how a NO was reached: proven (and by
/// which argument) or not found within the time limit. Exit code 0 for YES and NO, 2 for
/// malformed or inconsistent input (the message names the line or the attacking pair).
#[derive(clap::Args)]
struct CompleteArgs {
    /// Queens also attack like nightriders (lines of slope ±2 and ±1/2). No such board exists
    /// for N = 2..9, so those answer NO at once.
    #[arg(long)]
    nightrider: bool,
    /// Wall-clock budget in seconds; when it runs out the answer is an unproven NO.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    time_limit: f64,
    /// Seed of the random choices (same seed and input, same answer).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead: verdict, proof status and argument, statistics, timings
    /// in milliseconds, and the board (`board`, 1-based columns) on YES.
    #[arg(long)]
    json: bool,
}

/// Print a random consistent composition: K queens of a random full N×N board.
///
/// The composition can always be completed (seed 004 §7). Output in seed 000's format (`N K`, then K lines
/// `row col`, 1-based, by row) or, with `--format cols`, one line per row (0 = empty).
#[derive(clap::Args)]
struct GenArgs {
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
    /// Wall-clock budget in seconds for finding the random full board.
    #[arg(long, default_value_t = 600.0, value_parser = positive_seconds)]
    time_limit: f64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum GenFormat {
    /// `N K`, then K lines `row col` (seed 000).
    Pairs,
    /// `N`, then N lines: the 1-based column, or 0 for an empty row (seed 004).
    Cols,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e9 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// Appends `v` and a newline to `out` (faster than `write!` for 10^8 lines).
fn push_line(out: &mut Vec<u8>, v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = v;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
    out.push(b'\n');
}

/// Writes `head`, then the values one per line with `sep` after each but the last, then `tail`.
fn write_values(
    head: &[u8],
    values: impl Iterator<Item = u64>,
    sep: u8,
    tail: &[u8],
) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let mut buf = Vec::with_capacity(1 << 20);
    buf.extend_from_slice(head);
    let mut first = true;
    for v in values {
        if !first && sep != b'\n' {
            buf.pop();
            buf.push(sep);
        }
        first = false;
        push_line(&mut buf, v);
        if buf.len() >= 1 << 20 {
            lock.write_all(&buf)?;
            buf.clear();
        }
    }
    if sep != b'\n' && !first {
        buf.pop();
    }
    buf.extend_from_slice(tail);
    lock.write_all(&buf)?;
    lock.flush()
}

fn complete_cmd(args: CompleteArgs) -> ExitCode {
    let t0 = Instant::now();
    let mut text = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut text) {
        eprintln!("nqueens complete: cannot read standard input: {e}");
        return ExitCode::from(2);
    }
    let placement = match parse_placement(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("nqueens complete: malformed input: {e}");
            return ExitCode::from(2);
        }
    };
    drop(text);
    let n = placement.n();
    let read_time = t0.elapsed();
    let big = n >= 1_000_000;
    if big {
        eprintln!(
            "nqueens complete: read N = {n} in {:.2} s",
            read_time.as_secs_f64()
        );
    }
    let opts = Options {
        nightrider: args.nightrider,
        time_limit: Duration::from_secs_f64(args.time_limit),
        seed: args.seed,
    };
    let done = match complete(&placement, &opts) {
        Ok(d) => d,
        Err(conflict) => {
            eprintln!(
                "nqueens complete: inconsistent input: the given {conflict}{}",
                if args.nightrider {
                    " (nightrider rules)"
                } else {
                    ""
                }
            );
            return ExitCode::from(2);
        }
    };
    drop(placement);
    let st = &done.stats;
    if big {
        eprintln!(
            "nqueens complete: solved in {:.2} s (verified)",
            st.total_time.as_secs_f64()
        );
    }
    let (word, proven, reason) = match &done.verdict {
        Verdict::Yes(_) => ("YES", None, String::new()),
        Verdict::Proven(p) => ("NO", Some(true), format!("proven: {p}")),
        Verdict::NotFound => (
            "NO",
            Some(false),
            format!(
                "not proven: no completion found within the time limit of {} s \
                 (a completion may still exist)",
                args.time_limit
            ),
        ),
    };
    if word == "NO" {
        eprintln!("nqueens complete: NO, {reason}");
    }
    let cols: &[u32] = match &done.verdict {
        Verdict::Yes(c) => c,
        _ => &[],
    };
    let result = if args.json {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let header = serde_json::json!({
            "verdict": word,
            "proven": proven,
            "reason": reason,
            "n": n,
            "given": st.given,
            "free_rows": st.free_rows,
            "nightrider": args.nightrider,
            "seed": args.seed,
            "time_limit_s": args.time_limit,
            "stats": {
                "restarts": st.restarts,
                "tail_searches": st.tail_searches,
                "max_tail": st.max_tail,
                "nodes": st.nodes,
            },
            "times_ms": {
                "read": ms(read_time),
                "proofs": ms(st.proof_time),
                "complete": ms(st.total_time),
                "total_before_output": ms(t0.elapsed()),
            },
        });
        let mut head = header.to_string().into_bytes();
        head.pop(); // reopen the object to stream the board
        if cols.is_empty() {
            head.extend_from_slice(b"}\n");
            write_values(&head, std::iter::empty(), b'\n', b"")
        } else {
            head.extend_from_slice(b",\"board\":[");
            write_values(&head, cols.iter().map(|&c| c as u64), b',', b"]}\n")
        }
    } else if word == "YES" {
        write_values(b"YES\n", cols.iter().map(|&c| c as u64), b'\n', b"")
    } else {
        write_values(b"NO\n", std::iter::empty(), b'\n', b"")
    };
    if let Err(e) = result {
        eprintln!("nqueens complete: cannot write the answer: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn gen_composition_cmd(args: GenArgs) -> ExitCode {
    let GenArgs {
        n,
        k,
        seed,
        nightrider,
        format,
        time_limit,
    } = args;
    if n == 0 || n > queenattack::nqueens::placement::MAX_N {
        eprintln!("nqueens gen-composition: N must be at least 1");
        return ExitCode::from(2);
    }
    let queens =
        match random_composition(n, k, nightrider, seed, Duration::from_secs_f64(time_limit)) {
            Ok(q) => q,
            Err(e) => {
                eprintln!("nqueens gen-composition: {e}");
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
        eprintln!("nqueens gen-composition: cannot write: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
