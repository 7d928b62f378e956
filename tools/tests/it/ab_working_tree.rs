//! Issue 59 item 9: `tester ab --base HEAD` compares HEAD with what the working tree builds,
//! not with a binary built before the last edit. A tiny cargo project stands in for the
//! repository (its `queenattack` answers with no move and says its version on stderr); its
//! three release builds (the first by the test, then A's worktree and B's working tree by
//! `tester ab`) take a few seconds.

use std::fs;
use std::path::Path;
use std::process::Command;

use super::ab::{both, git, json};
use crate::common::scratch;

/// The solver of the tiny project, saying `version {v}` on stderr.
fn main_rs(version: u32) -> String {
    format!(
        r#"use std::io::BufRead;

fn main() {{
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let n: usize = lines.next().unwrap().unwrap().trim().parse().unwrap();
    // C, then the N*N cells; the input's end is never awaited.
    for _ in 0..=n * n {{
        lines.next();
    }}
    eprintln!("version {version}");
    println!("0");
}}
"#
    )
}

/// `cargo ARGS` in `dir`, with no target folder from the caller's environment.
fn cargo(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO"))
        .current_dir(dir)
        .args(args)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo {args:?}: {}", both(&out));
}

/// The output of `command`, whose program was just copied: while another test's thread forks,
/// its child may hold the copy open for writing until it execs, and running the copy then
/// fails with "Text file busy" for a moment.
fn output_of_copy(command: &mut Command) -> std::process::Output {
    for _ in 0..50 {
        match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => return other.unwrap(),
        }
    }
    command.output().unwrap()
}

#[test]
fn base_head_runs_against_what_the_working_tree_builds() {
    let dir = scratch("ab-working-tree");
    let repo = dir.join("repo");
    fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "--quiet"]);
    fs::write(repo.join(".gitignore"), "/target/\n/runs/\nCargo.lock\n").unwrap();
    fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"queenattack\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [workspace]\n",
    )
    .unwrap();
    fs::write(repo.join("src/main.rs"), main_rs(1)).unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "version 1"]);
    cargo(&repo, &["build", "--release", "--quiet"]);
    let release = repo.join("target/release");
    fs::copy(env!("CARGO_BIN_EXE_tester"), release.join("tester")).unwrap();
    // The change, left uncommitted and not built: the binary is version 1's.
    fs::write(repo.join("src/main.rs"), main_rs(2)).unwrap();
    let mut ab = Command::new(release.join("tester"));
    ab.current_dir(&repo)
        .env_remove("CARGO_TARGET_DIR")
        .args([
            "ab",
            "--base",
            "HEAD",
            "--time-limit",
            "10",
            "--max-pairs",
            "15",
        ])
        .args(["--jobs", "2", "--out", "runs/ab", "--no-project"]);
    let out = output_of_copy(&mut ab);
    // The same score on every pair: rejected; what matters is who ran.
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let doc = json(&repo.join("runs/ab/ab.json"));
    let seed = doc["pairs"][0]["seed"].as_u64().unwrap();
    let said = |arm: &str| fs::read_to_string(repo.join(format!("runs/ab/{arm}/{seed}.err")));
    assert_eq!(said("base").unwrap(), "version 1\n");
    assert_eq!(said("new").unwrap(), "version 2\n", "{}", both(&out));
    assert!(
        both(&out).contains("cargo build --release --bin queenattack"),
        "{}",
        both(&out)
    );
    // B ran its own copy of the working tree's build.
    let copy = repo.join("runs/ab/bin/queenattack");
    assert_eq!(
        doc["arms"]["B"]["solver"]["program"],
        copy.to_str().unwrap()
    );
    assert_eq!(
        fs::read(&copy).unwrap(),
        fs::read(release.join("queenattack")).unwrap()
    );
}
