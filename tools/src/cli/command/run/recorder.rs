//! The results of a run as they come in, and their `results.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cli::bests::Bests;
use crate::cli::report::{set_bounds, SeedResult};
use crate::cli::runfile::{write_run, RunInfo};

/// How often at most `results.json` is rewritten while a run goes on; a finished seed is in it
/// within this time (so a `tester` killed outright loses at most the last second). A run of
/// 2000 seeds writes about 600 KB per save.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The results by seed, the time of the last save, and whether a result came since.
type State = (BTreeMap<u64, SeedResult>, Instant, bool);

/// The results of a run as they come in, written to `results.json` at most every
/// [`SAVE_EVERY`] and within it of a seed finishing (so a crash of `tester` itself loses
/// little), and at the end.
pub(super) struct Recorder<'a> {
    dir: &'a Path,
    info: &'a RunInfo,
    pub(super) bests: Option<&'a Bests>,
    /// The bounds file, whose bound of each seed `results.json` records with its gap.
    bounds: Option<&'a Bests>,
    /// The results, the time of the last save, and whether a result came since.
    state: Mutex<State>,
}

impl<'a> Recorder<'a> {
    pub(super) fn new(
        dir: &'a Path,
        info: &'a RunInfo,
        kept: Vec<SeedResult>,
        (bests, bounds): (Option<&'a Bests>, Option<&'a Bests>),
    ) -> Self {
        let kept = kept.into_iter().map(|r| (r.seed, r)).collect();
        Recorder {
            dir,
            info,
            bests,
            bounds,
            state: Mutex::new((kept, Instant::now(), false)),
        }
    }

    /// The results, locked; a lock poisoned by a panicking worker is still taken (the map
    /// stays whole: a result is inserted in one step).
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a finished seed and saves if due (see [`Recorder::save_if_due`]).
    pub(super) fn record(&self, result: SeedResult) {
        let mut state = self.state();
        state.0.insert(result.seed, result);
        state.2 = true;
        drop(state);
        self.save_if_due();
    }

    /// The results, locked, unless another thread holds them (a save is then skipped: the
    /// main thread tries again within 100 ms, and never waits on a worker that may be stuck).
    fn try_state(&self) -> Option<std::sync::MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(state) => Some(state),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Rewrites `results.json` (marked interrupted: the run goes on) if a result came since the
    /// last save and that save is [`SAVE_EVERY`] old (and no other thread holds the results).
    pub(super) fn save_if_due(&self) {
        let Some(mut state) = self.try_state() else {
            return;
        };
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

    /// Results in the order of the run's seed list, each with its bound from the bounds file
    /// (so that every save of `results.json` holds the bound and the gap the table shows).
    fn ordered(&self, results: &BTreeMap<u64, SeedResult>) -> Vec<SeedResult> {
        let mut ordered: Vec<SeedResult> = self
            .info
            .seeds
            .iter()
            .filter_map(|s| results.get(s).cloned())
            .collect();
        // Its warnings are the run's to print, once, at the end.
        let _ = set_bounds(&mut ordered, self.bounds);
        ordered
    }

    /// Writes `results.json` as it stands, marked interrupted (the run goes on).
    pub(super) fn save(&self) -> Result<(), String> {
        let state = self.state();
        write_run(self.dir, &self.document(&state.0, true)).map(drop)
    }

    /// Writes `results.json` as it stands (marked interrupted) unless another thread holds the
    /// results (one that may never let go); returns whether it wrote.
    pub(super) fn save_if_free(&self) -> bool {
        let Some(state) = self.try_state() else {
            return false;
        };
        write_run(self.dir, &self.document(&state.0, true)).is_ok()
    }

    /// Writes the final `results.json` and returns the results in seed-list order.
    pub(super) fn finish(&self, interrupted: bool) -> Result<(PathBuf, Vec<SeedResult>), String> {
        let state = self.state();
        let path = write_run(self.dir, &self.document(&state.0, interrupted))?;
        Ok((path, self.ordered(&state.0)))
    }
}
