//! A `tester run` folder read back for `tester compare` and `tester runs`: the per-seed results
//! of its `results.json` and what the file says about the run.
//!
//! Folders written before a key existed simply lack it: every field but the results is
//! optional.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::report::SeedResult;
use super::runfile::{read_run, StoredRun, RESULTS};
use crate::gen::Ranges;

/// One run folder.
#[derive(Clone, Debug, PartialEq)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
    /// The solver command (`command`).
    pub command: Option<String>,
    /// Time limit per seed in seconds (`time_limit`).
    pub time_limit: Option<f64>,
    /// When the run started (`started`, RFC 3339 UTC), else the day it ran (`date`).
    pub when: Option<String>,
    /// The user's comment on the run (`comment`).
    pub comment: Option<String>,
    /// Whether the run was stopped before every seed ran (`interrupted`).
    pub interrupted: bool,
    /// Whether the cases are the official ones (no `--n`/`--c`/`--p` in `ranges`).
    pub official: bool,
    /// The git commit the solver was built from, when recorded (`git_commit`).
    pub git_commit: Option<String>,
    /// The `--n`, `--c`, `--p` the cases were generated with (`ranges`; a value that is not a
    /// pair of numbers counts as not given).
    pub ranges: Ranges,
    /// The results by seed.
    pub results: BTreeMap<u64, SeedResult>,
}

impl RunFolder {
    /// Reads `DIR/results.json`.
    pub fn load(dir: &Path) -> Result<RunFolder, String> {
        let stored = read_run(dir)?.ok_or_else(|| {
            format!(
                "{} is not a run folder (no {RESULTS}; `tester run --out DIR` writes one)",
                dir.display()
            )
        })?;
        RunFolder::from_stored(dir, stored)
            .map_err(|e| format!("{}: {e}", dir.join(RESULTS).display()))
    }

    /// The folder `dir` from what [`read_run`] read in it. Refuses a seed listed twice.
    pub fn from_stored(dir: &Path, stored: StoredRun) -> Result<RunFolder, String> {
        let mut results = BTreeMap::new();
        for r in stored.results {
            let seed = r.seed;
            if results.insert(seed, r).is_some() {
                return Err(format!("seed {seed} is listed twice"));
            }
        }
        let info = stored.info;
        let official = match &info.ranges {
            Value::Object(ranges) => ranges.values().all(Value::is_null),
            _ => true,
        };
        let known = |s: String| (!s.is_empty()).then_some(s);
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            command: known(info.command),
            time_limit: (info.time_limit > 0.0).then_some(info.time_limit),
            when: known(info.started).or_else(|| known(info.date)),
            comment: info.comment.filter(|c| !c.is_empty()),
            interrupted: stored.interrupted,
            official,
            git_commit: info.git_commit,
            ranges: ranges_of(&info.ranges),
            results,
        })
    }

    /// The result of `seed`, if the run has one.
    pub fn get(&self, seed: u64) -> Option<&SeedResult> {
        self.results.get(&seed)
    }

    /// The input file of `seed` in the folder.
    pub fn input_file(&self, seed: u64) -> PathBuf {
        self.dir.join(format!("{seed}.in"))
    }
}

/// `results.json`'s `ranges` (`{"n": [8, 12], "c": null, "p": [0.1, 0.1]}`) as the
/// generator's.
pub fn ranges_of(v: &Value) -> Ranges {
    let pair = |key: &str| {
        let pair = v.get(key)?.as_array()?;
        Some((pair.first()?.as_f64()?, pair.get(1)?.as_f64()?))
    };
    let int = |key: &str| pair(key).map(|(a, b)| (a as i32, b as i32));
    Ranges {
        n: int("n"),
        c: int("c"),
        p: pair("p"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::runfile::RunInfo;
    use serde_json::json;

    fn folder(doc: &Value) -> Result<RunFolder, String> {
        let results = doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| SeedResult::from_json(v).unwrap())
            .collect();
        let stored = StoredRun {
            info: RunInfo::from_document(doc),
            results,
            interrupted: doc["interrupted"] == true,
        };
        RunFolder::from_stored(Path::new("r"), stored)
    }

    #[test]
    fn old_and_new_documents() {
        let result = json!({"seed": 3, "N": 8, "C": 1, "P": 0.1, "status": "ok", "score": 12.5,
            "errors": 0, "moves": 2, "penalty": 2.5, "wall_ms": 10, "message": null});
        let old = json!({"command": "sh x", "time_limit": 1.0, "date": "2026-11-22",
            "ranges": {"n": null, "c": null, "p": null}, "results": [result]});
        let f = folder(&old).unwrap();
        assert_eq!(f.when.as_deref(), Some("2026-11-22"));
        assert_eq!(f.time_limit, Some(1.0));
        assert!(f.official && !f.interrupted && f.comment.is_none());
        assert_eq!(f.get(3).unwrap().score, 12.5);
        let new = json!({"date": "2026-11-22", "started": "2026-11-22T10:00:00Z",
            "comment": "faster moves", "interrupted": true, "ranges": {"n": [8, 9]},
            "results": [result]});
        let f = folder(&new).unwrap();
        assert_eq!(f.when.as_deref(), Some("2026-11-22T10:00:00Z"));
        assert_eq!(f.comment.as_deref(), Some("faster moves"));
        assert!(f.interrupted && !f.official);
        assert_eq!((f.command, f.time_limit), (None, None));
        assert_eq!(f.ranges.n, Some((8, 9)));
        assert_eq!((f.ranges.c, f.ranges.p), (None, None));
        let twice = json!({"results": [result, result]});
        assert!(folder(&twice).unwrap_err().contains("twice"));
    }
}
