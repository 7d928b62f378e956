//! Opening the folder of an A/B: a new one, or the one in `--out` to continue (`--resume`).
//! The folder is locked for this process ([`crate::cli::lock`]) before anything in it is read
//! or written, so two `tester ab` never run in one folder.
//!
//! A start writes the lock file first and `ab.json` only once its arms are resolved; a start
//! stopped in between (Ctrl-C or `kill -9` while the worktree is checked out) leaves only
//! [`START_LEFTOVERS`], which `--resume` takes over and starts again (its `src/` holding only
//! the worktrees it recorded making: [`super::worktrees`]). A start stopped later
//! (during a build, or a build that failed) has its `ab.json` and no `results.json` in the arms'
//! folders yet: `--resume` makes those and goes on.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::arms::{Arm, Source};
use super::folder::{arm_dir, Record, SeedStream, Settings, AB_JSON};
use super::worktrees::{check_known, WORKTREES_JSON};
use super::{Args, DEFAULTS, DEFAULT_TIME_LIMIT};
use crate::cli::command::run::project;
use crate::cli::date;
use crate::cli::lock::{lock_folder, FolderLock, LOCK_FILE};
use crate::cli::runfile::{read_run, RunInfo};

/// What a start leaves in its folder before it first writes `ab.json`: the lock file, the
/// worktrees and their record, the copied current build and the arms' folders.
pub const START_LEFTOVERS: [&str; 6] = [LOCK_FILE, "src", WORKTREES_JSON, "bin", "base", "new"];

/// An A/B folder, open for this process.
pub struct Opened {
    /// The folder (absolute).
    pub dir: PathBuf,
    /// Its record.
    pub record: Record,
    /// The arms' run records.
    pub infos: [RunInfo; 2],
    /// The locks of the folder and of its arms' run folders, held until the A/B ends.
    pub locks: Vec<FolderLock>,
}

/// The folder of the options: `--out`, else `runs/ab-YYYYMMDD-HHMMSS` (under tester.toml's
/// `out`).
fn folder_of(args: &Args, found: Option<&project::Found>) -> PathBuf {
    args.out.clone().unwrap_or_else(|| {
        let runs = found
            .and_then(|f| f.project.out.as_ref().map(|o| f.dir.join(o)))
            .unwrap_or_else(|| PathBuf::from("runs"));
        let shard = args
            .shard
            .map_or(String::new(), |s| format!("-shard{}of{}", s.k, s.m));
        runs.join(format!("ab-{}{shard}", date::stamp()))
    })
}

/// Refuses a folder name that is not UTF-8: `ab.json` and the solvers' shell lines hold the
/// folder's path as text.
pub fn utf8(dir: &Path) -> Result<(), String> {
    match dir.to_str() {
        Some(_) => Ok(()),
        None => Err(format!(
            "{}: the folder's name is not UTF-8, and an A/B records the paths of its solvers \
             (in ab.json and in their command lines) as text: choose a UTF-8 name for --out",
            dir.display()
        )),
    }
}

/// Opens the A/B of the options: continues the one in `--out` with `--resume`, else starts
/// one.
pub fn open(args: &Args, found: Option<&project::Found>) -> Result<Opened, String> {
    let dir = folder_of(args, found);
    utf8(&dir)?;
    if args.resume && dir.join(AB_JSON).is_file() {
        resume(args, &dir)
    } else {
        start(args, found, &dir)
    }
}

/// The names in `dir` (none when it does not exist).
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).map_or(Vec::new(), |d| {
        d.filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    })
}

/// Whether the entries `names` of a folder are the leftovers of a start stopped before it
/// wrote `ab.json`: the lock file and at least one other of [`START_LEFTOVERS`], nothing else.
/// (The lock file alone is no A/B: it is made first, and its lock ends with its process.)
fn stopped_start(names: &[String]) -> bool {
    names.iter().any(|n| n == LOCK_FILE)
        && names.iter().any(|n| n != LOCK_FILE)
        && names.iter().all(|n| START_LEFTOVERS.contains(&n.as_str()))
}

/// Refuses to go on in the A/B folder `dir` (canonical) beside what is not its own: a
/// symbolic link in place of one of [`START_LEFTOVERS`] (the arms' folders, `bin/`, `src/`,
/// `worktrees.json`), through which it would write its runs, its build or its record
/// elsewhere, or a worktree in `src/` it did not make ([`check_known`]).
fn check_own(dir: &Path) -> Result<(), String> {
    for name in START_LEFTOVERS.iter().filter(|&&n| n != LOCK_FILE) {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "{} is a symbolic link: an A/B writes its runs, its build and its records only \
                 into folders and files of its own; move it away",
                path.display()
            ));
        }
    }
    check_known(dir)
}

/// Refuses `--resume` where `dir` holds no A/B to continue: neither `ab.json` nor the
/// leftovers of a start stopped before it (checked before anything is made or run).
pub fn check_resumable(dir: &Path) -> Result<(), String> {
    if dir.join(AB_JSON).is_file() || stopped_start(&entries(dir)) {
        return Ok(());
    }
    Err(format!(
        "nothing to resume in {}: it holds no A/B (no {AB_JSON}, nor the start of one); \
         without --resume, `tester ab --out DIR` starts one in a new or empty folder",
        dir.display()
    ))
}

/// Refuses to start in a folder that holds anything but the leftovers of a stopped start
/// taken over with `--resume` (a lock file alone is no A/B: see [`stopped_start`]).
fn check_empty(args: &Args, dir: &Path) -> Result<(), String> {
    if dir.join(AB_JSON).exists() {
        return Err(format!(
            "{} already holds an A/B: pass --resume to continue it, or another --out",
            dir.display()
        ));
    }
    let names = entries(dir);
    if names.iter().all(|n| n == LOCK_FILE) {
        return Ok(());
    }
    match (stopped_start(&names), args.resume) {
        (true, true) => Ok(()),
        (true, false) => Err(format!(
            "{} holds an A/B stopped before its first record: `tester ab --resume --out {}` \
             (with the same options) starts it again there",
            dir.display(),
            dir.display()
        )),
        (false, _) => Err(format!(
            "{} is not empty: choose another --out",
            dir.display()
        )),
    }
}

/// A new A/B: its folder (absolute, locked, refused when it holds anything), its record
/// (written) and the arms' run records.
fn start(args: &Args, found: Option<&project::Found>, dir: &Path) -> Result<Opened, String> {
    check_empty(args, dir)?;
    let lock = lock_folder(dir, "tester ab")?;
    // Another start may have got there between the check and the lock.
    check_empty(args, dir)?;
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    utf8(&dir)?;
    // What a stopped start left must be this A/B's own.
    check_own(&dir)?;
    let time_limit = args
        .time_limit
        .or(found.and_then(|f| f.project.time_limit))
        .unwrap_or(DEFAULT_TIME_LIMIT);
    let [a, b] = args.specs(time_limit);
    let arms = [
        Arm::resolve('A', &a, &dir, found)?,
        Arm::resolve('B', &b, &dir, found)?,
    ];
    let locks = lock_arms(lock, &dir, &arms)?;
    let record = Record {
        started: date::now_rfc3339(),
        settings: Settings {
            sprt: args.sprt(),
            max_pairs: args.max_pairs.map_or(DEFAULTS.3, |m| m as usize),
            seeds: args
                .seeds
                .as_ref()
                .map_or(SeedStream::Default, |s| SeedStream::List(s.0.clone())),
            shard: args.shard,
        },
        arms,
        pairs: Default::default(),
        jobs: None,
    };
    let infos = [
        run_info(&record.arms[0], &dir)?,
        run_info(&record.arms[1], &dir)?,
    ];
    record.save(&dir, true)?;
    Ok(Opened {
        dir,
        record,
        infos,
        locks,
    })
}

/// The lock of the A/B folder `dir` (canonical, its arms' folders checked by [`check_own`]),
/// with those of the arms' folders (made here if missing): each is an ordinary run folder,
/// which `tester merge`, `gen --dir`, `vis`, `compare --html` or `run` must not write while
/// the A/B does.
fn lock_arms(lock: FolderLock, dir: &Path, arms: &[Arm; 2]) -> Result<Vec<FolderLock>, String> {
    let mut locks = vec![lock];
    for arm in arms {
        locks.push(lock_folder(&arm_dir(dir, arm), "tester ab")?);
    }
    Ok(locks)
}

/// The run record of an arm's folder (made here): what `tester run` records, the arm's commit
/// for a revision, a comment naming the A/B. The whole A/B folder is left out of the git
/// tree's state: its worktrees and copied build are no change of the code measured.
fn run_info(arm: &Arm, dir: &Path) -> Result<RunInfo, String> {
    let folder = arm_dir(dir, arm);
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let ranges = json!({ "n": null, "c": null, "p": null });
    let comment = format!("tester ab {}: {}", arm.label, arm.describe());
    let mut info = RunInfo::now(&arm.solver, arm.time_limit, ranges, Some(comment));
    match &arm.source {
        Source::Revision { commit, .. } => {
            info.git_commit = Some(commit.clone());
            info.git_dirty = Some(false);
        }
        _ => {
            info.record_tree_leaving_out(&folder, dir)?;
        }
    }
    Ok(info)
}

/// The A/B in --out to continue (locked): its record (with --max-pairs of the command line, if
/// given; a revision's worktree checked out again if it was removed) and the arms' run records
/// (made now for an arm that has none yet); options given that differ from the record are
/// refused.
fn resume(args: &Args, dir: &Path) -> Result<Opened, String> {
    let lock = lock_folder(dir, "tester ab")?;
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("--resume: {}: {e}", dir.display()))?;
    utf8(&dir)?;
    check_own(&dir)?;
    let mut record = Record::load(&dir)?;
    let locks = lock_arms(lock, &dir, &record.arms)?;
    check_same(args, &record)?;
    if let Some(max) = args.max_pairs {
        record.settings.max_pairs = max as usize;
    }
    for arm in &mut record.arms {
        arm.restore_tree(&dir)?;
    }
    let info = |arm: &Arm| -> Result<RunInfo, String> {
        match read_run(&arm_dir(&dir, arm))? {
            Some(run) => Ok(run.info),
            None => run_info(arm, &dir),
        }
    };
    let infos = [info(&record.arms[0])?, info(&record.arms[1])?];
    Ok(Opened {
        dir,
        record,
        infos,
        locks,
    })
}

/// Refuses options of the command line that differ from the recorded A/B.
fn check_same(args: &Args, record: &Record) -> Result<(), String> {
    let s = &record.settings;
    let given = args.sprt();
    let mut differ = Vec::new();
    let mut check = |name: &str, given: bool, same: bool| {
        if given && !same {
            differ.push(name.to_string());
        }
    };
    check(
        "--delta",
        args.delta.is_some(),
        (given.delta - s.sprt.delta).abs() < 1e-12,
    );
    check("--alpha", args.alpha.is_some(), given.alpha == s.sprt.alpha);
    check("--beta", args.beta.is_some(), given.beta == s.sprt.beta);
    let seeds = args.seeds.as_ref().map(|l| SeedStream::List(l.0.clone()));
    check("--seeds", seeds.is_some(), seeds.as_ref() == Some(&s.seeds));
    check("--shard", args.shard.is_some(), args.shard == s.shard);
    let specs = args.specs(args.time_limit.unwrap_or(0.0));
    for (arm, spec) in record.arms.iter().zip(&specs) {
        let name = arm.folder();
        let rev = match &arm.source {
            Source::Revision { rev, .. } => Some(rev),
            _ => None,
        };
        let exec = match &arm.source {
            Source::Exec(exec) => Some(exec),
            _ => None,
        };
        check(
            &format!("--{name}"),
            spec.rev.is_some(),
            spec.rev.as_ref() == rev,
        );
        check(
            &format!("--{name}-exec"),
            spec.exec.is_some(),
            spec.exec.as_ref() == exec,
        );
        check(
            &format!("--{name}-args"),
            !spec.args.is_empty(),
            spec.args == arm.args,
        );
    }
    let limits = [args.base_time_limit, args.new_time_limit];
    for (arm, own) in record.arms.iter().zip(limits) {
        let limit = own.or(args.time_limit);
        check(
            "--time-limit",
            limit.is_some(),
            limit == Some(arm.time_limit),
        );
    }
    if differ.is_empty() {
        return Ok(());
    }
    differ.dedup();
    Err(format!(
        "--resume: {} differ from the A/B recorded in {}; give the same values or none (only \
         --max-pairs and --jobs may change)",
        differ.join(", "),
        AB_JSON
    ))
}
