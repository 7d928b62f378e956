//! The faults a hostile run found (issue 25), one test each, named by the fault's number:
//! solvers orphaned by SIGHUP/SIGKILL (1), lost bests updates (2), unbounded reads (3), merge
//! dropping seeds (4), odd scores (5), escaped terminal output (9), `--force` deleting other
//! files (10), rescore hiding missing files (11). The page's verdict (6) is in `vis_cli.rs`.

use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{scratch, tester};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn results_json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Live (not zombie) processes whose environment marks them as started by the `tester` run
/// with this pid (`QA_TESTER_RUN=PID-SEED`).
fn marked(tester_pid: u32) -> Vec<i32> {
    let want = format!("QA_TESTER_RUN={tester_pid}-");
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rfind(')')
                .is_some_and(|i| stat[i + 1..].trim_start().starts_with(['Z', 'X']));
            let env = fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            !zombie
                && env
                    .split(|&b| b == 0)
                    .any(|v| v.starts_with(want.as_bytes()))
        })
        .collect()
}

/// `tester run` in its own session with two solvers (a shell and its `sleep` child each) that
/// run until killed; returns once all four are running.
fn start_sleeping_run(out: &Path) -> Child {
    let mut cmd = tester();
    cmd.args(["run", "--seeds", "1-2", "--jobs", "2", "--time-limit", "60"])
        .args(["--exec", "sleep 300; echo 0", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: `setsid` in the child before exec, like the `setsid` command.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    wait_for("two shells and two sleeps", Duration::from_secs(30), || {
        marked(pid).len() >= 4
    });
    child
}

#[test]
fn fault1_sighup_stops_the_solvers_and_saves_the_run() {
    let dir = scratch("faults-1-hup");
    let out = dir.join("run");
    let mut child = start_sleeping_run(&out);
    let pid = child.id();
    // SAFETY: a signal to the tester we started.
    unsafe { libc::kill(pid as i32, libc::SIGHUP) };
    let mut status = None;
    wait_for("tester to stop", Duration::from_secs(30), || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.unwrap().code(), Some(129), "{err}");
    assert!(err.contains("interrupted by SIGHUP"), "{err}");
    wait_for("no solver left", Duration::from_secs(5), || {
        marked(pid).is_empty()
    });
    let doc = results_json(&out);
    assert_eq!(doc["interrupted"], true);
    assert_eq!(doc["seeds"], serde_json::json!([1, 2]));
}

#[test]
fn fault1_sigkill_of_tester_takes_the_solvers_and_their_children() {
    let dir = scratch("faults-1-kill");
    let mut child = start_sleeping_run(&dir.join("run"));
    let pid = child.id();
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    // The shells die with tester (PR_SET_PDEATHSIG), their `sleep` children by the guardian.
    wait_for("no solver left", Duration::from_secs(5), || {
        marked(pid).is_empty()
    });
}

#[test]
fn fault2_concurrent_bests_updates_are_all_kept() {
    let dir = scratch("faults-2-bests");
    let bests = dir.join("cb.json");
    // Both runs read the (missing) file at their start; the second one writes a second later.
    let start = |seeds: &str, pause: &str, out: &str| {
        tester()
            .args(["run", "--quiet", "--seeds", seeds, "--time-limit", "30"])
            .args([
                "--exec",
                &format!("sleep {pause}; echo 0"),
                "--update-bests",
            ])
            .arg("--bests")
            .arg(&bests)
            .arg("--out")
            .arg(dir.join(out))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = start("11-13", "1", "a");
    let b = start("21-23", "2", "b");
    for run in [a, b] {
        let out = run.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("bests: 3 improved"),
            "{}",
            stdout(&out)
        );
    }
    let doc: Value = serde_json::from_str(&fs::read_to_string(&bests).unwrap()).unwrap();
    let seeds: Vec<u64> = doc["bests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [11, 12, 13, 21, 22, 23], "{doc}");
    // The answers folder of a table `cb.json` is `best-cb/` (`best/` belongs to `bests.json`).
    for seed in seeds {
        assert!(dir.join(format!("best-cb/{seed}.out")).is_file());
    }
}

/// `tester ARGS` with the standard output of `feed` (a shell command) on its standard input.
fn tester_fed(feed: &str, args: &[&str]) -> Output {
    let mut source = std::process::Command::new("sh")
        .args(["-c", feed])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = tester()
        .args(args)
        .stdin(source.stdout.take().unwrap())
        .output()
        .unwrap();
    let _ = source.kill();
    let _ = source.wait();
    out
}

#[test]
fn fault3_endless_files_and_streams_are_refused() {
    let dir = scratch("faults-3-reads");
    let refused = |out: Output, what: &str| {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("more than") && err.contains(what), "{err}");
    };
    let output_cap = "134217792 bytes, the most tester reads as an output";
    // A device named as a file is refused before any read (issue 59: no regular file).
    let device = |out: Output| {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("/dev/zero: it is a device, not a regular file"),
            "{err}"
        );
    };
    let out = tester()
        .args(["score", "--seed", "1", "/dev/zero"])
        .output()
        .unwrap();
    device(out);
    refused(
        tester_fed("yes", &["score", "--seed", "1", "-"]),
        output_cap,
    );
    let page = dir.join("y.html");
    let page = page.to_str().unwrap();
    let vis = ["vis", "--seed", "1", "-", "-o", page];
    refused(tester_fed("yes '0 0 0 1'", &vis), output_cap);
    assert!(!Path::new(page).exists());
    let out = tester()
        .args(["score", "--input", "/dev/zero", "/dev/null"])
        .output()
        .unwrap();
    device(out);
    // A big regular file is refused from its size, before any read.
    let big = dir.join("big.in");
    fs::File::create(&big).unwrap().set_len(5 << 20).unwrap();
    let out = tester()
        .args(["score", "--input"])
        .arg(&big)
        .arg("/dev/null")
        .output()
        .unwrap();
    refused(out, "as an input");
}

#[test]
fn fault11_rescore_names_a_missing_input_and_a_missing_output() {
    let dir = scratch("faults-11-rescore");
    let run = dir.join("run");
    let out = tester()
        .args([
            "run", "--quiet", "--seeds", "1-3", "--exec", "echo 0", "--out",
        ])
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    fs::remove_file(run.join("2.in")).unwrap();
    fs::remove_file(run.join("3.out")).unwrap();
    let out = tester().arg("rescore").arg(&run).output().unwrap();
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    assert!(err.contains("seed 2: 2.in is missing: not judged"), "{err}");
    assert!(
        text.contains("not judged (SEED.in missing): seeds 2"),
        "{text}"
    );
    assert!(
        text.contains("no output file (SEED.out missing): seeds 3"),
        "{text}"
    );
    assert!(!text.contains("Cannot parse"), "{text}");
    let out = tester()
        .args(["rescore", "--json"])
        .arg(&run)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["missing_input"], serde_json::json!([2]));
    assert_eq!(doc["missing_output"], serde_json::json!([3]));
    assert_eq!(doc["results"][1]["status"], "invalid");
}

/// Two runs of seeds 1-5 (`echo 0`: ok, scores errors × N) in `dir`/a and `dir`/b.
fn two_runs(dir: &Path) {
    for name in ["a", "b"] {
        let out = tester()
            .args([
                "run", "--quiet", "--seeds", "1-5", "--exec", "echo 0", "--out",
            ])
            .arg(dir.join(name))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// Sets the score of every result in `dir`/results.json to `score` (the JSON text given).
fn set_scores(dir: &Path, score: &str) {
    let path = dir.join("results.json");
    let mut doc = results_json(dir);
    for r in doc["results"].as_array_mut().unwrap() {
        r["score"] = Value::String("SCORE".into());
    }
    let text = doc.to_string().replace("\"SCORE\"", score);
    fs::write(path, text).unwrap();
}

#[test]
fn fault5_odd_scores_are_refused_by_compare_merge_and_runs() {
    let dir = scratch("faults-5-odd");
    two_runs(&dir);
    set_scores(&dir.join("b"), "-5");
    let (a, b) = (dir.join("a"), dir.join("b"));
    let out = tester().arg("compare").arg(&a).arg(&b).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("seed 1: status ok with score -5"),
        "{}",
        stderr(&out)
    );
    let out = tester()
        .arg("merge")
        .arg(&b)
        .arg("--out")
        .arg(dir.join("m"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("score -5"), "{}", stderr(&out));
    let out = tester().arg("runs").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("skipped") && stderr(&out).contains("score -5"));
    assert!(!stdout(&out).contains(" b "), "{}", stdout(&out));
}

#[test]
fn fault5_compare_html_of_tiny_scores_ends() {
    let dir = scratch("faults-5-tiny");
    two_runs(&dir);
    set_scores(&dir.join("b"), "1e-308");
    let mut child = tester()
        .arg("compare")
        .arg(dir.join("a"))
        .arg(dir.join("b"))
        .arg("--html")
        .arg(dir.join("p.html"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("compare --html still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success());
    let page = fs::read_to_string(dir.join("p.html")).unwrap();
    assert!(page.contains("<svg"), "the page has its plots");
}

#[test]
fn fault9_runs_and_compare_escape_control_characters() {
    let dir = scratch("faults-9-escape");
    two_runs(&dir);
    let evil = dir.join("b\x1b[31mred");
    fs::rename(dir.join("b"), &evil).unwrap();
    let mut doc = results_json(&evil);
    doc["comment"] = "clear\x1b[2J screen\u{202e}".into();
    doc["command"] = "echo\x07 0\r".into();
    fs::write(evil.join("results.json"), doc.to_string()).unwrap();
    let runs = tester().arg("runs").arg(&dir).output().unwrap();
    let compare = tester()
        .arg("compare")
        .arg(dir.join("a"))
        .arg(&evil)
        .output()
        .unwrap();
    for out in [runs, compare] {
        let text = stdout(&out);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\r'),
            "{text:?}"
        );
        assert!(!text.contains('\u{202e}'), "{text:?}");
        assert!(text.contains("clear\\x1b[2J screen\\u{202e}"), "{text}");
        assert!(text.contains("b\\x1b[31mred"), "{text}");
    }
}

/// `tester run --quiet --exec 'echo 0'` with these arguments.
fn quick_run(args: &[&str], out: &Path) -> Output {
    tester()
        .args(["run", "--quiet", "--exec", "echo 0"])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn merge(dirs: &[&Path], out: &Path, extra: &[&str]) -> Output {
    tester()
        .arg("merge")
        .args(dirs)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn fault4_merge_names_missing_extra_and_broken_seeds() {
    let dir = scratch("faults-4-merge");
    let d = |name: &str| dir.join(name);
    // Shards of two different seed lists: seeds 11, 13, ..., 19 are in neither.
    assert!(quick_run(&["--seeds", "1-9", "--shard", "0/2"], &d("s0"))
        .status
        .success());
    assert!(quick_run(&["--seeds", "1-20", "--shard", "1/2"], &d("s1"))
        .status
        .success());
    let out = merge(&[&d("s0"), &d("s1")], &d("m1"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("shard 0/2 lists 5 seeds and shard 1/2 lists 10"),
        "{}",
        stderr(&out)
    );
    assert!(!d("m1").join("results.json").exists());

    // An older results.json without `seeds`: its results still count.
    assert!(quick_run(&["--seeds", "1-5"], &d("old")).status.success());
    let mut doc = results_json(&d("old"));
    doc.as_object_mut().unwrap().remove("seeds");
    fs::write(d("old").join("results.json"), doc.to_string()).unwrap();
    assert!(quick_run(&["--seeds", "6-10"], &d("new")).status.success());
    let out = merge(&[&d("old"), &d("new")], &d("m2"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("has no seed list"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        results_json(&d("m2"))["results"].as_array().unwrap().len(),
        10
    );

    // A result for a seed outside the list is refused, not dropped.
    let mut doc = results_json(&d("new"));
    let mut extra = doc["results"][0].clone();
    extra["seed"] = 999.into();
    doc["results"].as_array_mut().unwrap().push(extra);
    fs::write(d("new").join("results.json"), doc.to_string()).unwrap();
    let out = merge(&[&d("new")], &d("m3"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("not in its seed list (999)"),
        "{}",
        stderr(&out)
    );

    // A deleted output makes the seed missing: refused, or merged without it (exit 1).
    fs::remove_file(d("old").join("1.out")).unwrap();
    let out = merge(&[&d("old")], &d("m4"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("1.out is missing"),
        "{}",
        stderr(&out)
    );
    let out = merge(&[&d("old")], &d("m4"), &["--allow-missing"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("seed 1: "), "{}", stderr(&out));
    let merged = results_json(&d("m4"));
    assert_eq!(merged["interrupted"], true);
    assert_eq!(merged["results"].as_array().unwrap().len(), 4);
    assert_eq!(merged["results"][0]["seed"], 2);
}

#[test]
fn merge_judges_the_kept_answers_again() {
    // Issue 65 item 4: a score edited in a part's results.json was merged as it stood.
    let dir = scratch("faults-merge-judged");
    let d = |name: &str| dir.join(name);
    assert!(quick_run(&["--seeds", "1-3", "--n", "9-11"], &d("s"))
        .status
        .success());
    let judged = results_json(&d("s"))["results"][0]["score"]
        .as_f64()
        .unwrap();
    let mut doc = results_json(&d("s"));
    doc["results"][0]["score"] = 1.0.into();
    fs::write(d("s").join("results.json"), doc.to_string()).unwrap();
    fs::write(d("s").join("1.in"), "1\n1\n1\n").unwrap();
    let out = merge(&[&d("s")], &d("m"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("seed 1: results.json says ok 1, but its output judges ok"),
        "{}",
        stderr(&out)
    );
    let merged = results_json(&d("m"));
    assert_eq!(merged["results"][0]["score"].as_f64(), Some(judged));
    // The merged summary is what `tester rescore` finds in the merged folder (its case is the
    // one generated for the seed, not the part's edited copy).
    let rescored = tester()
        .arg("rescore")
        .arg("--json")
        .arg(d("m"))
        .output()
        .unwrap();
    assert!(rescored.status.success(), "{}", stderr(&rescored));
    let rescored: Value = serde_json::from_str(&stdout(&rescored)).unwrap();
    assert!(merged["summary"]["mean"].is_f64(), "{merged}");
    assert_eq!(rescored["summary"]["mean"], merged["summary"]["mean"]);
    assert_eq!(rescored["results"][0]["score"].as_f64(), Some(judged));
}

#[test]
fn fault10_force_deletes_only_the_runs_own_files() {
    let dir = scratch("faults-10-force");
    let mine = ["notes.txt", "99.in", "7.html"];
    for name in mine {
        fs::write(dir.join(name), "mine\n").unwrap();
    }
    // Not a run folder (no results.json): the run goes ahead beside the user's files.
    let out = quick_run(&["--seeds", "1-3", "--force"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    // Replacing that run deletes its seeds' files only.
    let out = quick_run(&["--seeds", "4-5", "--force"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!dir.join("1.in").exists() && !dir.join("3.out").exists());
    assert!(dir.join("4.in").exists());
    for name in mine {
        assert_eq!(
            fs::read_to_string(dir.join(name)).unwrap(),
            "mine\n",
            "{name}"
        );
    }
    // A copy of testcases/ is not a run: its inputs are never written over.
    let cases = scratch("faults-10-cases");
    for seed in 1..=10 {
        fs::write(cases.join(format!("{seed}.in")), "case\n").unwrap();
    }
    let out = quick_run(&["--seeds", "1-2", "--force"], &cases);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("that no tester run recorded (1.in, 2.in)"),
        "{}",
        stderr(&out)
    );
    for seed in 1..=10 {
        assert_eq!(
            fs::read_to_string(cases.join(format!("{seed}.in"))).unwrap(),
            "case\n"
        );
    }
    assert!(!cases.join("results.json").exists());
}
