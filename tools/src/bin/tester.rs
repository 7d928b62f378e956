//! `tester`: the command line of the QueenAttack judge. See `tester --help`.

use clap::Parser;

fn main() {
    let cli = tools::cli::Cli::parse();
    if !matches!(cli.command, tools::cli::Command::Run(_)) {
        // `tester compare ... | head` should end quietly like any Unix filter, not panic on a
        // closed pipe. `run` keeps Rust's default (SIGPIPE ignored): it must outlive a closed
        // pipe to stop its solvers and save results, and writes its report tolerantly.
        // SAFETY: called before any other thread exists; SIG_DFL is a valid disposition.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match tools::cli::run(&cli) {
        Ok(code) => std::process::exit(code),
        Err(message) => {
            // Messages quote paths and text from files: no control character reaches the
            // terminal.
            let message = tools::cli::quote::printable_lines(&message, 4000);
            eprintln!("tester: error: {message}");
            std::process::exit(2);
        }
    }
}
