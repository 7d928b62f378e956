//! An output is never written over an input (issue 59, item 2): `tester vis -o`/`--gif` and
//! `tester compare --html` refuse, with exit 2, a file that is one they read, however it is
//! spelled (`./`, absolute, a symbolic link, a hard link); the input is left as it was. And
//! `compare --vis` writes its pages only beside a regular report file (item 4): not beside
//! `/dev/null`, a named pipe or `-`.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use crate::common::{echo_run, fifo, ok_text, run_within, scratch, tester};

/// `tester ARGS` in `dir`, killed after 20 s (the test then fails).
fn tester_in(dir: &Path, args: &[OsString]) -> Output {
    let mut command = tester();
    command.current_dir(dir).args(args);
    let (out, _) = run_within(command, Duration::from_secs(20));
    out.unwrap_or_else(|| panic!("{args:?}: still running after 20 s"))
}

fn words(line: &str) -> Vec<OsString> {
    line.split_whitespace().map(OsString::from).collect()
}

/// The bytes of every file in `dir` and its run folders, by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            files.extend(snapshot(&path));
        } else if meta.is_file() {
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// Asserts that `out` refuses `flag` as the same file as an input, and that nothing in `dir`
/// changed from `before`.
fn refused(dir: &Path, before: &[(PathBuf, Vec<u8>)], out: &Output, flag: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
    assert!(
        err.contains(flag) && err.contains("is the same file as"),
        "{err}"
    );
    assert_eq!(snapshot(dir), before, "{flag}: a file changed: {err}");
}

#[test]
fn vis_refuses_a_page_or_gif_that_is_one_of_its_inputs() {
    let dir = scratch("same-file-vis");
    let a = echo_run(&dir, "a");
    echo_run(&dir, "b");
    fs::copy(a.join("3.out"), dir.join("x.out")).unwrap();
    std::os::unix::fs::symlink("x.out", dir.join("link.html")).unwrap();
    fs::hard_link(dir.join("x.out"), dir.join("hard.html")).unwrap();
    let absolute = dir.join("x.out").display().to_string();
    let before = snapshot(&dir);
    for (line, flag) in [
        ("vis --seed 3 x.out -o x.out".to_string(), "-o x.out"),
        ("vis --seed 3 x.out -o ./x.out".to_string(), "-o ./x.out"),
        (format!("vis --seed 3 x.out -o {absolute}"), "-o /"),
        (
            "vis --seed 3 x.out -o link.html".to_string(),
            "-o link.html",
        ),
        (
            "vis --seed 3 x.out --gif hard.html".to_string(),
            "--gif hard.html",
        ),
        ("vis --seed 3 x.out --gif x.out".to_string(), "--gif x.out"),
        (
            "vis --seed 3 a/3.out x.out -o x.out".to_string(),
            "-o x.out",
        ),
        (
            "vis --seed 3 a/3.out b/3.out -o b/3.out".to_string(),
            "-o b/3.out",
        ),
        (
            "vis --seed 3 a/3.out b/3.out -o a/3.in".to_string(),
            "-o a/3.in",
        ),
        (
            "vis --input a/3.in x.out -o a/3.in".to_string(),
            "-o a/3.in",
        ),
        (
            "vis --input a/3.in x.out --gif a//3.in".to_string(),
            "--gif a//3.in",
        ),
    ] {
        let out = tester_in(&dir, &words(&line));
        refused(&dir, &before, &out, flag);
    }
    // `-` as a page is no file name: refused, no file `-` made.
    let out = tester_in(&dir, &words("vis --seed 3 x.out -o -"));
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.join("-").exists());
    // Another file is written as before.
    let out = tester_in(&dir, &words("vis --seed 3 x.out -o page.html"));
    ok_text(&out);
}

#[test]
fn compare_refuses_a_report_over_a_runs_file_or_a_table() {
    let dir = scratch("same-file-compare");
    echo_run(&dir, "a");
    echo_run(&dir, "b");
    std::os::unix::fs::symlink("a/results.json", dir.join("r.html")).unwrap();
    fs::hard_link(dir.join("b/1.in"), dir.join("h.html")).unwrap();
    let table = r#"{"bests": [{"seed": 1, "score": 1, "source": "x"}]}"#;
    fs::write(dir.join("t.json"), table).unwrap();
    let before = snapshot(&dir);
    for (line, flag) in [
        ("compare a b --html a/results.json", "--html a/results.json"),
        (
            "compare a b --html ./b/results.json",
            "--html ./b/results.json",
        ),
        ("compare a b --html b/2.out", "--html b/2.out"),
        ("compare a b --html a/3.err --vis", "--html a/3.err"),
        ("compare a b --html r.html", "--html r.html"),
        ("compare a b --html h.html", "--html h.html"),
        ("compare a b --bests t.json --html t.json", "--html t.json"),
        // A seed left out by --filter is still a file of the run.
        (
            "compare a b --filter seed<2 --html a/3.out",
            "--html a/3.out",
        ),
    ] {
        let out = tester_in(&dir, &words(line));
        refused(&dir, &before, &out, flag);
    }
    // The runs still compare.
    let out = tester_in(&dir, &words("compare a b --html report.html"));
    ok_text(&out);
}

#[test]
fn compare_vis_writes_pages_only_beside_a_regular_report() {
    let dir = scratch("same-file-vis-pages");
    echo_run(&dir, "a");
    echo_run(&dir, "b");
    let pipe = dir.join("pipe.html");
    fifo(&pipe);
    fs::create_dir_all(dir.join("folder.html")).unwrap();
    let devnull_pages = Path::new("/dev/null-vis");
    let made_before = devnull_pages.exists();
    let out = tester_in(&dir, &words("compare a b --vis --html /dev/null"));
    let made = !made_before && devnull_pages.exists();
    if made {
        // Left by a tester that wrote pages beside /dev/null (as root): removed before the
        // test fails.
        fs::remove_dir_all(devnull_pages).unwrap();
    }
    assert!(!made, "pages were written into /dev/null-vis");
    let outs = ["pipe.html", "folder.html", "-"].map(|report| {
        let mut args = words("compare a b --vis --html");
        args.push(OsStr::new(report).to_owned());
        (report, tester_in(&dir, &args))
    });
    let whys = [
        "a device",
        "a device, a pipe",
        "a folder",
        "`-` is no file name",
    ];
    for ((report, out), why) in [("/dev/null", out)].into_iter().chain(outs).zip(whys) {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{report}: {err}");
        assert!(err.contains(why), "{report}: {err}");
    }
    for stray in ["-", "--vis", "pipe-vis", "folder-vis"] {
        assert!(!dir.join(stray).exists(), "{stray} was made");
    }
    // Beside a regular file (or a new name) the pages are written.
    let out = tester_in(&dir, &words("compare a b --vis --html r.html"));
    ok_text(&out);
    assert!(dir.join("r-vis").is_dir());
}
