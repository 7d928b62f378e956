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

/// Before: under `ulimit -f` nqueens died of SIGXFSZ (exit 153, nothing on stderr) and left
/// its temporary file; now the write fails with EFBIG and is reported like a full disk.
#[test]
fn a_file_size_limit_is_reported_like_a_full_disk() {
    use std::os::unix::process::CommandExt;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("nqueens-file-size");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("solution.txt");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"));
    // N = 3000: far more than the 1 KiB allowed
    command.args(["solve", "3000", "-o"]).arg(&file);
    // SAFETY: between fork and exec the closure only calls signal, getrlimit and setrlimit.
    unsafe {
        command.pre_exec(|| {
            // the default action, whatever this test process inherited
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            limit.rlim_cur = 1024;
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let out = command.output().expect("nqueens runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{:?}: {}",
        out.status,
        stderr(&out)
    );
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
