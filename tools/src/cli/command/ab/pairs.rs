//! Running the pairs: `jobs / 2` pairs at once (one with `--jobs 1`, its two runs one after
//! the other), both arms of a pair started together with the same seed, the arm that starts
//! first alternating from pair to pair. The test reads the finished pairs in stream order; once
//! it has its verdict no new pair starts (the pairs already running finish and are kept, but
//! do not count). `ab.json` and the arms' `results.json` are rewritten at most every second
//! while pairs finish, and at the end. A session that takes over an A/B without a verdict (or
//! one stopped because the machine was too busy) runs its starved pairs again, first.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::folder::{arm_dir, first_of, Pair, Record, Settings};
use super::reading::read_pairs;
use super::report::progress_line;
use crate::cli::progress::Progress;
use crate::cli::reaper;
use crate::cli::report::SeedResult;
use crate::cli::runfile::{write_run, RunInfo};

/// How often at most the files are rewritten while pairs finish.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// Drops the starved pairs within the positions of `settings` from `pairs` (the arms' time
/// limits `limits`), so the session runs them again; not when the pairs give a verdict (which
/// the starved pairs did not change), except in a shard (whose verdict is read elsewhere).
fn drop_starved(settings: &Settings, limits: [f64; 2], pairs: &mut BTreeMap<usize, Pair>) {
    let reading = read_pairs(settings, limits, pairs);
    let verdict = reading.walk.verdict.is_some() && reading.busy.is_none();
    if verdict && settings.shard.is_none() {
        return;
    }
    let positions: BTreeSet<usize> = settings.positions().into_iter().collect();
    pairs.retain(|p, pair| !positions.contains(p) || pair.unfair(limits).is_none());
}

/// The pairs after which a side that failed on each one is named (once), so a misspelled
/// `--new-args` is seen before the test's 15 pairs are over.
const FAILING_EARLY: usize = 3;

/// Whether the first [`FAILING_EARLY`] pairs of the stream are finished.
fn first_finished(pairs: &BTreeMap<usize, Pair>) -> bool {
    (0..FAILING_EARLY).all(|p| pairs.contains_key(&p))
}

/// Says, once the first [`FAILING_EARLY`] pairs are finished (in whatever order: pairs run
/// side by side) and one side failed on each, how it failed.
fn warn_failing_arm(pairs: &BTreeMap<usize, Pair>, progress: &Progress) {
    let ok = crate::cli::report::Status::Ok;
    for (label, side) in [('A', 0), ('B', 1)] {
        let results: Vec<&SeedResult> = pairs
            .values()
            .take(FAILING_EARLY)
            .map(|p| if side == 0 { &p.a } else { &p.b })
            .collect();
        if results.iter().all(|r| r.status != ok) {
            let r = results[0];
            // Above the progress bar, which a bare line would break.
            progress.note(&format!(
                "tester ab: {label} failed on each of the first {FAILING_EARLY} pairs (seed {}: \
                 {}, {}): if that is a mistake (a misspelled option), stop with Ctrl-C; the \
                 test decides at {} pairs",
                r.seed,
                r.status.as_str(),
                crate::cli::quote::printable(r.message.as_deref().unwrap_or("-"), 200),
                super::sprt::MIN_PAIRS
            ));
        }
    }
}

/// What the workers share.
struct State {
    record: Record,
    /// Positions started (finished or not): their seeds are listed in the arms' folders.
    started: BTreeSet<usize>,
    /// The test has its verdict: no new pair starts.
    stop: bool,
    /// An error that is not a seed's (a file that cannot be written): everything stops.
    failure: Option<String>,
    /// When the files were last written, and whether a pair finished since.
    saved: (Instant, bool),
    progress: Progress,
}

/// One session of an A/B: the record, the arms' run records, the pairs still to run.
pub struct Session<'a> {
    dir: &'a Path,
    /// The arms' `results.json` records (seeds and results are filled in when saved).
    infos: [RunInfo; 2],
    /// The seeds of the stream by position.
    stream: Vec<u64>,
    /// The positions to run, in order.
    todo: Vec<usize>,
    next: AtomicUsize,
    jobs: usize,
    quiet: bool,
    state: Mutex<State>,
}

impl<'a> Session<'a> {
    /// A session of `record` in `dir` that runs the pairs not finished yet.
    pub fn new(
        dir: &'a Path,
        mut record: Record,
        infos: [RunInfo; 2],
        jobs: usize,
        quiet: bool,
    ) -> Self {
        drop_starved(&record.settings, record.limits(), &mut record.pairs);
        let positions = record.settings.positions();
        // Pairs kept from a session with a larger --max-pairs lie past the positions to run.
        let end = positions.last().max(record.pairs.keys().next_back());
        let stream = record.settings.seeds.first(end.map_or(0, |p| p + 1));
        let todo: Vec<usize> = positions
            .into_iter()
            .filter(|p| !record.pairs.contains_key(p))
            .collect();
        let started = record.pairs.keys().copied().collect();
        let stop = record.settings.shard.is_none() && record.reading().decided();
        // Only a shard runs all its pairs; one machine stops at the verdict, which no count
        // of pairs left foretells: no time left is said then.
        let progress = match record.settings.shard {
            Some(_) => Progress::new(todo.len()),
            None => Progress::open_ended(todo.len()),
        };
        Session {
            dir,
            infos,
            stream,
            todo,
            next: AtomicUsize::new(0),
            jobs,
            quiet,
            state: Mutex::new(State {
                record,
                started,
                stop,
                failure: None,
                saved: (Instant::now(), false),
                progress,
            }),
        }
    }

    /// Pairs run at the same time.
    pub fn slots(&self) -> usize {
        (self.jobs / 2).max(1)
    }

    /// How many pairs are left to run.
    pub fn todo(&self) -> usize {
        self.todo.len()
    }

    /// Runs the pairs until the verdict, the last pair, an interrupt or an error (returned).
    pub fn run(&self) -> Result<(), String> {
        let working = AtomicUsize::new(self.slots());
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while working.load(Ordering::SeqCst) > 0 {
                    std::thread::sleep(Duration::from_millis(100));
                    self.save_if_due();
                }
            });
            for _ in 0..self.slots() {
                scope.spawn(|| {
                    self.worker();
                    working.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        let state = self.lock();
        if !self.quiet {
            state.progress.finish();
        }
        match &state.failure {
            Some(message) => Err(message.clone()),
            None => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next position to run, or `None` when the session is to stop.
    fn take(&self) -> Option<usize> {
        let mut state = self.lock();
        if state.stop || state.failure.is_some() || reaper::interrupted().is_some() {
            return None;
        }
        let position = *self.todo.get(self.next.fetch_add(1, Ordering::SeqCst))?;
        state.started.insert(position);
        Some(position)
    }

    /// One worker: takes the next pair and runs it until the session stops.
    fn worker(&self) {
        while let Some(position) = self.take() {
            let seed = self.stream[position];
            match self.run_pair(position, seed) {
                Ok(Some((a, b))) => self.finished(Pair {
                    position,
                    seed,
                    a,
                    b,
                }),
                Ok(None) => break,
                Err(message) => {
                    self.lock().failure.get_or_insert(message);
                    break;
                }
            }
        }
    }

    /// Runs both arms on `seed`, side by side (one after the other with `--jobs 1`), the
    /// first as [`first_of`] says; `None` when interrupted.
    fn run_pair(
        &self,
        position: usize,
        seed: u64,
    ) -> Result<Option<(SeedResult, SeedResult)>, String> {
        let record = self.lock().record.arms.clone();
        let order = if first_of(position) == 'A' {
            [0, 1]
        } else {
            [1, 0]
        };
        let run = |i: usize| record[i].run(seed, &arm_dir(self.dir, &record[i]));
        let [first, second] = if self.jobs == 1 {
            let first = run(order[0])?;
            if first.is_none() {
                return Ok(None);
            }
            [first, run(order[1])?]
        } else {
            std::thread::scope(|scope| {
                let first = scope.spawn(|| run(order[0]));
                let second = scope.spawn(|| run(order[1]));
                let lost = |_| Err("a solver's thread stopped".to_string());
                [
                    first.join().unwrap_or_else(lost),
                    second.join().unwrap_or_else(lost),
                ]
            })
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
            .try_into()
            .expect("two results")
        };
        let (Some(first), Some(second)) = (first, second) else {
            return Ok(None);
        };
        Ok(Some(if order[0] == 0 {
            (first, second)
        } else {
            (second, first)
        }))
    }

    /// Records a finished pair, shows the progress, stops the session at the verdict.
    fn finished(&self, pair: Pair) {
        let mut state = self.lock();
        let failed = pair.a.status != crate::cli::report::Status::Ok
            || pair.b.status != crate::cli::report::Status::Ok;
        let what = super::report::pair_line(&pair, state.record.limits());
        // The first pairs are looked at once, as the last of them finishes (a session that
        // found them finished never looks).
        let early = pair.position < FAILING_EARLY;
        state.record.pairs.insert(pair.position, pair);
        let reading = state.record.reading();
        let sharded = state.record.settings.shard.is_some();
        if !sharded && reading.decided() {
            state.stop = true;
        }
        if early && first_finished(&state.record.pairs) && !self.quiet {
            warn_failing_arm(&state.record.pairs, &state.progress);
        }
        if !self.quiet {
            let line = if sharded {
                format!("{what} | this shard's pairs only, no verdict here")
            } else {
                format!(
                    "{what} | {}",
                    progress_line(&state.record.settings, &reading)
                )
            };
            state.progress.tick(failed, &line);
        }
        state.saved.1 = true;
        drop(state);
        self.save_if_due();
    }

    /// Saves (marked interrupted: the session goes on) when a pair finished since the last
    /// save and that save is [`SAVE_EVERY`] old. A failed write is retried at the next save.
    fn save_if_due(&self) {
        let mut state = self.lock();
        if state.saved.1 && state.saved.0.elapsed() >= SAVE_EVERY {
            state.saved = (Instant::now(), false);
            let _ = self.write(&state, true);
        }
    }

    /// Writes `ab.json` and the arms' `results.json`; `interrupted` marks them unfinished.
    pub fn save(&self, interrupted: bool) -> Result<(), String> {
        let state = self.lock();
        self.write(&state, interrupted)
    }

    /// The record as it stands.
    pub fn record(&self) -> Record {
        self.lock().record.clone()
    }

    fn write(&self, state: &State, interrupted: bool) -> Result<(), String> {
        let record = &state.record;
        // A shard lists its whole share of the stream (as `tester run --shard` does, for
        // `tester merge`); one machine lists the pairs it started. Pairs kept past a smaller
        // --max-pairs stay listed (their results are not dropped).
        let mut listed: BTreeSet<usize> = state.started.clone();
        if record.settings.shard.is_some() {
            listed.extend(record.settings.positions());
        }
        let seeds: Vec<u64> = listed.iter().map(|&p| self.stream[p]).collect();
        for (i, arm) in record.arms.iter().enumerate() {
            let results: Vec<SeedResult> = listed
                .iter()
                .filter_map(|p| record.pairs.get(p))
                .map(|pair| {
                    if i == 0 {
                        pair.a.clone()
                    } else {
                        pair.b.clone()
                    }
                })
                .collect();
            let unfinished = interrupted || results.len() < seeds.len();
            let mut info = self.infos[i].clone();
            info.seeds = seeds.clone();
            info.shard = record.settings.shard.map(|s| s.to_string());
            write_run(
                &arm_dir(self.dir, arm),
                &info.document(&results, unfinished, None),
            )?;
        }
        record.save(self.dir, interrupted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command::ab::reading::{test_pair, test_settings};

    #[test]
    fn starved_pairs_run_again_unless_the_pairs_have_their_verdict() {
        let settings = test_settings();
        // 10 pairs, 2 and 7 starved: no verdict yet, so both run again.
        let cpu = |i: usize| {
            if i == 2 || i == 7 {
                [200, 990]
            } else {
                [990, 990]
            }
        };
        let mut pairs: BTreeMap<usize, Pair> = (0..10)
            .map(|i| (i, test_pair(i, [100.0, 100.0], cpu(i))))
            .collect();
        drop_starved(&settings, [1.0, 1.0], &mut pairs);
        assert_eq!(pairs.len(), 8);
        assert!(!pairs.contains_key(&2) && !pairs.contains_key(&7));
        // 20 pairs with a verdict (rejected at 15 counted, pair 2 starved): kept as they are.
        let mut pairs: BTreeMap<usize, Pair> = (0..20)
            .map(|i| (i, test_pair(i, [100.0, 100.0], cpu(i))))
            .collect();
        drop_starved(&settings, [1.0, 1.0], &mut pairs);
        assert_eq!(pairs.len(), 20);
        // Mostly starved (busy): they run again.
        let mut pairs: BTreeMap<usize, Pair> = (0..20)
            .map(|i| (i, test_pair(i, [100.0, 100.0], [200, 990])))
            .collect();
        drop_starved(&settings, [1.0, 1.0], &mut pairs);
        assert!(pairs.is_empty());
    }
}
