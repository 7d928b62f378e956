//! Bad input and bad options for the `queenattack` binary: every one is refused with exit code
//! 2, a short message and nothing on stdout, well inside its time limit, never by a panic.
//! Timing bounds here are generous (the machine running the tests may be loaded): they catch a
//! run that waits for its input to end, not a slow one.

use std::io::Write;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;

const EXE: &str = env!("CARGO_BIN_EXE_queenattack");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    common::run_with_input(EXE, args, stdin)
}

/// Asserts a refusal: exit code 2, nothing on stdout, one short message on stderr containing
/// `needle`; returns the message.
fn assert_refused(out: &Output, needle: &str, case: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{case}: {err}");
    assert!(out.stdout.is_empty(), "{case}: something on stdout");
    assert!(err.len() < 300, "{case}: message of {} bytes", err.len());
    assert!(!err.contains("panicked"), "{case}: {err}");
    assert!(err.contains(needle), "{case}: {err:?} lacks {needle:?}");
    err
}

/// Waits for `child`, killing it (and failing) after `bound`; returns its status and how long
/// it took.
fn wait_at_most(mut child: Child, bound: Duration) -> (ExitStatus, Duration, Child) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("child can be waited for") {
            return (status, started.elapsed(), child);
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn spawn(args: &[&str]) -> Child {
    Command::new(EXE)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("queenattack starts")
}

#[test]
fn time_limits_that_cannot_be_represented_are_refused() {
    let long = "9".repeat(10_000);
    for limit in [
        "1e20",
        "1e300",
        "18446744073709551616",
        "86400.5",
        "nan",
        "inf",
        "0",
        "-0.5",
        long.as_str(),
    ] {
        let arg = format!("--time-limit={limit}");
        let out = run(&[&arg], b"1\n1\n1\n");
        assert_refused(&out, "0 < SECS <= 86400", limit);
    }
}

#[test]
fn colour_counts_other_than_n_are_refused_naming_the_colour() {
    for (case, text, message) in [
        (
            "one short",
            "2 1  1 0  0 0",
            "colour 1 has 1 queens, expected N = 2",
        ),
        (
            "one extra",
            "3 1  1 0 0  0 0 1  1 1 0",
            "colour 1 has 4 queens",
        ),
        (
            "colour missing",
            "3 2  1 0 0  0 0 1  0 1 0",
            "colour 2 has 0 queens",
        ),
        (
            "no queens",
            "3 1  0 0 0  0 0 0  0 0 0",
            "colour 1 has 0 queens",
        ),
        ("more colours than N", "1 2  1", "colour 2 has 0 queens"),
    ] {
        let out = run(&["--time-limit", "5"], text.as_bytes());
        assert_refused(&out, message, case);
    }
}

#[test]
fn a_huge_bad_token_is_quoted_short_and_escaped() {
    // half a megabyte of digits, NUL bytes and invalid UTF-8 in the first cell
    let mut text = b"8 1 ".to_vec();
    for _ in 0..150_000 {
        text.extend_from_slice(b"5\0\xff");
    }
    let out = run(&["--time-limit", "5"], &text);
    let err = assert_refused(&out, "is not an integer", "huge token");
    assert!(!out.stderr.contains(&0), "a raw NUL byte on stderr");
    assert!(err.contains("\\u{0}"), "{err}");
    // cut, with the token's length (invalid bytes count as the 3 bytes of U+FFFD)
    assert!(err.contains("\"… (750000 bytes)"), "{err}");
}

#[test]
fn input_beyond_what_n_128_needs_is_refused_unread() {
    // 20 MB: more than any board of N <= 128 needs; read no further than the bound
    let text = b"0\0".repeat(10_000_000);
    let started = Instant::now();
    let out = run(&["--time-limit", "5"], &text);
    assert_refused(&out, "longer than", "20 MB");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn endless_stdin_is_cut_at_the_byte_bound() {
    // `yes '' | queenattack --time-limit 1`: the writer never stops on its own and no value
    // of the board ever comes
    let mut child = spawn(&["--time-limit", "1"]);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        let chunk = b" \n".repeat(4096);
        while stdin.write_all(&chunk).is_ok() {}
    });
    let (status, _, child) = wait_at_most(child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(2));
    writer.join().expect("the writer stops at the broken pipe");
    let out = child.wait_with_output().expect("output");
    assert_refused(&out, "longer than", "endless stdin");
}

#[test]
fn stdin_left_open_is_cut_at_the_deadline() {
    // `sleep 30 | queenattack --time-limit 1`: nothing comes and stdin stays open
    let mut child = spawn(&["--time-limit", "1"]);
    let stdin = child.stdin.take().expect("stdin is piped");
    let (status, took, child) = wait_at_most(child, Duration::from_secs(10));
    drop(stdin);
    assert_eq!(status.code(), Some(2));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let out = child.wait_with_output().expect("output");
    assert_refused(&out, "0 of 2 + N·N values arrived", "open stdin");
}

#[test]
fn a_board_cut_short_on_an_open_stdin_is_refused_at_the_deadline() {
    let mut child = spawn(&["--time-limit", "1"]);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(b"3 1\n1 1 1\n0 0")
        .expect("the solver reads");
    let (status, _, child) = wait_at_most(child, Duration::from_secs(10));
    drop(stdin);
    assert_eq!(status.code(), Some(2));
    let out = child.wait_with_output().expect("output");
    assert_refused(&out, "7 of 11 values arrived", "cut short");
}

/// Writes `input` and flushes, then keeps stdin open until the solver has ended, as the
/// official tester does; returns the output and the time from the last byte written to the
/// solver's end.
fn run_held_open(args: &[&str], input: &[u8]) -> (Output, Duration) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input).expect("the solver reads its input");
    stdin.flush().expect("flush");
    let (status, took, child) = wait_at_most(child, Duration::from_secs(30));
    drop(stdin);
    let out = child.wait_with_output().expect("output");
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, took)
}

#[test]
fn the_answer_comes_while_stdin_stays_open() {
    let input = std::fs::read("testcases/1.in").expect("testcases/1.in");
    let (out, took) = run_held_open(&["--time-limit", "2"], &input);
    // The bound is generous (a loaded machine); a solver waiting for the end of stdin never
    // answers here at all.
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let official = tools::input::Input::parse(&String::from_utf8_lossy(&input)).expect("input");
    let judgement = tools::judge::judge(&official, &text);
    assert_eq!(judgement.error(), None, "{text}");
    assert!(judgement.moves > 0, "the empty answer");
    let empty = tools::judge::score(&official, "0\n");
    assert!(
        judgement.score < empty,
        "{} is not below {empty}",
        judgement.score
    );
}

#[test]
fn a_last_cell_not_followed_by_a_newline_is_taken_at_the_deadline() {
    // The official tester ends every line; a writer that does not still gets an answer.
    let (out, _) = run_held_open(&["--time-limit", "1"], b"2 1\n1 0\n0 1");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("0")
    );
}

#[test]
fn bytes_after_the_board_are_ignored() {
    let (out, _) = run_held_open(&["--time-limit", "1"], b"2 1\n1 0\n0 1\nnot a number\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("0")
    );
}

#[test]
fn help_states_the_limits() {
    let out = run(&["--help"], b"");
    assert!(out.status.success());
    // clap wraps the help to the terminal's width: the phrases are looked for across lines.
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for needle in [
        "N is 1..=128",
        "C is 1..=100",
        "exactly N queens",
        "1 MiB",
        "0 < SECS <= 86400",
        "exit code 2",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}");
    }
}
