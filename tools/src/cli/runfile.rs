//! `results.json` of a run folder: what ran (solver, its version, the machine, the seeds) and
//! the result of every finished seed.
//!
//! Keys: `command`, `time_limit`, `date` (YYYY-MM-DD), `ranges` (`n`, `c`, `p`: null or
//! `[a, b]`), `results` (one object per finished seed, see [`SeedResult::to_json`]), `summary`
//! ([`summary_json`]), and the run's record: `started` (RFC 3339, UTC), `comment` (string or
//! null), `solver` (`program`, `size`, `mtime`, `sha1` of the solver's file, each null when
//! unknown), `git_commit` (`git rev-parse HEAD` in the folder `tester` ran in, or null),
//! `git_dirty` (whether that tree had uncommitted changes, null outside a repository),
//! `git_patch` (`"git.patch"`, the changes kept in the run folder, or null; see
//! [`super::provenance`]),
//! `cores`, `interrupted` (true while the run goes on and when it stopped before every seed
//! finished), `seeds` (every seed this run or shard was asked for, in order) and `shard`
//! (`"K/M"` or null).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha1::{Digest, Sha1};

use super::bests::Bests;
use super::date;
use super::exec::Solver;
use super::provenance::{freshness, tree_state, write_patch, Freshness, TreeState};
use super::report::{summary_json, SeedResult};
use crate::gen::Ranges;

/// The file name of a run's results.
pub const RESULTS: &str = "results.json";

/// What a run records beside its results.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    /// The solver command as typed.
    pub command: String,
    /// Seconds per seed.
    pub time_limit: f64,
    /// `ranges` as written (`n`, `c`, `p`).
    pub ranges: Value,
    /// `YYYY-MM-DD` of the start.
    pub date: String,
    /// RFC 3339 start time.
    pub started: String,
    /// The user's comment.
    pub comment: Option<String>,
    /// `program`, `size`, `mtime`, `sha1`.
    pub solver: Value,
    /// The git commit of the folder `tester` ran in.
    pub git_commit: Option<String>,
    /// Whether that tree had uncommitted changes (null outside a repository).
    pub git_dirty: Option<bool>,
    /// The patch of those changes in the run folder (`git.patch`), when dirty.
    pub git_patch: Option<String>,
    /// The untracked files that patch leaves out: binary or large (outputs, as a rule), past
    /// the patch's caps on files and bytes, or unreadable.
    pub git_left_out: Vec<String>,
    /// Cores of the machine.
    pub cores: usize,
    /// Every seed asked for.
    pub seeds: Vec<u64>,
    /// `K/M` of a shard.
    pub shard: Option<String>,
}

impl RunInfo {
    /// The record of a run starting now.
    pub fn now(solver: &Solver, time_limit: f64, ranges: Value, comment: Option<String>) -> Self {
        RunInfo {
            command: solver.describe(),
            time_limit,
            ranges,
            date: date::today(),
            started: date::now_rfc3339(),
            comment,
            solver: solver_json(solver),
            git_commit: git_commit(),
            git_dirty: None,
            git_patch: None,
            git_left_out: Vec::new(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seeds: Vec::new(),
            shard: None,
        }
    }

    /// Looks at the git tree ([`tree_state`]), writes its patch into the run folder `dir`
    /// ([`write_patch`]) and notes both here (`git_dirty`, `git_patch`). Here, not in
    /// [`super::provenance`], so that module needs nothing of this one.
    pub fn record_tree(&mut self, dir: &Path) -> Result<TreeState, String> {
        self.record_tree_leaving_out(dir, dir)
    }

    /// [`RunInfo::record_tree`] with the folder `left_out` (one that holds `dir`) left out of
    /// the tree instead of `dir` alone: `tester ab` leaves its whole folder out, so that its
    /// worktrees and copied build never count as changes.
    pub fn record_tree_leaving_out(
        &mut self,
        dir: &Path,
        left_out: &Path,
    ) -> Result<TreeState, String> {
        let tree = tree_state(left_out);
        self.git_dirty = tree.dirty;
        self.git_patch = write_patch(dir, &tree)?.map(str::to_string);
        self.git_left_out = tree.left_out.clone();
        Ok(tree)
    }

    /// Why the solver's file may not be the code this record names (`git_commit`, `git.patch`):
    /// cargo built it before one of its sources last changed ([`solver_json`]'s
    /// `newer_source`).
    pub fn stale_solver(&self) -> Option<String> {
        let source = self.solver["newer_source"].as_str()?;
        Some(format!(
            "the solver {} was built before {source} last changed: it may not be what this \
             tree builds, and then this run's record (git_commit, git.patch) is not the code it \
             runs (results.json's solver says `\"up_to_date\": false`). Rebuild it first (cargo build \
             --release, or --build CMD)",
            self.solver["program"].as_str().unwrap_or("?")
        ))
    }

    /// The line saying which untracked files `git.patch` leaves out (none: `None`).
    pub fn left_out_note(&self) -> Option<String> {
        let first = self.git_left_out.first()?;
        let more = self.git_left_out.len() - 1;
        let rest = match more {
            0 => String::new(),
            1 => format!(" and {}", self.git_left_out[1]),
            _ => format!(" and {more} more (results.json's git_left_out)"),
        };
        Some(format!(
            "git.patch leaves out untracked files (binary or large, as outputs are; past its \
             caps of files or bytes; or unreadable): {first}{rest}; commit what the solver \
             needs, ignore or move the rest"
        ))
    }

    /// The whole `results.json` document.
    pub fn document(
        &self,
        results: &[SeedResult],
        interrupted: bool,
        bests: Option<&Bests>,
    ) -> Value {
        json!({
            "command": self.command,
            "time_limit": self.time_limit,
            "date": self.date,
            "ranges": self.ranges,
            "results": results.iter().map(SeedResult::to_json).collect::<Vec<_>>(),
            "summary": summary_json(results, bests),
            "started": self.started,
            "comment": self.comment,
            "solver": self.solver,
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "git_patch": self.git_patch,
            "git_left_out": self.git_left_out,
            "cores": self.cores,
            "interrupted": interrupted,
            "seeds": self.seeds,
            "shard": self.shard,
        })
    }

    /// The ranges the run drew its cases with (`ranges`: `n`, `c`, `p`, each null or
    /// `[a, b]`), as the generator takes them: the run's cases are generated again from them.
    pub fn case_ranges(&self) -> Ranges {
        Ranges {
            n: int_range(&self.ranges["n"]),
            c: int_range(&self.ranges["c"]),
            p: float_range(&self.ranges["p"]),
        }
    }

    /// Reads the record back from a `results.json` document (older files lack most keys:
    /// they read as null or empty).
    pub fn from_document(doc: &Value) -> RunInfo {
        let text = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_string);
        RunInfo {
            command: text("command").unwrap_or_default(),
            time_limit: doc.get("time_limit").and_then(Value::as_f64).unwrap_or(0.0),
            ranges: doc.get("ranges").cloned().unwrap_or(Value::Null),
            date: text("date").unwrap_or_default(),
            started: text("started").unwrap_or_default(),
            comment: text("comment"),
            solver: doc.get("solver").cloned().unwrap_or(Value::Null),
            git_commit: text("git_commit"),
            git_dirty: doc.get("git_dirty").and_then(Value::as_bool),
            git_patch: text("git_patch"),
            git_left_out: doc
                .get("git_left_out")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| Some(v.as_str()?.to_string()))
                        .collect()
                })
                .unwrap_or_default(),
            cores: doc.get("cores").and_then(Value::as_u64).unwrap_or(0) as usize,
            seeds: doc
                .get("seeds")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default(),
            shard: text("shard"),
        }
    }
}

/// `[a, b]` of integers, as `--n`/`--c` hold them (`None` for null or anything else).
pub fn int_range(v: &Value) -> Option<(i32, i32)> {
    let a = i32::try_from(v.get(0)?.as_i64()?).ok()?;
    let b = i32::try_from(v.get(1)?.as_i64()?).ok()?;
    Some((a, b))
}

/// `[x, y]` of numbers, as `--p` holds them (`None` for null or anything else).
pub fn float_range(v: &Value) -> Option<(f64, f64)> {
    Some((v.get(0)?.as_f64()?, v.get(1)?.as_f64()?))
}

/// A run folder as read from disk: the record and the finished seeds' results.
#[derive(Clone, Debug)]
pub struct StoredRun {
    /// The record.
    pub info: RunInfo,
    /// Results in file order.
    pub results: Vec<SeedResult>,
    /// Whether the file says the run was interrupted.
    pub interrupted: bool,
}

/// Reads `DIR/results.json`; `Ok(None)` if there is none. Anything else at that name that is
/// no regular file (a named pipe, a folder, a link to `/dev/zero`, a dangling link) is an
/// error, never taken for a folder without a run: the run's record would be ignored silently.
pub fn read_run(dir: &Path) -> Result<Option<StoredRun>, String> {
    let path = dir.join(RESULTS);
    if fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(None);
    }
    let text = super::readcap::read_text_capped(&path, super::readcap::JSON_MAX, "a results.json")?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let results = doc
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: no `results` array", path.display()))?
        .iter()
        .map(SeedResult::from_json)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(StoredRun {
        info: RunInfo::from_document(&doc),
        interrupted: doc.get("interrupted").and_then(Value::as_bool) == Some(true),
        results,
    }))
}

/// Writes `doc` as `DIR/results.json`, atomically (a temporary file renamed over it), so a
/// crash never leaves half a file; a symbolic link there is replaced, not followed.
pub fn write_run(dir: &Path, doc: &Value) -> Result<PathBuf, String> {
    let path = dir.join(RESULTS);
    let text = serde_json::to_string_pretty(doc).expect("JSON values always serialise");
    crate::cli::replace::replace_file(&path, (text + "\n").as_bytes()).map_err(|e| {
        super::resources::explained(&format!("cannot write {}", path.display()), &e)
    })?;
    Ok(path)
}

/// The files a run leaves in its folder (`results.json`, `SEED.in`, `.out`, `.err`, `.html`).
pub fn run_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| is_run_file(p.file_name().and_then(|n| n.to_str()).unwrap_or("")))
        .collect()
}

/// Whether `name` is the name of a file a run writes: `results.json`, `SEED.in`, `.out`,
/// `.err` or `.html`.
pub fn is_run_file(name: &str) -> bool {
    name == RESULTS
        || name.rsplit_once('.').is_some_and(|(stem, ext)| {
            stem.parse::<u64>().is_ok() && SEED_EXTENSIONS.contains(&ext)
        })
}

/// The file names a run writes for `seed`.
const SEED_EXTENSIONS: [&str; 4] = ["in", "out", "err", "html"];

/// A recorded run's seeds and its files that exist (see [`recorded_run`]).
pub type RecordedRun = (Vec<u64>, Vec<PathBuf>);

/// The run recorded in `DIR/results.json`: its seeds (the `seeds` list, and every seed with a
/// result) and the files of it that exist (`results.json` and each seed's
/// `SEED.in/out/err/html`). `None` without a `results.json`. Other files are not the run's.
pub fn recorded_run(dir: &Path) -> Result<Option<RecordedRun>, String> {
    let Some(run) = read_run(dir)? else {
        return Ok(None);
    };
    let mut seeds = run.info.seeds.clone();
    for r in &run.results {
        if !seeds.contains(&r.seed) {
            seeds.push(r.seed);
        }
    }
    let mut files = vec![dir.join(RESULTS)];
    files.extend(seed_files(dir, &seeds));
    Ok(Some((seeds, files)))
}

/// The `SEED.in/out/err/html` files of `seeds` that exist in `dir`.
pub fn seed_files(dir: &Path, seeds: &[u64]) -> Vec<PathBuf> {
    seeds
        .iter()
        .flat_map(|seed| SEED_EXTENSIONS.map(|ext| dir.join(format!("{seed}.{ext}"))))
        .filter(|p| p.exists())
        .collect()
}

/// Refuses when `dir` holds files a run of `seeds` would write over that no recorded run
/// wrote (a copy of `testcases/`, a user's `3.in`): `--force` replaces a run, never other files.
pub fn refuse_foreign(dir: &Path, seeds: &[u64], recorded: &[u64]) -> Result<(), String> {
    let recorded: std::collections::HashSet<u64> = recorded.iter().copied().collect();
    let theirs: Vec<u64> = seeds
        .iter()
        .copied()
        .filter(|s| !recorded.contains(s))
        .collect();
    let foreign = seed_files(dir, &theirs);
    if foreign.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = foreign
        .iter()
        .take(5)
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    Err(format!(
        "{} holds {} files that this run would write over and that no tester run recorded \
         ({}{}): choose another folder, or move them away",
        dir.display(),
        foreign.len(),
        names.join(", "),
        if foreign.len() > 5 { ", …" } else { "" }
    ))
}

/// `program`, `size`, `mtime` and `sha1` of the solver's file (each null when unknown), and
/// whether it is what its sources build now by cargo's dep-info file beside it
/// ([`freshness`]): `up_to_date` (null without one) and `newer_source` (the source changed
/// after it was built, or null).
pub fn solver_json(solver: &Solver) -> Value {
    let program = match solver {
        Solver::Program { path, .. } => Some(path.clone()),
        Solver::Shell(line) => program_of(line),
    };
    let meta = program.as_deref().and_then(|p| fs::metadata(p).ok());
    let fresh = program.as_deref().map_or(Freshness::Unknown, freshness);
    let (up_to_date, newer) = match &fresh {
        Freshness::Unknown => (None, None),
        Freshness::UpToDate => (Some(true), None),
        Freshness::Stale(source) => (Some(false), Some(source.display().to_string())),
    };
    json!({
        "program": program.as_ref().map(|p| p.display().to_string()),
        "size": meta.as_ref().map(fs::Metadata::len),
        "mtime": meta.as_ref().and_then(|m| m.modified().ok()).map(date::rfc3339),
        "sha1": program.as_deref().and_then(sha1_of),
        "up_to_date": up_to_date,
        "newer_source": newer,
    })
}

/// The file a shell command runs: the first word that names a file (`./solver --x`,
/// `sh tests/ok.sh`, `python3 sol.py`), else the first word found on `PATH`.
fn program_of(line: &str) -> Option<PathBuf> {
    let words: Vec<&str> = line
        .split_ascii_whitespace()
        .map(|w| w.trim_matches(['\'', '"']))
        .take_while(|w| !["|", ";", "&&", "||", "&"].contains(w))
        .collect();
    if let Some(file) = words.iter().map(PathBuf::from).find(|p| p.is_file()) {
        return Some(file);
    }
    let first = words.first()?;
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(first))
            .find(|p| p.is_file())
    })
}

/// The SHA-1 of a file in hex, read in blocks.
fn sha1_of(path: &Path) -> Option<String> {
    let mut file = super::readcap::open_regular(path).ok()?;
    let mut hasher = Sha1::new();
    let mut block = vec![0u8; 1 << 16];
    loop {
        let got = file.read(&mut block).ok()?;
        if got == 0 {
            break;
        }
        hasher.update(&block[..got]);
    }
    Some(
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

/// `git rev-parse HEAD` in the current folder, or `None` outside a repository (or without git).
pub fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_json_replaces_a_symlink_instead_of_writing_through_it() {
        let dir = std::env::temp_dir().join(format!("qa-run-link-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        std::os::unix::fs::symlink("precious.txt", dir.join(RESULTS)).unwrap();
        write_run(&dir, &json!({"seeds": []})).unwrap();
        let precious = fs::read_to_string(dir.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        assert!(fs::read_to_string(dir.join(RESULTS))
            .unwrap()
            .contains("seeds"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn solver_file_is_found_and_hashed() {
        let dir = std::env::temp_dir().join(format!("qa-runfile-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let script = dir.join("solve.sh");
        fs::write(&script, "abc").unwrap();
        let line = format!("sh '{}' --fast | cat", script.display());
        let v = solver_json(&Solver::Shell(line));
        assert_eq!(v["program"], script.display().to_string());
        assert_eq!(v["size"], 3);
        assert_eq!(v["sha1"], "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert!(v["mtime"].as_str().unwrap().ends_with('Z'));
        let none = solver_json(&Solver::Shell("no-such-program-xyz".into()));
        assert!(none["program"].is_null() && none["sha1"].is_null());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn scores_read_back_bit_for_bit() {
        // A score of seed 1 whose text the default serde_json parser reads one ulp off.
        let score = 18.275254574433934_f64;
        let text = serde_json::to_string(&json!({ "s": score })).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["s"].as_f64().unwrap().to_bits(), score.to_bits());
    }

    #[test]
    fn document_round_trips_the_record() {
        let mut info = RunInfo::now(
            &Solver::Shell("echo 0".into()),
            2.5,
            json!({"n": null, "c": null, "p": null}),
            Some("a note".into()),
        );
        info.seeds = vec![3, 1, 2];
        info.shard = Some("1/3".into());
        info.git_dirty = Some(true);
        info.git_patch = Some("git.patch".into());
        let doc = info.document(&[], true, None);
        assert_eq!(RunInfo::from_document(&doc), info);
        assert_eq!(doc["interrupted"], true);
        assert!(doc["cores"].as_u64().unwrap() >= 1);
    }
}
