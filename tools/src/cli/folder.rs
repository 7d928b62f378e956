//! A `tester run` folder read back for `tester compare` and `tester runs`: the per-seed results
//! of its `results.json` and what the file says about the run.
//!
//! Folders written before a key existed simply lack it: every field but the results is
//! optional.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::report::SeedResult;

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
    /// The results by seed.
    pub results: BTreeMap<u64, SeedResult>,
}

impl RunFolder {
    /// Reads `DIR/results.json`.
    pub fn load(dir: &Path) -> Result<RunFolder, String> {
        let path = dir.join("results.json");
        if !path.is_file() {
            return Err(format!(
                "{} is not a run folder (no results.json; `tester run --out DIR` writes one)",
                dir.display()
            ));
        }
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        RunFolder::from_json(dir, &doc).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads the JSON document of a `results.json` found in `dir`.
    pub fn from_json(dir: &Path, doc: &Value) -> Result<RunFolder, String> {
        let text = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_string);
        let list = doc
            .get("results")
            .and_then(Value::as_array)
            .ok_or("no `results` array")?;
        let mut results = BTreeMap::new();
        for v in list {
            let r = SeedResult::from_json(v)?;
            if results.insert(r.seed, r).is_some() {
                return Err(format!("seed {} is listed twice", v["seed"]));
            }
        }
        let official = match doc.get("ranges") {
            Some(Value::Object(ranges)) => ranges.values().all(Value::is_null),
            _ => true,
        };
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            command: text("command"),
            time_limit: doc.get("time_limit").and_then(Value::as_f64),
            when: text("started").or_else(|| text("date")),
            comment: text("comment").filter(|c| !c.is_empty()),
            interrupted: doc
                .get("interrupted")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            official,
            git_commit: text("git_commit"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn old_and_new_documents() {
        let result = json!({"seed": 3, "N": 8, "C": 1, "P": 0.1, "status": "ok", "score": 12.5,
            "errors": 0, "moves": 2, "penalty": 2.5, "wall_ms": 10, "message": null});
        let old = json!({"command": "sh x", "time_limit": 1.0, "date": "2026-11-22",
            "ranges": {"n": null, "c": null, "p": null}, "results": [result]});
        let f = RunFolder::from_json(Path::new("r"), &old).unwrap();
        assert_eq!(f.when.as_deref(), Some("2026-11-22"));
        assert!(f.official && !f.interrupted && f.comment.is_none());
        assert_eq!(f.get(3).unwrap().score, 12.5);
        let new = json!({"date": "2026-11-22", "started": "2026-11-22T10:00:00Z",
            "comment": "faster moves", "interrupted": true, "ranges": {"n": [8, 9]},
            "results": [result]});
        let f = RunFolder::from_json(Path::new("r"), &new).unwrap();
        assert_eq!(f.when.as_deref(), Some("2026-11-22T10:00:00Z"));
        assert_eq!(f.comment.as_deref(), Some("faster moves"));
        assert!(f.interrupted && !f.official);
        let twice = json!({"results": [result, result]});
        assert!(RunFolder::from_json(Path::new("r"), &twice)
            .unwrap_err()
            .contains("twice"));
        assert!(RunFolder::from_json(Path::new("r"), &json!({})).is_err());
    }
}
