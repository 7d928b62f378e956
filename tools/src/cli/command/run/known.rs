//! The run's known limits of each seed: the bests file (scores reached, lower is better) and
//! the bounds file (certified lower bounds, higher is better), as read for the report and as
//! updated by `--update-bests` and `--update-bounds`.

use std::path::{Path, PathBuf};

use super::{answers, Args};
use crate::cli::bests::{load_table, Bests, Side};
use crate::cli::date;
use crate::cli::exec::Solver;
use crate::cli::quote::printable;
use crate::cli::report::{bound_fits, readable, SeedResult, Status};

/// The `about` text of a bests file created by `--update-bests`.
const NEW_BESTS_ABOUT: &str = "best known scores, written by `tester run --update-bests`";

/// The bests file and its scores for this run (created empty by --update-bests if missing).
pub(super) fn bests_for(args: &Args) -> Result<(Option<PathBuf>, Option<Bests>), String> {
    table_for(args, args.bests.as_ref(), args.update_bests, Side::Best)
}

/// The bests or bounds file of this run: none on generated cases (--n/--c/--p, where naming
/// one is an error); with `update` the file at `path` (default
/// [`crate::cli::root::default_table`]), empty with its `about` when missing; else the file
/// found by [`load_table`].
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
        .unwrap_or_else(|| crate::cli::root::default_table(name));
    // Refused before any seed runs, not after the run.
    Bests::check_updatable(&path, side)?;
    if side == Side::Best {
        answers::answers_folder(&path)?;
    }
    let table = Bests::load_or_new(&path, about, side)?;
    Ok((Some(path), Some(table)))
}

/// `--update-bests`: records the run's better scores in the bests file at `path` and their
/// answers in its folder beside it (`best/` for `bests.json`), together or not at all (see [`super::answers`]), under the
/// file's lock, after removing what a killed update left. Returns how many improved, and
/// warnings (an update cut short that was finished, a result whose output no longer judges to
/// its score).
pub(super) fn update_bests(
    path: &Path,
    results: &[SeedResult],
    solver: &Solver,
    dir: &Path,
) -> Result<(usize, Vec<String>), String> {
    let source = format!("tester run {}: {}", date::today(), solver.describe());
    let lock = Bests::lock(path, Side::Best)?;
    let mut bests = Bests::load_or_new(path, NEW_BESTS_ABOUT, Side::Best)?;
    let folder = answers::answers_folder(path)?;
    let mut warnings = answers::remove_leftovers(path, &folder)?;
    warnings.extend(answers::recover(path, &mut bests, &folder)?);
    let staged = answers::stage(&mut bests, results, (dir, &folder), &source)?;
    let improved = staged.len();
    warnings.extend(staged.notes.iter().cloned());
    answers::commit(path, &bests, staged)?;
    drop(lock);
    Ok((improved, warnings))
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
        let Some(value) = r.data.get("bound") else {
            continue;
        };
        // `nan`, `inf` and `16.7 junk` are kept as text by the data reader.
        let Some(bound) = value.as_f64().filter(|b| b.is_finite() && *b >= 0.0) else {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            warnings.push(format!(
                "seed {}: [DATA] bound = {} is not a number >= 0: not recorded",
                r.seed,
                printable(&text, 80)
            ));
            continue;
        };
        let best = bests.and_then(|b| b.score(r.seed)).unwrap_or(f64::INFINITY);
        let ceiling = r.score.min(best);
        // A printed bound is rounded; a real lower bound never exceeds a reached score.
        if !bound_fits(bound, ceiling) {
            warnings.push(format!(
                "seed {}: [DATA] bound = {} is not below the score {}: not recorded",
                r.seed,
                readable(bound),
                readable(ceiling)
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
