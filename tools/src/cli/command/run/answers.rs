//! The best answers beside a bests file (`best/SEED.out` beside `bests.json`, `best-NAME/` beside
//! any other table `NAME.json`: each table owns its folder, see [`answers_folder`]), changed
//! together with the table or not at all.
//!
//! An update by `--update-bests` (under the table's lock) goes in three steps:
//!
//! 1. *Stage*: every new answer is judged again from the bytes that will be kept and written
//!    to a temporary file in `best/` (synced to the disk). A failure here (a full disk) removes
//!    the temporary files: nothing changed.
//! 2. *Intend*: the new table is written whole as `FILE.pending` (a temporary file renamed to
//!    that name). A failure here also changes nothing.
//! 3. *Commit*: each temporary answer is renamed over `best/SEED.out`, then `FILE.pending` over
//!    the table.
//!
//! Until the last rename the table is the old one; an answer already renamed is only better
//! than the table says. A `FILE.pending` left by a crash or a failure in step 3 is finished
//! by the next update, before anything else ([`recover`]): each seed it changes is kept at the
//! new score only if `best/SEED.out` judges to that score (its rename happened), else at the
//! old one.
//!
//! A writer killed in steps 1 or 2 leaves its temporary files (`best/.SEED.out.PID-K.tmp`,
//! `.FILE.pending.PID-K.tmp`); the next update removes them ([`remove_leftovers`]). Every
//! writer of these names holds the table's lock, so under it the files of a process that is
//! gone are surely leftovers; those of a live process are kept and named (a writer that did
//! not take the lock: it is not ours to stop).

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::bests::{same_score, Bests, Side};
use crate::cli::readcap::{read_capped, OUTPUT_MAX};
use crate::cli::replace::{temporary_of, Replacement};
use crate::cli::report::{SeedResult, Status};
use crate::gen::{generate, Ranges};
use crate::judge::judge;

/// The folder that holds the answers of the table `table` and of no other, beside it: `best/`
/// for a table named `bests.json`, `best-NAME/` for any other table `NAME.json` (or `NAME`).
/// Each table owns its folder: an update of `testcases/reference.json` writes
/// `testcases/best-reference/`, never the answers of `testcases/bests.json`.
fn folder_of(table: &Path) -> Result<PathBuf, String> {
    let name = table
        .file_name()
        .ok_or_else(|| format!("{} names no file", table.display()))?;
    let folder = if name == "bests.json" {
        OsString::from("best")
    } else {
        let stem = Path::new(name).file_stem().unwrap_or(name);
        let mut folder = OsString::from("best-");
        folder.push(stem);
        folder
    };
    Ok(table.with_file_name(folder))
}

/// The folder of best answers of the bests file `table` ([`folder_of`]: `best/` beside
/// `bests.json`; it may not exist yet). Anything there but a folder is refused, a symbolic
/// link above all: `tester` writes its own data only into a folder it made, never through a
/// link it did not make.
pub(super) fn answers_folder(table: &Path) -> Result<PathBuf, String> {
    let folder = folder_of(table)?;
    match fs::symlink_metadata(&folder) {
        Ok(meta) if meta.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link: --update-bests writes the best answers only into a folder \
             that is no link (make it a folder, or name with --bests the bests file of the \
             folder it points to)",
            folder.display()
        )),
        Ok(meta) if !meta.is_dir() => Err(format!(
            "{} is not a folder: --update-bests keeps the best answers there",
            folder.display()
        )),
        Ok(_) => Ok(folder),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(folder),
        Err(e) => Err(format!("cannot read {}: {e}", folder.display())),
    }
}

/// `FILE.pending`: the new table of an update whose answers are being moved into place.
fn pending_path(table: &Path) -> PathBuf {
    let mut name = table.as_os_str().to_owned();
    name.push(".pending");
    PathBuf::from(name)
}

/// The judge's score of the answer `bytes` to the official case of `seed`, or what is wrong
/// with it.
fn judged(seed: u64, bytes: &[u8]) -> Result<f64, String> {
    let verdict = judge(
        &generate(seed, &Ranges::default()).input,
        &String::from_utf8_lossy(bytes),
    );
    match verdict.error() {
        Some(error) => Err(format!("invalid: {error}")),
        None => Ok(verdict.score),
    }
}

/// The judge's score of the answer file `path` of `seed`, or why there is none.
fn judged_file(seed: u64, path: &Path) -> Result<f64, String> {
    judged(seed, &read_capped(path, OUTPUT_MAX, "an output")?)
}

/// Finishes the update of `table` that a crash or a failure cut short (its `FILE.pending` is
/// there), into `bests` (the table as read, under its lock): a seed keeps the pending score
/// when its answer in `folder` judges to it, else its old entry. Writes the table and removes
/// `FILE.pending`; returns what it did, one line per seed, for warnings.
pub(super) fn recover(
    table: &Path,
    bests: &mut Bests,
    folder: &Path,
) -> Result<Vec<String>, String> {
    let pending = pending_path(table);
    match fs::symlink_metadata(&pending) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", pending.display())),
        Ok(meta) if !meta.is_file() => {
            return Err(format!(
                "{} is not a file tester wrote (a link?): move it away",
                pending.display()
            ))
        }
        Ok(_) => {}
    }
    let next = Bests::load_side(&pending, Side::Best)?;
    let mut notes = Vec::new();
    for (&seed, entry) in &next.seeds {
        if bests.seeds.get(&seed) == Some(entry) {
            continue;
        }
        let answer = folder.join(format!("{seed}.out"));
        let old = bests
            .score(seed)
            .map_or("none".to_string(), |s| s.to_string());
        match judged_file(seed, &answer) {
            Ok(score) if same_score(score, entry.score) => {
                bests.seeds.insert(seed, entry.clone());
                notes.push(format!(
                    "seed {seed}: an update cut short had moved its answer: {} judges {score}, \
                     now recorded (was {old})",
                    answer.display()
                ));
            }
            verdict => notes.push(format!(
                "seed {seed}: an update cut short had not moved its answer ({} {}): the entry \
                 stays {old}",
                answer.display(),
                match verdict {
                    Ok(score) => format!("judges {score}"),
                    Err(why) => why,
                }
            )),
        }
    }
    bests.save(table)?;
    fs::remove_file(&pending).map_err(|e| format!("cannot remove {}: {e}", pending.display()))?;
    Ok(notes)
}

/// Removes the temporary files that a killed update of `table` left beside it and in its
/// answers `folder` (see the module's protocol); called under the table's lock. Returns a note
/// for each file kept because the process that wrote it still runs (a PID of a live process
/// other than this one).
pub(super) fn remove_leftovers(table: &Path, folder: &Path) -> Result<Vec<String>, String> {
    let table_name = table.file_name().map(|n| n.to_string_lossy().into_owned());
    let beside = table
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut notes = Vec::new();
    remove_temporaries(beside, &mut notes, |target| {
        table_name
            .as_deref()
            .is_some_and(|t| target == t || target.strip_suffix(".pending") == Some(t))
    })?;
    remove_temporaries(folder, &mut notes, |target| {
        target
            .strip_suffix(".out")
            .is_some_and(|seed| seed.parse::<u64>().is_ok())
    })?;
    Ok(notes)
}

/// Removes from `dir` (if it exists) each temporary file of a [`Replacement`] whose target
/// name `ours` accepts and whose writer no longer runs; notes each one kept.
pub(super) fn remove_temporaries(
    dir: &Path,
    notes: &mut Vec<String>,
    ours: impl Fn(&str) -> bool,
) -> Result<(), String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((target, pid)) = name.to_str().and_then(temporary_of) else {
            continue;
        };
        if !ours(target) {
            continue;
        }
        let path = entry.path();
        if process_runs(pid) {
            notes.push(format!(
                "{} is kept: process {pid}, which wrote it, still runs (remove it once that \
                 process has ended)",
                path.display()
            ));
            continue;
        }
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "cannot remove {}, left by a writer that was cut short: {e}",
                    path.display()
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a process `pid` other than this one runs on this machine (`kill(pid, 0)`: a
/// process of another user counts as running).
fn process_runs(pid: u32) -> bool {
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid == std::process::id() || id <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let rc = unsafe { libc::kill(id, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The new answers of an update, written as temporary files in the answers folder, not yet in
/// place.
#[derive(Debug, Default)]
pub(super) struct Staged {
    answers: Vec<Replacement>,
    /// Seeds left out, and why (for warnings).
    pub(super) notes: Vec<String>,
}

impl Staged {
    /// How many answers improve.
    pub(super) fn len(&self) -> usize {
        self.answers.len()
    }
}

/// Records in `bests` every ok result that beats it, its answer (`dir/SEED.out`) judged again
/// from the bytes kept and staged in `folder`; a result whose file no longer judges to its
/// score is left out with a note. `source` is the new entries' source.
pub(super) fn stage(
    bests: &mut Bests,
    results: &[SeedResult],
    (dir, folder): (&Path, &Path),
    source: &str,
) -> Result<Staged, String> {
    let mut staged = Staged::default();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        // A rounding of the same score is no improvement (see [`same_score`]).
        if bests
            .score(r.seed)
            .is_some_and(|best| !Side::Best.improves(r.score, best))
        {
            continue;
        }
        let from = dir.join(format!("{}.out", r.seed));
        let bytes = read_capped(&from, OUTPUT_MAX, "an output")?;
        match judged(r.seed, &bytes) {
            Ok(score) if same_score(score, r.score) => {}
            verdict => {
                staged.notes.push(format!(
                    "seed {}: {} no longer judges to its recorded score {} ({}): not recorded \
                     as a best",
                    r.seed,
                    from.display(),
                    r.score,
                    verdict.map_or_else(|why| why, |s| format!("judges {s}"))
                ));
                continue;
            }
        }
        if staged.answers.is_empty() && !folder.is_dir() {
            // Checked by [`answers_folder`] under the same lock: nothing is there yet.
            fs::create_dir(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        let to = folder.join(format!("{}.out", r.seed));
        let cannot =
            |e: std::io::Error| format!("cannot copy {} to {}: {e}", from.display(), to.display());
        let mut answer = Replacement::new(&to).map_err(cannot)?;
        answer.write_all(&bytes).map_err(cannot)?;
        answer.sync().map_err(cannot)?;
        bests.improve(r.seed, r.score, source);
        staged.answers.push(answer);
    }
    Ok(staged)
}

/// Puts the staged answers and the table `bests` in place at `table` (steps 2 and 3 of the
/// module's protocol). On a failure after `FILE.pending` is written the update is finished
/// at once by [`recover`] where it can be, else by the next update.
pub(super) fn commit(table: &Path, bests: &Bests, staged: Staged) -> Result<(), String> {
    if staged.answers.is_empty() {
        return bests.save(table);
    }
    let pending = pending_path(table);
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", pending.display());
    let mut intent = Replacement::new(&pending).map_err(cannot)?;
    intent
        .write_all(bests.to_json().as_bytes())
        .map_err(cannot)?;
    intent.sync().map_err(cannot)?;
    intent.commit().map_err(cannot)?;
    let moved = staged.answers.into_iter().try_for_each(|answer| {
        let to = answer.path().to_path_buf();
        answer
            .commit()
            .map_err(|e| format!("cannot move the new answer to {}: {e}", to.display()))
    });
    let moved = moved.and_then(|()| {
        fs::rename(&pending, table).map_err(|e| {
            format!(
                "cannot rename {} to {}: {e}",
                pending.display(),
                table.display()
            )
        })
    });
    moved.map_err(|e| finish_after(table, &bests.about, e))
}

/// The message of a failure in step 3, after trying to finish the update at once.
fn finish_after(table: &Path, about: &str, failure: String) -> String {
    let finished = folder_of(table).and_then(|folder| {
        let mut bests = Bests::load_or_new(table, about, Side::Best)?;
        recover(table, &mut bests, &folder)
    });
    match finished {
        Ok(_) => {
            format!("{failure}; the bests file now records exactly the answers that were moved")
        }
        Err(e) => format!(
            "{failure}; the table and its answers are left as the update had them ({e}): the \
             next --update-bests on {} finishes it",
            table.display()
        ),
    }
}
