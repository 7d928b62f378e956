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
/// queens of each of the `c` colours on random free cells.
#[allow(dead_code)] // not every test crate makes boards
pub fn random_board(n: usize, c: usize, seed: u64) -> String {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cells: Vec<i8> = (0..n * n)
        .map(|_| if rng.random_bool(0.1) { -1 } else { 0 })
        .collect();
    let mut free: Vec<usize> = (0..n * n).filter(|&i| cells[i] == 0).collect();
    for k in 1..=c {
        for _ in 0..n {
            let i = rng.random_range(0..free.len());
            cells[free.swap_remove(i)] = k as i8;
        }
    }
    let mut text = format!("{n}\n{c}\n");
    for v in &cells {
        text.push_str(&format!("{v}\n"));
    }
    text
}
