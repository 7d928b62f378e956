//! Which seeds `tester run` runs, in which order, and which it reports: `--filter` (on the
//! case before running when it names only `seed`, `N`, `C`, `P`; on the finished seeds
//! otherwise), `--shuffle` and the `--jsonl` lines printed as seeds finish.
//!
//! A `--filter` or `--group-by` mistake that needs no seed to be seen is refused before the
//! first seed runs (see [`crate::cli::filter`]); one seen only on the seeds (a `[DATA]` key no
//! seed printed, an evaluation error on some seed) is a warning, and the run keeps its report,
//! its `results.json` and its `--update-bests`.

use std::collections::BTreeSet;
use std::io::Write;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

use clap::Args as ClapArgs;

use std::path::Path;

use super::bests::Bests;
use super::features::{self, Features, CASE_KEYS, RESULT_KEYS};
use super::filter::{check_group_key, failures_warning, Filter};
use super::provenance::{TreeState, PATCH};
use super::report::{summary, table, SeedResult};
use crate::gen::{generate, Ranges};

/// The options of `tester run` this module serves.
#[derive(ClapArgs, Clone, Debug, Default)]
pub struct SelectArgs {
    /// Print one JSON object per seed on stdout as soon as it finishes (`seed`, `N`, `C`, `P`,
    /// `status`, `score`, `relative`, `wall_ms`, `cpu_ms`, `data`, ...); the table and summary then go to
    /// standard error.
    #[arg(long)]
    pub jsonl: bool,
    /// Run the seeds in a random order (the same set); the order is drawn from
    /// --shuffle-seed, else from the clock (printed at the start).
    #[arg(long)]
    pub shuffle: bool,
    /// The seed of the --shuffle order (implies --shuffle): the same seed, the same order.
    #[arg(long, value_name = "N")]
    pub shuffle_seed: Option<u64>,
    /// Keep only the seeds whose features pass EXPR, e.g. `N >= 20 && C >= 4` (variables:
    /// seed, N, C, P, status, score, errors, moves, penalty, wall_ms, cpu_ms and the solver's
    /// `[DATA] key = value` lines). Naming only seed, N, C, P selects the seeds before they
    /// run; otherwise every seed runs and the table and summary show those that pass. Syntax,
    /// functions, `=` for `==`, `n` for `N` and (on built-in variables) types are checked
    /// before any seed runs (exit 2); a `[DATA]` key no seed printed, or an error on a seed's
    /// values, is a warning after the run (the report and bests are kept).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Also print the summary grouped by KEY (any variable of --filter); a key with more than
    /// 12 numeric values is cut into 6 ranges of about equal size. A KEY no feature can have
    /// (a space, `=`, `n` for `N`) is refused before the run; one no seed has, a warning.
    #[arg(long, value_name = "KEY")]
    pub group_by: Option<String>,
}

impl SelectArgs {
    /// The shuffle seed when the order is shuffled: --shuffle-seed, else one from the clock.
    pub fn shuffle_seed(&self) -> Option<u64> {
        (self.shuffle || self.shuffle_seed.is_some())
            .then(|| self.shuffle_seed.unwrap_or_else(clock_seed))
    }
}

/// The start lines about the filter (`selected` of `listed` seeds) and about a dirty tree.
pub fn notes(
    selection: &Selection,
    (selected, listed): (usize, usize),
    tree: &TreeState,
    dir: &Path,
) {
    if let Some(line) = selection.describe(selected, listed) {
        crate::diag!("tester run: {line}");
    }
    if tree.dirty == Some(true) {
        crate::diag!(
            "tester run: the git tree has uncommitted changes: kept in {}",
            dir.join(PATCH).display()
        );
    }
}

/// Where a `--filter` applies.
#[derive(Clone, Debug)]
pub enum Selection {
    /// No filter.
    All,
    /// The filter names only the case's variables: seeds whose case fails it do not run.
    Before(Filter),
    /// The filter names other features (known after a seed ran): every seed runs, the table
    /// and summary show those that pass.
    After(Filter),
}

impl Selection {
    /// Reads `--filter` and checks it, and the `--group-by` key, before any seed runs (see
    /// [`Filter::check`]).
    pub fn new(filter: Option<&str>, group_by: Option<&str>) -> Result<Selection, String> {
        let builtins = builtins();
        if let Some(key) = group_by {
            check_group_key(key, &builtins)?;
        }
        Ok(match filter {
            None => Selection::All,
            Some(text) => {
                let filter = Filter::parse(text)?;
                filter.check(&builtins)?;
                if filter.only_uses(&CASE_KEYS) {
                    Selection::Before(filter)
                } else {
                    Selection::After(filter)
                }
            }
        })
    }

    /// The seeds to run: those of `seeds` whose case passes a [`Selection::Before`] filter,
    /// and a warning naming those it could not be evaluated on (they do not run).
    pub fn seeds(&self, seeds: Vec<u64>, ranges: &Ranges) -> (Vec<u64>, Option<String>) {
        let Selection::Before(filter) = self else {
            return (seeds, None);
        };
        let (mut kept, mut failures) = (Vec::new(), Vec::new());
        for seed in seeds {
            let case = generate(seed, ranges);
            let f = Features::from([
                ("seed".to_string(), Value::from(seed)),
                ("N".to_string(), Value::from(case.input.n as u64)),
                ("C".to_string(), Value::from(case.input.c as u64)),
                ("P".to_string(), Value::from(case.p)),
            ]);
            match filter.matches(&f) {
                Ok(true) => kept.push(seed),
                Ok(false) => {}
                Err(why) => failures.push((seed, why)),
            }
        }
        (kept, failures_warning(filter, &failures))
    }

    /// The results the report shows: those passing a [`Selection::After`] filter (a seed the
    /// filter cannot be evaluated on does not pass), with the warnings to print. A filter
    /// naming a variable no result has is ignored (every result is shown, with a warning): a
    /// typo must not hide the run. `group_by` is checked against the results too.
    pub fn report(
        &self,
        results: Vec<SeedResult>,
        group_by: Option<&str>,
    ) -> (Vec<SeedResult>, Vec<String>) {
        let all: Vec<Features> = results.iter().map(features::features).collect();
        let known: BTreeSet<String> = all.iter().flat_map(|f| f.keys().cloned()).collect();
        let known_list = || known.iter().cloned().collect::<Vec<_>>().join(", ");
        let mut warnings = Vec::new();
        if let Some(key) = group_by.filter(|k| !results.is_empty() && !known.contains(*k)) {
            warnings.push(format!(
                "--group-by {key}: no seed has {key} (known: {}); every seed is in {key}=-",
                known_list()
            ));
        }
        let Selection::After(filter) = self else {
            return (results, warnings);
        };
        let unknown: Vec<String> = filter.variables().difference(&known).cloned().collect();
        if !results.is_empty() && !unknown.is_empty() {
            warnings.push(format!(
                "--filter `{}`: no seed has {} (known: {}); the filter is ignored, every seed \
                 is shown",
                filter.text(),
                unknown.join(", "),
                known_list()
            ));
            return (results, warnings);
        }
        let (mut kept, mut failures) = (Vec::new(), Vec::new());
        for (r, f) in results.into_iter().zip(&all) {
            match filter.matches(f) {
                Ok(true) => kept.push(r),
                Ok(false) => {}
                Err(why) => failures.push((r.seed, why)),
            }
        }
        warnings.extend(failures_warning(filter, &failures));
        (kept, warnings)
    }

    /// One line for the start of the run, when there is a filter.
    pub fn describe(&self, selected: usize, listed: usize) -> Option<String> {
        match self {
            Selection::All => None,
            Selection::Before(f) => Some(format!(
                "filter `{}`: {selected} of {listed} seeds selected before running",
                f.text()
            )),
            Selection::After(f) => {
                let builtins = builtins();
                let data: Vec<String> = f
                    .variables()
                    .into_iter()
                    .filter(|v| !builtins.contains(&v.as_str()))
                    .collect();
                let data = if data.is_empty() {
                    String::new()
                } else {
                    format!(" ({} read as [DATA] keys)", data.join(", "))
                };
                Some(format!(
                    "filter `{}` names features known only after a seed ran{data}: every seed \
                     runs, the table and summary show those that pass",
                    f.text()
                ))
            }
        }
    }
}

/// The features every finished seed has (any other name is a `[DATA]` key).
fn builtins() -> Vec<&'static str> {
    CASE_KEYS.iter().chain(&RESULT_KEYS).copied().collect()
}

/// Prints the warnings of a run on standard error (escaped: they quote the solver's values).
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        super::quote::warn("tester run", w);
    }
}

/// `seeds` in a random order drawn from `shuffle_seed` (the same seed, the same order).
///
/// # Examples
///
/// ```
/// use tools::cli::select::shuffled;
///
/// let order = shuffled(&[1, 2, 3, 4, 5, 6], 7);
/// assert_eq!(order, shuffled(&[1, 2, 3, 4, 5, 6], 7));
/// let mut sorted = order.clone();
/// sorted.sort_unstable();
/// assert_eq!(sorted, [1, 2, 3, 4, 5, 6]);
/// ```
pub fn shuffled(seeds: &[u64], shuffle_seed: u64) -> Vec<u64> {
    let mut order = seeds.to_vec();
    order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(shuffle_seed));
    order
}

/// A shuffle seed from the clock, for `--shuffle` without `--shuffle-seed`.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The `--jsonl` line of a finished seed: its `results.json` object (`seed`, `N`, `C`, `P`,
/// `status`, `score`, `errors`, `moves`, `penalty`, `wall_ms`, `cpu_ms`, `message`, `data`) and
/// `relative` (`100 · best / score`, null without a bests file), `seed` first.
///
/// # Examples
///
/// ```
/// use tools::cli::report::SeedResult;
/// use tools::cli::select::json_line;
/// use tools::input::Input;
///
/// let input = Input::new(2, 1, vec![1, 0, 0, 1]).unwrap();
/// let line = json_line(&SeedResult::judged(7, &input, None, "0\n"), None);
/// assert!(line.starts_with(r#"{"seed":7,"status":"ok","score":2.0,"#), "{line}");
/// let back: serde_json::Value = serde_json::from_str(&line).unwrap();
/// assert_eq!(back["data"], serde_json::json!({}));
/// ```
pub fn json_line(result: &SeedResult, bests: Option<&Bests>) -> String {
    let mut v = result.to_json();
    v["relative"] = result.relative(bests).into();
    // The keys a reader looks for first come first (a JSON object's order means nothing to a
    // parser, but `head` and people read left to right).
    let first = [
        "seed", "status", "score", "relative", "wall_ms", "cpu_ms", "N", "C", "P",
    ];
    let mut parts: Vec<String> = first
        .iter()
        .map(|k| format!("{}:{}", Value::from(*k), v[*k]))
        .collect();
    if let Value::Object(map) = &v {
        parts.extend(
            map.iter()
                .filter(|(k, _)| !first.contains(&k.as_str()))
                .map(|(k, x)| format!("{}:{x}", Value::from(k.as_str()))),
        );
    }
    format!("{{{}}}", parts.join(","))
}

/// Prints [`json_line`] on stdout at once (flushed, so a reader sees every seed as it ends);
/// a closed stdout is ignored, like the report's.
pub fn print_line(result: &SeedResult, bests: Option<&Bests>) {
    super::out::print(&(json_line(result, bests).to_string() + "\n"));
}

/// The report of `tester run` without its last line: the table and summary of `shown` (the
/// results that pass the filter, of `all` finished), and the `--group-by` table.
pub fn report(
    args: &SelectArgs,
    shown: &[SeedResult],
    all: usize,
    bests: Option<&Bests>,
) -> String {
    let mut text = format!("{}\n{}", table(shown, bests), summary(shown, bests));
    if shown.len() < all {
        text.push_str(&format!(
            "(filter `{}`: {} of {all} seeds shown)\n",
            args.filter.as_deref().unwrap_or(""),
            shown.len(),
        ));
    }
    if let Some(key) = &args.group_by {
        text.push_str(&features::group_table(shown, bests, key));
    }
    text
}

/// Writes the report to stdout (to stderr with --jsonl, where stdout is the seeds' lines); a
/// closed stdout (`tester run ... | head`) is not an error: the run's results are already
/// saved, and the bests update after the report must still happen.
pub fn emit(args: &SelectArgs, text: &str) {
    if args.jsonl {
        // A diagnostic then: a failed write is ignored.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        return;
    }
    super::out::print(text);
}
