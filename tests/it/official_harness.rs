//! `queenattack` under a harness that makes the official tester's calls
//! (`tests/java/OfficialHarness.java`): write the board, flush, read the answer, and close the
//! solver's stdin only after that. Needs `java` (11 or later, for single-file programs); CI
//! installs it, and on other machines without it the test says so and passes.

use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_queenattack");

fn java_available() -> bool {
    let found = Command::new("java").arg("-version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install java (.ci/run does)"
        );
        eprintln!("SKIPPED: no `java` on this machine");
    }
    found
}

#[test]
fn the_official_harness_gets_a_legal_answer_while_stdin_stays_open() {
    if !java_available() {
        return;
    }
    for seed in [1, 6] {
        let input_path = format!("testcases/{seed}.in");
        let out = Command::new("java")
            .args(["tests/java/OfficialHarness.java", &input_path, "20000", EXE])
            .args(["--time-limit", "1"])
            .output()
            .expect("java runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "seed {seed}: {err}");
        let text = String::from_utf8_lossy(&out.stdout);
        let input = std::fs::read_to_string(&input_path).expect("input");
        let input = tools::input::Input::parse(&input).expect("official input");
        let judgement = tools::judge::judge(&input, &text);
        assert_eq!(judgement.error(), None, "seed {seed}");
        assert!(judgement.moves > 0, "seed {seed}: the empty answer");
        // anywhere in a line: the solver's stderr (inherited) and the harness's share the pipe
        let elapsed: u64 = elapsed_ms(&err)
            .unwrap_or_else(|| panic!("seed {seed}: the harness prints elapsed_ms: {err}"));
        // 1 s limit; the bound is generous for a loaded machine, far below the harness's 20 s.
        assert!(elapsed < 10_000, "seed {seed}: answer after {elapsed} ms");
    }
}

/// The harness's `elapsed_ms=T` wherever it stands in `stderr`.
fn elapsed_ms(stderr: &str) -> Option<u64> {
    let rest = stderr.split("elapsed_ms=").nth(1)?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// The harness's line is found even where another writer's text surrounds it (seen once in a
/// local run of `.ci/run`: the solver's `[DATA]` lines, then written a piece at a time, shared
/// the pipe with it).
#[test]
fn the_elapsed_time_is_found_inside_other_text() {
    assert_eq!(
        elapsed_ms("[DATA] wall_ms = 735\nelapsed_ms=725\n"),
        Some(725)
    );
    assert_eq!(
        elapsed_ms("[DATA] boards = elapsed_ms=725\n16\n"),
        Some(725)
    );
    assert_eq!(elapsed_ms("[DATA] boards = 16\n"), None);
    assert_eq!(elapsed_ms("elapsed_ms=\n"), None);
}
