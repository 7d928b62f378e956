//! Fault cases of `nqueens`: tiny inputs whose headers claim huge boards, and boards too big
//! for the memory or the time allowed. Each must end with a message and exit code 2 (or an
//! honest `NO`), never with an abort — run under `ulimit -v 2000000` (2 GB of address
//! space) through `sh -c`, as a user with a memory cap would.

use std::process::Output;

use crate::common;

/// Runs `nqueens args` on `input` under `ulimit -v kb`.
fn capped(kb: u64, args: &str, input: &[u8]) -> Output {
    let script = format!(
        "ulimit -v {kb} && exec '{}' {args}",
        env!("CARGO_BIN_EXE_nqueens")
    );
    common::run_with_input("sh", &["-c", &script], input)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Expects a refusal: exit code 2 and `needle` in the message.
fn refused(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(
        stderr(o).contains(needle),
        "expected `{needle}` in {}",
        stderr(o)
    );
}

const CAP: u64 = 2_000_000;

#[test]
fn headers_alone_reserve_nothing() {
    refused(
        &capped(CAP, "verify", b"1000000000\n1\n2\n"),
        "line 3: expected 1000000000 rows after the header, found 2",
    );
    refused(
        &capped(CAP, "verify", b"4294967294 4294967294\n1 1\n"),
        "found 1",
    );
    refused(
        &capped(CAP, "complete", b"4294967294 4294967294\n1 1\n"),
        "found 1",
    );
    refused(&capped(CAP, "complete", b"1000000000\n1\n2\n"), "found 2");
}

#[test]
fn a_few_queens_on_a_huge_board_are_checked_in_little_memory() {
    let out = capped(CAP, "verify --nightrider", b"4294967294 2\n1 1\n3 2\n");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "CONFLICT: queens (1, 1) and (3, 2) share a nightrider line\n"
    );
    let out = capped(CAP, "verify --partial", b"4294967294 1\n5 5\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "OK\n");
}

#[test]
fn boards_too_big_for_memory_are_refused() {
    refused(&capped(CAP, "complete", b"4294967294 0\n"), "memory");
    refused(
        &capped(CAP, "complete --nightrider", b"100000000 1\n1 1\n"),
        "memory",
    );
    refused(
        &capped(CAP, "solve 1000000000 --method search --format none", b""),
        "memory",
    );
    refused(
        &capped(6_000_000, "solve 4294967294 --method search", b""),
        "memory",
    );
    refused(
        &capped(CAP, "gen-composition 1000000000 --k 1", b""),
        "memory",
    );
}

#[test]
fn a_budget_too_short_for_the_board_answers_no_at_once() {
    let out = common::run_with_input(
        env!("CARGO_BIN_EXE_nqueens"),
        &["complete", "--time-limit", "1"],
        b"100000000 0\n",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"NO\n");
    assert!(stderr(&out).contains("not proven: the time limit of 1 s is too short"));
}
