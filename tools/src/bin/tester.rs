//! `tester`: the command line of the QueenAttack judge. See `tester --help`.

use clap::{CommandFactory, Parser};
use tools::cli::out;

fn main() {
    // A write past `ulimit -f` fails (EFBIG, reported like a full disk) instead of killing
    // tester in the middle of it, `--help` included; solvers and builds get the default
    // action back.
    tools::cli::resources::ignore_for_tester();
    // clap's own errors (exit 2), with the subcommand a typo most likely meant.
    let cli = tools::cli::Cli::try_parse()
        .unwrap_or_else(|e| clap_exit(tools::cli::suggest::ranked(e, &tools::cli::Cli::command())));
    // SIGPIPE stays ignored (Rust's default) for every command: a closed pipe on stdout or
    // stderr must not kill tester in the middle of writing a run's files, a merged run or a
    // page. Writes go through `tools::diag!` (stderr, failures ignored) and `cli::out`
    // (stdout: a closed pipe ends the text quietly, the command still finishes).
    let code = match tools::cli::run(&cli) {
        Ok(code) => code,
        Err(message) => {
            // Messages quote paths and text from files: no control character reaches the
            // terminal.
            let message = tools::cli::quote::printable_lines(&message, 4000);
            tools::diag!("tester: error: {message}");
            2
        }
    };
    std::process::exit(stdout_checked(&cli, code));
}

/// Prints clap's message (`--help`, `--version` or an error) and exits with its code, or with
/// 2 when the help could not be written (a full disk, `ulimit -f`: clap's own `exit` ignores
/// that and exits 0 with the text cut). A closed pipe (`tester --help | head`) is the reader's
/// choice and changes nothing.
fn clap_exit(e: clap::Error) -> ! {
    let code = match e.print() {
        Err(failure) if !e.use_stderr() && failure.kind() != std::io::ErrorKind::BrokenPipe => {
            tools::diag!("tester: error: cannot write to standard output: {failure}");
            2
        }
        _ => e.exit_code(),
    };
    std::process::exit(code)
}

/// `code`, or 2 when the answer on standard output could not be written (a full disk; a
/// closed pipe is the reader's choice and changes nothing). `tester run` keeps its code: its
/// answer is the run folder, written whatever happened to its report.
fn stdout_checked(cli: &tools::cli::Cli, code: i32) -> i32 {
    let Some(failure) = out::failure() else {
        return code;
    };
    let failure = tools::cli::quote::printable_lines(&failure, 400);
    tools::diag!("tester: error: cannot write to standard output: {failure}");
    match cli.command {
        tools::cli::Command::Run(_) => code,
        _ if code == 0 => 2,
        _ => code,
    }
}
