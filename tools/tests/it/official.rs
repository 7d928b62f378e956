//! The judge and the generator against the official tester's own results
//! (`tools/tests/official/`, a copy of the project's `shared/official`: see its README.md).
//!
//! Every expected value here was printed by the official Java tester; none is ours.

use std::fs;
use std::path::{Path, PathBuf};

use tools::gen::{generate, Ranges};
use tools::input::Input;
use tools::java::double_to_string;
use tools::judge::judge;

use crate::common;
use common::official;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One CSV row: seed, file, expected (quoted when it holds a comma; no quotes inside).
fn parse_csv_row(line: &str) -> (u64, String, String) {
    let (seed, rest) = line.split_once(',').unwrap();
    let (file, expected) = rest.split_once(',').unwrap();
    let expected = expected
        .strip_prefix('"')
        .and_then(|e| e.strip_suffix('"'))
        .unwrap_or(expected);
    (
        seed.parse().unwrap(),
        file.to_string(),
        expected.to_string(),
    )
}

#[test]
fn generator_matches_official_inputs_byte_for_byte() {
    let dir = official();
    for seed in 1..=10u64 {
        let expected = fs::read(dir.join(format!("inputs/{seed}.in"))).unwrap();
        let ours = generate(seed, &Ranges::default()).input.to_string();
        assert!(
            ours.as_bytes() == expected.as_slice(),
            "seed {seed}: generated input differs from the official one"
        );
    }
}

#[test]
fn generator_matches_official_params() {
    let text = fs::read_to_string(official().join("params.csv")).unwrap();
    let mut rows = 0;
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let seed: u64 = f[0].parse().unwrap();
        let case = generate(seed, &Ranges::default());
        assert_eq!(case.input.n.to_string(), f[1], "N of seed {seed}");
        assert_eq!(case.input.c.to_string(), f[2], "C of seed {seed}");
        // P as Java prints it: same text means the same double.
        assert_eq!(double_to_string(case.p), f[3], "P of seed {seed}");
        rows += 1;
    }
    assert_eq!(rows, 10);
}

#[test]
fn testcases_folder_holds_the_official_inputs() {
    let dir = official();
    for seed in 1..=10u64 {
        let ours = fs::read(workspace().join(format!("testcases/{seed}.in"))).unwrap();
        let theirs = fs::read(dir.join(format!("inputs/{seed}.in"))).unwrap();
        assert!(
            ours == theirs,
            "testcases/{seed}.in differs from the official input"
        );
    }
}

#[test]
fn judge_reproduces_all_official_scorer_cases() {
    let dir = official();
    let csv = fs::read_to_string(dir.join("scorer_cases.csv")).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in csv.lines().skip(1).filter(|l| !l.is_empty()) {
        let (seed, file, expected) = parse_csv_row(line);
        let input =
            Input::parse(&fs::read_to_string(dir.join(format!("inputs/{seed}.in"))).unwrap())
                .unwrap();
        let bytes = fs::read(dir.join(&file)).unwrap();
        let verdict = judge(&input, &String::from_utf8_lossy(&bytes));
        match expected.parse::<f64>() {
            Ok(score) => {
                if verdict.fatal.is_some() || (verdict.score - score).abs() > 1e-9 {
                    failures.push(format!("{file}: expected {expected}, got {verdict:?}"));
                } else if double_to_string(verdict.score) != expected {
                    failures.push(format!(
                        "{file}: printed {} but the official tester printed {expected}",
                        double_to_string(verdict.score)
                    ));
                }
            }
            Err(_) => {
                if verdict.error() != Some(expected.as_str()) || verdict.score != -1.0 {
                    failures.push(format!("{file}: expected {expected:?}, got {verdict:?}"));
                }
            }
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checked, 155);
}
