//! The results of a run as they come in, and their `results.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cli::bests::Bests;
use crate::cli::report::SeedResult;
use crate::cli::runfile::{write_run, RunInfo};

/// How often at most `results.json` is rewritten while a run goes on; a finished seed is in it
/// within this time (so a `tester` killed outright loses at most the last second). A run of
/// 2000 seeds writes about 600 KB per save.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The results of a run as they come in, written to `results.json` at most every
/// [`SAVE_EVERY`] and within it of a seed finishing (so a crash of `tester` itself loses
/// little), and at the end.
pub(super) struct Recorder<'a> {
    dir: &'a Path,
    info: &'a RunInfo,
    pub(super) bests: Option<&'a Bests>,
    /// The results, the time of the last save, and whether a result came since.
    state: Mutex<(BTreeMap<u64, SeedResult>, Instant, bool)>,
}

impl<'a> Recorder<'a> {
    pub(super) fn new(
        dir: &'a Path,
        info: &'a RunInfo,
        kept: Vec<SeedResult>,
        bests: Option<&'a Bests>,
    ) -> Self {
        let kept = kept.into_iter().map(|r| (r.seed, r)).collect();
        Recorder {
            dir,
            info,
            bests,
            state: Mutex::new((kept, Instant::now(), false)),
        }
    }

    /// Adds a finished seed and saves if due (see [`Recorder::save_if_due`]).
    pub(super) fn record(&self, result: SeedResult) {
        let mut state = self.state.lock().unwrap();
        state.0.insert(result.seed, result);
        state.2 = true;
        drop(state);
        self.save_if_due();
    }

    /// Rewrites `results.json` (marked interrupted: the run goes on) if a result came since the
    /// last save and that save is [`SAVE_EVERY`] old.
    pub(super) fn save_if_due(&self) {
        let mut state = self.state.lock().unwrap();
        if state.2 && state.1.elapsed() >= SAVE_EVERY {
            state.1 = Instant::now();
            state.2 = false;
            let _ = write_run(self.dir, &self.document(&state.0, true));
        }
    }

    fn document(
        &self,
        results: &BTreeMap<u64, SeedResult>,
        interrupted: bool,
    ) -> serde_json::Value {
        self.info
            .document(&self.ordered(results), interrupted, self.bests)
    }

    /// Results in the order of the run's seed list.
    fn ordered(&self, results: &BTreeMap<u64, SeedResult>) -> Vec<SeedResult> {
        self.info
            .seeds
            .iter()
            .filter_map(|s| results.get(s).cloned())
            .collect()
    }

    /// Writes `results.json` as it stands, marked interrupted (the run goes on).
    pub(super) fn save(&self) -> Result<(), String> {
        let state = self.state.lock().unwrap();
        write_run(self.dir, &self.document(&state.0, true)).map(drop)
    }

    /// Writes the final `results.json` and returns the results in seed-list order.
    pub(super) fn finish(&self, interrupted: bool) -> Result<(PathBuf, Vec<SeedResult>), String> {
        let state = self.state.lock().unwrap();
        let path = write_run(self.dir, &self.document(&state.0, interrupted))?;
        Ok((path, self.ordered(&state.0)))
    }
}
