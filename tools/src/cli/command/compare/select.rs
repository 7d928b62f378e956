//! `tester compare --filter EXPR` and `--group-by KEY`: a seed's features are its case's
//! (`seed`, `N`, `C`, `P`) and the `[DATA]` values of the baseline run `A` (of the first run
//! that has the seed when `A` lacks it).
//!
//! The runs are finished, so a name no seed has is an error (nothing is lost by stopping);
//! a seed the filter cannot be evaluated on does not pass, with a warning.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{group, Comparison, Group, Row};
use crate::cli::features::{self, case_features, Features, CASE_KEYS};
use crate::cli::filter::{check_group_key, failures_warning, Filter};
use crate::cli::folder::RunFolder;
use crate::cli::quote::warn;
use crate::cli::report::SeedResult;

/// The features of a seed as run `run` saw it: the case's, then run `run`'s data (the first
/// run's that has the seed when `run` lacks it).
pub fn row_features(results: &[Option<SeedResult>], run: usize) -> Features {
    let Some(r) = results[run]
        .as_ref()
        .or_else(|| results.iter().flatten().next())
    else {
        return Features::new();
    };
    let mut f: Features = r.data.clone();
    f.extend(case_features(r));
    f
}

/// A numeric feature of `row` for run `run` (see [`row_features`]).
pub fn feature_value(row: &Row, run: usize, key: &str) -> Option<f64> {
    row_features(&row.results, run)
        .get(key)
        .and_then(Value::as_f64)
}

/// Reads `--filter` and checks it and the `--group-by` key against the features every seed
/// has (the case's), before any folder is read.
pub fn checked_filter(
    filter: Option<&str>,
    group_by: Option<&str>,
) -> Result<Option<Filter>, String> {
    if let Some(key) = group_by {
        check_group_key(key, &CASE_KEYS)?;
    }
    let Some(text) = filter else { return Ok(None) };
    let filter = Filter::parse(text)?;
    filter.check(&CASE_KEYS)?;
    Ok(Some(filter))
}

/// Removes from every run the seeds that do not pass `filter` (with a warning for those it
/// cannot be evaluated on); refuses a filter naming a feature no seed has, and one that leaves
/// no seed.
pub fn filter_runs(runs: &mut [RunFolder], filter: &Filter) -> Result<(), String> {
    let seeds: BTreeSet<u64> = runs
        .iter()
        .flat_map(|r| r.results.keys().copied())
        .collect();
    let mut known = BTreeSet::new();
    let (mut dropped, mut failures) = (Vec::new(), Vec::new());
    let mut kept = 0;
    for seed in seeds {
        let results: Vec<Option<SeedResult>> = runs.iter().map(|r| r.get(seed).cloned()).collect();
        let f = row_features(&results, 0);
        known.extend(f.keys().cloned());
        match filter.matches(&f) {
            Ok(true) => kept += 1,
            Ok(false) => dropped.push(seed),
            Err(why) => {
                failures.push((seed, why));
                dropped.push(seed);
            }
        }
    }
    let unknown: Vec<String> = filter.variables().difference(&known).cloned().collect();
    if !unknown.is_empty() {
        return Err(format!(
            "--filter `{}`: no seed has {}; known: {}",
            filter.text(),
            unknown.join(", "),
            known.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(w) = failures_warning(filter, &failures) {
        warn("tester compare", &w);
    }
    if kept == 0 {
        return Err(format!("--filter `{}`: no seed passes", filter.text()));
    }
    for run in runs.iter_mut() {
        for seed in &dropped {
            run.results.remove(seed);
        }
    }
    Ok(())
}

/// The groups of `--group-by KEY` (see [`features::group_by`]), each run paired with `A`; a
/// key no seed has is a warning.
pub fn groups_by(c: &Comparison, key: &str) -> Vec<Group> {
    let items: Vec<Features> = c.rows.iter().map(|r| row_features(&r.results, 0)).collect();
    if !items.is_empty() && !items.iter().any(|f| f.contains_key(key)) {
        warn(
            "tester compare",
            &format!("--group-by {key}: no seed has {key}; every seed is in {key}=-"),
        );
    }
    features::group_by(key, &items)
        .into_iter()
        .map(|(label, members)| {
            let rows: Vec<&Row> = members.iter().map(|&i| &c.rows[i]).collect();
            group(label, rows, c.runs.len())
        })
        .collect()
}

/// The numeric features of the compared seeds, for the plots: `N`, `C`, `P`, then data keys.
pub fn numeric_keys(c: &Comparison) -> Vec<String> {
    let items: Vec<Features> = c
        .rows
        .iter()
        .flat_map(|r| (0..r.results.len()).map(|i| row_features(&r.results, i)))
        .collect();
    features::numeric_keys(&items)
}
