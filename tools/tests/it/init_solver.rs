//! Issue 65 items 9 and 7: `tester init` names the user's own solver (`--solver`, and
//! `--build` or no build), so a solver of any language runs with two commands; outside a
//! Cargo project a bare `tester init` writes no `cargo build`; a folder name with a line break
//! is printed escaped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{cargo_scratch, ok_text, scratch, tester};
use tools::cli::command::run::project::parse;

/// A solver in sh that reads exactly the case (N, C, then N·N cells) and answers no move.
const READS_THE_CASE: &str = r#"read n; read c
i=0
while [ "$i" -lt $((n * n)) ]; do read cell; i=$((i + 1)); done
echo 0
"#;

/// A fresh folder outside any Cargo project (the tests' own folder lies in one).
fn outside_cargo(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qa-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    assert!(!dir.ancestors().any(|d| d.join("Cargo.toml").is_file()));
    dir
}

/// `tester ARGS` in `dir`.
fn tester_in(dir: &Path, args: &[&str]) -> Output {
    tester().current_dir(dir).args(args).output().unwrap()
}

/// The statuses of the results of the run folder `run`.
fn statuses(run: &Path) -> Vec<String> {
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    let results = doc["results"].as_array().unwrap();
    results
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_users_solver_runs_with_two_commands() {
    let dir = outside_cargo("init-solver");
    fs::write(dir.join("solve.sh"), READS_THE_CASE).unwrap();
    let init = tester_in(&dir, &["init", "--solver", "sh solve.sh"]);
    assert!(ok_text(&init).contains("wrote"), "{init:?}");
    let toml = parse(&fs::read_to_string(dir.join("tester.toml")).unwrap()).unwrap();
    assert_eq!(
        (toml.solver.as_deref(), toml.build),
        (Some("sh solve.sh"), None)
    );
    let run = tester_in(&dir, &["run", "--seeds", "1-3", "--out", "r1"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!String::from_utf8_lossy(&run.stderr).contains("build"));
    assert_eq!(statuses(&dir.join("r1")), ["ok", "ok", "ok"]);
    // With the user's build: it runs before the seeds.
    let build = "cp solve.sh solve && chmod +x solve";
    let args = ["init", "--force", "--solver", "./solve", "--build", build];
    ok_text(&tester_in(&dir, &args));
    let run = tester_in(&dir, &["run", "--seeds", "1-3", "--out", "r2"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(dir.join("solve").is_file());
    assert_eq!(statuses(&dir.join("r2")), ["ok", "ok", "ok"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outside_a_cargo_project_a_bare_init_builds_nothing() {
    let dir = outside_cargo("init-bare");
    ok_text(&tester_in(&dir, &["init"]));
    let toml = parse(&fs::read_to_string(dir.join("tester.toml")).unwrap()).unwrap();
    assert_eq!((toml.solver, toml.build), (None, None));
    // The default solver runs, or is said to be missing (its message then says how to build
    // it): no build runs, so never a failed `cargo build` (exit 3).
    let run = tester_in(
        &dir,
        &["run", "--seeds", "1", "--time-limit", "1", "--out", "r"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(3), "{stderr}");
    assert!(!stderr.contains("tester run: build"), "{stderr}");
    // In a Cargo project the template builds queenattack with cargo, as before.
    let cargo = cargo_scratch("init-cargo");
    ok_text(&tester_in(&cargo, &["init"]));
    let toml = parse(&fs::read_to_string(cargo.join("tester.toml")).unwrap()).unwrap();
    assert_eq!(toml.build.as_deref(), Some("cargo build --release"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_name_with_a_line_break_is_printed_escaped() {
    let dir = scratch("init-newline");
    let out = tester_in(&dir, &["init", "--dir", "new\nline"]);
    let text = ok_text(&out);
    assert_eq!(
        text.lines().next(),
        Some("wrote new\\nline/tester.toml"),
        "{text}"
    );
    assert!(dir.join("new\nline/tester.toml").is_file());
    // Again: refused, the name escaped in the message too.
    let out = tester_in(&dir, &["init", "--dir", "new\nline"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("new\\nline/tester.toml already exists"),
        "{stderr}"
    );
}

#[test]
fn init_says_that_stdin_stays_open_until_the_answer() {
    // Issue 69 item 8: a newcomer's solver read stdin to its end and timed out on every seed;
    // neither `init --help` nor its next step had said that stdin stays open.
    let dir = scratch("init-stdin");
    let init = ok_text(&tester_in(&dir, &["init", "--solver", "python3 solve.py"]));
    assert!(
        init.contains("the solver gets the case on stdin, which stays open until it answers"),
        "{init}"
    );
    // One line whatever the width clap wraps at.
    let help = ok_text(&tester_in(&dir, &["init", "--help"]))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("The solver gets the case on stdin, which stays open until it answers"),
        "{help}"
    );
}
