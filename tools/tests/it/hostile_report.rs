//! Hostile values in what `tester run` and `tester compare` report (issue 35): extreme
//! `[DATA]` numbers in the plots, `--filter` and `--group-by` mistakes, terminal escapes from
//! a solver, and absurdly nested filters.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{scratch, tester};

/// Writes the shell solver `name` in `dir` and returns its command line.
fn solver(dir: &Path, name: &str, script: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, script).unwrap();
    format!("sh '{}'", path.display())
}

/// `tester run --no-build --exec EXEC --out OUT ARGS` in `cwd`.
fn run(cwd: &Path, exec: &str, out: &str, args: &[&str]) -> Output {
    tester()
        .current_dir(cwd)
        .args(["run", "--no-build", "--quiet", "--exec", exec, "--out", out])
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Seeds 1-4 have N = 8, 30, 27, 29: each prints other extreme values.
const EXTREME: &str = r#"read n
case $n in
  8) x=1.7976931348623157e308; y=-1.7976931348623157e308 ;;
  30) x=5e-324; y=2.2250738585072014e-308 ;;
  27) x=0; y=0 ;;
  *) x=-1.7976931348623157e308; y=1.7976931348623157e308 ;;
esac
echo "[DATA] x = $x" >&2
echo "[DATA] y = $y" >&2
echo "[DATA] same = 1.7976931348623157e308" >&2
echo "[DATA] tiny = 5e-324" >&2
echo "[DATA] zero = 0" >&2
echo 0
"#;

#[test]
fn compare_html_draws_extreme_data_values() {
    let dir = scratch("hostile-extreme");
    let exec = solver(&dir, "extreme.sh", EXTREME);
    for out in ["a", "b"] {
        let done = run(&dir, &exec, out, &["--seeds", "1-4"]);
        assert!(done.status.success(), "{}", text(&done.stderr));
    }
    let mut compare = tester();
    compare
        .current_dir(&dir)
        .args(["compare", "a", "b", "--html", "page.html"]);
    let done = common::run_within(compare, Duration::from_secs(30))
        .0
        .expect("compare ended within 30 s");
    assert!(done.status.success(), "{}", text(&done.stderr));
    let page = fs::read_to_string(dir.join("page.html")).unwrap();
    for key in ["x", "y", "same", "tiny", "zero"] {
        assert!(
            page.contains(&format!("score ratio against {key} ")),
            "no plot of {key}"
        );
    }
}

/// Crashes after printing terminal escapes (clear screen, set the window title) on stderr,
/// with a `[DATA]` value holding them too.
const ESCAPES: &str = r#"read n
printf '[DATA] stop = \033]0;PWNED\007x\n' >&2
if [ "$1" = ok ]; then echo 0; exit 0; fi
printf '\033[2J\033]0;OWNED\007 boom' >&2
exit 1
"#;

/// Fails when `output` holds an escape or bell character.
fn assert_no_raw_escape(output: &str) {
    assert!(
        !output.contains('\x1b') && !output.contains('\x07'),
        "a raw control character: {output:?}"
    );
}

#[test]
fn run_escapes_a_crashing_solvers_stderr_and_group_labels() {
    let dir = scratch("hostile-escapes-run");
    let exec = solver(&dir, "escapes.sh", ESCAPES);
    let done = run(&dir, &exec, "r", &["--seeds", "1-2", "--group-by", "stop"]);
    assert_eq!(done.status.code(), Some(1), "{}", text(&done.stderr));
    let out = text(&done.stdout);
    assert!(
        out.contains("seed 1 crash: exit code 1; stderr: \\x1b[2J"),
        "{out}"
    );
    assert!(out.contains("stop=\\x1b]0;PWNED\\x07x"), "{out}");
    assert_no_raw_escape(&out);
    assert_no_raw_escape(&text(&done.stderr));
}

#[test]
fn compare_escapes_group_labels() {
    let dir = scratch("hostile-escapes-compare");
    let exec = format!("{} ok", solver(&dir, "escapes.sh", ESCAPES));
    for out in ["a", "b"] {
        let done = run(&dir, &exec, out, &["--seeds", "1-2"]);
        assert!(done.status.success(), "{}", text(&done.stderr));
    }
    let done = tester()
        .current_dir(&dir)
        .args(["compare", "a", "b", "--group-by", "stop"])
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", text(&done.stderr));
    let out = text(&done.stdout);
    assert!(out.contains("stop=\\x1b]0;PWNED\\x07x"), "{out}");
    assert_no_raw_escape(&out);
}

#[test]
fn deeply_nested_filters_are_refused_not_a_stack_overflow() {
    let dir = scratch("hostile-nested");
    let deep = format!("{}N > 1{}", "(".repeat(60_000), ")".repeat(60_000));
    for (filter, why) in [
        (deep, "bytes long, at most 4096"),
        (format!("{}(N > 1)", "!".repeat(100)), "levels deep"),
    ] {
        for command in ["run", "compare"] {
            let done = tester()
                .current_dir(&dir)
                .args([command, "--filter", &filter])
                .args(if command == "run" {
                    vec![
                        "--no-build",
                        "--exec",
                        "echo 0",
                        "--out",
                        "r",
                        "--seeds",
                        "1",
                    ]
                } else {
                    vec!["a", "b"]
                })
                .output()
                .unwrap();
            assert_eq!(done.status.code(), Some(2), "{command}");
            assert!(text(&done.stderr).contains(why), "{}", text(&done.stderr));
        }
        assert!(!dir.join("r").exists(), "nothing ran");
    }
    // The longest filter accepted nests 2000 operators deep without parentheses: it is read.
    let chain = format!("{}1 < N", "1^".repeat(2000));
    let done = run(
        &dir,
        "echo 0",
        "chain",
        &["--seeds", "1", "--filter", &chain],
    );
    assert!(done.status.success(), "{}", text(&done.stderr));
}

/// Prints `stop` (a string) on every seed and `k`, 0 on the big boards (seeds 2 and 3 of 1-3),
/// and leaves a mark that it ran.
const STOP: &str = r#"read n
touch "$(dirname "$0")/ran"
echo "[DATA] stop = deadline" >&2
if [ "$n" -gt 10 ]; then echo "[DATA] k = 0" >&2; else echo "[DATA] k = 2" >&2; fi
echo 0
"#;

#[test]
fn filter_mistakes_seen_on_the_seeds_keep_the_report_and_bests() {
    let dir = scratch("hostile-filter-after");
    let exec = solver(&dir, "stop.sh", STOP);
    for (i, (filter, shown, warning)) in [
        (
            r#"stopp == "x""#,
            3,
            "no seed has stopp (known: C, N, P, cpu_ms, errors, k, moves, penalty, score, seed, \
             status, stop, wall_ms); the filter is ignored, every seed is shown",
        ),
        (
            "stop > 3",
            0,
            "cannot be evaluated on 3 seeds, which do not pass: seeds 1, 2, 3: Expected",
        ),
        (
            "N / k > 3",
            1,
            "cannot be evaluated on 2 seeds, which do not pass: seed 2: Error dividing 30 / 0; \
             seed 3: Error dividing 27 / 0",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let bests = format!("b{i}.json");
        let done = run(
            &dir,
            &exec,
            &format!("r{i}"),
            &[
                "--seeds",
                "1-3",
                "--bests",
                &bests,
                "--update-bests",
                "--filter",
                filter,
            ],
        );
        let (out, err) = (text(&done.stdout), text(&done.stderr));
        assert_eq!(done.status.code(), Some(0), "{filter}: {err}");
        assert!(err.contains(warning), "{filter}: {err}");
        assert!(out.contains(&format!("seeds {shown}  ok {shown}")), "{out}");
        assert!(out.contains("bests: 3 improved"), "{out}");
        let saved = fs::read_to_string(dir.join(&bests)).unwrap();
        assert_eq!(saved.matches("\"seed\"").count(), 3, "{saved}");
    }
}

#[test]
fn filter_mistakes_seen_without_a_seed_stop_before_the_first() {
    let dir = scratch("hostile-filter-before");
    let exec = solver(&dir, "stop.sh", STOP);
    for (option, value, why) in [
        ("--filter", "n > 3", "did you mean `N`?"),
        ("--filter", "N = 3", "assigns to `N`"),
        (
            "--filter",
            "status > 3",
            "built-in features have fixed types",
        ),
        ("--filter", "N + 1", "gives 9, not true or false"),
        ("--filter", "mins(N, C) > 1", "no function `mins`"),
        ("--filter", "(N > 3", "not an expression"),
        ("--group-by", "two words", "no feature can have this name"),
        ("--group-by", "Seed", "did you mean `seed`?"),
    ] {
        let done = run(&dir, &exec, "r", &["--seeds", "1-3", option, value]);
        let err = text(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "{value}: {err}");
        assert!(err.contains(why), "{value}: {err}");
        assert!(
            !dir.join("ran").exists() && !dir.join("r").exists(),
            "{value}"
        );
    }
    // The same checks in compare, before any folder is read.
    let done = tester()
        .current_dir(&dir)
        .args(["compare", "none1", "none2", "--filter", "c > 1"])
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(2));
    assert!(text(&done.stderr).contains("did you mean `C`?"));
}

#[test]
fn compare_leaves_out_seeds_a_filter_cannot_be_evaluated_on() {
    let dir = scratch("hostile-filter-compare");
    let exec = solver(&dir, "stop.sh", STOP);
    for out in ["a", "b"] {
        let done = run(&dir, &exec, out, &["--seeds", "1-3"]);
        assert!(done.status.success(), "{}", text(&done.stderr));
    }
    let compare = |args: &[&str]| {
        tester()
            .current_dir(&dir)
            .args(["compare", "a", "b"])
            .args(args)
            .output()
            .unwrap()
    };
    let done = compare(&["--filter", "N / k > 3", "--group-by", "stopp"]);
    let (out, err) = (text(&done.stdout), text(&done.stderr));
    assert!(done.status.success(), "{err}");
    assert!(out.contains("seeds: 1 in all"), "{out}");
    assert!(
        err.contains("cannot be evaluated on 2 seeds, which do not pass: seed 2: Error dividing"),
        "{err}"
    );
    assert!(err.contains("--group-by stopp: no seed has stopp"), "{err}");
    // Every seed fails: nothing to compare, said after the warning.
    let done = compare(&["--filter", "stop > 3"]);
    let err = text(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "{err}");
    assert!(
        err.contains("seeds 1, 2, 3: Expected") && err.contains("no seed passes"),
        "{err}"
    );
}

#[test]
fn a_case_filter_error_skips_the_seed_with_a_warning() {
    let dir = scratch("hostile-filter-case");
    let exec = solver(&dir, "stop.sh", STOP);
    // Seeds 1-3 have C = 2, 6, 1: seed 1 divides by zero, seed 3 gives -27.
    let done = run(
        &dir,
        &exec,
        "r",
        &["--seeds", "1-3", "--filter", "N / (C - 2) > 3"],
    );
    let err = text(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(
        err.contains("cannot be evaluated on 1 seed, which does not pass: seed 1: Error dividing"),
        "{err}"
    );
    let results = fs::read_to_string(dir.join("r/results.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&results).unwrap();
    assert_eq!(doc["seeds"], serde_json::json!([2]));
}
