//! Messages of `nqueens` that quote the input or an argument (issue 25, item 8): the quoted
//! token is escaped (no control byte such as ESC reaches the terminal) and cut after 80 escaped
//! bytes with its length, so a multi-megabyte token gives a one-line message.

use std::process::{Command, Output};

use crate::common;

const NQUEENS: &str = env!("CARGO_BIN_EXE_nqueens");

fn nqueens(args: &[&str], input: &[u8]) -> Output {
    common::run_with_input(NQUEENS, args, input)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code 2, nothing on stdout, and a message free of control bytes but newlines.
fn refused_plainly(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(o.stdout.is_empty());
    assert!(
        o.stderr
            .iter()
            .all(|&b| b == b'\n' || !b.is_ascii_control()),
        "control bytes in {:?}",
        stderr(o)
    );
    stderr(o)
}

#[test]
fn an_escape_sequence_in_the_input_is_shown_escaped() {
    let input = b"4\n\x1b[31mX\x1b[0m\n4\n1\n3\n";
    for args in [&["verify"][..], &["complete"]] {
        let err = refused_plainly(&nqueens(args, input));
        assert!(
            err.contains(r#"line 2: expected a non-negative integer, found "\x1b[31mX\x1b[0m""#),
            "{err}"
        );
    }
    // The pairs format of `complete`.
    let err = refused_plainly(&nqueens(&["complete"], b"4 1\n1 \x07\x1b[2J\n"));
    assert!(err.contains(r#"found "\x07\x1b[2J""#), "{err}");
}

#[test]
fn a_huge_bad_token_gives_a_short_message() {
    let token = vec![b'x'; 2_000_000];
    let mut input = b"4\n".to_vec();
    input.extend_from_slice(&token);
    input.extend_from_slice(b"\n4\n1\n3\n");
    for args in [&["verify"][..], &["complete"]] {
        let err = refused_plainly(&nqueens(args, &input));
        assert!(err.len() < 300, "{} bytes: {}", err.len(), &err[..300]);
        assert!(err.contains("… (2000000 bytes)"), "{err}");
        assert!(err.contains(&format!("\"{}\"…", "x".repeat(80))), "{err}");
    }
}

#[test]
fn refused_arguments_are_escaped_and_cut() {
    let long = "9".repeat(100_000) + "x";
    let spaced = "ab \n".repeat(30_000);
    for args in [
        vec!["solve", "\x07\r5"],
        vec!["solve", &long],
        vec!["solve", "5", "--method", "\x07search"],
        vec!["complete", "--time-limit", &long],
        vec!["complete", "--threads", "\x1b[2J\x07"],
        vec!["gen-composition", "10", "--k", &long],
        vec!["solve", &spaced],
        vec!["verify", "--no-such-flag\x07"],
    ] {
        let out = Command::new(NQUEENS).args(&args).output().unwrap();
        let err = refused_plainly(&out);
        assert!(err.len() < 1100, "{:?}: {} bytes", &args[..1], err.len());
        assert!(err.starts_with("error:"), "{err}");
    }
}
