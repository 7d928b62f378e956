//! The run folder of `tester ab`: `ab.json` (the settings, both arms, every finished pair in
//! the order of the seed stream, the verdict) beside the arms' own run folders `base/` and
//! `new/` (each an ordinary `tester run` folder: `SEED.in/out/err` and `results.json`, so
//! `tester compare`, `tester vis` and `tester merge` read them).
//!
//! The pairs come from a seed stream: `--seeds LIST` in its order, or by default the seeds
//! from [`STREAM_START`] up, shuffled in blocks of [`STREAM_BLOCK`] by a fixed seed, so the
//! first `n` seeds never change with `--max-pairs` (a resumed test continues with the same
//! pairs) and an A/B never runs on the tuning seeds (1–100, 1001+, 2001+).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::arms::Arm;
use super::sign::P1;
use super::sprt::{pair_statistic, Sprt, GSPRT_SHARE};
use crate::cli::args::{parse_shard, Shard};
use crate::cli::command::run::kept::rejudged;
use crate::cli::report::{SeedResult, Status};
use crate::cli::select::shuffled;
use crate::gen::Ranges;

/// The record's file name.
pub const AB_JSON: &str = "ab.json";

/// The most pairs an A/B may run (`--max-pairs`, `settings.max_pairs` and pair numbers of
/// `ab.json` are checked against it).
pub const MAX_PAIRS: usize = 1_000_000;

/// The first seed of the default stream.
pub const STREAM_START: u64 = 10_001;

/// The default stream is shuffled in blocks of this many seeds.
pub const STREAM_BLOCK: u64 = 1000;

/// The shuffle seed of the default stream's first block (block `k` uses this plus `k`).
const STREAM_SHUFFLE: u64 = 45;

/// The seeds the pairs are run on, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedStream {
    /// [`STREAM_START`] and up, shuffled by blocks.
    Default,
    /// `--seeds LIST`, in its order.
    List(Vec<u64>),
}

impl SeedStream {
    /// The first `count` seeds (fewer when a list is shorter).
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::command::ab::folder::SeedStream;
    ///
    /// let first = SeedStream::Default.first(1500);
    /// assert_eq!(SeedStream::Default.first(40), first[..40]);
    /// assert!(first.iter().all(|&s| (10_001..=12_000).contains(&s)));
    /// assert_eq!(SeedStream::List(vec![5, 3]).first(10), [5, 3]);
    /// ```
    pub fn first(&self, count: usize) -> Vec<u64> {
        match self {
            SeedStream::List(seeds) => seeds.iter().take(count).copied().collect(),
            SeedStream::Default => {
                let mut seeds = Vec::with_capacity(count);
                let mut block = 0;
                while seeds.len() < count {
                    let start = STREAM_START + block * STREAM_BLOCK;
                    let ids: Vec<u64> = (start..start + STREAM_BLOCK).collect();
                    let order = shuffled(&ids, STREAM_SHUFFLE + block);
                    seeds.extend(order.into_iter().take(count - seeds.len()));
                    block += 1;
                }
                seeds
            }
        }
    }

    /// How many pairs the stream allows at most.
    pub fn len_limit(&self) -> usize {
        match self {
            SeedStream::List(seeds) => seeds.len(),
            SeedStream::Default => usize::MAX,
        }
    }

    fn to_json(&self) -> Value {
        match self {
            SeedStream::Default => json!({
                "from": STREAM_START, "block": STREAM_BLOCK, "shuffle_seed": STREAM_SHUFFLE
            }),
            SeedStream::List(seeds) => json!({ "list": seeds }),
        }
    }

    fn from_json(v: &Value) -> Result<SeedStream, String> {
        if let Some(list) = v.get("list").and_then(Value::as_array) {
            let seeds: Option<Vec<u64>> = list.iter().map(Value::as_u64).collect();
            let seeds = seeds.ok_or("`seeds.list` is not a seed list")?;
            let distinct: std::collections::HashSet<u64> = seeds.iter().copied().collect();
            if seeds.len() > MAX_PAIRS || distinct.len() != seeds.len() {
                return Err(format!(
                    "`seeds.list` must hold distinct seeds, {MAX_PAIRS} at most"
                ));
            }
            return Ok(SeedStream::List(seeds));
        }
        let default = SeedStream::Default.to_json();
        if *v == default {
            Ok(SeedStream::Default)
        } else {
            Err(format!(
                "`seeds` {v} is neither a list nor the default stream"
            ))
        }
    }
}

/// What decides the test and which pairs it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// δ, α, β.
    pub sprt: Sprt,
    /// The most pairs the test reads.
    pub max_pairs: usize,
    /// The seeds, in order.
    pub seeds: SeedStream,
    /// This host's share of the pairs (`--shard K/M`).
    pub shard: Option<Shard>,
}

impl Settings {
    /// The stream positions (0-based) of the pairs this run is to finish, in order.
    pub fn positions(&self) -> Vec<usize> {
        let count = self.max_pairs.min(self.seeds.len_limit());
        (0..count)
            .filter(|p| self.shard.is_none_or(|s| p % s.m == s.k))
            .collect()
    }

    /// The `settings` object of `ab.json`.
    pub fn to_json(&self) -> Value {
        json!({
            "delta": self.sprt.delta,
            "alpha": self.sprt.alpha,
            "beta": self.sprt.beta,
            "max_pairs": self.max_pairs,
            "min_pairs": super::sprt::MIN_PAIRS,
            "gsprt_share": GSPRT_SHARE,
            "sign_p1": P1,
            "seeds": self.seeds.to_json(),
            "shard": self.shard.map(|s| s.to_string()),
        })
    }

    fn from_json(v: &Value) -> Result<Settings, String> {
        let num = |key: &str| {
            v.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("`settings.{key}` is missing"))
        };
        let shard = match v.get("shard").and_then(Value::as_str) {
            Some(text) => Some(parse_shard(text)?),
            None => None,
        };
        let max_pairs = v.get("max_pairs").and_then(Value::as_u64);
        let max_pairs = max_pairs
            .filter(|m| (1..=MAX_PAIRS as u64).contains(m))
            .ok_or_else(|| {
                format!(
                    "`settings.max_pairs` {} is not a number of pairs from 1 to {MAX_PAIRS}",
                    v.get("max_pairs").unwrap_or(&Value::Null)
                )
            })?;
        let settings = Settings {
            sprt: Sprt {
                delta: num("delta")?,
                alpha: num("alpha")?,
                beta: num("beta")?,
            },
            max_pairs: max_pairs as usize,
            seeds: SeedStream::from_json(v.get("seeds").unwrap_or(&Value::Null))?,
            shard,
        };
        settings.sprt.check()?;
        // What the command line refuses, a record must not hold: a test that cannot decide,
        // or one of other constants than this tester's (an edited record).
        check_decidable(
            &settings.sprt,
            settings.max_pairs,
            &settings.seeds,
            ["`settings.max_pairs`", "`settings.seeds`"],
        )?;
        let own = settings.to_json();
        for key in ["min_pairs", "gsprt_share", "sign_p1"] {
            if v.get(key).is_some_and(|given| *given != own[key]) {
                return Err(format!(
                    "`settings.{key}` {} is not this tester's ({}): the record was edited or \
                     made by another version",
                    v[key], own[key]
                ));
            }
        }
        Ok(settings)
    }
}

/// Refuses a test that can never give a verdict: `max_pairs` or a seed list below the test's
/// minimum of pairs, a δ too small for the LLR to reach its bounds. `names` call the most pairs
/// and the seeds as the caller knows them (`--max-pairs` and `--seeds`, or `ab.json`'s keys).
pub fn check_decidable(
    sprt: &Sprt,
    max_pairs: usize,
    seeds: &SeedStream,
    names: [&str; 2],
) -> Result<(), String> {
    match seeds {
        SeedStream::List(list) if list.len() < max_pairs => {
            sprt.check_pairs(list.len(), &format!("{} ({} seeds)", names[1], list.len()))
        }
        _ => sprt.check_pairs(max_pairs, &format!("{} {max_pairs}", names[0])),
    }
}

/// Which arm a pair started first (alternating with the pair's position).
pub fn first_of(position: usize) -> char {
    if position % 2 == 0 {
        'A'
    } else {
        'B'
    }
}

/// One finished pair: a seed run by both arms with the same solver seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// Its place in the seed stream (0-based).
    pub position: usize,
    /// The seed (also the solver's `--seed`).
    pub seed: u64,
    /// A's result.
    pub a: SeedResult,
    /// B's result.
    pub b: SeedResult,
}

impl Pair {
    /// A side's score, `None` when it failed.
    fn judged(r: &SeedResult) -> Option<f64> {
        (r.status == Status::Ok).then_some(r.score)
    }

    /// The pair's statistic `ln(score_B / score_A)` (see [`pair_statistic`]).
    pub fn x(&self) -> f64 {
        pair_statistic(Self::judged(&self.a), Self::judged(&self.b))
    }

    /// `ln(score_B / score_A)` unclipped, when both sides were judged with scores above 0 (or
    /// equal): what the ratio of the scores is reported from.
    pub fn log_ratio(&self) -> Option<f64> {
        match (Self::judged(&self.a), Self::judged(&self.b)) {
            (Some(a), Some(b)) if a == b => Some(0.0),
            (Some(a), Some(b)) if a > 0.0 && b > 0.0 => Some((b / a).ln()),
            _ => None,
        }
    }

    /// Why the pair is not counted (an arm starved, or the arms' CPU uneven; see
    /// [`crate::cli::cpu::unfair_pair`]), with the arms' time limits `limits`; `None`: it
    /// counts.
    pub fn unfair(&self, limits: [f64; 2]) -> Option<String> {
        crate::cli::cpu::unfair_pair(&self.a, &self.b, limits)
    }

    fn side_json(r: &SeedResult) -> Value {
        json!({
            "status": r.status.as_str(),
            "score": r.score,
            "wall_ms": r.wall_ms,
            "cpu_ms": r.cpu_ms,
            "wait_ms": r.wait_ms,
        })
    }

    /// The pair as `ab.json` lists it (`starved`: why it does not count, with the arms' time
    /// limits `limits`).
    pub fn to_json(&self, limits: [f64; 2]) -> Value {
        json!({
            "pair": self.position + 1,
            "seed": self.seed,
            "solver_seed": self.seed,
            "first": first_of(self.position).to_string(),
            "a": Self::side_json(&self.a),
            "b": Self::side_json(&self.b),
            "x": self.x(),
            "starved": self.unfair(limits),
        })
    }
}

/// The whole record of an A/B.
#[derive(Clone, Debug)]
pub struct Record {
    /// RFC 3339 start of the first session.
    pub started: String,
    /// The test and its pairs.
    pub settings: Settings,
    /// A and B.
    pub arms: [Arm; 2],
    /// The finished pairs by stream position.
    pub pairs: BTreeMap<usize, Pair>,
    /// The solvers run at once (`--jobs`) by the last session, which `--resume` keeps unless
    /// given another; `None` in records older than it.
    pub jobs: Option<usize>,
}

impl Record {
    /// The arms' time limits in seconds, A's and B's.
    pub fn limits(&self) -> [f64; 2] {
        [self.arms[0].time_limit, self.arms[1].time_limit]
    }

    /// Reads `DIR/ab.json`; the pairs' results come from the arms' `results.json` (the record
    /// keeps only what the test reads), judged again from their outputs (a warning for each
    /// that changed).
    pub fn load(dir: &Path) -> Result<Record, String> {
        Record::load_with(dir, true)
    }

    /// [`Record::load`], with or without the warnings of results judged again (`tester
    /// compare` gives its own).
    pub fn load_with(dir: &Path, warn: bool) -> Result<Record, String> {
        let path = dir.join(AB_JSON);
        let text = crate::cli::readcap::read_text_capped(
            &path,
            crate::cli::readcap::JSON_MAX,
            "an ab.json",
        )?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        Record::from_document(dir, &doc, warn).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn from_document(dir: &Path, doc: &Value, warn: bool) -> Result<Record, String> {
        let settings = Settings::from_json(doc.get("settings").unwrap_or(&Value::Null))?;
        let arm = |label: &str| {
            let v = doc
                .pointer(&format!("/arms/{label}"))
                .unwrap_or(&Value::Null);
            Arm::from_json(v).map_err(|e| format!("arm {label}: {e}"))
        };
        let arms = [arm("A")?, arm("B")?];
        let listed = doc
            .get("pairs")
            .and_then(Value::as_array)
            .ok_or("no `pairs` array")?;
        let results = [arm_results(dir, &arms[0])?, arm_results(dir, &arms[1])?];
        let mut pairs = BTreeMap::new();
        for v in listed {
            let pair = pair_from_json(v, &results)?;
            if pairs.insert(pair.position, pair).is_some() {
                return Err(format!("pair {} is listed twice", v["pair"]));
            }
        }
        check_seeds(&settings.seeds, &pairs)?;
        let pairs = judged_again(dir, &arms, pairs, warn);
        Ok(Record {
            started: doc["started"].as_str().unwrap_or_default().to_string(),
            settings,
            arms,
            pairs,
            jobs: jobs_from_json(&doc["jobs"])?,
        })
    }
}

/// The `jobs` of `ab.json`: none (older records), else 1 or an even number up to 256, as
/// `--jobs` takes.
fn jobs_from_json(v: &Value) -> Result<Option<usize>, String> {
    if v.is_null() {
        return Ok(None);
    }
    match v.as_u64() {
        Some(j) if j == 1 || (j % 2 == 0 && (2..=MAX_JOBS as u64).contains(&j)) => {
            Ok(Some(j as usize))
        }
        _ => Err(format!(
            "`jobs` {v} is not a number of solvers at once (1, or even up to {MAX_JOBS})"
        )),
    }
}

/// The most solvers an A/B runs at once (`--jobs`' range; the default keeps within it).
pub const MAX_JOBS: usize = 256;

/// The results of an arm's run folder by seed (none before the arm's first save: an A/B
/// stopped during its builds).
fn arm_results(dir: &Path, arm: &Arm) -> Result<BTreeMap<u64, SeedResult>, String> {
    let folder = dir.join(arm.folder());
    let Some(run) = crate::cli::runfile::read_run(&folder)? else {
        return Ok(BTreeMap::new());
    };
    Ok(run.results.into_iter().map(|r| (r.seed, r)).collect())
}

/// Refuses pairs whose seed is not the stream's seed at their position (an edited pair).
fn check_seeds(seeds: &SeedStream, pairs: &BTreeMap<usize, Pair>) -> Result<(), String> {
    let Some(&last) = pairs.keys().next_back() else {
        return Ok(());
    };
    let stream = seeds.first(last + 1);
    for pair in pairs.values() {
        if stream.get(pair.position) != Some(&pair.seed) {
            return Err(format!(
                "pair {} has seed {}, but the seed stream has {} there",
                pair.position + 1,
                pair.seed,
                stream
                    .get(pair.position)
                    .map_or("no seed".to_string(), u64::to_string)
            ));
        }
    }
    Ok(())
}

/// The pairs with each side's recorded verdict replaced by the judge's verdict on its saved
/// `SEED.out` (as `tester run --resume` does: an edited score must not decide); with `warn`, a
/// warning on standard error for each that changed.
fn judged_again(
    dir: &Path,
    arms: &[Arm; 2],
    mut pairs: BTreeMap<usize, Pair>,
    warn: bool,
) -> BTreeMap<usize, Pair> {
    for (i, arm) in arms.iter().enumerate() {
        let side = |p: &Pair| if i == 0 { p.a.clone() } else { p.b.clone() };
        let kept: Vec<SeedResult> = pairs.values().map(side).collect();
        let (results, warnings) = rejudged(&dir.join(arm.folder()), kept, &Ranges::default());
        for warning in warnings.iter().filter(|_| warn) {
            let warning = warning.trim_start_matches("--resume: ");
            crate::diag!("tester ab: arm {}: {warning}", arm.label);
        }
        for (pair, result) in pairs.values_mut().zip(results) {
            if i == 0 {
                pair.a = result;
            } else {
                pair.b = result;
            }
        }
    }
    pairs
}

/// A pair of `ab.json` with its two results from the arms' folders (they must agree).
fn pair_from_json(v: &Value, results: &[BTreeMap<u64, SeedResult>; 2]) -> Result<Pair, String> {
    let (Some(number), Some(seed)) = (v["pair"].as_u64(), v["seed"].as_u64()) else {
        return Err(format!("a pair without `pair` and `seed`: {v}"));
    };
    let side = |i: usize, key: &str| {
        let r = results[i].get(&seed).ok_or_else(|| {
            format!("pair {number}: seed {seed} has no result in arm {key} (results.json)")
        })?;
        let same = v[key]["status"].as_str() == Some(r.status.as_str())
            && v[key]["score"].as_f64() == Some(r.score);
        if !same {
            return Err(format!(
                "pair {number}: seed {seed} of arm {key} differs from its results.json"
            ));
        }
        Ok(r.clone())
    };
    if !(1..=MAX_PAIRS as u64).contains(&number) {
        return Err(format!(
            "pair {number}: pairs are numbered from 1 to {MAX_PAIRS}"
        ));
    }
    Ok(Pair {
        position: number as usize - 1,
        seed,
        a: side(0, "a")?,
        b: side(1, "b")?,
    })
}

/// The folder of `dir` and `name`, `dir/name`.
pub fn arm_dir(dir: &Path, arm: &Arm) -> PathBuf {
    dir.join(arm.folder())
}
