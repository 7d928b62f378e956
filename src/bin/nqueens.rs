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
    Complete(CompleteArgs),
    GenComposition(GenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Verify { nightrider } => verify(nightrider),
        Command::Complete(args) => complete_cmd(args),
        Command::GenComposition(args) => gen_composition_cmd(args),
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

// ---- `complete` and `gen-composition` ------------------------------------------------------

use queenattack::nqueens::complete::{complete, Options, Verdict};
use queenattack::nqueens::composition::random_composition;
use std::io::Write;
use std::time::{Duration, Instant};

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
