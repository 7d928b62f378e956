//! Helpers shared by the integration tests of the root package.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the binary `exe` with `args`, writes `input` to its standard input from a second thread
/// (so a large output cannot dead-lock against a large input; a program that stops reading
/// early only breaks the pipe, which is ignored), and collects its exit status and output.
pub fn run_with_input(exe: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {exe}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("the program finishes");
    feeder.join().expect("the input thread ends");
    out
}

/// The official input text of a random board: walls on about a tenth of the cells, then `n`
/// queens of each of the `c` colours on random free cells ([`Board::random`]).
#[allow(dead_code)] // not every test crate makes boards
pub fn random_board(n: usize, c: usize, seed: u64) -> String {
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    queenattack::solver::board::Board::random(n, c, 0.1, &mut rng).to_string()
}
