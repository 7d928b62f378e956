//! `tester ab` with fixture solvers (fast, deterministic): verdicts and exit codes, the folder
//! (`ab.json` and two ordinary run folders), the printed LLR against the documented formula,
//! `--resume`, shards and `--verdict`, git revisions in worktrees, the current build, Ctrl-C.
//! The real solver's A/B tests are in `ab_solver.rs`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{copy_executable, fixture, scratch, tester};

/// `tester ab` with `args`, its output.
fn ab(args: &[&str]) -> Output {
    tester().arg("ab").args(args).output().unwrap()
}

/// The text of both streams, for assertion messages.
pub fn both(out: &Output) -> String {
    format!(
        "{}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `path` read as JSON.
pub fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The LLR on the printed `LLR X, bounds …` line.
fn printed_llr(out: &Output) -> f64 {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("LLR "))
        .expect("an LLR line");
    line[4..line.find(',').unwrap()].parse().unwrap()
}

/// The pairs the verdict of `ab.json` counted and the LLR of the documented formula on them:
/// `x = ln(b / a)` clipped to ±ln 1.25 (a failed side: ±ln 2 against it),
/// `LLR = n/2 · ln((s² + x̄² + F) / (s² + (x̄ − μ1)² + F))`, `F = 1e-12`, over the first `read`
/// pairs of the stream less those marked starved.
pub fn documented_llr(doc: &Value) -> (usize, f64) {
    let n = doc["verdict"]["pairs"].as_u64().unwrap() as usize;
    let read = doc["verdict"]["read"].as_u64().unwrap() as usize;
    let mut pairs: Vec<&Value> = doc["pairs"].as_array().unwrap().iter().collect();
    pairs.sort_by_key(|p| p["pair"].as_u64());
    let ln2 = std::f64::consts::LN_2;
    let xs: Vec<f64> = pairs[..read]
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            assert_eq!(
                p["pair"],
                i + 1,
                "the pairs read are the first of the stream"
            );
            p["starved"].is_null()
        })
        .map(|(_, p)| {
            let score = |side: &str| {
                (p[side]["status"] == "ok").then(|| p[side]["score"].as_f64().unwrap())
            };
            match (score("a"), score("b")) {
                (Some(a), Some(b)) if a == b => 0.0,
                (Some(a), Some(b)) => (b / a).ln().clamp(-1.25f64.ln(), 1.25f64.ln()),
                (Some(_), None) => ln2,
                (None, Some(_)) => -ln2,
                (None, None) => 0.0,
            }
        })
        .collect();
    assert_eq!(
        xs.len(),
        n,
        "the pairs counted are those read less the starved"
    );
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    let mu1 = (1.0 - doc["settings"]["delta"].as_f64().unwrap()).ln();
    let llr = n as f64 / 2.0
        * ((var + mean * mean + 1e-12) / (var + (mean - mu1) * (mean - mu1) + 1e-12)).ln();
    (n, llr)
}

/// Checks that the printed LLR and `ab.json`'s are the documented formula on `ab.json`'s pairs.
pub fn assert_llr_is_the_formula(out: &Output, doc: &Value) {
    let (n, llr) = documented_llr(doc);
    assert!(n >= 15, "{n} pairs: the test never decides below 15");
    let recorded = doc["verdict"]["llr"].as_f64().unwrap();
    assert!(
        (recorded - llr).abs() <= 1e-9 * llr.abs().max(1.0),
        "{recorded} vs {llr}"
    );
    let printed = printed_llr(out);
    assert!((printed - llr).abs() <= 6e-5, "printed {printed} vs {llr}");
}

/// Options of an A/B of two fixture solvers in `out` with 2 jobs and a 10 s limit.
pub fn fixtures<'a>(base: &'a str, new: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "--base-exec",
        base,
        "--new-exec",
        new,
        "--out",
        out,
        "--jobs",
        "2",
        "--time-limit",
        "10",
        "--no-project",
    ]
}

#[test]
fn identical_solvers_are_rejected_and_the_arms_are_run_folders() {
    let dir = scratch("ab-identical");
    let out_dir = dir.join("ab");
    let ok = fixture("ok.sh");
    let out = ab(&fixtures(&ok, &ok, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdict: rejected"), "{text}");
    let doc = json(&out_dir.join("ab.json"));
    assert_eq!(doc["verdict"]["verdict"], "rejected");
    assert_eq!(doc["verdict"]["pairs"], 15);
    assert_eq!(doc["interrupted"], false);
    assert_llr_is_the_formula(&out, &doc);
    // The pairs alternate which arm starts, and hold the same seed on both sides.
    let pairs = doc["pairs"].as_array().unwrap();
    assert_eq!(pairs[0]["first"], "A");
    assert_eq!(pairs[1]["first"], "B");
    assert!(pairs.iter().all(|p| p["seed"].as_u64().unwrap() > 10_000));
    // Both arms are ordinary run folders: every pair's seed there, and `compare` reads them.
    for arm in ["base", "new"] {
        let run = json(&out_dir.join(arm).join("results.json"));
        assert_eq!(run["results"].as_array().unwrap().len(), pairs.len());
        assert_eq!(run["interrupted"], false);
        assert!(out_dir
            .join(arm)
            .join(format!("{}.out", pairs[3]["seed"]))
            .is_file());
    }
    let compare = tester()
        .arg("compare")
        .arg(out_dir.join("base"))
        .arg(out_dir.join("new"))
        .output()
        .unwrap();
    assert!(compare.status.success(), "{}", both(&compare));
    assert!(String::from_utf8_lossy(&compare.stdout).contains("equal on 15 of 15 paired seeds"));
    // An A/B folder is never reused without --resume.
    let again = ab(&fixtures(&ok, &ok, out_dir.to_str().unwrap()));
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
}

#[test]
fn a_base_that_crashes_loses_its_pairs_and_b_is_accepted() {
    let dir = scratch("ab-crash");
    let out_dir = dir.join("ab");
    let (crash, ok) = (fixture("crash_odd.sh"), fixture("ok.sh"));
    let out = ab(&fixtures(&crash, &ok, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let doc = json(&out_dir.join("ab.json"));
    assert_eq!(doc["verdict"]["verdict"], "accepted");
    assert_llr_is_the_formula(&out, &doc);
    // Every odd board is a lost pair of A, counted and named.
    let n = doc["verdict"]["pairs"].as_u64().unwrap() as usize;
    let pairs = doc["pairs"].as_array().unwrap();
    let lost = pairs[..n]
        .iter()
        .filter(|p| p["a"]["status"] == "crash")
        .count();
    assert!(lost > 0);
    assert_eq!(doc["verdict"]["failures"]["a"], lost);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("failed: A {lost}, B 0, both 0")),
        "{text}"
    );
    assert!(text.contains("A crash"), "{text}");
}

#[test]
fn resume_continues_with_the_same_pairs() {
    let dir = scratch("ab-resume");
    let (crash, ok) = (fixture("crash_odd.sh"), fixture("ok.sh"));
    let part = dir.join("part");
    let part_s = part.to_str().unwrap();
    let mut args = fixtures(&crash, &ok, part_s);
    args.extend(["--max-pairs", "15"]);
    let first = ab(&args);
    assert_eq!(first.status.code(), Some(3), "{}", both(&first));
    assert!(String::from_utf8_lossy(&first.stdout).contains("verdict: inconclusive"));
    let before = json(&part.join("ab.json"))["pairs"].clone();
    assert_eq!(before.as_array().unwrap().len(), 15);
    // Options that differ from the record are refused; --max-pairs may grow.
    let differ = ab(&["--resume", "--out", part_s, "--delta", "3"]);
    assert_eq!(differ.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&differ.stderr).contains("--delta"),
        "{}",
        both(&differ)
    );
    let resumed = ab(&[
        "--resume",
        "--out",
        part_s,
        "--max-pairs",
        "40",
        "--jobs",
        "4",
    ]);
    let doc = json(&part.join("ab.json"));
    assert_eq!(
        doc["pairs"].as_array().unwrap()[..15],
        before.as_array().unwrap()[..]
    );
    // The same verdict as one session of 40 pairs.
    let whole = dir.join("whole");
    let mut args = fixtures(&crash, &ok, whole.to_str().unwrap());
    args.extend(["--max-pairs", "40"]);
    let once = ab(&args);
    assert_eq!(
        resumed.status.code(),
        once.status.code(),
        "{}",
        both(&resumed)
    );
    let once_doc = json(&whole.join("ab.json"));
    assert_eq!(doc["verdict"]["pairs"], once_doc["verdict"]["pairs"]);
    assert_eq!(doc["verdict"]["llr"], once_doc["verdict"]["llr"]);
    assert_llr_is_the_formula(&resumed, &doc);
}

#[test]
fn shards_on_two_hosts_give_the_verdict_of_one_machine() {
    let dir = scratch("ab-shards");
    let (crash, ok) = (fixture("crash_odd.sh"), fixture("ok.sh"));
    let one = dir.join("one");
    let mut args = fixtures(&crash, &ok, one.to_str().unwrap());
    args.extend(["--max-pairs", "30"]);
    let single = ab(&args);
    let shard_dirs: Vec<PathBuf> = (0..2).map(|k| dir.join(format!("s{k}"))).collect();
    for (k, shard_dir) in shard_dirs.iter().enumerate() {
        let shard = format!("{k}/2");
        let mut args = fixtures(&crash, &ok, shard_dir.to_str().unwrap());
        args.extend(["--max-pairs", "30", "--shard", &shard]);
        let out = ab(&args);
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("15 of 15 pairs finished"));
        let run = json(&shard_dir.join("base/results.json"));
        assert_eq!(run["shard"], shard);
    }
    let verdict = tester()
        .args(["ab", "--verdict"])
        .args(&shard_dirs)
        .output()
        .unwrap();
    assert_eq!(
        verdict.status.code(),
        single.status.code(),
        "{}",
        both(&verdict)
    );
    assert_eq!(printed_llr(&verdict), printed_llr(&single));
    let pairs_line = |out: &Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find(|l| l.starts_with("pairs: "))
            .unwrap()
            .to_string()
    };
    assert_eq!(pairs_line(&verdict), pairs_line(&single));
    // One shard alone ends at the first pair of the other: no verdict.
    let half = tester()
        .args(["ab", "--verdict"])
        .arg(&shard_dirs[0])
        .output()
        .unwrap();
    assert_eq!(half.status.code(), Some(3), "{}", both(&half));
    assert!(String::from_utf8_lossy(&half.stderr).contains("pair 2 is in none"));
    // The arms of the shards merge like any sharded run.
    let merged = tester()
        .arg("merge")
        .arg(shard_dirs[0].join("new"))
        .arg(shard_dirs[1].join("new"))
        .arg("--out")
        .arg(dir.join("merged-new"))
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", both(&merged));
    assert_eq!(
        json(&dir.join("merged-new/results.json"))["results"]
            .as_array()
            .unwrap()
            .len(),
        30
    );
}

/// Runs `git ARGS` in `dir`; its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", both(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn revisions_are_built_in_their_own_worktrees() {
    let dir = scratch("ab-revisions");
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet"]);
    fs::write(repo.join(".gitignore"), "/runs/\n/target/\n").unwrap();
    fs::write(
        repo.join("tester.toml"),
        "build = \"echo \\\"$CARGO_TARGET_DIR\\\" > built.txt\"\nsolver = \"sh solver.sh --seed {seed}\"\n",
    )
    .unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    fs::copy(fixtures.join("crash_odd.sh"), repo.join("solver.sh")).unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "odd boards crash"]);
    fs::copy(fixtures.join("ok.sh"), repo.join("solver.sh")).unwrap();
    git(&repo, &["commit", "--quiet", "-am", "no crash"]);
    let out = tester()
        .current_dir(&repo)
        .args([
            "ab",
            "--base",
            "HEAD~1",
            "--new",
            "HEAD",
            "--out",
            "runs/ab",
            "--jobs",
            "2",
            "--keep-worktrees",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let doc = json(&repo.join("runs/ab/ab.json"));
    let commit = |rev: &str| {
        let out = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["rev-parse", rev])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    for (label, rev) in [("A", "HEAD~1"), ("B", "HEAD")] {
        let arm = &doc["arms"][label];
        assert_eq!(arm["commit"], commit(rev));
        assert_eq!(arm["built"], true);
        // Built in its worktree, with CARGO_TARGET_DIR pointing into it.
        let tree = repo.join("runs/ab/src").join(&commit(rev)[..12]);
        assert_eq!(
            fs::read_to_string(tree.join("built.txt")).unwrap(),
            "target\n"
        );
        let folder = if label == "A" { "base" } else { "new" };
        let run = json(&repo.join("runs/ab").join(folder).join("results.json"));
        assert_eq!(run["git_commit"], commit(rev));
    }
    // A's solver (the first commit's crash_odd.sh, which prints its arguments) got the seed.
    let seed = doc["pairs"][0]["seed"].as_u64().unwrap();
    let err = fs::read_to_string(repo.join("runs/ab/base").join(format!("{seed}.err")));
    assert!(err.unwrap().contains(&format!("args: --seed {seed}\n")));
    assert_eq!(doc["verdict"]["verdict"], "accepted");
    // A revision that does not exist is an error before anything runs.
    let bad = tester()
        .current_dir(&repo)
        .args(["ab", "--base", "no-such-branch", "--out", "runs/bad"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`no-such-branch` is not a commit"));
}

#[test]
fn the_current_build_is_copied_and_gets_its_limit_seed_and_args() {
    let dir = scratch("ab-current");
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    copy_executable(Path::new(env!("CARGO_BIN_EXE_tester")), &bin.join("tester"));
    let solver = bin.join("queenattack");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crash_odd.sh"),
        &solver,
    )
    .unwrap();
    fs::set_permissions(&solver, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = Command::new(bin.join("tester"))
        .current_dir(&dir)
        .args([
            "ab",
            "--new-args",
            "--param t1=0.2",
            "--time-limit",
            "7",
            "--max-pairs",
            "15",
        ])
        .args(["--out", "ab", "--jobs", "1", "--no-project"])
        .output()
        .unwrap();
    // The same solver on both sides: rejected.
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let doc = json(&dir.join("ab/ab.json"));
    let seed = doc["pairs"][0]["seed"].as_u64().unwrap();
    let args = |folder: &str| {
        fs::read_to_string(dir.join("ab").join(folder).join(format!("{seed}.err"))).unwrap()
    };
    assert!(args("base").contains(&format!("args: --time-limit 7 --seed {seed}\n")));
    assert!(args("new").contains(&format!(
        "args: --time-limit 7 --seed {seed} --param t1=0.2\n"
    )));
    // The A/B runs its own copy: a rebuild meanwhile cannot change it.
    let copy = dir.join("ab/bin/queenattack");
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&solver).unwrap());
    assert_eq!(
        doc["arms"]["B"]["solver"]["program"],
        copy.to_str().unwrap()
    );
}

/// Whether a process (not a zombie) runs with this pid.
fn alive(pid: i32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    stat.rfind(')')
        .is_some_and(|i| !stat[i + 2..].starts_with('Z'))
}

#[test]
fn ctrl_c_stops_every_solver_and_keeps_a_valid_folder() {
    let dir = scratch("ab-ctrl-c");
    let pids = dir.join("pids");
    fs::create_dir_all(&pids).unwrap();
    // A solver that hangs with a child in its group and one that left it (setsid).
    let script = dir.join("hang.sh");
    fs::write(
        &script,
        "read n\necho $$ > \"$QA_TEST_PIDS/$$\"\nsleep 300 &\necho $! > \"$QA_TEST_PIDS/$!\"\n\
         setsid sleep 300 &\necho $! > \"$QA_TEST_PIDS/$!\"\nwait\n",
    )
    .unwrap();
    let hang = format!("sh '{}'", script.display());
    let out_dir = dir.join("ab");
    let child = tester()
        .arg("ab")
        .args(fixtures(&hang, &hang, out_dir.to_str().unwrap()))
        .env("QA_TEST_PIDS", &pids)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while fs::read_dir(&pids).unwrap().count() < 6 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the solvers did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: a signal to the tester this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", both(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("verdict: none yet"),
        "{}",
        both(&out)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    let doc = json(&out_dir.join("ab.json"));
    assert_eq!(doc["interrupted"], true);
    assert!(doc["verdict"]["verdict"].is_null());
    assert_eq!(
        json(&out_dir.join("base/results.json"))["interrupted"],
        true
    );
    for entry in fs::read_dir(&pids).unwrap() {
        let pid: i32 = entry
            .unwrap()
            .file_name()
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(!alive(pid), "process {pid} outlived tester ab");
    }
}

#[test]
fn bad_usage_is_refused_before_anything_runs() {
    let dir = scratch("ab-usage");
    let ok = fixture("ok.sh");
    let out_dir = dir.join("x");
    let out_s = out_dir.to_str().unwrap();
    for (extra, message) in [
        (["--jobs", "3"], "must be 1 or even"),
        (["--delta", "0"], "--delta"),
        (["--alpha", "0.6"], "--alpha"),
    ] {
        let mut args = vec![
            "--base-exec",
            &ok,
            "--new-exec",
            &ok,
            "--out",
            out_s,
            "--no-project",
        ];
        args.extend(extra);
        let out = ab(&args);
        assert_eq!(out.status.code(), Some(2), "{}", both(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(message),
            "{}",
            both(&out)
        );
        assert!(!out_dir.join("ab.json").exists());
    }
    // --resume where no A/B is recorded is refused too: ab_worktrees.rs.
}

#[test]
fn the_end_of_one_arm_never_touches_the_other_arms_processes() {
    let dir = scratch("ab-markers");
    // A answers after 0.1 s; B's answer waits for a child (`sleep`) that would die if the
    // clean-up of A's ended seed reached B's processes (then B exits 7: a crash).
    let script = |name: &str, body: &str| {
        let path = dir.join(name);
        fs::write(&path, format!("read n\n{body}\necho 0\n")).unwrap();
        format!("sh '{}'", path.display())
    };
    let quick = script("quick.sh", "sleep 0.1");
    let slow = script("slow.sh", "sleep 0.6 || exit 7");
    let out_dir = dir.join("ab");
    let out = ab(&[
        "--base-exec",
        &quick,
        "--new-exec",
        &slow,
        "--out",
        out_dir.to_str().unwrap(),
        "--jobs",
        "4",
        "--max-pairs",
        "15",
        "--time-limit",
        "10",
        "--no-project",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let doc = json(&out_dir.join("ab.json"));
    assert_eq!(doc["verdict"]["failures"]["b"], 0, "{}", both(&out));
}
