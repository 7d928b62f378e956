//! A named pipe (or any file that is no regular file) where `tester` expects an answer, an
//! input or a stderr file is refused at once with exit 2, never waited on (issue 59, item 5):
//! `tester rescore`, `tester compare` (with and without `--vis`), `tester vis` and `tester
//! score`; and a named pipe at a lock file (`.tester.lock`, `bests.json.lock`). Each command runs
//! under a time limit: one that blocks on the pipe fails the test.

use std::fs;
use std::process::{Command, Output};
use std::time::Duration;

use crate::common::{echo_run, fifo, ok_text, run_within, scratch, tester};

/// `command` run (killed after 20 s); its output, the test failing if it had to be killed.
fn within(mut command: Command, what: &str) -> Output {
    command.current_dir(std::env::temp_dir());
    let (out, _) = run_within(command, Duration::from_secs(20));
    out.unwrap_or_else(|| panic!("{what}: still running after 20 s (blocked on a pipe?)"))
}

/// Asserts that `out` is a refusal (exit 2) naming a named pipe.
fn refused(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(
        err.contains("named pipe (FIFO), not a regular file"),
        "{what}: {err}"
    );
}

fn cmd(args: &[&std::ffi::OsStr]) -> Command {
    let mut command = tester();
    command.args(args);
    command
}

#[test]
fn rescore_refuses_a_pipe_and_never_waits_on_one() {
    let dir = scratch("not-regular-rescore");
    let run = echo_run(&dir, "run");
    fifo(&run.join("1.out"));
    let out = within(
        cmd(&["rescore".as_ref(), run.as_os_str()]),
        "rescore, 1.out",
    );
    refused(&out, "rescore, 1.out");
    let run = echo_run(&dir, "run-in");
    fifo(&run.join("2.in"));
    let out = within(cmd(&["rescore".as_ref(), run.as_os_str()]), "rescore, 2.in");
    refused(&out, "rescore, 2.in");
    // A stderr file only gives the data lines: a pipe there has none, and is not waited on.
    let run = echo_run(&dir, "run-err");
    fifo(&run.join("3.err"));
    let out = within(
        cmd(&["rescore".as_ref(), run.as_os_str()]),
        "rescore, 3.err",
    );
    ok_text(&out);
}

#[test]
fn vis_and_score_refuse_a_pipe() {
    let dir = scratch("not-regular-vis");
    let run = echo_run(&dir, "run");
    let pipe = dir.join("pipe.out");
    fifo(&pipe);
    let page = dir.join("page.html");
    let good = run.join("1.out");
    let input = run.join("1.in");
    let seed = ["--seed".as_ref(), "1".as_ref()];
    let o = ["-o".as_ref(), page.as_os_str()];
    let cases: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
        (
            "vis A",
            [&["vis".as_ref()], &seed[..], &[pipe.as_os_str()], &o[..]].concat(),
        ),
        (
            "vis B",
            [
                &["vis".as_ref()],
                &seed[..],
                &[good.as_os_str(), pipe.as_os_str()],
                &o[..],
            ]
            .concat(),
        ),
        (
            "vis --input",
            vec![
                "vis".as_ref(),
                "--input".as_ref(),
                pipe.as_os_str(),
                good.as_os_str(),
                o[0],
                o[1],
            ],
        ),
        (
            "vis --gif",
            vec![
                "vis".as_ref(),
                seed[0],
                seed[1],
                pipe.as_os_str(),
                "--gif".as_ref(),
                page.as_os_str(),
            ],
        ),
        (
            "score",
            vec!["score".as_ref(), seed[0], seed[1], pipe.as_os_str()],
        ),
        (
            "score --input",
            vec![
                "score".as_ref(),
                "--input".as_ref(),
                pipe.as_os_str(),
                good.as_os_str(),
            ],
        ),
    ];
    for (what, args) in cases {
        let out = within(cmd(&args), what);
        refused(&out, what);
        assert!(!page.exists(), "{what}");
    }
    // The input beside a run's output (checked for two outputs) is read only when it is a
    // regular file.
    fifo(&input);
    let two = [good.as_os_str(), good.as_os_str()];
    let out = within(
        cmd(&[&["vis".as_ref()], &seed[..], &two[..], &o[..]].concat()),
        "vis beside a pipe",
    );
    ok_text(&out);
}

#[test]
fn compare_refuses_a_pipe_in_a_echo_run() {
    let dir = scratch("not-regular-compare");
    let a = echo_run(&dir, "a");
    let b = echo_run(&dir, "b");
    let report = dir.join("r.html");
    let vis = [
        "compare".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        "--html".as_ref(),
        report.as_os_str(),
        "--vis".as_ref(),
    ];
    fifo(&b.join("2.out"));
    let out = within(cmd(&vis), "compare --vis, 2.out");
    refused(&out, "compare --vis, 2.out");
    assert!(!report.exists());
    fs::remove_file(b.join("2.out")).unwrap();
    fifo(&a.join("3.in"));
    let out = within(cmd(&vis[..3]), "compare, 3.in");
    refused(&out, "compare, 3.in");
}

#[test]
fn a_pipe_at_a_lock_file_is_refused() {
    let dir = scratch("not-regular-lock");
    let run = echo_run(&dir, "run");
    fifo(&run.join(".tester.lock"));
    let mut resume = tester();
    resume
        .args(["run", "--quiet", "--no-project", "--seeds", "1-3"])
        .args(["--exec", "echo 0", "--resume", "--out"])
        .arg(&run);
    let out = within(resume, "run --resume");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(".tester.lock: it is no regular file"), "{err}");
    // The lock of a bests table.
    let table = dir.join("bests.json");
    fifo(&dir.join("bests.json.lock"));
    let mut update = tester();
    update
        .args(["run", "--quiet", "--no-project", "--seeds", "1-3"])
        .args(["--exec", "echo 0", "--update-bests", "--bests"])
        .arg(&table)
        .arg("--out")
        .arg(dir.join("run2"));
    let out = within(update, "run --update-bests");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bests.json.lock: it is no regular file"),
        "{err}"
    );
    assert!(!table.exists());
}

/// Puts something at a path.
type MakeAt = fn(&std::path::Path);

#[test]
fn rescore_refuses_a_results_json_that_is_no_regular_file() {
    // Issue 65 item 5: a results.json that is a pipe, a folder or a link to a device was
    // taken for none, and the seeds judged again without what the run recorded (a timeout
    // became ok, exit 0).
    let dir = scratch("not-regular-results");
    let kinds: [(&str, MakeAt, &str); 3] = [
        (
            "a named pipe",
            fifo,
            "named pipe (FIFO), not a regular file",
        ),
        (
            "a folder",
            |p| fs::create_dir(p).unwrap(),
            "a folder, not a regular file",
        ),
        (
            "a link to /dev/zero",
            |p| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
            "a device, not a regular file",
        ),
    ];
    for (k, (what, make, said)) in kinds.into_iter().enumerate() {
        let run = echo_run(&dir, &format!("run{k}"));
        let results = run.join("results.json");
        fs::remove_file(&results).unwrap();
        make(&results);
        let out = within(cmd(&["rescore".as_ref(), run.as_os_str()]), what);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(
            err.contains("results.json") && err.contains(said),
            "{what}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
