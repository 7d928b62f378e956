//! Issue 59 item 9: `tester ab --base HEAD` compares HEAD with what the working tree builds,
//! not with a binary built before the last edit; issue 69 item 4: it builds that tree into a
//! target folder of its own, leaving `target/release/queenattack` (what `tester run` runs) as it
//! was. A tiny cargo project stands in for the repository (its `queenattack` answers with no
//! move and says its version on stderr); its three release builds (the first by the test, then
//! A's worktree and B's working tree by `tester ab`) take a few seconds. Issue 69 item 5: with
//! a `tester.toml` solver (as `tester init` writes it), B runs a copy of it with the pair's
//! seed, as without one.

use std::fs;
use std::path::Path;
use std::process::Command;

use super::ab::{both, git, json};
use crate::common::{copy_executable, scratch};

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
    copy_executable(
        Path::new(env!("CARGO_BIN_EXE_tester")),
        &release.join("tester"),
    );
    // The change, left uncommitted and not built: the binary is version 1's.
    fs::write(repo.join("src/main.rs"), main_rs(2)).unwrap();
    let before = fs::read(release.join("queenattack")).unwrap();
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
    let out = ab.output().unwrap();
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
    // B ran its own copy of the working tree's build, made in the A/B's own target folder:
    // the binary `tester run` runs is still version 1's, as the tree would build it once the
    // change is reverted.
    let copy = repo.join("runs/ab/bin/queenattack");
    assert_eq!(
        doc["arms"]["B"]["solver"]["program"],
        copy.to_str().unwrap()
    );
    assert!(
        fs::read(release.join("queenattack")).unwrap() == before,
        "tester ab rebuilt target/release/queenattack"
    );
    assert_eq!(
        fs::read(&copy).unwrap(),
        fs::read(repo.join("target/tester-ab/release/queenattack")).unwrap()
    );
    // That binary is older than the change: a run says so, by cargo's own dep-info.
    let run = Command::new(release.join("tester"))
        .current_dir(&repo)
        .env_remove("CARGO_TARGET_DIR")
        .args([
            "run",
            "--seeds",
            "1",
            "--out",
            "runs/r",
            "--no-project",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", both(&run));
    assert!(both(&run).contains("was built before"), "{}", both(&run));
    assert_eq!(
        json(&repo.join("runs/r/results.json"))["solver"]["up_to_date"],
        false
    );
}

#[test]
fn a_project_files_queenattack_runs_from_a_copy_with_the_pairs_seed() {
    let dir = scratch("ab-project-solver");
    let release = dir.join("target/release");
    fs::create_dir_all(&release).unwrap();
    // A queenattack saying how it was run; `tester init`'s solver line, and a build.
    let solver = release.join("queenattack");
    fs::write(&solver, "#!/bin/sh\necho \"$0 $*\" >&2\necho 0\n").unwrap();
    let mut mode = fs::metadata(&solver).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    fs::set_permissions(&solver, mode).unwrap();
    fs::write(
        dir.join("tester.toml"),
        "solver = \"./target/release/queenattack --time-limit {time_limit}\"\n\
         build = \"touch built\"\n",
    )
    .unwrap();
    let a = format!(
        "'{}' --time-limit {{time_limit}} --seed {{seed}}",
        solver.display()
    );
    let out = crate::common::tester()
        .current_dir(&dir)
        .args(["ab", "--base-exec", &a, "--time-limit", "2"])
        .args(["--seeds", "11-25", "--max-pairs", "15", "--jobs", "2"])
        .args(["--out", "runs/ab", "--quiet"])
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", both(&out));
    assert!(dir.join("built").exists(), "the file's build did not run");
    let copy = dir.canonicalize().unwrap().join("runs/ab/bin/queenattack");
    let doc = json(&dir.join("runs/ab/ab.json"));
    for pair in doc["pairs"].as_array().unwrap() {
        let seed = pair["seed"].as_u64().unwrap();
        let said = |arm: &str| {
            let err = dir.join(format!("runs/ab/{arm}/{seed}.err"));
            fs::read_to_string(err).unwrap()
        };
        assert_eq!(
            said("base"),
            format!("{} --time-limit 2 --seed {seed}\n", solver.display())
        );
        assert_eq!(
            said("new"),
            format!("{} --time-limit 2 --seed {seed}\n", copy.display()),
            "B is not A's solver at the pair's seed, run from its copy"
        );
    }
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&solver).unwrap());
}
