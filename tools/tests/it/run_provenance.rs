//! Issue 69: what a run records of the code it ran. The default solver built before its
//! sources last changed is named before the run and in `results.json` (item 4: after an A/B of
//! an edit since reverted, or an edit not built, the runs used a binary that was not the tree
//! they recorded, without a word); `git.patch` keeps the source changes, not the outputs left
//! in the tree, and names what it left out (item 10: a 500 KB GIF went into it).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::ab::git;
use crate::common::{copy_executable, scratch, tester};

fn results_json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Sets the modification time of `path` to `secs_ago` seconds before now.
fn age(path: &Path, secs_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(secs_ago);
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// A project `dir` with `src/main.rs` and a `target/release/` holding `tester` and the
/// default solver `queenattack` (a script answering with no move), with the dep-info file
/// cargo would write beside it, listing `src/main.rs`.
fn built_project(dir: &Path) -> std::path::PathBuf {
    let release = dir.join("target/release");
    fs::create_dir_all(&release).unwrap();
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    let solver = release.join("queenattack");
    fs::write(&solver, "#!/bin/sh\necho 0\n").unwrap();
    let mut perms = fs::metadata(&solver).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&solver, perms).unwrap();
    let main = dir.join("src/main.rs").canonicalize().unwrap();
    let info = format!(
        "{}: {}\n",
        solver.canonicalize().unwrap().display(),
        main.display()
    );
    fs::write(release.join("queenattack.d"), info).unwrap();
    copy_executable(
        Path::new(env!("CARGO_BIN_EXE_tester")),
        &release.join("tester"),
    );
    release.join("tester")
}

/// `TESTER run` of seed 1 with the default solver into `dir/NAME`.
fn run_default(tester: &Path, dir: &Path, name: &str) -> Output {
    Command::new(tester)
        .current_dir(dir)
        .args([
            "run",
            "--no-project",
            "--quiet",
            "--seeds",
            "1",
            "--time-limit",
            "5",
        ])
        .arg("--out")
        .arg(dir.join(name))
        .output()
        .unwrap()
}

#[test]
fn a_default_solver_built_before_its_sources_changed_is_named() {
    let dir = scratch("provenance-stale");
    let tester = built_project(&dir);
    let (solver, main) = (
        dir.join("target/release/queenattack"),
        dir.join("src/main.rs"),
    );
    // Built after the last edit: up to date, nothing said.
    age(&main, 120);
    age(&solver, 60);
    let fresh = run_default(&tester, &dir, "fresh");
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr(&fresh));
    assert!(
        !stderr(&fresh).contains("built before"),
        "{}",
        stderr(&fresh)
    );
    let doc = results_json(&dir.join("fresh"));
    assert_eq!(doc["solver"]["up_to_date"], true, "{}", doc["solver"]);
    assert!(doc["solver"]["newer_source"].is_null());
    // An edit (or a revert) since the build: said before the run, and recorded.
    age(&main, 0);
    let stale = run_default(&tester, &dir, "stale");
    assert_eq!(stale.status.code(), Some(0), "{}", stderr(&stale));
    let said = stderr(&stale);
    assert!(
        said.contains("warning: the solver")
            && said.contains("was built before")
            && said.contains("src/main.rs"),
        "{said}"
    );
    let doc = results_json(&dir.join("stale"));
    assert_eq!(doc["solver"]["up_to_date"], false, "{}", doc["solver"]);
    let newer = doc["solver"]["newer_source"].as_str().unwrap();
    assert!(newer.ends_with("src/main.rs"), "{newer}");
}

#[test]
fn the_patch_keeps_sources_and_names_the_outputs_it_leaves_out() {
    let dir = scratch("provenance-patch");
    let repo = committed_repo(&dir);
    // A new source, an animation (binary, small) and a page (text, large) left in the tree.
    fs::write(repo.join("new.rs"), "fn new() {}\n").unwrap();
    let mut gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00".to_vec();
    gif.resize(20_000, 0);
    fs::write(repo.join("2.gif"), &gif).unwrap();
    fs::write(repo.join("2.html"), "<p>a page</p>\n".repeat(20_000)).unwrap();
    let out = tester()
        .current_dir(&repo)
        .args(["run", "--no-project", "--seeds", "1", "--exec", "echo 0"])
        .args(["--out", "runs/r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let patch = fs::read(repo.join("runs/r/git.patch")).unwrap();
    let text = String::from_utf8_lossy(&patch);
    assert!(text.contains("+fn new() {}"), "{text:.2000}");
    assert!(patch.len() < 4000, "{} bytes: {text:.2000}", patch.len());
    assert!(!text.contains("diff --git a/2.gif") && !text.contains("diff --git a/2.html"));
    let doc = results_json(&repo.join("runs/r"));
    assert_eq!(doc["git_dirty"], true);
    assert_eq!(doc["git_left_out"], serde_json::json!(["2.gif", "2.html"]));
    let said = stderr(&out);
    assert!(
        said.contains("git.patch leaves out") && said.contains("2.gif and 2.html"),
        "{said}"
    );
    // The patch still rebuilds the sources on a clean copy.
    let copy = dir.join("copy");
    git(&dir, &["clone", "-q", "repo", "copy"]);
    let patch = repo.join("runs/r/git.patch");
    git(&copy, &["apply", patch.to_str().unwrap()]);
    assert_eq!(
        fs::read_to_string(copy.join("new.rs")).unwrap(),
        "fn new() {}\n"
    );
    assert!(!copy.join("2.gif").exists());
}

/// A git repository `dir/repo` of one commit: `solver.txt` ("one") and a `.gitignore` of
/// `/runs/` (the run folders the tests write there).
pub fn committed_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    fs::write(repo.join("solver.txt"), "one\n").unwrap();
    fs::write(repo.join(".gitignore"), "/runs/\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "first"]);
    repo
}
