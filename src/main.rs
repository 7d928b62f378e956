//! `queenattack`: reads an official QueenAttack input on stdin, prints the moves on stdout.

use clap::Parser;
use queenattack::solver::board::{quote, Board, MAX_COLOURS, MAX_N};
use queenattack::solver::checkpoint::Checkpoint;
use queenattack::solver::input::BoardText;
use queenattack::solver::lower_bound::{lower_bound_within, LowerBound, ProofStop};
use queenattack::solver::{solve_threads, Options, Params, RunStats, Solution, Stop, MAX_THREADS};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Most bytes read from stdin. A 128 × 128 board written one value a line is about 50 KB; 1 MiB
/// leaves room for up to 60 bytes of spacing per value. `yes 0 | queenattack` stops here.
const MAX_INPUT_BYTES: usize = 1 << 20;
/// Longest time limit accepted (one day, as `tester run`); longer ones are refused.
const MAX_TIME_LIMIT: f64 = 86_400.0;
/// Share of the time limit the board may take to arrive: the solver's own compute share for
/// short limits, after which nothing but the empty answer could be computed.
const READ_SHARE: f64 = 0.70;
/// Longest time `--bound` takes (the limit: 1 s on any contest board), less a margin for
/// process start and exit.
const BOUND_SECONDS: f64 = 0.9;

/// Solver for Topcoder Marathon Match 150 QueenAttack.
///
/// Reads N, C and the N*N cells (-1 wall, 0 empty, k = queen of colour k) from stdin and
/// prints the number of moves, then one move per line as `r1 c1 r2 c2` (0-based).
#[derive(Parser, Debug)]
#[command(version, about, long_about, after_long_help = LIMITS)]
struct Cli {
    /// Wall-clock budget in seconds for the whole run, output included (finishes by 95 % of it).
    /// More than 0 and at most 86400.
    #[arg(long, default_value_t = 10.0, value_parser = Seconds("--time-limit"))]
    time_limit: f64,
    /// Seed of the random generator, for reproducible runs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Independent runs side by side, one thread each (run i is the run of --seed + i), the
    /// best answer printed; 1..=64. The contest allows one; more is for tables of best-known
    /// answers on a machine with cores to spare (every run keeps the time limit, so more
    /// threads than free cores makes each run weaker).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    threads: u16,
    /// Print progress on stderr: phase, boards found, best score so far.
    #[arg(long)]
    verbose: bool,
    /// Override one tuning parameter for this run (repeatable); --list-params lists them.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Print every tuning parameter as `name = default  # doc` and exit (with --param: the
    /// values after the overrides).
    #[arg(long)]
    list_params: bool,
    /// Print a certified lower bound on the score of every legal answer instead of moves (one
    /// number on stdout, rounded down to 4 decimals), computed within --bound-time seconds
    /// (without it: min(0.9 s, 70 % of --time-limit)). See docs/solver.md.
    #[arg(long)]
    bound: bool,
    /// After the answer is written (so it costs the answer no time), compute the certified lower
    /// bound within its own --bound-time (default 0.9 s) and print `[DATA] bound`, `[DATA] gap`
    /// (share of the score above the bound) and `[DATA] bound_ms` with the other [DATA] lines;
    /// an answer whose score meets the bound is reported `stop = Optimal`. The process then
    /// ends up to --bound-time after the time limit. With --verbose the log says the bound and
    /// the gap.
    #[arg(long, conflicts_with = "bound")]
    with_bound: bool,
    /// Seconds the lower bound of --bound or --with-bound may take (more than 0, at most 86400;
    /// default 0.9). The bound keeps improving while it has time (its searches run to their
    /// end, on small boards an exact search that knows pieces block each other, which proves
    /// the optimum when it finishes) and prints the best value certified by then: a bound cut
    /// by its time is still a bound.
    #[arg(long, value_name = "SECS", value_parser = Seconds("--bound-time"))]
    bound_time: Option<f64>,
}

const LIMITS: &str = "\
Limits and bad input:
  N is 1..=128, C is 1..=100, and every colour 1..=C has exactly N queens (so C <= N).
  The solver starts as soon as the last cell has arrived (followed by whitespace or the end
  of stdin): it never waits for stdin to end, and nothing after the board is read. The board
  must arrive within 70 % of the time limit and within 1 MiB of stdin.
  Anything else (and a --time-limit or --bound-time outside 0 < SECS <= 86400, or
  --bound-time without --bound or --with-bound) is refused: a one-line message
  on stderr quoting at most 80 bytes of the bad token, nothing on stdout, exit code 2.
  Below about 0.01 s the limit cannot be kept (starting the process takes longer).

Anytime:
  The answer is legal whenever it is printed: the best found when the time is up, an answer
  proven optimal as soon as it is found (no errors left, or a score equal to a lower bound).

Tuning:
  --list-params prints every tuning parameter of the solver with its default and what it
  tunes (docs/solver.md, Parameters); --param NAME=VALUE overrides one for this run. An unknown
  name, or a value that does not parse or lies outside the parameter's range, is refused with
  exit code 2.

Ctrl-C, SIGTERM or a closed terminal write the best answer completed so far and exit 130.

Exit codes: 0 answer printed, 1 the answer could not be written, 2 bad option or bad input,
130 stopped by a signal.";

/// The `--verbose` line of a run on several threads: the seeds they ran and their scores.
fn log_threads(seed: u64, scores: &[f64]) {
    let last = seed.wrapping_add(scores.len() as u64 - 1);
    let scores: Vec<String> = scores.iter().map(|s| format!("{s:.4}")).collect();
    queenattack::diag!(
        "threads, --seed {seed} to {last}: scores {}",
        scores.join(", ")
    );
}

/// The parameters of this run: the defaults with `overrides` (`NAME=VALUE`) applied.
fn params(overrides: &[String]) -> Result<Params, queenattack::solver::ParamError> {
    let mut params = Params::default();
    for text in overrides {
        params.apply(text)?;
    }
    Ok(params)
}

/// Parses a number of seconds in `0 < SECS <= MAX_TIME_LIMIT` for the option it names
/// (`--time-limit`, `--bound-time`). A parser of its own, because clap's message for a refused
/// value would echo the whole value.
#[derive(Clone, Copy)]
struct Seconds(&'static str);

impl clap::builder::TypedValueParser for Seconds {
    type Value = f64;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<f64, clap::Error> {
        let text = value.to_string_lossy();
        match text.parse::<f64>() {
            Ok(v) if v > 0.0 && v <= MAX_TIME_LIMIT => Ok(v),
            _ => Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "{} {} is not a number of seconds in 0 < SECS <= {MAX_TIME_LIMIT}\n",
                    self.0,
                    quote(&text)
                ),
            )),
        }
    }
}

/// `seconds` for a message: plain decimals, or scientific notation below a millisecond
/// (`5e-324`, not 330 digits).
fn seconds_text(seconds: f64) -> String {
    if seconds > 0.0 && seconds < 1e-3 {
        format!("{seconds:e}")
    } else {
        format!("{seconds}")
    }
}

/// Why stdin gave no board to parse.
enum ReadError {
    TooLong,
    /// The deadline came before the board was complete: the values received and the values
    /// the board needs (unknown before N has arrived).
    Stalled(usize, Option<usize>),
    Failed(std::io::Error),
}

/// Reads stdin until the board is complete (see [`BoardText`]) or the stream ends, at most
/// `MAX_INPUT_BYTES`, until `deadline`. Never waits for the end of a stream that stays open
/// after the board, as the official tester's does. A helper thread does the blocking reads (a
/// thread blocked on a pipe that stays open does not keep the process alive).
fn read_board(deadline: Instant) -> Result<Vec<u8>, ReadError> {
    // A few chunks in flight at most: memory stays bounded whatever the writer sends.
    let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(4);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            let sent = match stdin.read(&mut chunk) {
                Ok(0) => return, // the end of the stream: the channel closes
                Ok(k) => tx.send(Ok(chunk[..k].to_vec())),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => tx.send(Err(e)),
            };
            if sent.is_err() {
                return;
            }
        }
    });
    let mut text = BoardText::default();
    loop {
        if let Some(board) = text.complete() {
            if board.len() > MAX_INPUT_BYTES {
                return Err(ReadError::TooLong);
            }
            return Ok(board.to_vec());
        }
        if text.len() > MAX_INPUT_BYTES {
            return Err(ReadError::TooLong);
        }
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(chunk)) => text.push(&chunk),
            Ok(Err(e)) => return Err(ReadError::Failed(e)),
            // The stream ended: the parser says what, if anything, is missing.
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(text.received().to_vec()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return match text.progress() {
                    // Every value is there, the last one not yet followed by a space: take it.
                    (got, Some(needed)) if got >= needed => Ok(text.received().to_vec()),
                    (got, needed) => Err(ReadError::Stalled(got, needed)),
                };
            }
        }
    }
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = Cli::parse();
    let params = match params(&cli.params) {
        Ok(params) => params,
        Err(e) => {
            queenattack::diag!("queenattack: bad option: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.list_params {
        let listing = params.listing();
        return match std::io::stdout().lock().write_all(listing.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(1),
        };
    }
    if cli.bound_time.is_some() && !cli.bound && !cli.with_bound {
        queenattack::diag!("queenattack: bad option: --bound-time needs --bound or --with-bound");
        return ExitCode::from(2);
    }
    let read_by = started + Duration::from_secs_f64(cli.time_limit * READ_SHARE);
    let input = match read_board(read_by) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            report_read_error(e, started, cli.time_limit);
            return ExitCode::from(2);
        }
    };
    let board = match Board::parse_official(&input) {
        Ok(board) => board,
        Err(e) => {
            queenattack::diag!("queenattack: bad input: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.bound {
        return print_bound(&board, started, &cli);
    }
    write_best_on_signal(board.n, started);
    let options = Options {
        time_limit: cli.time_limit,
        seed: cli.seed,
        verbose: cli.verbose,
        params,
        checkpoint: Some(&CHECKPOINT),
    };
    let mut stats = RunStats::default();
    let (solution, scores) =
        solve_threads(&board, options, cli.threads.into(), started, &mut stats);
    if cli.verbose && scores.len() > 1 {
        log_threads(cli.seed, &scores);
    }
    if cli.verbose {
        queenattack::diag!(
            "[{:6.3}s] final: {} moves, {} errors, score {:.4}, stop: {:?}",
            started.elapsed().as_secs_f64(),
            solution.moves.len(),
            solution.outcome.errors,
            solution.outcome.score,
            solution.stop
        );
    }
    match CHECKPOINT.write_once(|_| write_answer(board.n, &solution.moves)) {
        Some(Ok(())) => {}
        Some(Err(e)) => {
            queenattack::diag!("queenattack: cannot write the answer: {e}");
            return ExitCode::from(1);
        }
        // a signal came first: its handler wrote the best answer and ends the process
        None => return ExitCode::from(INTERRUPTED),
    }
    // After the answer, so they cost it nothing: `tester run` keeps these per seed.
    let wall_ms = started.elapsed().as_millis();
    let mut data = String::new();
    let mut stop = solution.stop;
    if cli.with_bound {
        let bound_time = cli.bound_time.unwrap_or(BOUND_SECONDS);
        let (bound_data, optimal) =
            bound_after(&board, &solution, started, bound_time, cli.verbose);
        data.push_str(&bound_data);
        if optimal {
            stop = Stop::Optimal;
        }
    }
    queenattack::diag!(
        "[DATA] score = {}\n[DATA] errors = {}\n[DATA] moves = {}\n[DATA] stop = {stop:?}\n\
         [DATA] wall_ms = {wall_ms}\n[DATA] boards = {}\n[DATA] runs = {}{}",
        solution.outcome.score,
        solution.outcome.errors,
        solution.moves.len(),
        stats.boards,
        stats.runs,
        // `data` ends in a newline when it has lines; `diag!` adds the last one
        data.strip_suffix('\n')
            .map(|d| format!("\n{d}"))
            .unwrap_or_default(),
    );
    ExitCode::SUCCESS
}

/// Says on stderr why stdin gave no board (the run then exits with code 2).
fn report_read_error(e: ReadError, started: Instant, time_limit: f64) {
    match e {
        ReadError::TooLong => queenattack::diag!(
            "queenattack: bad input: longer than {MAX_INPUT_BYTES} bytes \
             (N <= {MAX_N}, C <= {MAX_COLOURS} never need that much)"
        ),
        ReadError::Stalled(got, needed) => queenattack::diag!(
            "queenattack: bad input: the board was not complete within {:.3} s \
             ({:.0} % of the {} s limit): {got} of {} values arrived; no answer",
            started.elapsed().as_secs_f64(),
            READ_SHARE * 100.0,
            seconds_text(time_limit),
            needed.map_or("2 + N·N".to_string(), |n| n.to_string()),
        ),
        ReadError::Failed(e) => queenattack::diag!("queenattack: cannot read stdin: {e}"),
    }
}

/// Exit code of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
const INTERRUPTED: u8 = 130;

/// The answers of the run (the first answer, the best routed board, the end of each run), for
/// the signal handler.
static CHECKPOINT: Checkpoint = Checkpoint::new();

/// On Ctrl-C, SIGTERM or SIGHUP (a closed terminal) the best answer offered so far is written
/// (an empty one if none was), with `[DATA] stop = Interrupted`, and the process exits with
/// code 130; nothing more happens once the answer is written.
fn write_best_on_signal(n: usize, started: Instant) {
    let installed = ctrlc::set_handler(move || {
        CHECKPOINT.write_once(|best| {
            let (moves, score) = best.unwrap_or((&[], f64::NAN));
            let written = write_answer(n, moves);
            queenattack::diag!(
                "queenattack: stopped by a signal after {:.3} s: {} the best answer so far \
                 ({} moves, score {score:.4})\n[DATA] stop = Interrupted",
                started.elapsed().as_secs_f64(),
                if written.is_ok() {
                    "wrote"
                } else {
                    "could not write"
                },
                moves.len()
            );
        });
        std::process::exit(i32::from(INTERRUPTED));
    });
    if let Err(e) = installed {
        queenattack::diag!(
            "queenattack: cannot catch signals ({e}): a stopped run writes no answer"
        );
    }
}

/// Writes `moves` on stdout in the official format (count, then `r1 c1 r2 c2` per move on an
/// `n`×`n` board) and flushes it.
fn write_answer(n: usize, moves: &[queenattack::solver::board::Move]) -> std::io::Result<()> {
    let mut out = String::with_capacity(moves.len() * 12 + 8);
    out.push_str(&format!("{}\n", moves.len()));
    for mv in moves {
        out.push_str(&format!(
            "{} {} {} {}\n",
            mv.from / n,
            mv.from % n,
            mv.to / n,
            mv.to % n
        ));
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()
}

/// Scores this close above the bound meet it (the bound is rounded down by far less).
const OPTIMAL_EPS: f64 = 1e-6;

/// `--with-bound`: the certified lower bound of `board` within `seconds` from now, as
/// `[DATA]` lines (`bound`, `gap`, `bound_ms`), and whether `solution` meets it (is optimal).
/// The answer's score is the proof search's incumbent.
fn bound_after(
    board: &Board,
    solution: &Solution,
    started: Instant,
    seconds: f64,
    verbose: bool,
) -> (String, bool) {
    let from = Instant::now();
    let score = solution.outcome.score;
    let deadline = from + Duration::from_secs_f64(seconds);
    let bound = lower_bound_within(board, deadline, score);
    let value = round_down(bound.value);
    // share of the score the bound does not certify: 0 for an optimal answer
    let gap = if score > 0.0 {
        ((score - value) / score).max(0.0)
    } else {
        0.0
    };
    // the unrounded bound: a proven optimum meets the score up to the sums' rounding, while
    // 4 decimals would hide it
    let optimal = score <= bound.value + OPTIMAL_EPS;
    if verbose {
        let above = match () {
            _ if optimal => "optimal".to_string(),
            _ if value > 0.0 => format!(
                "at most {:.2} % above the optimum",
                (score / value - 1.0) * 100.0
            ),
            _ => "not bounded away from 0".to_string(),
        };
        queenattack::diag!(
            "[{:6.3}s] lower bound {value:.4} ({} steps, stop: {:?}): the answer's score \
             {score:.4} is {above}",
            started.elapsed().as_secs_f64(),
            bound.steps,
            bound.stop,
        );
        log_proof(&bound, started);
    }
    let text = format!(
        "[DATA] bound = {value}\n[DATA] gap = {gap}\n[DATA] bound_ms = {}\n",
        from.elapsed().as_millis()
    );
    (text, optimal)
}

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
/// decimals, and with `--verbose` how it was found on stderr.
fn print_bound(board: &Board, started: Instant, cli: &Cli) -> ExitCode {
    let seconds = cli
        .bound_time
        .unwrap_or(BOUND_SECONDS.min(cli.time_limit * READ_SHARE));
    let budget = Duration::from_secs_f64(seconds);
    let bound = lower_bound_within(board, started + budget, f64::INFINITY);
    if cli.verbose {
        queenattack::diag!(
            "[{:6.3}s] lower bound {:.4}: relaxation optimum at most {:.4}, {} steps, {} queens, \
             stop: {:?}",
            started.elapsed().as_secs_f64(),
            bound.value,
            bound.relaxed,
            bound.steps,
            bound.queens,
            bound.stop
        );
        if let Some(cases) = &bound.cases {
            queenattack::diag!(
                "[{:6.3}s] error-free answers score at least {:.4} ({} colours' N-Queens \
                 minima exact), answers with errors at least {:.4}",
                started.elapsed().as_secs_f64(),
                cases.free,
                cases.proven,
                cases.errors
            );
        }
        log_proof(&bound, started);
    }
    // rounded down, so the printed number is still a bound
    let text = format!("{:.4}\n", round_down(bound.value));
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        queenattack::diag!("queenattack: cannot write the bound: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
