//! The bests file: the best known score of each seed, with where it came from.
//!
//! Format (`testcases/bests.json`):
//!
//! ```json
//! {
//!   "about": "free text",
//!   "bests": [
//!     {"seed": 1, "score": 17.528596717383735, "source": "where it came from"}
//!   ]
//! }
//! ```
//!
//! Scores are costs: lower is better.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One best known score.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    /// The score (lower is better).
    pub score: f64,
    /// Where it came from (a publication, or `tester run DATE` and the command).
    pub source: String,
}

/// The best known score of each seed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bests {
    /// Free text kept at the top of the file.
    pub about: String,
    /// Bests by seed.
    pub seeds: BTreeMap<u64, Best>,
}

impl Bests {
    /// Reads a bests file.
    pub fn load(path: &Path) -> Result<Bests, String> {
        let text = super::readcap::read_text_capped(path, super::readcap::JSON_MAX, "a bests file")
            .map_err(|e| format!("bests file: {e}"))?;
        Bests::parse(&text).map_err(|e| format!("bests file {}: {e}", path.display()))
    }

    /// Reads the JSON text of a bests file.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::bests::Bests;
    ///
    /// let b = Bests::parse(r#"{"bests": [{"seed": 3, "score": 42.5, "source": "x"}]}"#).unwrap();
    /// assert_eq!(b.seeds[&3].score, 42.5);
    /// assert_eq!(Bests::parse(&b.to_json()).unwrap(), b);
    /// ```
    pub fn parse(text: &str) -> Result<Bests, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let about = value
            .get("about")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let list = value
            .get("bests")
            .and_then(Value::as_array)
            .ok_or("expected an object with a `bests` array")?;
        let mut seeds = BTreeMap::new();
        for (i, entry) in list.iter().enumerate() {
            let seed = entry
                .get("seed")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("entry {i}: `seed` must be a non-negative integer"))?;
            let score = entry
                .get("score")
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| format!("entry {i}: `score` must be a number >= 0"))?;
            let source = entry
                .get("source")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("entry {i}: `source` must be a string"))?
                .to_string();
            if seeds.insert(seed, Best { score, source }).is_some() {
                return Err(format!("seed {seed} is listed twice"));
            }
        }
        Ok(Bests { about, seeds })
    }

    /// The JSON text: one entry per line, sorted by seed.
    pub fn to_json(&self) -> String {
        let mut text = String::from("{\n");
        text.push_str(&format!(
            "  \"about\": {},\n",
            Value::from(self.about.as_str())
        ));
        text.push_str("  \"bests\": [\n");
        let entries: Vec<String> = self
            .seeds
            .iter()
            .map(|(seed, best)| {
                format!(
                    "    {{\"seed\": {seed}, \"score\": {}, \"source\": {}}}",
                    Value::from(best.score),
                    Value::from(best.source.as_str())
                )
            })
            .collect();
        text.push_str(&entries.join(",\n"));
        text.push_str("\n  ]\n}\n");
        text
    }

    /// Writes the file, atomically (a temporary file renamed over it): a reader never sees
    /// half a file, and a symbolic link at `path` is replaced, not followed.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        crate::cli::replace::replace_file(path, self.to_json().as_bytes())
            .map_err(|e| format!("cannot write bests file {}: {e}", path.display()))
    }

    /// Reads the bests file at `path` (a missing file reads as empty, with `about`), lets
    /// `change` update it and writes it back, all under an exclusive lock (`flock` on
    /// `PATH.lock`, created beside it and left there): concurrent updates of one file, from
    /// runs on one machine or on a shared folder whose file system honours `flock`, each see
    /// the others' entries, so none is lost.
    pub fn update_locked<R>(
        path: &Path,
        about: &str,
        change: impl FnOnce(&mut Bests) -> Result<R, String>,
    ) -> Result<R, String> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let mut lock_name = path.as_os_str().to_owned();
        lock_name.push(".lock");
        let lock_path = std::path::PathBuf::from(lock_name);
        use std::os::unix::fs::OpenOptionsExt;
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            // A link planted as the lock file is refused, not followed.
            .custom_flags(libc::O_NOFOLLOW)
            .open(&lock_path)
            .map_err(|e| format!("cannot open lock file {}: {e}", lock_path.display()))?;
        loop {
            use std::os::fd::AsRawFd;
            // SAFETY: `flock` on a descriptor we own; released when `lock` is dropped.
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("cannot lock {}: {e}", lock_path.display()));
            }
        }
        let mut bests = if path.exists() {
            Bests::load(path)?
        } else {
            Bests {
                about: about.to_string(),
                ..Bests::default()
            }
        };
        let answer = change(&mut bests)?;
        bests.save(path)?;
        drop(lock);
        Ok(answer)
    }

    /// The best score of `seed`, if known.
    pub fn score(&self, seed: u64) -> Option<f64> {
        self.seeds.get(&seed).map(|b| b.score)
    }

    /// Records `score` for `seed` if it beats the known best (or none is known). Returns whether
    /// it did.
    pub fn improve(&mut self, seed: u64, score: f64, source: &str) -> bool {
        if self.score(seed).is_some_and(|best| best <= score) {
            return false;
        }
        self.seeds.insert(
            seed,
            Best {
                score,
                source: source.to_string(),
            },
        );
        true
    }
}

/// The bests file to use: `path` if given (it must exist), else `testcases/bests.json` in the
/// current folder if it exists, else none.
pub fn load_bests(path: Option<&Path>) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    match path {
        Some(p) => Ok((Some(p.to_path_buf()), Some(Bests::load(p)?))),
        None => {
            let default = PathBuf::from("testcases/bests.json");
            if default.is_file() {
                let loaded = Bests::load(&default)?;
                Ok((Some(default), Some(loaded)))
            } else {
                Ok((None, None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saving_replaces_a_symlink_and_a_linked_lock_is_refused() {
        let dir = std::env::temp_dir().join(format!("qa-bests-link-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        let path = dir.join("bests.json");
        std::os::unix::fs::symlink("precious.txt", &path).unwrap();
        Bests::default().save(&path).unwrap();
        let precious = fs::read_to_string(dir.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        assert!(!fs::symlink_metadata(&path).unwrap().is_symlink());
        std::os::unix::fs::symlink("precious.txt", dir.join("bests.json.lock")).unwrap();
        let err = Bests::update_locked(&path, "about", |_| Ok(0)).unwrap_err();
        assert!(err.contains("cannot open lock file"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn improve_only_when_better() {
        let mut b = Bests::default();
        assert!(b.improve(1, 10.0, "a"));
        assert!(!b.improve(1, 10.0, "b"));
        assert!(!b.improve(1, 11.0, "b"));
        assert!(b.improve(1, 9.5, "c"));
        assert_eq!(b.seeds[&1].source, "c");
    }

    #[test]
    fn rejects_bad_files() {
        assert!(Bests::parse("[]").is_err());
        assert!(Bests::parse(r#"{"bests": [{"seed": 1, "score": -1, "source": ""}]}"#).is_err());
        assert!(Bests::parse(r#"{"bests": [{"seed": 1, "score": 1}]}"#).is_err());
        let twice = r#"{"bests": [{"seed": 1, "score": 1, "source": ""},
                                  {"seed": 1, "score": 2, "source": ""}]}"#;
        assert!(Bests::parse(twice).is_err());
    }
}
