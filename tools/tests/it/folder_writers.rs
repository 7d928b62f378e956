//! Issue 65 item 2: every command that writes into a run folder takes the folder's lock
//! (`.tester.lock`) or refuses a folder that a `tester run` is writing (exit 2), as `run` and
//! `ab` do: `merge --force`, `gen --dir`, `vis -o`, `init --dir` and `compare --html` there
//! changed the run's files under it (its solver's answers lost, its cases replaced), and so
//! did they in an arm's folder (`base/`, `new/`) of a running `tester ab`.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{echo_run, ok_text, quiet_run, scratch, tester};

/// The exit code and standard error of `out`, for messages.
fn said(out: &Output) -> String {
    format!(
        "{:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A `tester` this test started; stopped with SIGTERM and waited for when dropped, so a
/// failed assertion leaves no run or A/B going on behind the test.
struct Running(Child);

impl Running {
    /// Stops it with SIGTERM; its exit code.
    fn stop(&mut self) -> Option<i32> {
        // SAFETY: a signal to the tester this test started.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        self.0.wait().ok()?.code()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            self.stop();
        }
    }
}

/// Waits until every file of `paths` exists.
fn wait_for(paths: &[&Path]) {
    let start = Instant::now();
    while !paths.iter().all(|p| p.is_file()) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "never written: {paths:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The commands that write into the run folder `into`, by name: `source` and `other` are
/// finished runs of seeds 1-3 (merged, drawn, compared).
fn writers(into: &Path, source: &Path, other: &Path) -> Vec<(&'static str, Command)> {
    let mut merge = tester();
    merge.arg("merge").arg(source).args(["--force", "--out"]);
    merge.arg(into);
    let mut gen = tester();
    gen.args(["gen", "--seeds", "1-2", "--n", "12", "--c", "3", "--dir"]);
    gen.arg(into);
    let mut init = tester();
    init.args(["init", "--dir"]).arg(into);
    let mut vis = tester();
    vis.args(["vis", "--seed", "1"]).arg(source.join("1.out"));
    vis.arg("-o").arg(into.join("1.html"));
    let mut compare = tester();
    compare.arg("compare").args([source, other]).arg("--html");
    compare.arg(into.join("report.html"));
    vec![
        ("merge --force", merge),
        ("gen --dir", gen),
        ("init --dir", init),
        ("vis -o", vis),
        ("compare --html", compare),
    ]
}

/// Runs each writer of [`writers`] into `into`: each must be refused (exit 2), naming `holder`
/// (`tester run (pid 123)`), and write nothing there.
fn all_refused(into: &Path, source: &Path, other: &Path, holder: &str) {
    let before: Vec<_> = fs::read_dir(into)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let case = before
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "in"));
    let case_bytes = case.map(|p| fs::read(p).unwrap());
    let holder = format!("in use by another {holder}");
    for (what, mut command) in writers(into, source, other) {
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}: {}", said(&out));
        assert!(said(&out).contains(&holder), "{what}: {}", said(&out));
    }
    let mut after: Vec<_> = fs::read_dir(into)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    after.retain(|p| !before.contains(p));
    assert!(
        after.is_empty(),
        "written into {}: {after:?}",
        into.display()
    );
    assert_eq!(case.map(|p| fs::read(p).unwrap()), case_bytes);
}

#[test]
fn no_command_writes_into_a_folder_that_a_run_is_writing() {
    let dir = scratch("folder-writers");
    let (source, other) = (echo_run(&dir, "src"), echo_run(&dir, "other"));
    // Named as `compare --html busy.html --vis` names its pages' folder.
    let busy = dir.join("busy-vis");
    let mut run = Running(
        quiet_run(&dir)
            .args(["--seeds", "1-2", "--jobs", "2", "--time-limit", "120"])
            .args(["--exec", "sleep 120; echo 0", "--out"])
            .arg(&busy)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Both seeds' cases are written once their solvers start.
    wait_for(&[&busy.join("1.in"), &busy.join("2.in")]);
    let holder = format!("tester run (pid {})", run.0.id());
    all_refused(&busy, &source, &other, &holder);
    let mut pages = tester();
    pages.arg("compare").args([&source, &other]).arg("--html");
    let out = pages
        .arg(dir.join("busy.html"))
        .arg("--vis")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains(&holder), "{}", said(&out));
    assert!(!dir.join("busy.html").exists() && !busy.join("seed-1.html").exists());
    assert_eq!(run.stop(), Some(143));
    // The run has ended: its folder is free to write again.
    let out = tester()
        .args(["merge"])
        .arg(&source)
        .args(["--force", "--out"])
        .arg(&busy)
        .output()
        .unwrap();
    assert!(
        ok_text(&out).contains("merged 1 folder: 3 seeds"),
        "{}",
        said(&out)
    );
}

#[test]
fn no_command_writes_into_an_arm_folder_of_a_running_ab() {
    let dir = scratch("folder-writers-ab");
    let (source, other) = (echo_run(&dir, "src"), echo_run(&dir, "other"));
    let ab_dir = dir.join("ab");
    let mut ab = Running(
        tester()
            .args(["ab", "--no-project", "--jobs", "2", "--time-limit", "120"])
            .args([
                "--base-exec",
                "sleep 120; echo 0",
                "--new-exec",
                "sleep 120; echo 0",
            ])
            .arg("--out")
            .arg(&ab_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // The first pair's case is written into both arms' folders once their solvers start.
    let first = tools::cli::command::ab::folder::SeedStream::Default.first(1)[0];
    let cases = ["base", "new"].map(|arm| ab_dir.join(arm).join(format!("{first}.in")));
    wait_for(&[&cases[0], &cases[1]]);
    let holder = format!("tester ab (pid {})", ab.0.id());
    for arm in ["base", "new"] {
        all_refused(&ab_dir.join(arm), &source, &other, &holder);
    }
    assert_eq!(ab.stop(), Some(143));
    // The A/B has ended: its arms' folders are free to write again.
    let page = ab_dir.join("new/1.html");
    let mut vis = tester();
    vis.args(["vis", "--seed", "1"]).arg(source.join("1.out"));
    ok_text(&vis.arg("-o").arg(&page).output().unwrap());
    assert!(page.is_file());
}
