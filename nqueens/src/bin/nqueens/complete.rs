//! `nqueens complete`: finish a partial placement, or show that it cannot be finished.

use crate::io::{positive_seconds, read_stdin, write_failed, write_values};
use nqueens::complete::{complete, memory_needed, Completion, Options, Stats, Verdict};
use nqueens::mem::check_memory;
use nqueens::{parse_placement, Placement};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Finish a partial placement read from standard input, or show it cannot be finished.
///
/// Input (docs/nqueens.md): seed 000's format (`N K`, then K lines `row col`, 1-based, as
/// `gen-composition` prints) or the `cols` format (first line N, then N lines with the 1-based
/// column of the queen in that row, 0 for an empty row). Output (seed 000): `YES` and N lines,
/// the 1-based column of the queen in row 1..N, keeping the given queens (what `verify`
/// reads); or `NO`. Standard error says how a NO was reached: proven (and by which argument)
/// or not found within the time limit. Exit code 0 for YES and NO, 2 for malformed or
/// inconsistent input (the message names the line or the attacking pair) and for a board
/// too large for the memory available.
#[derive(clap::Args)]
pub struct CompleteArgs {
    /// Queens also attack like nightriders (lines of slope ±2 and ±1/2). No such board exists
    /// for N = 2..9, so those answer NO at once.
    #[arg(long)]
    nightrider: bool,
    /// Wall-clock budget in seconds for the whole run (reading and writing included); when it
    /// runs out the answer is `NO`, not proven.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds, allow_negative_numbers = true)]
    time_limit: f64,
    /// Seed of the random choices (with `--threads 1`: same seed and input, same answer).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Independent runs raced on this many threads, each with its own seed; the first answer
    /// wins. 2 (the default) uses both cores of a two-core machine and cuts the heavy tails
    /// of hard nightrider compositions; the answer then depends on the threads' timing too.
    /// 1 is repeatable per seed. Boards over 65 536 rows always use one thread.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// Print one JSON object instead: verdict, proof status and argument, statistics, timings
    /// in milliseconds, and the board (`board`, 1-based columns) on YES.
    #[arg(long)]
    json: bool,
}

/// Runs `nqueens complete`; `t0` is when the process started (the budget counts from there).
pub fn run(args: CompleteArgs, t0: Instant) -> ExitCode {
    let placement = match read_placement() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let n = placement.n();
    let read_time = t0.elapsed();
    let big = n >= 1_000_000;
    if big {
        nqueens::diag!(
            "nqueens complete: read N = {n} in {:.2} s",
            read_time.as_secs_f64()
        );
    }
    if let Err(e) = check_memory(
        &format!("completing a board of size N = {n}"),
        memory_needed(n, args.nightrider),
    ) {
        nqueens::diag!("nqueens complete: {e}");
        return ExitCode::from(2);
    }
    // What is left of the budget, less the time to write the answer.
    let budget = Duration::from_secs_f64(args.time_limit)
        .saturating_sub(t0.elapsed())
        .saturating_sub(output_time(n));
    let opts = Options {
        nightrider: args.nightrider,
        time_limit: budget,
        seed: args.seed,
        threads: usize::from(args.threads),
    };
    // A budget shorter than setting the board up: answer at once rather than late.
    let too_short = budget < setup_time(n);
    let done = if too_short {
        Completion {
            verdict: Verdict::NotFound,
            stats: Stats {
                given: placement.count(),
                free_rows: n - placement.count(),
                ..Stats::default()
            },
        }
    } else {
        match complete(&placement, &opts) {
            Ok(d) => d,
            Err(conflict) => {
                nqueens::diag!(
                    "nqueens complete: inconsistent input: the given {conflict}{}",
                    if args.nightrider {
                        " (nightrider rules)"
                    } else {
                        ""
                    }
                );
                return ExitCode::from(2);
            }
        }
    };
    drop(placement);
    let st = &done.stats;
    if big {
        nqueens::diag!(
            "nqueens complete: finished in {:.2} s",
            st.total_time.as_secs_f64()
        );
    }
    let (word, proven, reason) = verdict_words(&done.verdict, too_short, args.time_limit, n);
    if word == "NO" {
        nqueens::diag!("nqueens complete: NO, {reason}");
    }
    let answer = Answer {
        word,
        proven,
        reason: &reason,
        read_time,
    };
    let result = write_answer(&args, n, &done, &answer, t0);
    if let Err(e) = result {
        return write_failed("complete", "the answer", &e);
    }
    ExitCode::SUCCESS
}

/// Reads standard input and parses the placement; on failure the message is printed and the
/// exit code returned.
fn read_placement() -> Result<Placement, ExitCode> {
    let text = read_stdin().map_err(|e| {
        nqueens::diag!("nqueens complete: cannot read standard input: {e}");
        ExitCode::from(2)
    })?;
    parse_placement(&text).map_err(|e| {
        nqueens::diag!("nqueens complete: malformed input: {e}");
        ExitCode::from(2)
    })
}

/// The verdict line's word, the proof status for `--json` (`None` on YES) and the reason
/// given for a NO; `too_short`: the budget of `time_limit` seconds did not cover setting up
/// a board of `n` rows, so no stage ran.
fn verdict_words(
    verdict: &Verdict,
    too_short: bool,
    time_limit: f64,
    n: usize,
) -> (&'static str, Option<bool>, String) {
    match verdict {
        Verdict::Yes(_) => ("YES", None, String::new()),
        Verdict::Proven(p) => ("NO", Some(true), format!("proven: {p}")),
        Verdict::NotFound => (
            "NO",
            Some(false),
            if too_short {
                format!(
                    "not proven: the time limit of {time_limit} s is too short for N = {n} \
                     (setting the board up and writing it take about {:.1} s)",
                    (setup_time(n) + output_time(n)).as_secs_f64()
                )
            } else {
                format!(
                    "not proven: no completion found within the time limit of {time_limit} s \
                     (a completion may still exist; the limit covers the whole run, reading \
                     and writing included)"
                )
            },
        ),
    }
}

/// What the verdict line says, and the reading time for `--json`.
struct Answer<'a> {
    word: &'static str,
    proven: Option<bool>,
    reason: &'a str,
    read_time: Duration,
}

/// Prints the answer: `YES` and the board, `NO`, or the `--json` object (streamed: the board
/// of a huge N is never held as text).
fn write_answer(
    args: &CompleteArgs,
    n: usize,
    done: &Completion,
    answer: &Answer,
    t0: Instant,
) -> std::io::Result<()> {
    let st = &done.stats;
    let cols: &[u32] = match &done.verdict {
        Verdict::Yes(c) => c,
        _ => &[],
    };
    if args.json {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let header = serde_json::json!({
            "verdict": answer.word,
            "proven": answer.proven,
            "reason": answer.reason,
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
                "read": ms(answer.read_time),
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
    } else if answer.word == "YES" {
        write_values(b"YES\n", cols.iter().map(|&c| c as u64), b'\n', b"")
    } else {
        write_values(b"NO\n", std::iter::empty(), b'\n', b"")
    }
}

/// Time reserved at the end of the budget for checking and writing a board of `n` rows.
/// Measured on 10^8 rows: the final check about 0.4 s and the writing 0.9 s, so 15 ns a row
/// leaves a margin.
fn output_time(n: usize) -> Duration {
    Duration::from_nanos(15 * n as u64)
}

/// The least time the board of `n` rows takes to set up before any search (checking the
/// given queens, line bits, free rows and columns). Measured on 10^8 rows: about 1.1 s.
fn setup_time(n: usize) -> Duration {
    Duration::from_nanos(15 * n as u64)
}
