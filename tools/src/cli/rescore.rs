//! `tester rescore`: judge the saved outputs of a run folder again.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use serde_json::json;

use super::load_bests;
use super::report::{summary, summary_json, table, SeedResult, Status};
use super::runfile::read_run;
use crate::input::Input;

/// Options of `tester rescore`.
#[derive(ClapArgs, Debug)]
#[command(after_help = super::LIMITS_HELP)]
pub struct Args {
    /// A folder written by `tester run` (`SEED.in`, `SEED.out`, optionally `results.json`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Print the results and the summary as one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Best known scores for the relative score. Default: `testcases/bests.json` if it exists.
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
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

/// Judges the saved output of `seed` again. Timeouts, crashes and too-long outputs recorded by the run keep their
/// status (their output was never scored); a missing output file is `Cannot parse your output`
/// like an empty one.
pub fn rescore_seed(
    dir: &Path,
    seed: u64,
    stored: Option<&SeedResult>,
) -> Result<SeedResult, String> {
    let inp = dir.join(format!("{seed}.in"));
    let text =
        fs::read_to_string(&inp).map_err(|e| format!("cannot read {}: {e}", inp.display()))?;
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
    let out = fs::read(dir.join(format!("{seed}.out"))).unwrap_or_default();
    let mut result = SeedResult::judged(
        seed,
        &input,
        stored.and_then(|s| s.p),
        &String::from_utf8_lossy(&out),
    );
    result.wall_ms = stored.and_then(|s| s.wall_ms);
    // The data lines as the run kept them, else as the saved stderr has them.
    result.data = stored.map(|s| s.data.clone()).unwrap_or_default();
    if result.data.is_empty() {
        result.data = super::features::read_data(&dir.join(format!("{seed}.err")));
    }
    Ok(result)
}

/// Runs `tester rescore`.
pub fn run(args: &Args) -> Result<(), String> {
    let stored = stored_results(&args.dir)?;
    let seeds = seeds_in(&args.dir)?;
    if seeds.is_empty() {
        return Err(format!("no SEED.in files in {}", args.dir.display()));
    }
    let (_, bests) = load_bests(args.bests.as_deref())?;
    let mut results = Vec::with_capacity(seeds.len());
    for seed in seeds {
        let old = stored.get(&seed);
        let new = rescore_seed(&args.dir, seed, old)?;
        if let Some(old) = old {
            if old.status != new.status || (old.score - new.score).abs() > 1e-9 {
                eprintln!(
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
    if args.json {
        let doc = json!({
            "results": results.iter().map(SeedResult::to_json).collect::<Vec<_>>(),
            "summary": summary_json(&results, bests.as_ref()),
        });
        println!("{doc}");
    } else {
        print!("{}", table(&results, bests.as_ref()));
        println!();
        print!("{}", summary(&results, bests.as_ref()));
    }
    Ok(())
}
