//! `--bound` and `--with-bound` of the `queenattack` binary (a module of `src/main.rs`, not of
//! the library): the bound's search on a thread of its own, watched until its deadline, and
//! the bound printed once — by the main thread at the deadline, by a signal handler, or by the
//! last resort when memory runs out.

use crate::{
    on_signal, Cli, BOUND_MODE, BOUND_PROGRESS, BOUND_SECONDS, CHECKPOINT, INTERRUPTED, READ_SHARE,
};
use queenattack::solver::board::Board;
use queenattack::solver::lower_bound::{lower_bound_watched, LowerBound, ProofStop};
use queenattack::solver::output::{write_stdout, Line};
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// With `--bound`: on Ctrl-C, SIGTERM or SIGHUP the best bound certified so far is printed
/// (a bound cut short is still a bound) and the process exits with code 130.
fn write_bound_on_signal(started: Instant) {
    on_signal(move || {
        let value = BOUND_PROGRESS.value();
        let written = CHECKPOINT.write_once(|_, _| (write_bound(value).is_ok(), INTERRUPTED));
        if let Some(ok) = written {
            queenattack::diag!(
                "queenattack: stopped by a signal after {:.3} s: {} the bound certified so far \
                 ({:.4})",
                started.elapsed().as_secs_f64(),
                if ok { "wrote" } else { "could not write" },
                round_down(value)
            );
        }
    });
}

/// Writes `value` rounded down to 4 decimals (still a bound) and a newline on stdout, without
/// allocating.
pub(crate) fn write_bound(value: f64) -> std::io::Result<()> {
    let mut line = Line::default();
    let _ = writeln!(line, "{:.4}", round_down(value));
    write_stdout(line.as_bytes())
}

/// Scores this close above the bound meet it (the bound is rounded down by far less).
const OPTIMAL_EPS: f64 = 1e-6;

/// `--with-bound`: the certified lower bound of `board` within `seconds` from now, as
/// `[DATA]` lines (`bound`, `gap`, `bound_ms`), and whether the answer's `score` meets it (is
/// optimal). The answer's score is the proof search's incumbent.
pub(crate) fn bound_after(
    board: &Board,
    score: f64,
    started: Instant,
    seconds: f64,
    verbose: bool,
) -> (String, bool) {
    let from = Instant::now();
    let deadline = from + Duration::from_secs_f64(seconds);
    let bound = lower_bound_watched(board, deadline, score, &BOUND_PROGRESS);
    let unrounded = bound
        .as_ref()
        .map_or_else(|| BOUND_PROGRESS.value(), |b| b.value);
    let value = round_down(unrounded);
    // share of the score the bound does not certify: 0 for an optimal answer
    let gap = if score > 0.0 {
        ((score - value) / score).max(0.0)
    } else {
        0.0
    };
    // the unrounded bound: a proven optimum meets the score up to the sums' rounding, while
    // 4 decimals would hide it
    let optimal = score <= unrounded + OPTIMAL_EPS;
    if verbose {
        let above = match () {
            _ if optimal => "optimal".to_string(),
            _ if value > 0.0 => format!(
                "at most {:.2} % above the optimum",
                (score / value - 1.0) * 100.0
            ),
            _ => "not bounded away from 0".to_string(),
        };
        let how = bound.as_ref().map_or(CUT.to_string(), |b| {
            format!("{} steps, stop: {:?}", b.steps, b.stop)
        });
        queenattack::diag!(
            "[{:6.3}s] lower bound {value:.4} ({how}): the answer's score {score:.4} is {above}",
            started.elapsed().as_secs_f64(),
        );
        if let Some(bound) = &bound {
            log_proof(bound, started);
        }
    }
    let text = format!(
        "[DATA] bound = {value}\n[DATA] gap = {gap}\n[DATA] bound_ms = {}\n",
        from.elapsed().as_millis()
    );
    (text, optimal)
}

/// How `--verbose` says that the bound's search was still going at its deadline.
const CUT: &str = "the search was still going at its deadline: the best certified by then";

/// With `--verbose`: what the proof search with blocking found, when it ran.
fn log_proof(bound: &LowerBound, started: Instant) {
    if let Some(proof) = &bound.proof {
        let what = match proof.stop {
            ProofStop::Optimum => "the least cost of an error-free answer",
            ProofStop::Exhausted => "no error-free answer costs less",
            ProofStop::Deadline => "cut by the deadline, error-free answers cost at least",
            ProofStop::States => "cut by the state cap, error-free answers cost at least",
        };
        queenattack::diag!(
            "[{:6.3}s] proof with blocking: {what} {:.6} ({} states, {} expanded)",
            started.elapsed().as_secs_f64(),
            proof.value,
            proof.states,
            proof.expanded
        );
    }
}

/// `value` rounded down to 4 decimals (still a bound).
fn round_down(value: f64) -> f64 {
    (value * 1e4).floor() / 1e4
}

/// `--bound`: prints the certified lower bound of `board` on stdout, rounded down to 4
/// decimals, and with `--verbose` how it was found on stderr. The search runs on a thread of
/// its own; at its deadline the main thread prints the best bound certified so far whatever
/// the search is doing, and so does a signal.
pub(crate) fn print_bound(board: &Board, started: Instant, cli: &Cli) -> ExitCode {
    BOUND_MODE.store(true, Ordering::SeqCst);
    write_bound_on_signal(started);
    let seconds = cli
        .bound_time
        .unwrap_or(BOUND_SECONDS.min(cli.time_limit * READ_SHARE));
    let deadline = started + Duration::from_secs_f64(seconds);
    let bound = lower_bound_watched(board, deadline, f64::INFINITY, &BOUND_PROGRESS);
    let value = bound
        .as_ref()
        .map_or_else(|| BOUND_PROGRESS.value(), |b| b.value);
    if cli.verbose {
        log_bound(bound.as_ref(), value, started);
    }
    match CHECKPOINT.write_once(|_, _| {
        let result = write_bound(value);
        let code = if result.is_ok() { 0 } else { 1 };
        (result, code)
    }) {
        Some(Ok(())) => ExitCode::SUCCESS,
        Some(Err(e)) => {
            queenattack::diag!("queenattack: cannot write the bound: {e}");
            ExitCode::from(1)
        }
        // a signal came first: its handler wrote the bound and ends the process
        None => ExitCode::from(INTERRUPTED),
    }
}

/// With `--bound --verbose`: how the bound `value` was found (`bound`: `None` when the search
/// was still going at its deadline).
fn log_bound(bound: Option<&LowerBound>, value: f64, started: Instant) {
    let at = started.elapsed().as_secs_f64();
    let Some(bound) = bound else {
        queenattack::diag!("[{at:6.3}s] lower bound {value:.4}: {CUT}");
        return;
    };
    queenattack::diag!(
        "[{at:6.3}s] lower bound {:.4}: relaxation optimum at most {:.4}, {} steps, {} queens, \
         stop: {:?}",
        bound.value,
        bound.relaxed,
        bound.steps,
        bound.queens,
        bound.stop
    );
    if let Some(cases) = &bound.cases {
        queenattack::diag!(
            "[{at:6.3}s] error-free answers score at least {:.4} ({} colours' N-Queens \
             minima exact), answers with errors at least {:.4}",
            cases.free,
            cases.proven,
            cases.errors
        );
    }
    log_proof(bound, started);
}
