//! `nqueens solve`: both methods on every N up to 500, output formats, exit codes, and the
//! `solve | verify` round trip through the real binary.

use nqueens::explicit::explicit_solution;
use nqueens::search::search;
use nqueens::{find_conflict, parse_placement, Placement};
use std::process::{Command, Output, Stdio};

use crate::common;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(args)
        .output()
        .expect("run nqueens")
}

/// Runs `nqueens verify` (with extra `args`) on `input` through a pipe.
fn verify(input: &[u8], args: &[&str]) -> Output {
    let args: Vec<&str> = std::iter::once("verify")
        .chain(args.iter().copied())
        .collect();
    common::run_with_input(env!("CARGO_BIN_EXE_nqueens"), &args, input)
}

/// A 0-based column list as a `cols` placement.
fn placement(cols: &[u32]) -> Placement {
    Placement::Cols {
        n: cols.len(),
        cols: cols.iter().map(|&c| c + 1).collect(),
    }
}

/// Independent check: all pairs, rows/columns/diagonals.
fn brute_force_peaceful(cols: &[u32]) -> bool {
    let n = cols.len();
    for i in 0..n {
        for j in 0..i {
            let (dr, dc) = (i as i64 - j as i64, cols[i] as i64 - cols[j] as i64);
            if dc == 0 || dr.abs() == dc.abs() {
                return false;
            }
        }
    }
    true
}

#[test]
fn both_methods_solve_every_n_up_to_500() {
    for n in 0..=500usize {
        let explicit = explicit_solution(n);
        let searched = search(n, n as u64);
        if matches!(n, 0 | 2 | 3) {
            assert_eq!(explicit, None, "n = {n}");
            assert_eq!(searched, None, "n = {n}");
            continue;
        }
        for (method, cols) in [("explicit", explicit), ("search", searched)] {
            let cols = cols.unwrap_or_else(|| panic!("{method} found nothing for n = {n}"));
            assert_eq!(cols.len(), n);
            assert_eq!(
                find_conflict(&placement(&cols), false),
                None,
                "{method} n = {n}"
            );
            if n <= 120 {
                assert!(brute_force_peaceful(&cols), "{method} n = {n}");
            }
        }
    }
}

#[test]
fn search_is_deterministic_per_seed() {
    let a = nqueens(&["solve", "2000", "--method", "search", "--seed", "5"]);
    let b = nqueens(&["solve", "2000", "--method", "search", "--seed", "5"]);
    let c = nqueens(&["solve", "2000", "--method", "search", "--seed", "6"]);
    assert!(a.status.success() && b.status.success() && c.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn one_thread_is_deterministic_on_a_block_board() {
    // From 2^20 rows the block stage runs; with `--threads 1` the board depends on the seed
    // alone.
    let args = [
        "solve",
        "1100000",
        "--method",
        "search",
        "--seed",
        "3",
        "--threads",
        "1",
    ];
    let (a, b) = (nqueens(&args), nqueens(&args));
    assert!(a.status.success() && b.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn binary_output_verifies_for_both_methods() {
    for n in (1..=40).chain([99, 500, 1001, 7777]) {
        for method in ["explicit", "search"] {
            let out = nqueens(&["solve", &n.to_string(), "--method", method]);
            if matches!(n, 2 | 3) {
                assert_eq!(out.status.code(), Some(1), "n = {n}");
                assert!(out.stdout.is_empty());
                assert!(String::from_utf8_lossy(&out.stderr).contains("no solution"));
                continue;
            }
            assert!(out.status.success(), "{method} n = {n}");
            let p = parse_placement(&out.stdout).unwrap();
            assert_eq!((p.n(), p.count()), (n, n));
            assert_eq!(find_conflict(&p, false), None, "{method} n = {n}");
            if n == 1001 {
                let v = verify(&out.stdout, &[]);
                assert_eq!(v.status.code(), Some(0));
                assert_eq!(v.stdout, b"OK\n");
            }
        }
    }
}

#[test]
fn pipe_into_verify_on_a_large_board() {
    // Large enough for the threaded writer, the two-thread parser and the parallel check.
    let n = "1500000";
    let mut solve = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args([
            "solve",
            n,
            "--method",
            "search",
            "--seed",
            "9",
            "--threads",
            "2",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let check = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .arg("verify")
        .stdin(solve.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(solve.wait().unwrap().success());
    assert_eq!(check.status.code(), Some(0));
    assert_eq!(check.stdout, b"OK\n");
}

#[test]
fn matrix_format() {
    let out = nqueens(&["solve", "8", "--format", "matrix"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8);
    let mut cols = Vec::new();
    for line in &lines {
        assert_eq!(line.len(), 8);
        assert_eq!(line.matches('1').count(), 1);
        assert!(line.chars().all(|c| c == '0' || c == '1'));
        cols.push(line.find('1').unwrap() as u32);
    }
    assert!(brute_force_peaceful(&cols));
    let one = nqueens(&["solve", "1", "--format", "matrix", "--method", "search"]);
    assert_eq!(one.stdout, b"1\n");
}

#[test]
fn matrix_refuses_huge_boards() {
    let out = nqueens(&["solve", "20001", "--format", "matrix"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("20000"));
    // The limit itself is accepted (checked on the cheap side: `none` skips printing).
    let ok = nqueens(&["solve", "20000", "--format", "none"]);
    assert!(ok.status.success());
}

#[test]
fn format_none_prints_only_a_summary() {
    let out = nqueens(&["solve", "100000", "--method", "search", "--format", "none"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("solve") && err.contains("peak memory"),
        "{err}"
    );
}

#[test]
fn output_file() {
    let path = std::env::temp_dir().join(format!("nqueens-solve-{}.txt", std::process::id()));
    let out = nqueens(&["solve", "12345", "-o", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let text = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let p = parse_placement(&text).unwrap();
    assert_eq!(p.n(), 12345);
    assert_eq!(find_conflict(&p, false), None);
    let bad = nqueens(&["solve", "10", "-o", "/nonexistent-dir/x.txt"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot create"));
}

#[test]
fn exit_codes_for_bad_arguments() {
    for args in [
        &["solve", "0"][..],
        &["solve", "-5"],
        &["solve", "abc"],
        &["solve"],
        &["solve", "10", "--method", "magic"],
        &["solve", "10", "--format", "svg"],
        &["solve", "10", "--seed", "x"],
        &["solve", "4294967295"],
        &["frobnicate"],
    ] {
        let out = nqueens(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    for n in ["2", "3"] {
        for method in ["explicit", "search"] {
            let out = nqueens(&["solve", n, "--method", method]);
            assert_eq!(out.status.code(), Some(1));
        }
    }
    let one = nqueens(&["solve", "1"]);
    assert!(one.status.success());
    assert_eq!(one.stdout, b"1\n1\n");
}

#[test]
fn output_file_replaces_a_link_instead_of_writing_through_it() {
    // Issue 65 item 7: `-o link` wrote the solution into the link's target.
    let dir = std::env::temp_dir().join(format!("nqueens-solve-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("precious.txt"), "precious\n").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink("precious.txt", &link).unwrap();
    let out = nqueens(&["solve", "8", "-o", link.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept = std::fs::read_to_string(dir.join("precious.txt")).unwrap();
    assert_eq!(kept, "precious\n");
    assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
    let p = parse_placement(&std::fs::read(&link).unwrap()).unwrap();
    assert_eq!((p.n(), find_conflict(&p, false)), (8, None));
    // A device is written as it is; nothing is left beside the outputs.
    assert!(nqueens(&["solve", "8", "-o", "/dev/null"]).status.success());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["link", "precious.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
