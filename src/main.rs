//! `queenattack`: reads an official QueenAttack input on stdin, prints the moves on stdout.

use clap::Parser;
use main_bound::{bound_after, print_bound, write_bound};
use queenattack::solver::board::{quote, Board, MAX_COLOURS, MAX_N};
use queenattack::solver::checkpoint::Checkpoint;
use queenattack::solver::input::{read_board, ReadError, MAX_INPUT_BYTES};
use queenattack::solver::lower_bound::{set_proof_threads, Progress};
use queenattack::solver::memory::Guarded;
use queenattack::solver::output::{self, write_answer, write_stderr, write_stdout, Line};
use queenattack::solver::score::Outcome;
use queenattack::solver::{solve_threads, Options, Params, RunStats, Stop, MAX_THREADS};
use std::alloc::Layout;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod main_bound;
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
    #[arg(long, default_value_t = 10.0, value_parser = Seconds("--time-limit"), allow_negative_numbers = true)]
    time_limit: f64,
    /// Seed of the random generator, for reproducible runs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Independent runs side by side, one thread each (run i is the run of --seed + i), the
    /// best answer printed; 1..=64. The contest allows one; more is for tables of best-known
    /// answers on a machine with cores to spare. At most one run per core starts, and fewer
    /// when memory is short (stderr says so); the answer keeps the time limit whatever the
    /// runs are doing. With --bound or --with-bound the bound's one-colour proofs split their
    /// searches over as many threads (at most one per core): the same bound, reached sooner.
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
    #[arg(long, value_name = "SECS", value_parser = Seconds("--bound-time"), allow_negative_numbers = true)]
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

Ctrl-C, SIGTERM or a closed terminal write the best answer completed so far (with --bound:
the best bound certified so far) and exit 130. A run that cannot start its threads, panics or
runs out of memory still writes the best answer so far (docs/solver.md, Options, output and
failures).

Exit codes: 0 answer printed, 1 the answer could not be written (stdout closed or full, or
the file-size limit of `ulimit -f` reached), 2 bad option or bad input, 130 stopped by a signal.";

/// The `--verbose` line of a run on several threads: the seeds they ran and their scores
/// (`-` for a run that did not end in time, failed or did not start).
fn log_threads(seed: u64, scores: &[Option<f64>]) {
    let last = seed.wrapping_add(scores.len() as u64 - 1);
    let scores: Vec<String> = scores
        .iter()
        .map(|s| s.map_or("-".to_string(), |s| format!("{s:.4}")))
        .collect();
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
    params.check_time_shares()?;
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

fn main() -> ExitCode {
    let started = Instant::now();
    // Past a file-size limit (`ulimit -f`) a write then fails with EFBIG and is reported like
    // a full disk (exit 1), instead of SIGXFSZ ending the process with half an answer and
    // not a word.
    // SAFETY: sets this process's disposition of one signal; no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = Cli::parse();
    // `queenattack >&-`: the standard library reopens a closed stdout on /dev/null, where the
    // answer would be lost without an error
    if STDOUT_CLOSED_AT_START.load(Ordering::SeqCst) || !output::stdout_is_open() {
        queenattack::diag!("queenattack: stdout is closed: there is nowhere to write the answer");
        return ExitCode::from(1);
    }
    let params = match params(&cli.params) {
        Ok(params) => params,
        Err(e) => {
            queenattack::diag!("queenattack: bad option: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.list_params {
        return match write_stdout(params.listing().as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                queenattack::diag!("queenattack: cannot write the parameters: {e}");
                ExitCode::from(1)
            }
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
    // from here on a signal, a panic or a failed allocation writes the empty answer at worst
    CHECKPOINT.start(&board);
    // the bound's one-colour proofs split their searches over the same threads
    set_proof_threads(cli.threads.into());
    if cli.bound {
        return print_bound(&board, started, &cli);
    }
    write_best_on_signal(started);
    answer(&board, started, &cli, params)
}

/// Solves `board` and writes the best answer (then the `[DATA]` lines, and with
/// `--with-bound` the bound).
fn answer(board: &Board, started: Instant, cli: &Cli, params: Params) -> ExitCode {
    let options = Options {
        time_limit: cli.time_limit,
        seed: cli.seed,
        verbose: cli.verbose,
        params,
        checkpoint: Some(&CHECKPOINT),
    };
    let mut stats = RunStats::default();
    let threads = cli.threads.into();
    // a panic is a bug, but it must not cost the answer: the best offered so far is written
    let solved = catch_unwind(AssertUnwindSafe(|| {
        solve_threads(board, options, threads, started, &mut stats)
    }));
    let stop = match &solved {
        Ok((solution, scores)) => {
            if cli.verbose && scores.len() > 1 {
                log_threads(cli.seed, scores);
            }
            Some((solution.outcome.score, solution.stop))
        }
        Err(_) => {
            queenattack::diag!("queenattack: internal error: the run panicked");
            None
        }
    };
    // the checkpoint holds every run's answers: its best is at least as good as the runs'
    // (`start` put the empty answer there, so there is one)
    let written = CHECKPOINT.write_once(|best, n| {
        let (moves, outcome) = best.map_or((&[][..], UNSCORED), |b| (&b.moves[..], b.outcome));
        let result = write_answer(n, moves);
        let code = if result.is_ok() { 0 } else { 1 };
        ((result, moves.len(), outcome), code)
    });
    let (moves, outcome) = match written {
        Some((Ok(()), moves, outcome)) => (moves, outcome),
        Some((Err(e), ..)) => {
            queenattack::diag!("queenattack: cannot write the answer: {e}");
            return ExitCode::from(1);
        }
        // a signal came first: its handler wrote the best answer and ends the process
        None => return ExitCode::from(INTERRUPTED),
    };
    let stop = match stop {
        Some((score, stop)) if score == outcome.score => format!("{stop:?}"),
        Some(_) => format!("{:?}", Stop::Budget),
        None => "Panicked".to_string(),
    };
    if cli.verbose {
        queenattack::diag!(
            "[{:6.3}s] final: {moves} moves, {} errors, score {:.4}, stop: {stop}",
            started.elapsed().as_secs_f64(),
            outcome.errors,
            outcome.score,
        );
    }
    // After the answer, so they cost it nothing: `tester run` keeps these per seed.
    let wall_ms = started.elapsed().as_millis();
    let mut data = String::new();
    let mut stop = stop;
    if cli.with_bound {
        let bound_time = cli.bound_time.unwrap_or(BOUND_SECONDS);
        let (bound_data, optimal) =
            bound_after(board, outcome.score, started, bound_time, cli.verbose);
        data.push_str(&bound_data);
        if optimal {
            stop = format!("{:?}", Stop::Optimal);
        }
    }
    queenattack::diag!(
        "[DATA] score = {}\n[DATA] errors = {}\n[DATA] moves = {moves}\n[DATA] stop = {stop}\n\
         [DATA] wall_ms = {wall_ms}\n[DATA] boards = {}\n[DATA] runs = {}{}",
        outcome.score,
        outcome.errors,
        stats.boards,
        stats.runs,
        // `data` ends in a newline when it has lines; `diag!` adds the last one
        data.strip_suffix('\n')
            .map(|d| format!("\n{d}"))
            .unwrap_or_default(),
    );
    ExitCode::SUCCESS
}

/// The outcome logged for an answer the checkpoint did not score (none: `start` scores the
/// empty answer).
const UNSCORED: Outcome = Outcome {
    errors: 0,
    move_cost: f64::NAN,
    score: f64::NAN,
};

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

/// Whether descriptor 1 was closed when the process started, as [`see_stdout`] saw it.
static STDOUT_CLOSED_AT_START: AtomicBool = AtomicBool::new(false);

/// Run by the C runtime before `main`, so before the standard library reopens closed standard
/// descriptors on /dev/null: records whether stdout was closed.
extern "C" fn see_stdout() {
    if !output::stdout_is_open() {
        STDOUT_CLOSED_AT_START.store(true, Ordering::SeqCst);
    }
}

/// Registers [`see_stdout`] with the C runtime (ELF `.init_array`).
#[used]
#[link_section = ".init_array"]
static SEE_STDOUT: extern "C" fn() = see_stdout;

/// Exit code of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
const INTERRUPTED: u8 = 130;

/// The answers of the run (the empty answer, then the first answer, the best routed board, the
/// end of each run), and the gate through which stdout is written once: by the process at
/// its end, by a signal handler, or by the last resort when memory runs out.
static CHECKPOINT: Checkpoint = Checkpoint::new();

/// The bound certified so far by `--bound` or `--with-bound`, for a signal handler, the
/// watchdog at the bound's deadline or the last resort.
static BOUND_PROGRESS: Progress = Progress::new();

/// Whether this process prints a bound (`--bound`) rather than an answer.
static BOUND_MODE: AtomicBool = AtomicBool::new(false);

/// The system allocator, but a failed allocation never aborts with an empty stdout: a run's
/// thread stops, anything else calls [`out_of_memory`].
#[global_allocator]
static ALLOCATOR: Guarded = Guarded::new(out_of_memory);

/// The last resort when an allocation of the main thread (or any thread that is not a run's
/// or the bound's) fails: the best answer so far (with `--bound`: the best bound certified so
/// far) is written, unless stdout was written already, a line on stderr says so, and the
/// process ends with code 0 (1 when the write failed; the writer's code when stdout was
/// written already). Allocates nothing.
fn out_of_memory(layout: Layout) -> ! {
    let mut line = Line::default();
    let bytes = layout.size();
    let written = if BOUND_MODE.load(Ordering::SeqCst) {
        CHECKPOINT.write_once(|_, _| {
            let ok = write_bound(BOUND_PROGRESS.value()).is_ok();
            let _ = write!(line, "the bound certified so far");
            (ok, if ok { 0 } else { 1 })
        })
    } else {
        CHECKPOINT.write_once(|best, n| {
            let Some(best) = best else {
                // before the board was read: nothing to answer
                let _ = write!(line, "an answer: the board was not read yet");
                return (false, 1);
            };
            let ok = write_answer(n, &best.moves).is_ok();
            let _ = write!(
                line,
                "the best answer so far ({} moves, score {:.4})\n[DATA] stop = OutOfMemory",
                best.moves.len(),
                best.outcome.score
            );
            (ok, if ok { 0 } else { 1 })
        })
    };
    let code = match written {
        Some(ok) => {
            let mut head = Line::default();
            let what = if ok { "wrote" } else { "could not write" };
            let _ = write!(
                head,
                "queenattack: out of memory ({bytes} bytes asked): {what} "
            );
            write_stderr(head.as_bytes());
            write_stderr(line.as_bytes());
            write_stderr(b"\n");
            if ok {
                0
            } else {
                1
            }
        }
        None => {
            let _ = writeln!(
                line,
                "queenattack: out of memory ({bytes} bytes asked) after the output was written"
            );
            write_stderr(line.as_bytes());
            CHECKPOINT.exit_code().unwrap_or(1)
        }
    };
    // SAFETY: `_exit` ends the process at once (no exit handlers that could allocate).
    unsafe { libc::_exit(i32::from(code)) }
}

/// On Ctrl-C, SIGTERM or SIGHUP (a closed terminal) the best answer offered so far is written
/// (the empty answer, with its score, if none was), with `[DATA] stop = Interrupted`, and the
/// process exits with code 130; nothing more happens once the answer is written.
fn write_best_on_signal(started: Instant) {
    on_signal(move || {
        let written = CHECKPOINT.write_once(|best, n| {
            let (moves, score) =
                best.map_or((&[][..], f64::NAN), |b| (&b.moves[..], b.outcome.score));
            (
                (write_answer(n, moves).is_ok(), moves.len(), score),
                INTERRUPTED,
            )
        });
        if let Some((ok, moves, score)) = written {
            queenattack::diag!(
                "queenattack: stopped by a signal after {:.3} s: {} the best answer so far \
                 ({moves} moves, score {score:.4})\n[DATA] stop = Interrupted",
                started.elapsed().as_secs_f64(),
                if ok { "wrote" } else { "could not write" },
            );
        }
    });
}

/// Installs `write` as the handler of Ctrl-C, SIGTERM and SIGHUP, then exit code 130.
fn on_signal(write: impl Fn() + Send + 'static) {
    let installed = ctrlc::set_handler(move || {
        write();
        std::process::exit(i32::from(INTERRUPTED));
    });
    if let Err(e) = installed {
        queenattack::diag!("queenattack: cannot catch signals ({e}): a stopped run writes nothing");
    }
}
