//! `nqueens` in a pipeline whose reader stops early (`| head`): a closed standard output is
//! not an error of ours, so every subcommand that prints a board exits 0 without a message.

use std::io::Write;
use std::process::{Command, Stdio};

const NQUEENS: &str = env!("CARGO_BIN_EXE_nqueens");

/// Runs `nqueens args` with `input` on stdin and its stdout closed at once (far more output
/// than a pipe buffer holds, so a write fails with a broken pipe); returns (exit code, stderr).
fn run_with_closed_stdout(args: &[&str], input: &[u8]) -> (Option<i32>, String) {
    let mut child = Command::new(NQUEENS)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nqueens starts");
    drop(child.stdout.take()); // the reader is gone before the first byte
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("nqueens ends");
    feeder.join().expect("the input thread ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_is_a_quiet_success_for_solve_gen_and_complete() {
    let composition = Command::new(NQUEENS)
        .args(["gen-composition", "200000", "--k", "1000", "--seed", "3"])
        .output()
        .expect("gen-composition runs");
    assert!(composition.status.success());
    let cases: [(&[&str], &[u8]); 3] = [
        (&["solve", "200000"], b""),
        (
            &["gen-composition", "200000", "--k", "100000", "--seed", "3"],
            b"",
        ),
        (&["complete"], &composition.stdout),
    ];
    for (args, input) in cases {
        let (code, stderr) = run_with_closed_stdout(args, input);
        assert_eq!(code, Some(0), "nqueens {args:?}: stderr {stderr}");
        assert!(
            !stderr.contains("cannot write"),
            "nqueens {args:?}: {stderr}"
        );
    }
}
