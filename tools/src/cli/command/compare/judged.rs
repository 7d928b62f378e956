//! What `tester compare` checks in each run before it compares: the kept answers judged
//! again (a score edited in `results.json` must not reach the table, as `--resume`,
//! `rescore` and `tester ab` ensure too), the runs that were starved of CPU named per run (as
//! `tester run` names them), and, for one `tester ab` folder, the A/B's own verdict and B/A.

use std::path::Path;

use crate::cli::command::ab::folder::Record;
use crate::cli::command::run::kept::rejudged;
use crate::cli::folder::RunFolder;
use crate::cli::report::{SeedResult, Status};

/// Judges again each judged result (ok, invalid) of `run` whose `SEED.out` is in its folder,
/// on the case of its seed and the run's ranges; a result without its output is kept as
/// recorded and its seed returned (named, not judged). Returns the warnings: one per seed
/// whose verdict changed, one for the seeds left unjudged.
pub fn judge_again(run: &mut RunFolder, label: char) -> Vec<String> {
    let folder = crate::cli::quote::printable(&run.dir.display().to_string(), 200);
    let (with_output, without): (Vec<SeedResult>, Vec<SeedResult>) =
        std::mem::take(&mut run.results)
            .into_values()
            .partition(|r| output_kept(&run.dir, r));
    let (judged, changed) = rejudged(&run.dir, with_output, &run.ranges);
    let mut warnings: Vec<String> = changed
        .iter()
        .map(|w| format!("{label} ({folder}): {}", w.trim_start_matches("--resume: ")))
        .collect();
    let unjudged: Vec<String> = without
        .iter()
        .filter(|r| matches!(r.status, Status::Ok | Status::Invalid))
        .map(|r| r.seed.to_string())
        .collect();
    if !unjudged.is_empty() {
        warnings.push(format!(
            "{label} ({folder}): {} seeds have no SEED.out beside results.json ({}{}): their \
             recorded scores are shown as they are, not judged again",
            unjudged.len(),
            unjudged[..unjudged.len().min(5)].join(", "),
            if unjudged.len() > 5 { ", …" } else { "" }
        ));
    }
    run.results = judged
        .into_iter()
        .chain(without)
        .map(|r| (r.seed, r))
        .collect();
    warnings
}

/// Whether the folder `dir` keeps `r`'s output (`SEED.out`, any kind of file: one that is no
/// regular file is judged again, and refused as the run's own answer would be).
fn output_kept(dir: &Path, r: &SeedResult) -> bool {
    std::fs::symlink_metadata(dir.join(format!("{}.out", r.seed))).is_ok()
}

/// The line naming the starved runs of `run` (labelled `label`), as `tester run` warns about
/// them; `None` when none was.
pub fn starved_line(run: &RunFolder, label: char) -> Option<String> {
    let results: Vec<SeedResult> = run.results.values().cloned().collect();
    crate::cli::cpu::run_warning(&results).map(|w| format!("{label} starved: {w}"))
}

/// The seeds of `run` that were starved of CPU.
pub fn starved_seeds(run: &RunFolder) -> Vec<u64> {
    run.results
        .values()
        .filter(|r| crate::cli::cpu::starved(r))
        .map(|r| r.seed)
        .collect()
}

/// What `tester ab` says of the A/B folder `dir`: its verdict and its B/A over the pairs it
/// counted, to set beside the comparison of every seed its arms ran; or why its record
/// cannot be read.
pub fn ab_line(dir: &Path) -> String {
    let record = match Record::load_with(dir, false) {
        Ok(record) => record,
        Err(e) => return format!("tester ab's record not read: {e}"),
    };
    let reading = record.reading();
    let verdict = match (&reading.busy, &reading.error, reading.walk.verdict) {
        (Some(_), _, _) => "no verdict (the machine was too busy)".to_string(),
        (_, Some(_), _) => "no verdict (both arms failed on every pair)".to_string(),
        (_, _, Some(v)) => v.as_str().to_string(),
        _ => "no verdict yet".to_string(),
    };
    let ratio = reading
        .ratio()
        .map_or("B/A none".to_string(), |(r, interval)| {
            let interval = interval.map_or(String::new(), |(lo, hi)| {
                format!(", 95% interval {lo:.5} to {hi:.5}")
            });
            format!("B/A {r:.5}{interval}")
        });
    format!(
        "tester ab (ab.json): {verdict}; {} pairs counted of {} read ({} starved); {ratio} over \
         the {} counted pairs judged on both sides, as `tester ab` prints it (the figures below \
         cover every seed both arms ran, the starved and those after the verdict too)",
        reading.walk.stats.n,
        reading.read,
        reading.starved.len(),
        reading.judged.n
    )
}
