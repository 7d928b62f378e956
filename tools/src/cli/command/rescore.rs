//! `tester rescore`: judge the saved outputs of a run folder again.

use crate::cli::out::outln;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use serde_json::json;

use crate::cli::bests::{load_bests, load_bounds};
use crate::cli::readcap::{read_text_capped, INPUT_MAX, OUTPUT_MAX};
use crate::cli::report::{set_bounds, summary, summary_json, table, SeedResult, Status};
use crate::cli::runfile::read_run;
use crate::input::Input;

/// Options of `tester rescore`.
#[derive(ClapArgs, Debug)]
#[command(after_help = format!("{EXIT_HELP}\n\n{}", crate::cli::args::LIMITS_HELP))]
pub struct Args {
    /// A folder written by `tester run` (`SEED.in`, `SEED.out`, optionally `results.json`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Print the results and the summary as one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Best known scores for the relative score. Default: `testcases/bests.json` (here or of
    /// the project's top folder above) if it exists.
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
    /// Certified lower bounds for the `gap%` column. Default: `testcases/bounds.json` (here or
    /// of the project's top folder above) if it exists.
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
}

/// The seeds of a run folder: those with a `SEED.in` file, in numeric order.
fn seeds_in(dir: &Path) -> Result<Vec<u64>, String> {
    let entries =
        fs::read_dir(dir).map_err(|e| format!("cannot read folder {}: {e}", dir.display()))?;
    let mut seeds: Vec<u64> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".in")?.parse().ok()
        })
        .collect();
    seeds.sort_unstable();
    Ok(seeds)
}

/// The results stored in `results.json` by seed (empty if there is none).
fn stored_results(dir: &Path) -> Result<BTreeMap<u64, SeedResult>, String> {
    let run = read_run(dir)?;
    Ok(run
        .map(|run| run.results.into_iter().map(|r| (r.seed, r)).collect())
        .unwrap_or_default())
}

/// Judges the saved output of `seed` again. Timeouts, crashes and too-long outputs recorded by
/// the run keep their status (their output was never scored); a missing output file is an
/// `invalid` seed whose message says so (not the judge's `Cannot parse your output`).
pub fn rescore_seed(
    dir: &Path,
    seed: u64,
    stored: Option<&SeedResult>,
) -> Result<SeedResult, String> {
    let inp = dir.join(format!("{seed}.in"));
    let text = read_text_capped(&inp, INPUT_MAX, "an input")?;
    let input = Input::parse(&text).map_err(|e| format!("{}: {e}", inp.display()))?;
    if let Some(s) =
        stored.filter(|s| matches!(s.status, Status::Timeout | Status::Crash | Status::TooLong))
    {
        return Ok(SeedResult {
            n: input.n,
            c: input.c,
            ..s.clone()
        });
    }
    let out_path = dir.join(format!("{seed}.out"));
    if !out_path.exists() {
        let mut result = SeedResult::failed(
            seed,
            &input,
            stored.and_then(|s| s.p),
            Status::Invalid,
            format!("{MISSING_OUTPUT}: {} does not exist", out_path.display()),
        );
        result.keep_times(stored);
        return Ok(result);
    }
    let out = read_text_capped(&out_path, OUTPUT_MAX, "an output")?;
    let mut result = SeedResult::judged(seed, &input, stored.and_then(|s| s.p), &out);
    result.keep_times(stored);
    // The data lines as the run kept them, else as the saved stderr has them.
    result.data = stored.map(|s| s.data.clone()).unwrap_or_default();
    if result.data.is_empty() {
        result.data = crate::cli::features::read_data(&dir.join(format!("{seed}.err")));
    }
    Ok(result)
}

/// The start of the message of a seed whose output file is missing.
pub const MISSING_OUTPUT: &str = "no output file";

/// Exit codes of `tester rescore`.
pub const EXIT_HELP: &str = "Exit codes: 0 every seed judged; 1 a file is missing: a seed of \
results.json without its SEED.in (named, not judged) or a seed without its SEED.out (named, \
`invalid`); 2 bad usage or input.";

/// Runs `tester rescore`; returns the exit code (see [`EXIT_HELP`]).
pub fn run(args: &Args) -> Result<i32, String> {
    let stored = stored_results(&args.dir)?;
    let seeds = seeds_in(&args.dir)?;
    // Seeds results.json has a result for, but whose input is gone: named, not judged.
    let lost: Vec<u64> = stored
        .keys()
        .copied()
        .filter(|s| seeds.binary_search(s).is_err())
        .collect();
    if seeds.is_empty() && lost.is_empty() {
        return Err(format!("no SEED.in files in {}", args.dir.display()));
    }
    let (_, bests) = load_bests(args.bests.as_deref())?;
    let (_, bounds) = load_bounds(args.bounds.as_deref())?;
    let mut results = Vec::with_capacity(seeds.len());
    for &seed in &lost {
        let old = &stored[&seed];
        crate::diag!(
            "tester rescore: seed {seed}: {seed}.in is missing: not judged (results.json says \
             {} {})",
            old.status.as_str(),
            old.score
        );
    }
    for seed in seeds {
        let old = stored.get(&seed);
        let new = rescore_seed(&args.dir, seed, old)?;
        if let Some(old) = old {
            if old.status != new.status || (old.score - new.score).abs() > 1e-9 {
                crate::diag!(
                    "seed {seed}: was {} {}, now {} {}",
                    old.status.as_str(),
                    old.score,
                    new.status.as_str(),
                    new.score
                );
            }
        }
        results.push(new);
    }
    for warning in set_bounds(&mut results, bounds.as_ref()) {
        crate::cli::quote::warn("tester rescore", &warning);
    }
    let no_output: Vec<u64> = results
        .iter()
        .filter(|r| {
            r.message
                .as_deref()
                .is_some_and(|m| m.starts_with(MISSING_OUTPUT))
        })
        .map(|r| r.seed)
        .collect();
    let list = |seeds: &[u64]| seeds.iter().map(u64::to_string).collect::<Vec<_>>();
    if args.json {
        let doc = json!({
            "results": results.iter().map(SeedResult::to_json).collect::<Vec<_>>(),
            "summary": summary_json(&results, bests.as_ref()),
            "missing_input": lost,
            "missing_output": no_output,
        });
        outln!("{doc}");
    } else {
        crate::cli::out::print(&table(&results, bests.as_ref()));
        outln!();
        crate::cli::out::print(&summary(&results, bests.as_ref()));
        if !lost.is_empty() {
            outln!(
                "not judged (SEED.in missing): seeds {}",
                list(&lost).join(", ")
            );
        }
        if !no_output.is_empty() {
            outln!(
                "no output file (SEED.out missing): seeds {}",
                list(&no_output).join(", ")
            );
        }
    }
    Ok(i32::from(!lost.is_empty() || !no_output.is_empty()))
}
