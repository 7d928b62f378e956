//! The results a resumed run keeps from the earlier run, judged again before they count.
//!
//! `results.json` is a file like any other: an edited score, or an output changed since, must
//! not reach the tables or the bests file unjudged. So `--resume` judges each kept verdict
//! again (ok and invalid seeds: those the judge gave) from the seed's saved output against
//! the seed's case, generated again from the seed. Timeouts, crashes and too-long outputs are
//! kept as recorded: their output was never judged.

use std::path::Path;

use crate::cli::bests::same_score;
use crate::cli::command::rescore::MISSING_OUTPUT;
use crate::cli::readcap::{read_capped, OUTPUT_MAX};
use crate::cli::report::{readable, SeedResult, Status};
use crate::gen::{generate, Ranges};

/// `kept` (results read from `dir/results.json`) with each judged verdict replaced by the
/// judge's verdict on `dir/SEED.out` for the case of `ranges`; and a warning for each seed
/// whose verdict changed.
pub(crate) fn rejudged(
    dir: &Path,
    kept: Vec<SeedResult>,
    ranges: &Ranges,
) -> (Vec<SeedResult>, Vec<String>) {
    let mut warnings = Vec::new();
    let results = kept
        .into_iter()
        .map(|old| {
            if !matches!(old.status, Status::Ok | Status::Invalid) {
                return old;
            }
            let new = judge_again(dir, &old, ranges);
            let changed = new.status != old.status || !same_score(new.score, old.score);
            if changed {
                warnings.push(format!(
                    "--resume: seed {}: results.json says {} {}, but its output judges {} {}: \
                     the judged verdict is kept",
                    old.seed,
                    old.status.as_str(),
                    readable(old.score),
                    new.status.as_str(),
                    readable(new.score)
                ));
            }
            new
        })
        .collect();
    (results, warnings)
}

/// The judge's verdict on the saved output of `old`'s seed; what the run recorded beside it
/// (time, data, bound) is kept.
fn judge_again(dir: &Path, old: &SeedResult, ranges: &Ranges) -> SeedResult {
    let case = generate(old.seed, ranges);
    let out = dir.join(format!("{}.out", old.seed));
    let mut new = match read_capped(&out, OUTPUT_MAX, "an output") {
        Ok(bytes) => SeedResult::judged(
            old.seed,
            &case.input,
            Some(case.p),
            &String::from_utf8_lossy(&bytes),
        ),
        Err(why) => {
            let why = if out.exists() {
                why
            } else {
                format!("{MISSING_OUTPUT}: {} does not exist", out.display())
            };
            SeedResult::failed(old.seed, &case.input, Some(case.p), Status::Invalid, why)
        }
    };
    new.keep_times(Some(old));
    new.data = old.data.clone();
    new.bound = old.bound;
    new
}
