//! `nqueens verify` through the real binary: each kind of conflict, malformed input, the
//! file (memory-mapped) and pipe inputs, and random placements against a brute-force check.

use nqueens::search::search;
use nqueens::{find_conflict, parse_placement};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::process::{Command, Output};

use crate::common;

/// Runs `nqueens verify` (with extra `args`) on `input` through a pipe.
fn verify(input: &[u8], args: &[&str]) -> Output {
    let args: Vec<&str> = std::iter::once("verify")
        .chain(args.iter().copied())
        .collect();
    common::run_with_input(env!("CARGO_BIN_EXE_nqueens"), &args, input)
}

/// Runs `nqueens verify` with a regular file as standard input (the memory-mapped path).
fn verify_file(input: &[u8], tag: &str) -> Output {
    let path =
        std::env::temp_dir().join(format!("nqueens-verify-{}-{tag}.txt", std::process::id()));
    std::fs::write(&path, input).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(["verify", "--timings"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn names_each_kind_of_conflict() {
    let cases: [(&[u8], &str, &str); 5] = [
        (
            b"5 2\n2 1\n2 5\n",
            "queens (2, 1) and (2, 5) share a row",
            "",
        ),
        (
            b"5 2\n1 3\n4 3\n",
            "queens (1, 3) and (4, 3) share a column",
            "",
        ),
        (
            b"5\n1\n0\n3\n0\n0\n",
            "queens (1, 1) and (3, 3) share a diagonal",
            "",
        ),
        (
            b"5\n0\n4\n0\n0\n1\n",
            "queens (2, 4) and (5, 1) share an anti-diagonal",
            "",
        ),
        (
            b"5 2\n1 1\n2 3\n",
            "queens (1, 1) and (2, 3) share a nightrider line",
            "--nightrider",
        ),
    ];
    for (input, message, flag) in cases {
        let args: Vec<&str> = [flag].into_iter().filter(|f| !f.is_empty()).collect();
        let out = verify(input, &args);
        assert_eq!(out.status.code(), Some(1), "{message}");
        assert_eq!(stdout(&out).trim(), format!("CONFLICT: {message}"));
    }
    // A knight-line pair is fine for ordinary queens (a partial board).
    let out = verify(b"5 2\n1 1\n2 3\n", &["--partial"]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), "OK\n".into()));
    // All four nightrider slopes.
    for pair in ["1 1\n3 2", "1 2\n3 1", "1 1\n2 3", "1 3\n2 1"] {
        let input = format!("5 2\n{pair}\n");
        assert_eq!(
            verify(input.as_bytes(), &["--nightrider"]).status.code(),
            Some(1),
            "{pair}"
        );
    }
}

#[test]
fn malformed_input_exits_2_with_the_line() {
    for (input, needle) in [
        (&b""[..], "empty input"),
        (b"3\n1\n2\n", "line 3"),
        (b"3\n1\nx\n2\n", "line 3"),
        (b"3\n1\n4\n2\n", "off the board"),
        (b"3 4\n", "K > N"),
        (b"0\n", "N must be"),
        (b"2 1\n1 1 1\n", "at most 2"),
    ] {
        let out = verify(input, &[]);
        assert_eq!(out.status.code(), Some(2), "{needle}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("malformed input") && err.contains(needle),
            "{err}"
        );
    }
}

#[test]
fn large_files_and_pipes_agree_and_find_a_planted_conflict() {
    let n = 300_000usize;
    let cols = search(n, 4).unwrap();
    let text = |cols: &[u32]| {
        let mut t = format!("{n}\n");
        for c in cols {
            t.push_str(&format!("{}\n", c + 1));
        }
        t.into_bytes()
    };
    let good = text(&cols);
    assert_eq!(stdout(&verify(&good, &[])), "OK\n");
    let file = verify_file(&good, "good");
    assert_eq!(stdout(&file), "OK\n");
    assert!(String::from_utf8_lossy(&file.stderr).contains("parse"));
    // Plant a diagonal conflict: the queen in column 5 (row r) and, 1000 rows away (row s),
    // a queen moved into column 1005: down-diagonal if s > r, anti-diagonal if s < r.
    let mut bad = cols.clone();
    let r = cols.iter().position(|&c| c == 5).unwrap();
    let s = if r + 1000 < n { r + 1000 } else { r - 1000 };
    let holder = cols.iter().position(|&c| c == 1005).unwrap();
    bad.swap(s, holder);
    let p = parse_placement(&text(&bad)).unwrap();
    let expected = find_conflict(&p, false).expect("a planted conflict");
    let line = format!("CONFLICT: {expected}\n");
    assert_eq!(stdout(&verify(&text(&bad), &[])), line);
    let out = verify_file(&text(&bad), "bad");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), line);
}

/// Independent check: all pairs, all line kinds.
fn brute_force_attack(queens: &[(i64, i64)], nightrider: bool) -> bool {
    for i in 0..queens.len() {
        for j in 0..i {
            let (dr, dc) = (queens[i].0 - queens[j].0, queens[i].1 - queens[j].1);
            if dr == 0 || dc == 0 || dr.abs() == dc.abs() {
                return true;
            }
            if nightrider && (dr.abs() == 2 * dc.abs() || dc.abs() == 2 * dr.abs()) {
                return true;
            }
        }
    }
    false
}

/// A random placement as text in one of the two formats, with its queens (1-based).
fn random_placement(rng: &mut impl Rng) -> (Vec<u8>, Vec<(i64, i64)>) {
    let n = rng.random_range(1..14i64);
    if rng.random_bool(0.5) {
        // `cols`: each row empty or holding a queen; mostly distinct columns so that
        // diagonal conflicts are what decides.
        let mut cols: Vec<i64> = (1..=n).collect();
        for i in (1..cols.len()).rev() {
            cols.swap(i, rng.random_range(0..=i));
        }
        let mut text = format!("{n}\n");
        let mut queens = Vec::new();
        for (r, &c) in cols.iter().enumerate() {
            let c = match rng.random_range(0..10) {
                0 => 0,
                1 => rng.random_range(1..=n),
                _ => c,
            };
            text.push_str(&format!("{c}\n"));
            if c != 0 {
                queens.push((r as i64 + 1, c));
            }
        }
        (text.into_bytes(), queens)
    } else {
        let k = rng.random_range(0..=n);
        let queens: Vec<(i64, i64)> = (0..k)
            .map(|_| (rng.random_range(1..=n), rng.random_range(1..=n)))
            .collect();
        let mut text = format!("{n} {k}\n");
        for (r, c) in &queens {
            text.push_str(&format!("{r} {c}\n"));
        }
        (text.into_bytes(), queens)
    }
}

#[test]
fn reader_and_checker_agree_with_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    for _ in 0..20_000 {
        let (text, queens) = random_placement(&mut rng);
        let p = parse_placement(&text).unwrap();
        for nightrider in [false, true] {
            assert_eq!(
                find_conflict(&p, nightrider).is_some(),
                brute_force_attack(&queens, nightrider),
                "{} nightrider={nightrider}",
                String::from_utf8_lossy(&text)
            );
        }
    }
}

#[test]
fn binary_agrees_with_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(22);
    let mut seen = [0usize; 3];
    for i in 0..200 {
        let (text, queens) = random_placement(&mut rng);
        let n: usize = String::from_utf8_lossy(&text)
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let nightrider = i % 3 == 0;
        let partial = i % 2 == 0;
        let args: Vec<&str> = [("--nightrider", nightrider), ("--partial", partial)]
            .iter()
            .filter(|f| f.1)
            .map(|f| f.0)
            .collect();
        let out = verify(&text, &args);
        let attacked = brute_force_attack(&queens, nightrider);
        // A peaceful board with empty rows is only OK with --partial.
        let short = !attacked && queens.len() < n && !partial;
        seen[if attacked {
            1
        } else if short {
            2
        } else {
            0
        }] += 1;
        let expected = if attacked || short { 1 } else { 0 };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{} nightrider={nightrider}",
            String::from_utf8_lossy(&text)
        );
        assert_eq!(stdout(&out).starts_with("CONFLICT: queen"), attacked);
        assert_eq!(stdout(&out).starts_with("PARTIAL: "), short);
    }
    // Every outcome was exercised.
    assert!(seen.iter().all(|&s| s > 10), "{seen:?}");
}

/// Runs `nqueens` with `args` on `input`.
fn nqueens(args: &[&str], input: &[u8]) -> Output {
    common::run_with_input(env!("CARGO_BIN_EXE_nqueens"), args, input)
}

#[test]
fn reads_what_complete_and_gen_composition_print() {
    for (n, k, nightrider) in [("1000", "400", false), ("300", "100", true)] {
        let flag: &[&str] = if nightrider { &["--nightrider"] } else { &[] };
        let gen = nqueens(&[&["gen-composition", n, "--k", k], flag].concat(), b"");
        assert_eq!(gen.status.code(), Some(0));
        // The composition itself: peaceful, but with empty rows.
        let partial = verify(&gen.stdout, flag);
        assert_eq!(partial.status.code(), Some(1));
        assert!(stdout(&partial).starts_with("PARTIAL: "));
        assert!(stdout(&partial).contains(&format!("only {k} of {n} rows")));
        let ok = verify(&gen.stdout, &[&["--partial"], flag].concat());
        assert_eq!((ok.status.code(), stdout(&ok)), (Some(0), "OK\n".into()));
        // gen-composition | complete | verify
        let done = nqueens(&[&["complete"], flag].concat(), &gen.stdout);
        assert!(done.stdout.starts_with(b"YES\n"));
        let checked = verify(&done.stdout, flag);
        assert_eq!(
            (checked.status.code(), stdout(&checked)),
            (Some(0), "OK\n".into())
        );
        // The same answer from a file (memory-mapped path).
        assert_eq!(stdout(&verify_file(&done.stdout, "answer")), "OK\n");
    }
    // A NO answer holds no board.
    let no = nqueens(&["complete"], b"4 1\n1 1\n");
    assert_eq!(no.stdout, b"NO\n");
    let out = verify(&no.stdout, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("NOTHING TO VERIFY"));
    // An attacked answer is a conflict like any other.
    let out = verify(b"YES\n1\n2\n3\n", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "CONFLICT: queens (1, 1) and (2, 2) share a diagonal\n"
    );
}

#[test]
fn an_empty_board_is_partial_not_a_solution() {
    for text in [&b"4\n0\n0\n0\n0\n"[..], b"4 0\n", b"4\n2\n4\n0\n3\n"] {
        let out = verify(text, &[]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stdout(&out).starts_with("PARTIAL: "), "{}", stdout(&out));
        let out = verify(text, &["--partial"]);
        assert_eq!((out.status.code(), stdout(&out)), (Some(0), "OK\n".into()));
    }
}

#[test]
fn messages_name_lines_and_duplicates_plainly() {
    let err = |input: &[u8]| {
        let out = verify(input, &[]);
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(err(b"").contains("line 1: empty input"));
    assert!(err(b"2 3\n").contains("a board of size N = 2"));
    assert!(err(b"3\n1\n2").contains("line 3:"));
    let out = verify(b"9 2\n1 1\n1 1\n", &[]);
    assert_eq!(stdout(&out), "CONFLICT: queen (1, 1) is given twice\n");
    let gen = nqueens(&["gen-composition", "9", "--k", "2", "--nightrider"], b"");
    assert_eq!(gen.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&gen.stderr).contains("nightrider"));
    let gen = nqueens(&["gen-composition", "4294967295", "--k", "1"], b"");
    assert!(String::from_utf8_lossy(&gen.stderr).contains("between 1 and 4294967294"));
}
