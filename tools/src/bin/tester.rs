//! `tester`: the command line of the QueenAttack judge. See `tester --help`.

use clap::Parser;

fn main() {
    let cli = tools::cli::Cli::parse();
    match tools::cli::run(&cli) {
        Ok(code) => std::process::exit(code),
        Err(message) => {
            eprintln!("tester: error: {message}");
            std::process::exit(2);
        }
    }
}
