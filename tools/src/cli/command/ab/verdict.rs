//! `tester ab --verdict DIR…`: the verdict of finished A/B folders, one folder or the shards
//! of many hosts (`tester ab --shard K/M` on each, the folders brought back). The folders must
//! hold the same A/B (the same test, seed stream and arms); their pairs are joined by stream
//! position and read in order, exactly as one machine would have read them, up to the verdict
//! or the first pair no folder has.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::folder::{Pair, Record, Settings};
use super::reading::read_pairs;
use super::report;
use crate::cli::out::print;

/// What must be equal in two folders of one A/B: the test, the stream, each arm's source,
/// args and time limit (paths differ between hosts).
fn same_ab(a: &Record, b: &Record) -> Result<(), String> {
    if a.settings.sprt != b.settings.sprt {
        return Err("their --delta, --alpha or --beta differ".into());
    }
    if a.settings.seeds != b.settings.seeds {
        return Err("their seed streams (--seeds) differ".into());
    }
    for (x, y) in a.arms.iter().zip(&b.arms) {
        let same = x.source == y.source && x.args == y.args && x.time_limit == y.time_limit;
        if !same {
            return Err(format!(
                "their arms {} differ ({} with {:?}, {} s; {} with {:?}, {} s)",
                x.label,
                x.describe(),
                x.args,
                x.time_limit,
                y.describe(),
                y.args,
                y.time_limit
            ));
        }
    }
    Ok(())
}

/// Runs `tester ab --verdict DIR…`: prints the verdict and returns its exit code (3 when the
/// pairs end before one, 4 when most pairs read were starved).
pub fn run(dirs: &[PathBuf]) -> Result<i32, String> {
    let records = dirs
        .iter()
        .map(|d| Record::load(d))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &records[0];
    let mut pairs: BTreeMap<usize, Pair> = BTreeMap::new();
    let mut from: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, record) in records.iter().enumerate() {
        same_ab(first, record).map_err(|e| {
            format!(
                "{} and {} are not folders of one A/B: {e}",
                dirs[0].display(),
                dirs[i].display()
            )
        })?;
        for (&position, pair) in &record.pairs {
            if let Some(&j) = from.get(&position) {
                return Err(format!(
                    "pair {} (seed {}) is in both {} and {}: give each shard's folder once",
                    position + 1,
                    pair.seed,
                    dirs[j].display(),
                    dirs[i].display()
                ));
            }
            from.insert(position, i);
            pairs.insert(position, pair.clone());
        }
    }
    let settings = Settings {
        shard: None,
        max_pairs: records
            .iter()
            .map(|r| r.settings.max_pairs)
            .max()
            .unwrap_or(0),
        ..first.settings.clone()
    };
    let reading = read_pairs(&settings, first.limits(), &pairs);
    print(&format!(
        "{}{}",
        report::arm_lines(&first.arms),
        report::text(&settings, &reading, dirs)
    ));
    if let (None, Some(gap)) = (reading.walk.verdict, reading.gap) {
        let shards: Vec<String> = records
            .iter()
            .filter_map(|r| r.settings.shard.map(|s| s.to_string()))
            .collect();
        crate::diag!(
            "tester ab: pair {} is in none of the {} folders (shards given: {}): resume the \
             shard that runs it, or give its folder",
            gap + 1,
            dirs.len(),
            if shards.is_empty() {
                "none".to_string()
            } else {
                shards.join(", ")
            }
        );
    }
    Ok(reading.exit_code())
}
