//! What `tester` writes, under hostile conditions (issue 35's general rules): a diagnostic
//! stream that fails never costs the answer (standard error or standard output a closed
//! pipe), and writes never follow a symbolic link they did not create (a link planted at an
//! output's name, pointing at a precious file, leaves that file untouched).

use crate::common;

use std::fs;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{scratch, tester};
use serde_json::Value;

const PRECIOUS: &str = "precious\n";

/// The write end of a pipe whose read end is already closed: every write to it fails with
/// EPIPE (and SIGPIPE, which a program may ignore), as `2>&1 >out | true` gives.
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills the two descriptors we own from here on.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are open and owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

/// `tester run` of `seeds` with the shell solver `exec` into `dir/out`, from `dir`.
fn run(dir: &Path, seeds: &str, exec: &str, extra: &[&str]) -> Command {
    let mut command = tester();
    command
        .current_dir(dir)
        .args(["run", "--no-project", "--seeds", seeds, "--exec", exec])
        .args(["--time-limit", "20", "--out", "out"])
        .args(extra);
    command
}

/// The seeds of the results in `dir/results.json`.
fn result_seeds(dir: &Path) -> Vec<u64> {
    let doc: Value = serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap())
        .expect("results.json is JSON");
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seed"].as_u64().unwrap())
        .collect()
}

/// A folder holding `precious.txt`; returns it and the precious file's path.
fn with_precious(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(&format!("hostile-writes-{name}"));
    let precious = dir.join("precious.txt");
    fs::write(&precious, PRECIOUS).unwrap();
    (dir, precious)
}

fn assert_untouched(precious: &Path) {
    let text = String::from_utf8_lossy(&fs::read(precious).unwrap()).into_owned();
    let start: String = text.chars().take(60).collect();
    assert!(
        text == PRECIOUS,
        "{} was written: {start:?}...",
        precious.display()
    );
}

/// `path` is now a file of its own, no longer a link.
fn assert_replaced(path: &Path) {
    let meta = fs::symlink_metadata(path).unwrap();
    assert!(
        meta.file_type().is_file(),
        "{} is no plain file",
        path.display()
    );
}

fn describe(out: &Output) -> String {
    format!(
        "{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
            .chars()
            .take(2000)
            .collect::<String>()
    )
}

#[test]
fn a_closed_stderr_costs_a_run_neither_its_files_nor_its_report() {
    let dir = scratch("hostile-writes-stderr");
    let out = run(&dir, "1-2", "echo 0", &[])
        .stdout(Stdio::piped())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    // Before: `eprintln!` panicked on the first line (exit 101), no results.json.
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(result_seeds(&dir.join("out")), [1, 2]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("results: out/results.json"), "{report}");
    // The exit code is still the seeds' status.
    let out = run(&dir, "3-4", "exit 3", &["--force"])
        .stdout(Stdio::null())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(result_seeds(&dir.join("out")), [3, 4]);
}

#[test]
fn a_closed_stdout_ends_the_text_quietly_and_keeps_the_files() {
    let dir = scratch("hostile-writes-stdout");
    // Both streams closed: the run still writes its folder and exits by its seeds.
    let out = run(&dir, "1-2", "echo 0", &[])
        .stdout(closed_pipe())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(result_seeds(&dir.join("out")), [1, 2]);
    // `compare | head`: the report is cut, the page is still written. Before, SIGPIPE ended
    // tester while it printed the report, before the page.
    let out = tester()
        .current_dir(&dir)
        .args(["compare", "out", "out", "--html", "page.html"])
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(out.stderr.is_empty(), "{}", describe(&out));
    let page = fs::read_to_string(dir.join("page.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_full_disk_on_stdout_is_an_error_not_a_panic() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = scratch("hostile-writes-full");
    fs::write(dir.join("1.out"), "0\n").unwrap();
    let out = tester()
        .current_dir(&dir)
        .args(["score", "--seed", "1", "1.out"])
        .stdout(fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write to standard output"), "{err}");
}

#[test]
fn compare_html_and_vis_replace_a_link_instead_of_writing_through_it() {
    let (dir, precious) = with_precious("pages");
    let out = run(&dir, "1-2", "echo 0", &["--quiet"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    for (name, args) in [
        ("rep.html", &["compare", "out", "out", "--html"][..]),
        ("a.gif", &["vis", "--seed", "1", "out/1.out", "--gif"][..]),
        ("a.html", &["vis", "--seed", "1", "out/1.out", "-o"][..]),
    ] {
        symlink("precious.txt", dir.join(name)).unwrap();
        let out = tester()
            .current_dir(&dir)
            .args(args)
            .arg(name)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", describe(&out));
        assert_untouched(&precious);
        assert_replaced(&dir.join(name));
    }
    assert!(fs::read(dir.join("a.gif")).unwrap().starts_with(b"GIF89a"));
}

#[test]
fn a_gif_to_dev_stdout_still_reaches_a_pipe_and_a_file() {
    let dir = scratch("hostile-writes-stdout-gif");
    fs::write(dir.join("1.out"), "0\n").unwrap();
    let vis = || {
        let mut command = tester();
        command
            .current_dir(&dir)
            .args(["vis", "--seed", "1", "1.out", "--gif", "/dev/stdout"]);
        command
    };
    let piped = vis().output().unwrap();
    assert_eq!(piped.status.code(), Some(0), "{}", describe(&piped));
    assert!(piped.stdout.starts_with(b"GIF89a"));
    let file = dir.join("f.gif");
    let out = vis()
        .stdout(fs::File::create(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(fs::read(&file).unwrap(), piped.stdout);
}

#[test]
fn gen_replaces_a_link_at_a_seed_file() {
    let (dir, precious) = with_precious("gen");
    fs::create_dir(dir.join("g")).unwrap();
    symlink("../precious.txt", dir.join("g/1.in")).unwrap();
    let out = tester()
        .current_dir(&dir)
        .args(["gen", "--seeds", "1-2", "--dir", "g"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_untouched(&precious);
    assert_replaced(&dir.join("g/1.in"));
    assert!(fs::read_to_string(dir.join("g/1.in"))
        .unwrap()
        .starts_with("8\n2\n"));
}

#[test]
fn a_run_replaces_links_at_its_seed_files() {
    let (dir, precious) = with_precious("seed-files");
    // A fresh folder with dangling links: following one would create its target.
    fs::create_dir(dir.join("out")).unwrap();
    for ext in ["in", "out", "err"] {
        symlink(format!("../made.{ext}"), dir.join(format!("out/1.{ext}"))).unwrap();
    }
    let out = run(&dir, "1", "echo 0; echo log >&2", &["--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    for ext in ["in", "out", "err"] {
        assert!(!dir.join(format!("made.{ext}")).exists(), "made.{ext}");
        assert_replaced(&dir.join(format!("out/1.{ext}")));
    }
    assert_eq!(fs::read_to_string(dir.join("out/1.err")).unwrap(), "log\n");
    // --resume of a run whose seed 2 did not finish, its files now links to precious files.
    let out = run(&dir, "1-2", "echo 0", &["--quiet", "--force"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let results = dir.join("out/results.json");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&results).unwrap()).unwrap();
    doc["results"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["seed"] == 1);
    doc["interrupted"] = Value::Bool(true);
    fs::write(&results, doc.to_string()).unwrap();
    for ext in ["in", "out", "err"] {
        let seed_file = dir.join(format!("out/2.{ext}"));
        fs::remove_file(&seed_file).unwrap();
        symlink("../precious.txt", &seed_file).unwrap();
    }
    let out = run(&dir, "1-2", "echo 0", &["--quiet", "--resume"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_untouched(&precious);
    assert_eq!(result_seeds(&dir.join("out")), [1, 2]);
    assert_eq!(fs::read_to_string(dir.join("out/2.out")).unwrap(), "0\n");
}

#[test]
fn best_outputs_and_merged_files_replace_links() {
    let (dir, precious) = with_precious("bests-merge");
    fs::create_dir(dir.join("best")).unwrap();
    symlink("../precious.txt", dir.join("best/1.out")).unwrap();
    let args = ["--quiet", "--bests", "bests.json", "--update-bests"];
    let out = run(&dir, "1-2", "echo 0", &args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_untouched(&precious);
    assert_eq!(fs::read_to_string(dir.join("best/1.out")).unwrap(), "0\n");
    // `tester merge` into a folder holding a dangling link at a seed's file.
    fs::create_dir(dir.join("merged")).unwrap();
    symlink("../made.out", dir.join("merged/1.out")).unwrap();
    let out = tester()
        .current_dir(&dir)
        .args(["merge", "out", "--out", "merged"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!dir.join("made.out").exists());
    assert_eq!(fs::read_to_string(dir.join("merged/1.out")).unwrap(), "0\n");
}
