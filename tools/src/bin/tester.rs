//! `tester`: the command line of the QueenAttack judge. See `tester --help`.

use clap::Parser;

fn main() {
    let cli = tools::cli::Cli::parse();
    if let Err(message) = tools::cli::run(&cli) {
        eprintln!("tester: error: {message}");
        std::process::exit(2);
    }
}
