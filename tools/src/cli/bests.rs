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
//!
//! A bounds file (`testcases/bounds.json`) is the same table seen from below: the best
//! certified lower bound of each seed, where higher is better ([`Side::Bound`]):
//!
//! ```json
//! {
//!   "about": "free text",
//!   "bounds": [
//!     {"seed": 1, "bound": 16.7067, "source": "how it was computed, with its time"}
//!   ]
//! }
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
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

/// Two scores closer than this share of the larger one (or than this, below 1) are one score:
/// the same moves summed in another order differ in the last digits (seed 8: 21.73658396076715
/// against 21.736583960767152), which is no improvement. The judge's scores of one answer
/// agree to about 1e-15; a real improvement of a legal answer is at least √1 − √0 = 1 / (N·N)
/// of a move's length away, far above this margin.
pub const SAME_SCORE: f64 = 1e-9;

/// Whether `a` and `b` are one score, but for a rounding ([`SAME_SCORE`]).
///
/// # Examples
///
/// ```
/// use tools::cli::bests::same_score;
///
/// assert!(same_score(21.73658396076715, 21.736583960767152));
/// assert!(!same_score(21.7365, 21.7366));
/// ```
pub fn same_score(a: f64, b: f64) -> bool {
    (a - b).abs() <= SAME_SCORE * a.abs().max(b.abs()).max(1.0)
}

/// Whether the score `new` is lower than `old` by more than a rounding ([`SAME_SCORE`]).
///
/// # Examples
///
/// ```
/// use tools::cli::bests::lower;
///
/// assert!(lower(21.7365, 21.7366));
/// assert!(!lower(21.73658396076715, 21.736583960767152));
/// assert!(!lower(21.7366, 21.7365));
/// ```
pub fn lower(new: f64, old: f64) -> bool {
    new < old && !same_score(new, old)
}

/// Which side of the optimum a table holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    /// Best known scores (answers reached): lower is better.
    #[default]
    Best,
    /// Certified lower bounds (no answer scores below): higher is better.
    Bound,
}

impl Side {
    /// The JSON keys of the list and of an entry's value.
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Side::Best => ("bests", "score"),
            Side::Bound => ("bounds", "bound"),
        }
    }

    /// Whether `new` improves on `old` by more than a rounding ([`lower`]).
    pub fn improves(self, new: f64, old: f64) -> bool {
        match self {
            Side::Best => lower(new, old),
            Side::Bound => lower(old, new),
        }
    }

    /// What the file is called in messages.
    fn name(self) -> &'static str {
        match self {
            Side::Best => "bests file",
            Side::Bound => "bounds file",
        }
    }
}

/// The best known score of each seed (or, with [`Side::Bound`], its best certified lower
/// bound; [`Best::score`] then holds the bound).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bests {
    /// Free text kept at the top of the file.
    pub about: String,
    /// Bests by seed.
    pub seeds: BTreeMap<u64, Best>,
    /// Scores reached, or lower bounds.
    pub side: Side,
}

impl Bests {
    /// Reads a bests file.
    pub fn load(path: &Path) -> Result<Bests, String> {
        Bests::load_side(path, Side::Best)
    }

    /// Reads a bests file or, with [`Side::Bound`], a bounds file.
    pub fn load_side(path: &Path, side: Side) -> Result<Bests, String> {
        let what = side.name();
        let text = super::readcap::read_text_capped(path, super::readcap::JSON_MAX, what)
            .map_err(|e| format!("{what}: {e}"))?;
        Bests::parse_side(&text, side).map_err(|e| format!("{what} {}: {e}", path.display()))
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
        Bests::parse_side(text, Side::Best)
    }

    /// Reads the JSON text of a bests file or, with [`Side::Bound`], of a bounds file.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::bests::{Bests, Side};
    ///
    /// let b = Bests::parse_side(r#"{"bounds": [{"seed": 3, "bound": 40, "source": "x"}]}"#,
    ///     Side::Bound).unwrap();
    /// assert_eq!(b.score(3), Some(40.0));
    /// assert_eq!(Bests::parse_side(&b.to_json(), Side::Bound).unwrap(), b);
    /// ```
    pub fn parse_side(text: &str, side: Side) -> Result<Bests, String> {
        let (list_key, value_key) = side.keys();
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let about = value
            .get("about")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let list = value
            .get(list_key)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("expected an object with a `{list_key}` array"))?;
        let mut seeds = BTreeMap::new();
        for (i, entry) in list.iter().enumerate() {
            let seed = entry
                .get("seed")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("entry {i}: `seed` must be a non-negative integer"))?;
            let score = entry
                .get(value_key)
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| format!("entry {i}: `{value_key}` must be a number >= 0"))?;
            let source = entry
                .get("source")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("entry {i}: `source` must be a string"))?
                .to_string();
            if seeds.insert(seed, Best { score, source }).is_some() {
                return Err(format!("seed {seed} is listed twice"));
            }
        }
        Ok(Bests { about, seeds, side })
    }

    /// The JSON text: one entry per line, sorted by seed.
    pub fn to_json(&self) -> String {
        let (list_key, value_key) = self.side.keys();
        let mut text = String::from("{\n");
        text.push_str(&format!(
            "  \"about\": {},\n",
            Value::from(self.about.as_str())
        ));
        text.push_str(&format!("  \"{list_key}\": [\n"));
        let entries: Vec<String> = self
            .seeds
            .iter()
            .map(|(seed, best)| {
                format!(
                    "    {{\"seed\": {seed}, \"{value_key}\": {}, \"source\": {}}}",
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
            .map_err(|e| format!("cannot write {} {}: {e}", self.side.name(), path.display()))
    }

    /// Reads the bests file at `path` (a missing file reads as empty, with `about`), lets
    /// `change` update it and writes it back, all under the file's lock ([`Bests::lock`]):
    /// concurrent updates of one file each see the others' entries, so none is lost.
    pub fn update_locked<R>(
        path: &Path,
        about: &str,
        side: Side,
        change: impl FnOnce(&mut Bests) -> Result<R, String>,
    ) -> Result<R, String> {
        let lock = Bests::lock(path, side)?;
        let mut bests = Bests::load_or_new(path, about, side)?;
        let answer = change(&mut bests)?;
        bests.save(path)?;
        drop(lock);
        Ok(answer)
    }

    /// Refuses to update the table at `path` when it is a symbolic link or a file with other
    /// hard links: an update writes a new file renamed over `path`, so the link would become a
    /// copy, split from the table it shared, from that table's answers (`best/` beside it) and
    /// from its lock (`PATH.lock` beside it). As `best/` is refused when it is a link, so is the
    /// table: name the table itself. A missing table (made by the update) is fine.
    pub fn check_updatable(path: &Path, side: Side) -> Result<(), String> {
        let Ok(meta) = fs::symlink_metadata(path) else {
            return Ok(());
        };
        let (flag, what) = (side.keys().0, side.name());
        let why = if meta.file_type().is_symlink() {
            let target = fs::canonicalize(path).map_or_else(
                |_| "a file that does not exist".to_string(),
                |real| real.display().to_string(),
            );
            format!("is a symbolic link (to {target})")
        } else if meta.nlink() > 1 {
            format!(
                "has {} hard links (it is shared with another name)",
                meta.nlink()
            )
        } else {
            return Ok(());
        };
        let beside = match side {
            Side::Best => "its answers (best/) and its lock",
            Side::Bound => "its lock",
        };
        Err(format!(
            "the {what} {} {why}: --update-{flag} replaces the table's file where it is, with \
             {beside} beside it, so a link would be split from the table it shares; name the \
             table itself with --{flag}",
            path.display()
        ))
    }

    /// Takes the exclusive lock of the table at `path` (`flock` on `PATH.lock`, created beside
    /// it, folders included, and left there), waiting for it; held until the returned file is
    /// dropped. Runs on one machine, or on a shared folder whose file system honours `flock`,
    /// update the table one at a time. A table that is a link is refused once the lock is held
    /// ([`Bests::check_updatable`]): its lock would not be the lock of the file it points to.
    pub fn lock(path: &Path, side: Side) -> Result<fs::File, String> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let mut lock_name = path.as_os_str().to_owned();
        lock_name.push(".lock");
        let lock_path = std::path::PathBuf::from(lock_name);
        // waits (so never `None`): the updates of one table take turns
        let lock = crate::cli::lock::lock_file(&lock_path, true)?
            .ok_or_else(|| format!("cannot lock {}", lock_path.display()))?;
        Bests::check_updatable(path, side)?;
        Ok(lock)
    }

    /// The table at `path`, or an empty one with `about` when there is no file.
    pub fn load_or_new(path: &Path, about: &str, side: Side) -> Result<Bests, String> {
        if path.exists() {
            return Bests::load_side(path, side);
        }
        Ok(Bests {
            about: about.to_string(),
            side,
            ..Bests::default()
        })
    }

    /// The best score of `seed`, if known.
    pub fn score(&self, seed: u64) -> Option<f64> {
        self.seeds.get(&seed).map(|b| b.score)
    }

    /// Records `score` for `seed` if it beats the known best (or none is known): lower for
    /// scores, higher for bounds, by more than a rounding ([`SAME_SCORE`]). Returns whether it
    /// did.
    pub fn improve(&mut self, seed: u64, score: f64, source: &str) -> bool {
        if self
            .score(seed)
            .is_some_and(|best| !self.side.improves(score, best))
        {
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

/// The bests file to use: `path` if given (it must exist), else `testcases/bests.json` of the
/// current folder or of the project's top folder above it if it exists, else none.
pub fn load_bests(path: Option<&Path>) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    load_table(path, Side::Best)
}

/// The bounds file to use: `path` if given (it must exist), else `testcases/bounds.json` of
/// the current folder or of the project's top folder above it if it exists, else none.
pub fn load_bounds(path: Option<&Path>) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    load_table(path, Side::Bound)
}

/// The bests file (or, with [`Side::Bound`], the bounds file) to use: `path` if given (it must
/// exist), else [`super::root::default_table`] if it exists, else none.
pub fn load_table(
    path: Option<&Path>,
    side: Side,
) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    match path {
        Some(p) => Ok((Some(p.to_path_buf()), Some(Bests::load_side(p, side)?))),
        None => {
            let default = super::root::default_table(side.keys().0);
            if default.is_file() {
                let loaded = Bests::load_side(&default, side)?;
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
        let err = Bests::update_locked(&path, "about", Side::Best, |_| Ok(0)).unwrap_err();
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
        // A rounding of the last digits is the same score, not an improvement.
        assert!(b.improve(8, 21.736583960767152, "d"));
        assert!(!b.improve(8, 21.73658396076715, "e"));
        assert_eq!(b.seeds[&8].source, "d");
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
