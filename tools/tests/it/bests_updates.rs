//! Issue 44, cases 7, 8 and 10: the bests file and its answers `best/SEED.out` change together
//! or not at all (a failed write, a full disk, an update cut short), nothing enters them
//! unjudged (`--resume` judges the kept results again), and `best/` is never written through
//! a link; nor is the table (issue 59: a table given through a link is refused).

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{quiet_run, scratch, tester};
use tools::cli::bests::Bests;
use tools::gen::{generate, Ranges};
use tools::judge::judge;

/// A bests file whose scores every bundled best answer beats (seeds 1–3).
const POOR_TABLE: &str = r#"{"about": "poor", "bests": [
  {"seed": 1, "score": 128, "source": "a"},
  {"seed": 2, "score": 8430, "source": "a"},
  {"seed": 3, "score": 1026, "source": "a"}
]}
"#;

fn testcases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases")
}

/// A solver printing the bundled best answer of its seed (read from the run's marker),
/// followed, for seed 2, by `pad` bytes of empty lines (the judge reads only the moves it
/// counts, so the score stays).
fn best_solver(pad: usize) -> String {
    format!(
        "s=${{QA_TESTER_RUN##*-}}; cat '{}/best/'$s.out; \
         if [ $s = 2 ]; then head -c {pad} /dev/zero | tr '\\0' '\\n'; fi",
        testcases().display()
    )
}

/// A fresh folder outside the repository (no `git.patch` is written there) holding a poor
/// bests file and an empty `best/` folder.
fn with_poor_table(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qa-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("best")).unwrap();
    fs::write(dir.join("bests.json"), POOR_TABLE).unwrap();
    dir
}

/// `tester run --seeds SEEDS --out r --bests BESTS --update-bests EXTRA` in `dir`.
fn update_run(dir: &Path, seeds: &str, solver: &str, bests: &Path, extra: &[&str]) -> Command {
    let mut command = quiet_run(dir);
    command
        .args(["--seeds", seeds, "--exec", solver])
        .args(["--out", "r", "--update-bests", "--bests"])
        .arg(bests)
        .args(extra);
    command
}

fn describe(out: &Output) -> String {
    format!("{}\n{}", out.status, String::from_utf8_lossy(&out.stderr))
}

/// The files in `folder`, by name.
fn names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that every answer in `best/` beside `table` judges exactly to the table's score for
/// its seed, and that `seeds` all have one.
fn assert_table_and_answers_agree(table: &Path, seeds: &[u64]) {
    let bests = Bests::load(table).unwrap();
    let folder = table.parent().unwrap().join("best");
    for name in names(&folder) {
        let seed: u64 = name
            .strip_suffix(".out")
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{name} in best/"));
        let answer = fs::read_to_string(folder.join(&name)).unwrap();
        let verdict = judge(&generate(seed, &Ranges::default()).input, &answer);
        assert_eq!(
            bests.score(seed),
            Some(verdict.score),
            "seed {seed}: best/{name} judges {}, the table says {:?}",
            verdict.score,
            bests.score(seed)
        );
    }
    for seed in seeds {
        assert!(
            folder.join(format!("{seed}.out")).is_file(),
            "no best/{seed}.out"
        );
    }
}

/// After a failed update: the table as it was, `best/` empty, nothing pending; then, once
/// writing works again, `--resume` (with the run's `solver`) records both seeds with their
/// answers.
fn assert_nothing_changed_then_resume(dir: &Path, table: &Path, failed: &Output, solver: &str) {
    assert_eq!(failed.status.code(), Some(2), "{}", describe(failed));
    assert_eq!(fs::read_to_string(table).unwrap(), POOR_TABLE);
    assert_eq!(
        names(&table.parent().unwrap().join("best")),
        Vec::<String>::new()
    );
    assert!(!dir.join("bests.json.pending").exists());
    let out = update_run(dir, "1-2", solver, table, &["--resume"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bests: 2 improved"));
    assert_table_and_answers_agree(table, &[1, 2]);
}

#[test]
fn case7_a_failed_write_changes_neither_the_table_nor_its_answers() {
    // Files of `tester` limited to 32 KiB (SIGXFSZ ignored: the write fails with EFBIG, as on
    // a full disk): seed 1's answer fits, seed 2's (64 KiB of padding) does not.
    let dir = with_poor_table("bests-efbig");
    let table = dir.join("bests.json");
    let mut command = update_run(&dir, "1-2", &best_solver(65536), &table, &[]);
    // SAFETY: `signal` and `setrlimit` are async-signal-safe and touch only the child.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 32 << 10,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("File too large"),
        "{}",
        describe(&out)
    );
    assert_nothing_changed_then_resume(&dir, &table, &out, &best_solver(65536));
    fs::remove_dir_all(&dir).unwrap();
}

/// A 64 KiB tmpfs mounted at a folder, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts it, or says why not (not root, no right to mount here).
    fn mount(at: &Path) -> Result<Tmpfs, std::io::Error> {
        fs::create_dir_all(at)?;
        let target = std::ffi::CString::new(at.to_str().unwrap()).unwrap();
        // SAFETY: every pointer is a NUL-terminated string that outlives the call.
        let rc = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                c"size=64k".as_ptr().cast(),
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let target = std::ffi::CString::new(self.0.to_str().unwrap()).unwrap();
        // SAFETY: unmounts the file system this test mounted.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

#[test]
fn case7_a_full_disk_changes_neither_the_table_nor_its_answers() {
    // SAFETY: `geteuid` cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("NOTICE: not root: the full disk (a 64 KiB tmpfs) is not tested");
        return;
    }
    let dir = scratch("bests-full-disk");
    let disk = match Tmpfs::mount(&dir.join("disk")) {
        Ok(disk) => disk,
        Err(e) => {
            eprintln!("NOTICE: cannot mount a tmpfs ({e}): the full disk is not tested");
            return;
        }
    };
    fs::create_dir(disk.0.join("best")).unwrap();
    let table = disk.0.join("bests.json");
    fs::write(&table, POOR_TABLE).unwrap();
    fs::File::create(disk.0.join("bests.json.lock")).unwrap();
    // Filled up to one free page: best/1.out fits, best/2.out no more.
    let free = || {
        // SAFETY: `statvfs` writes into the zeroed struct we pass.
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        let path = std::ffi::CString::new(disk.0.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::statvfs(path.as_ptr(), &mut stat) }, 0);
        stat.f_bavail as usize * stat.f_frsize as usize
    };
    fs::write(disk.0.join("fill"), vec![0u8; free() - 4096]).unwrap();
    assert_eq!(free(), 4096);
    let out = update_run(&dir, "1-2", &best_solver(0), &table, &[])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("No space left"),
        "{}",
        describe(&out)
    );
    fs::remove_file(disk.0.join("fill")).unwrap();
    assert_nothing_changed_then_resume(&dir, &table, &out, &best_solver(0));
    drop(disk);
}

#[test]
fn case7_an_update_cut_short_is_finished_by_the_next_one() {
    // What a crash while the answers were moved into place leaves: the new table written as
    // bests.json.pending, seed 1's new answer already moved (it judges 16.707), seed 2's not
    // (no best/2.out). The next update keeps seed 1 at the score its answer has and seed 2 at
    // the old entry, and removes the pending table (it was ignored: the table said 128 beside
    // an answer judging 16.707).
    let dir = with_poor_table("bests-cut-short");
    let table = dir.join("bests.json");
    fs::copy(testcases().join("best/1.out"), dir.join("best/1.out")).unwrap();
    let judged = |seed: u64| {
        let answer = fs::read_to_string(testcases().join(format!("best/{seed}.out"))).unwrap();
        judge(&generate(seed, &Ranges::default()).input, &answer).score
    };
    let mut pending = Bests::parse(POOR_TABLE).unwrap();
    pending.improve(1, judged(1), "new");
    pending.improve(2, judged(2), "new");
    fs::write(dir.join("bests.json.pending"), pending.to_json()).unwrap();
    let out = update_run(&dir, "4", "echo 0", &table, &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let bests = Bests::load(&table).unwrap();
    assert_eq!(bests.seeds[&1].source, "new");
    assert_eq!(bests.score(2), Some(8430.0));
    assert!(
        bests.score(4).is_some(),
        "the run's own seed is recorded too"
    );
    assert!(!dir.join("bests.json.pending").exists());
    assert_table_and_answers_agree(&table, &[1, 4]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("seed 1: an update cut short had moved its answer"),
        "{stderr}"
    );
    assert!(
        stderr.contains("seed 2: an update cut short had not moved its answer"),
        "{stderr}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case8_resume_judges_the_kept_results_before_they_count() {
    // A kept result's score edited in results.json (seed 1: 1.0), and a kept output changed
    // since its run (seed 2 now makes no move, which scores the table's 8430): --resume
    // --update-bests records what the outputs judge, not what results.json says.
    let dir = with_poor_table("bests-resume");
    let table = dir.join("bests.json");
    let solver = best_solver(0);
    let out = tester()
        .current_dir(&dir)
        .args([
            "run",
            "--no-project",
            "--quiet",
            "--seeds",
            "1-2",
            "--exec",
            &solver,
        ])
        .args(["--out", "r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let path = dir.join("r/results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    doc["results"][0]["score"] = serde_json::json!(1.0);
    fs::write(&path, doc.to_string()).unwrap();
    fs::write(dir.join("r/2.out"), "0\n").unwrap();
    let no_move = judge(&generate(2, &Ranges::default()).input, "0\n").score;
    let out = update_run(&dir, "1-3", &solver, &table, &["--resume"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let bests = Bests::load(&table).unwrap();
    assert!(
        (bests.score(1).unwrap() - 16.7067).abs() < 1e-3,
        "{bests:?}"
    );
    assert_eq!(bests.score(2), Some(no_move));
    assert_table_and_answers_agree(&table, &[1, 3]);
    // The tables count the judged verdicts too.
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["results"][1]["score"], serde_json::json!(no_move));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = "--resume: seed 1: results.json says ok 1, but its output judges ok 16.70";
    assert!(stderr.contains(said), "{stderr}");
    // seed 2's first run printed the bundled best answer: results.json holds its score
    let bundled = Bests::load(&testcases().join("bests.json")).unwrap();
    let said = format!(
        "--resume: seed 2: results.json says ok {}",
        bundled.score(2).unwrap()
    );
    assert!(stderr.contains(&said), "{stderr}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case10_a_best_folder_that_is_a_link_is_refused() {
    let dir = scratch("bests-linked-folder");
    fs::create_dir(dir.join("victim")).unwrap();
    fs::write(dir.join("victim/1.out"), "precious\n").unwrap();
    std::os::unix::fs::symlink("victim", dir.join("best")).unwrap();
    let out = update_run(&dir, "1-2", "echo 0", &dir.join("bests.json"), &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("best is a symbolic link"), "{stderr}");
    assert_eq!(
        fs::read_to_string(dir.join("victim/1.out")).unwrap(),
        "precious\n"
    );
    assert_eq!(names(&dir.join("victim")), ["1.out"]);
    assert!(!dir.join("r").exists(), "refused before any seed runs");
}

#[test]
fn issue59_a_table_given_through_a_link_is_refused() {
    // real/ holds a table and its answers; L/bests.json links to it, h.json is a hard link.
    let dir = scratch("bests-linked-table");
    let real = dir.join("real");
    fs::create_dir_all(&real).unwrap();
    let first = update_run(&dir, "1-2", "echo 0", &real.join("bests.json"), &[])
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", describe(&first));
    fs::remove_dir_all(dir.join("r")).unwrap();
    fs::create_dir(dir.join("L")).unwrap();
    std::os::unix::fs::symlink("../real/bests.json", dir.join("L/bests.json")).unwrap();
    fs::hard_link(real.join("bests.json"), dir.join("h.json")).unwrap();
    let before = fs::read_to_string(real.join("bests.json")).unwrap();
    // The same for a bounds table (with a bests table of its own, plain.json).
    fs::write(real.join("bounds.json"), r#"{"bounds": []}"#).unwrap();
    std::os::unix::fs::symlink("real/bounds.json", dir.join("lb.json")).unwrap();
    fs::hard_link(real.join("bounds.json"), dir.join("hb.json")).unwrap();
    let bounds = |table| ["--update-bounds", "--bounds", table];
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "L/bests.json",
            &[],
            "bests file L/bests.json is a symbolic link (to ",
        ),
        ("h.json", &[], "bests file h.json has 2 hard links"),
        (
            "plain.json",
            &bounds("lb.json"),
            "bounds file lb.json is a symbolic link",
        ),
        (
            "plain.json",
            &bounds("hb.json"),
            "bounds file hb.json has 2 hard links",
        ),
    ];
    for (table, extra, why) in cases {
        let out = update_run(&dir, "1-3", "echo 0", Path::new(table), extra)
            .output()
            .unwrap();
        let stderr = describe(&out);
        assert_eq!(out.status.code(), Some(2), "{table} {extra:?}: {stderr}");
        assert!(stderr.contains(why), "{table} {extra:?}: {stderr}");
        assert!(stderr.contains("name the table itself"), "{stderr}");
        assert!(!dir.join("r").exists(), "refused before any seed runs");
    }
    // Nothing changed: the link is a link, no answers folder or lock beside it, the real table
    // and its answers as they were.
    assert!(fs::symlink_metadata(dir.join("L/bests.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(names(&dir.join("L")), ["bests.json"]);
    assert_eq!(fs::read_to_string(real.join("bests.json")).unwrap(), before);
    assert_eq!(names(&real.join("best")), ["1.out", "2.out"]);
    assert_eq!(names(&dir), ["L", "h.json", "hb.json", "lb.json", "real"]);
}

#[test]
fn issue49_an_update_of_another_table_keeps_the_answers_of_bests_json() {
    // bests.json's seed 2 is the bundled best answer; reference.json beside it is poorer than
    // an answer making no move (8430). Updating reference.json records that answer in its own
    // folder, best-reference/, and leaves best/2.out, the best known answer, as it was.
    let dir = with_poor_table("bests-two-tables");
    let bundled = fs::read(testcases().join("best/2.out")).unwrap();
    fs::write(dir.join("best/2.out"), &bundled).unwrap();
    let reference = dir.join("reference.json");
    fs::write(
        &reference,
        r#"{"about": "poorer", "bests": [{"seed": 2, "score": 9000, "source": "a"}]}"#,
    )
    .unwrap();
    let out = update_run(&dir, "2", "echo 0", &reference, &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bests: 1 improved"));
    assert!(
        fs::read(dir.join("best/2.out")).unwrap() == bundled,
        "the answer of bests.json was replaced"
    );
    assert_eq!(
        fs::read_to_string(dir.join("best-reference/2.out")).unwrap(),
        "0\n"
    );
    assert_eq!(Bests::load(&reference).unwrap().score(2), Some(8430.0));
    assert_eq!(
        fs::read_to_string(dir.join("bests.json")).unwrap(),
        POOR_TABLE
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// The PID of a process that has ended (a child started and waited for).
fn ended_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn issue49_an_update_removes_what_a_killed_update_left() {
    // What a kill in the update window leaves: staged answers and the new table's temporary
    // file of a process that is gone. The next update removes them; the file of a live writer
    // (this test's process) and files that are no update's are kept.
    let dir = with_poor_table("bests-leftovers");
    let dead = ended_pid();
    let live = std::process::id();
    let left = [
        format!("best/.1.out.{dead}-0.tmp"),
        format!("best/.2.out.{dead}-1.tmp"),
        format!(".bests.json.pending.{dead}-2.tmp"),
        format!(".bests.json.{dead}-3.tmp"),
    ];
    let kept = [
        format!("best/.3.out.{live}-0.tmp"),
        format!(".notes.txt.{dead}-0.tmp"),
        format!("best/.x.out.{dead}-0.tmp"),
    ];
    for name in left.iter().chain(&kept) {
        fs::write(dir.join(name), "half an answer").unwrap();
    }
    let table = dir.join("bests.json");
    let out = update_run(&dir, "4", "echo 0", &table, &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    for name in &left {
        assert!(!dir.join(name).exists(), "{name} is still there");
    }
    for name in &kept {
        assert!(dir.join(name).exists(), "{name} was removed");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(".3.out.{live}-0.tmp is kept: process {live}")),
        "{stderr}"
    );
    assert_eq!(names(&dir.join("best")).len(), 3, "4.out and the two kept");
    for name in &kept {
        fs::remove_file(dir.join(name)).unwrap();
    }
    assert_table_and_answers_agree(&table, &[4]);
    fs::remove_dir_all(&dir).unwrap();
}
