//! `tester ab` where it used to fail its user (issues 49 and 52), with fixture solvers: A/Bs
//! stopped before their first pair resume, a smaller `--max-pairs` keeps the pairs, one
//! process per folder, an arm failing on every pair decided at 15 pairs, both failing is an
//! error, tampered scores are judged again, `ab.json` is range-checked, options that can never
//! decide are refused, the A/B's folder is no change of the tree, revisions by message, the
//! same code on both sides said, worktrees removed, `tester runs` lists the arms.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ab::{both, fixtures, git, json};
use crate::common::{copy_executable, fixture, run_within, scratch, tester};

/// `tester ab` in `dir` with `args` only.
pub fn ab(dir: &Path, args: &[&str]) -> Output {
    tester()
        .current_dir(dir)
        .arg("ab")
        .args(args)
        .output()
        .unwrap()
}

pub fn write_json(path: &Path, v: &Value) {
    fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// A repository in `dir/repo` whose tester.toml builds with `true` and runs ok.sh, with the
/// commits `one` and `two words`.
pub fn repository(dir: &Path) -> std::path::PathBuf {
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet"]);
    fs::write(repo.join(".gitignore"), "/runs/\n").unwrap();
    fs::write(
        repo.join("tester.toml"),
        "build = \"true\"\nsolver = \"sh solver.sh\"\n",
    )
    .unwrap();
    let ok = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    fs::copy(ok, repo.join("solver.sh")).unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "one"]);
    git(
        &repo,
        &["commit", "--quiet", "--allow-empty", "-m", "two words"],
    );
    repo
}

#[test]
fn an_ab_stopped_before_its_first_pair_resumes() {
    let dir = scratch("ab-traps-early");
    // What a start stopped while its worktree was checked out leaves: the lock file and the
    // first folders, no ab.json.
    let early = dir.join("early");
    fs::create_dir_all(early.join("src")).unwrap();
    fs::create_dir_all(early.join("base")).unwrap();
    fs::write(early.join(".tester.lock"), "").unwrap();
    let ok = fixture("ok.sh");
    let early_s = early.to_str().unwrap();
    let refused = ab(&dir, &fixtures(&ok, &ok, early_s));
    assert_eq!(refused.status.code(), Some(2), "{}", both(&refused));
    assert!(both(&refused).contains("--resume"), "{}", both(&refused));
    let mut args = fixtures(&ok, &ok, early_s);
    args.push("--resume");
    let resumed = ab(&dir, &args);
    assert_eq!(resumed.status.code(), Some(1), "{}", both(&resumed));
    // A build that failed: its message says so first; --resume builds again and goes on.
    let project = dir.join("project");
    fs::create_dir_all(&project).unwrap();
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    fs::write(
        project.join("tester.toml"),
        format!(
            "build = \"test -f ready || {{ echo building; exit 1; }}\"\nsolver = \"sh '{}'\"\n",
            solver.display()
        ),
    )
    .unwrap();
    let args = ["--out", "ab", "--jobs", "2", "--time-limit", "10"];
    let failed = ab(&project, &args);
    assert_eq!(failed.status.code(), Some(2), "{}", both(&failed));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    let first = stderr
        .lines()
        .find(|l| l.starts_with("tester: error:"))
        .unwrap();
    assert!(
        first.contains("the build of A (current build) failed"),
        "{stderr}"
    );
    fs::write(project.join("ready"), "").unwrap();
    let resumed = ab(&project, &[&args[..], &["--resume"]].concat());
    assert_eq!(resumed.status.code(), Some(1), "{}", both(&resumed));
    assert_eq!(json(&project.join("ab/ab.json"))["verdict"]["pairs"], 15);
}

#[test]
fn a_smaller_max_pairs_keeps_the_pairs_and_reads_the_first() {
    let dir = scratch("ab-traps-smaller");
    let (crash, ok) = (fixture("crash_odd.sh"), fixture("ok.sh"));
    let one = dir.join("one");
    let one_s = one.to_str().unwrap();
    let first = ab(
        &dir,
        &[&fixtures(&crash, &ok, one_s)[..], &["--max-pairs", "20"]].concat(),
    );
    assert_eq!(first.status.code(), Some(3), "{}", both(&first));
    let smaller = ab(&dir, &["--resume", "--out", one_s, "--max-pairs", "15"]);
    assert_eq!(smaller.status.code(), Some(3), "{}", both(&smaller));
    let doc = json(&one.join("ab.json"));
    assert_eq!(doc["verdict"]["pairs"], 15);
    assert_eq!(doc["pairs"].as_array().unwrap().len(), 20);
    for arm in ["base", "new"] {
        let run = json(&one.join(arm).join("results.json"));
        assert_eq!(run["results"].as_array().unwrap().len(), 20, "{arm}");
    }
    // A shard resumed with a smaller --max-pairs keeps its later pairs in results.json, so
    // that --resume and --verdict go on reading the folder.
    let shard = dir.join("shard");
    let shard_s = shard.to_str().unwrap();
    let args = [
        &fixtures(&crash, &ok, shard_s)[..],
        &["--max-pairs", "40", "--shard", "0/2"],
    ]
    .concat();
    assert_eq!(ab(&dir, &args).status.code(), Some(0));
    let smaller = ab(&dir, &["--resume", "--out", shard_s, "--max-pairs", "20"]);
    assert_eq!(smaller.status.code(), Some(0), "{}", both(&smaller));
    let run = json(&shard.join("new/results.json"));
    assert_eq!(run["results"].as_array().unwrap().len(), 20);
    let again = ab(&dir, &["--resume", "--out", shard_s]);
    assert_eq!(again.status.code(), Some(0), "{}", both(&again));
    let verdict = ab(&dir, &["--verdict", shard_s]);
    assert_eq!(verdict.status.code(), Some(3), "{}", both(&verdict));
}

/// A script that writes its pid into `$QA_TEST_PIDS`, answers (no move) while at most 4 pids
/// are there, and hangs after.
fn hanging(dir: &Path) -> String {
    let script = dir.join("hang.sh");
    fs::write(
        &script,
        "read n\necho $$ > \"$QA_TEST_PIDS/$$\"\n\
         if [ \"$(ls \"$QA_TEST_PIDS\" | wc -l)\" -le 4 ]; then echo 0; exit 0; fi\n\
         exec sleep 300\n",
    )
    .unwrap();
    format!("sh '{}'", script.display())
}

/// The output of `command`, which must end within 20 s (a second process that is not
/// refused runs the hanging solver: it is killed then).
fn output_within(command: &mut Command) -> Output {
    let command = std::mem::replace(command, Command::new("true"));
    run_within(command, Duration::from_secs(20))
        .0
        .expect("the second process was not refused: it ran the hanging solver")
}

/// Waits until `count` solvers wrote their pid into `pids`.
fn wait_for(pids: &Path, count: usize) {
    let start = Instant::now();
    while fs::read_dir(pids).unwrap().count() < count {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no solver started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_process_in_one_folder_is_refused() {
    let dir = scratch("ab-traps-lock");
    let pids = dir.join("pids");
    fs::create_dir_all(&pids).unwrap();
    let hang = hanging(&dir);
    let out = dir.join("ab");
    let out_s = out.to_str().unwrap();
    // Two pairs answer, the third hangs: the folder holds finished pairs when the second
    // process comes.
    let first = tester()
        .arg("ab")
        .args(fixtures(&hang, &hang, out_s))
        .env("QA_TEST_PIDS", &pids)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&pids, 6);
    let start = Instant::now();
    while !out.join("new/results.json").is_file() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = output_within(
        tester()
            .args(["ab", "--resume", "--out", out_s])
            .env("QA_TEST_PIDS", &pids),
    );
    // SAFETY: a signal to the tester this test started.
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    let first = first.wait_with_output().unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", both(&second));
    assert!(
        both(&second).contains("in use by another tester ab"),
        "{}",
        both(&second)
    );
    assert_eq!(first.status.code(), Some(130));
    assert_eq!(
        json(&out.join("ab.json"))["pairs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // tester run: the same (four seeds answer, the fifth hangs).
    let pids = dir.join("run-pids");
    fs::create_dir_all(&pids).unwrap();
    let run_out = dir.join("run");
    let run = |extra: &[&str]| {
        let mut command = tester();
        command
            .args(["run", "--seeds", "1-6", "--jobs", "1", "--time-limit", "60"])
            .args(["--exec", &hang, "--out"])
            .arg(&run_out)
            .args(extra)
            .env("QA_TEST_PIDS", &pids);
        command
    };
    let mut first = run(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&pids, 5);
    let second = output_within(&mut run(&["--resume"]));
    // SAFETY: as above.
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", both(&second));
    assert!(
        both(&second).contains("in use by another tester run"),
        "{}",
        both(&second)
    );
}

#[test]
fn an_arm_failing_on_every_pair_is_decided_at_15_and_both_failing_is_an_error() {
    let dir = scratch("ab-traps-failing");
    let ok = fixture("ok.sh");
    let crash = dir.join("crash");
    let out = ab(&dir, &fixtures(&ok, "exit 3", crash.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let doc = json(&crash.join("ab.json"));
    assert_eq!(doc["verdict"]["pairs"], 15, "{}", both(&out));
    assert_eq!(doc["verdict"]["test"], "sign");
    let text = both(&out);
    assert!(
        text.contains("B failed on each of the first 3 pairs"),
        "{text}"
    );
    assert!(text.contains("B worse on 15, better on 0"), "{text}");
    assert!(
        text.contains("[by the sign test, the mean agreeing]"),
        "{text}"
    );
    assert!(text.contains("B/A: none"), "{text}");
    // A failing on every pair: accepted at 15.
    let a_fails = dir.join("a-fails");
    let out = ab(&dir, &fixtures("exit 3", &ok, a_fails.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(json(&a_fails.join("ab.json"))["verdict"]["pairs"], 15);
    // Both failing on every pair: nothing was compared, no verdict.
    let none = dir.join("none");
    let out = ab(&dir, &fixtures("false", "false", none.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let text = both(&out);
    assert!(
        text.contains("both arms failed on every one of the 15 pairs"),
        "{text}"
    );
    assert!(!text.contains("verdict: rejected"), "{text}");
    assert!(json(&none.join("ab.json"))["verdict"]["verdict"].is_null());
}

#[test]
fn tampered_scores_are_judged_again() {
    let dir = scratch("ab-traps-tamper");
    let ok = fixture("ok.sh");
    let out_dir = dir.join("ab");
    let out_s = out_dir.to_str().unwrap();
    let out = ab(&dir, &fixtures(&ok, &ok, out_s));
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    // B's scores made 10 % lower in both files, consistently.
    let mut doc = json(&out_dir.join("ab.json"));
    for pair in doc["pairs"].as_array_mut().unwrap() {
        let score = pair["b"]["score"].as_f64().unwrap();
        pair["b"]["score"] = (score * 0.9).into();
    }
    write_json(&out_dir.join("ab.json"), &doc);
    let results = out_dir.join("new/results.json");
    let mut run = json(&results);
    for r in run["results"].as_array_mut().unwrap() {
        let score = r["score"].as_f64().unwrap();
        r["score"] = (score * 0.9).into();
    }
    write_json(&results, &run);
    for args in [&["--verdict", out_s][..], &["--resume", "--out", out_s][..]] {
        let out = ab(&dir, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", both(&out));
        assert!(
            both(&out).contains("but its output judges"),
            "{}",
            both(&out)
        );
    }
}

#[test]
fn ab_json_is_range_checked() {
    let dir = scratch("ab-traps-range");
    let ok = fixture("ok.sh");
    let out_dir = dir.join("ab");
    let out_s = out_dir.to_str().unwrap();
    assert_eq!(ab(&dir, &fixtures(&ok, &ok, out_s)).status.code(), Some(1));
    let path = out_dir.join("ab.json");
    let original = json(&path);
    let mut doc = original.clone();
    doc["settings"]["max_pairs"] = 1e12.into();
    write_json(&path, &doc);
    let out = ab(&dir, &["--resume", "--out", out_s]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        both(&out).contains("`settings.max_pairs`"),
        "{}",
        both(&out)
    );
    let mut doc = original.clone();
    doc["pairs"][14]["pair"] = 5000.into();
    write_json(&path, &doc);
    let out = ab(&dir, &["--resume", "--out", out_s]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(both(&out).contains("the seed stream has"), "{}", both(&out));
    let mut doc = original;
    doc["arms"]["B"]["time_limit"] = (-1.0).into();
    write_json(&path, &doc);
    let out = ab(&dir, &["--verdict", out_s]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(both(&out).contains("`time_limit` -1"), "{}", both(&out));
}

#[test]
fn options_that_can_never_decide_are_refused() {
    let dir = scratch("ab-traps-options");
    let ok = fixture("ok.sh");
    let out_dir = dir.join("x");
    let out_s = out_dir.to_str().unwrap();
    for (extra, message) in [
        (&["--delta", "1e-14"][..], "no verdict is possible"),
        (&["--max-pairs", "14"], "decides from 15 pairs on"),
        (&["--seeds", "1-14"], "--seeds (14 seeds)"),
        (&["--alpha", "0.5", "--beta", "0.5"], "add up to 1 or more"),
        (&["--delta", "1e308"], "--delta 1e308:"),
        (&["--seeds=-1"], "`-1` is not a seed"),
    ] {
        let out = ab(&dir, &[&fixtures(&ok, &ok, out_s)[..], extra].concat());
        let text = both(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {text}");
        assert!(text.contains(message), "{extra:?}: {text}");
        assert!(text.lines().all(|l| l.len() < 400), "{extra:?}: {text}");
        assert!(!out_dir.exists(), "{extra:?}");
    }
}

#[test]
fn a_folder_name_that_is_not_utf8_is_refused_cleanly() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("ab-traps-utf8");
    let repo = repository(&dir);
    let name = std::ffi::OsStr::from_bytes(b"runs/ab-\xff");
    let out = tester()
        .current_dir(&repo)
        .args(["ab", "--base", "HEAD", "--new-exec", "true", "--out"])
        .arg(name)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(both(&out).contains("not UTF-8"), "{}", both(&out));
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
}

#[test]
fn the_ab_folder_is_no_change_of_the_tree() {
    let dir = scratch("ab-traps-dirty");
    let repo = repository(&dir);
    // The current build (copied into OUT/bin) on both sides: a tester with a queenattack
    // beside it, outside the repository.
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    copy_executable(Path::new(env!("CARGO_BIN_EXE_tester")), &bin.join("tester"));
    let solver = bin.join("queenattack");
    let ok = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    fs::copy(ok, &solver).unwrap();
    fs::set_permissions(&solver, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = Command::new(bin.join("tester"))
        .current_dir(&repo)
        .args(["ab", "--out", "abx", "--jobs", "2", "--no-project"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(repo.join("abx/bin/queenattack").is_file());
    for arm in ["base", "new"] {
        let run = json(&repo.join("abx").join(arm).join("results.json"));
        assert_eq!(run["git_dirty"], false, "{arm}");
    }
}

#[test]
fn revisions_by_message_same_code_said_worktrees_removed_runs_listed() {
    let dir = scratch("ab-traps-revisions");
    let repo = repository(&dir);
    let head = git(&repo, &["rev-parse", "HEAD"]).trim().to_string();
    // `:/two` is the commit `two words`, HEAD: the same code on both sides, said.
    let out = ab(
        &repo,
        &[
            "--base", ":/two", "--new", "HEAD", "--out", "runs/ab", "--jobs", "2",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let doc = json(&repo.join("runs/ab/ab.json"));
    assert_eq!(doc["arms"]["A"]["commit"], head.as_str());
    let text = both(&out);
    assert!(text.contains("run the same code"), "{text}");
    // The verdict is in: the worktree is gone, and git forgot it.
    assert!(text.contains("removed the worktree"), "{text}");
    assert!(!repo.join("runs/ab/src").exists());
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
    // --base HEAD against the current build of a clean tree: said too; worktrees kept on
    // request and removed by --clean.
    let out = ab(
        &repo,
        &[
            "--base",
            "HEAD",
            "--out",
            "runs/ab2",
            "--jobs",
            "2",
            "--keep-worktrees",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(both(&out).contains("run the same code"), "{}", both(&out));
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 2);
    let clean = ab(&repo, &["--clean", "runs/ab2"]);
    assert_eq!(clean.status.code(), Some(0), "{}", both(&clean));
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
    assert!(repo.join("runs/ab2/ab.json").is_file());
    // tester runs lists the arms of both A/Bs.
    let runs = tester()
        .current_dir(&repo)
        .args(["runs", "runs"])
        .output()
        .unwrap();
    let text = both(&runs);
    for name in ["ab/base", "ab/new", "ab2/base", "ab2/new"] {
        assert!(text.contains(name), "{name}: {text}");
    }
}
