//! The run's known limits of each seed: the bests file (scores reached, lower is better) and
//! the bounds file (certified lower bounds, higher is better), as read for the report and as
//! updated by `--update-bests` and `--update-bounds`.

use std::fs;
use std::path::{Path, PathBuf};

use super::Args;
use crate::cli::bests::{load_table, Bests, Side};
use crate::cli::date;
use crate::cli::exec::Solver;
use crate::cli::replace::replace_copy;
use crate::cli::report::{SeedResult, Status};

/// The `about` text of a bests file created by `--update-bests`.
const NEW_BESTS_ABOUT: &str = "best known scores, written by `tester run --update-bests`";

/// The bests file and its scores for this run (created empty by --update-bests if missing).
pub(super) fn bests_for(args: &Args) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    table_for(args, args.bests.as_ref(), args.update_bests, Side::Best)
}

/// The bests or bounds file of this run: none on generated cases (--n/--c/--p, where naming
/// one is an error); with `update` the file at `path` (default `testcases/NAME.json`), empty
/// with its `about` when missing; else the file found by [`load_table`].
fn table_for(
    args: &Args,
    path: Option<&PathBuf>,
    update: bool,
    side: Side,
) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    let (name, about) = match side {
        Side::Best => ("bests", NEW_BESTS_ABOUT),
        Side::Bound => ("bounds", NEW_BOUNDS_ABOUT),
    };
    if args.ranges.any() {
        if path.is_some() || update {
            return Err(format!(
                "--{name} and --update-{name} need the official cases (no --n/--c/--p)"
            ));
        }
        return Ok((None, None));
    }
    if !update {
        return load_table(path.map(PathBuf::as_path), side);
    }
    let path = path
        .cloned()
        .unwrap_or_else(|| PathBuf::from(format!("testcases/{name}.json")));
    let table = if path.exists() {
        Bests::load_side(&path, side)?
    } else {
        Bests {
            about: about.into(),
            side,
            ..Bests::default()
        }
    };
    Ok((Some(path), Some(table)))
}

/// `--update-bests`: records the run's better scores in the bests file at `path`, under its
/// lock; returns how many improved.
pub(super) fn update_bests(
    path: &Path,
    results: &[SeedResult],
    solver: &Solver,
    dir: &Path,
) -> Result<usize, String> {
    let source = format!("tester run {}: {}", date::today(), solver.describe());
    Bests::update_locked(path, NEW_BESTS_ABOUT, Side::Best, |bests| {
        record_run(bests, results, &source, dir, path)
    })
}

/// Records every ok result that beats `bests` (the file as it is now, read under its lock) and
/// copies its output to `best/SEED.out` beside the bests file; returns how many improved.
fn record_run(
    bests: &mut Bests,
    results: &[SeedResult],
    source: &str,
    dir: &Path,
    path: &Path,
) -> Result<usize, String> {
    let folder = path.parent().unwrap_or(Path::new("")).join("best");
    let mut improved = 0;
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        if !bests.improve(r.seed, r.score, source) {
            continue;
        }
        improved += 1;
        fs::create_dir_all(&folder)
            .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        let (from, to) = (
            dir.join(format!("{}.out", r.seed)),
            folder.join(format!("{}.out", r.seed)),
        );
        replace_copy(&from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    Ok(improved)
}

/// The `about` text of a bounds file created by `--update-bounds`.
const NEW_BOUNDS_ABOUT: &str = "certified lower bounds, written by `tester run --update-bounds` \
     from the solvers' `[DATA] bound` lines";

/// The bounds file for this run (created empty by --update-bounds if missing).
pub(super) fn bounds_for(args: &Args) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    table_for(args, args.bounds.as_ref(), args.update_bounds, Side::Bound)
}

/// `--update-bounds`: records each ok seed's `[DATA] bound` that raises the bounds file at
/// `path`, under its lock. A bound above the seed's own judged score, or above the best known
/// score in `bests`, cannot be a lower bound: it is left out with a warning. Returns how many
/// rose, and the warnings.
pub(super) fn update_bounds(
    path: &Path,
    results: &[SeedResult],
    bests: Option<&Bests>,
    solver: &Solver,
) -> Result<(usize, Vec<String>), String> {
    let source = format!("tester run {}: {}", date::today(), solver.describe());
    let mut warnings = Vec::new();
    let mut claims = Vec::new();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        let Some(bound) = r.data.get("bound").and_then(serde_json::Value::as_f64) else {
            continue;
        };
        let best = bests.and_then(|b| b.score(r.seed)).unwrap_or(f64::INFINITY);
        let ceiling = r.score.min(best);
        // A printed bound is rounded; a real lower bound never exceeds a reached score.
        if !bound.is_finite() || bound < 0.0 || bound > ceiling + 1e-9 {
            warnings.push(format!(
                "seed {}: [DATA] bound = {bound} is not below the score {ceiling}: not recorded",
                r.seed
            ));
            continue;
        }
        claims.push((r.seed, bound));
    }
    let raised = Bests::update_locked(path, NEW_BOUNDS_ABOUT, Side::Bound, |bounds| {
        Ok(claims
            .iter()
            .filter(|&&(seed, bound)| bounds.improve(seed, bound, &source))
            .count())
    })?;
    Ok((raised, warnings))
}
