//! `tester merge`: join the folders of a sharded run (`tester run --shard K/M` on many
//! machines) into one run folder, as if one machine had run every seed.

use crate::cli::out::outln;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use crate::cli::bests::{load_bests, load_bounds};
use crate::cli::command::run::kept::rejudged;
use crate::cli::lock::{lock_folder, FolderLock};
use crate::cli::quote::count;
use crate::cli::report::{set_bounds, summary, SeedResult};
use crate::cli::runfile::{read_run, recorded_run, refuse_foreign, write_run, StoredRun};
use crate::gen::{generate, Ranges};

/// Options of `tester merge`.
#[derive(ClapArgs, Debug)]
#[command(
    after_help = "Exit codes: 0 merged, every seed there; 1 merged with --allow-missing \
while seeds are missing (named on standard error; the merged run is marked interrupted); 2 \
refused (nothing written): seeds missing without --allow-missing, a seed in two folders, a \
result for a seed outside its folder's seed list, a broken results.json, parts of different \
seed lists, an --out that another tester process (a run) is writing.\n\
A seed counts as missing when its part is not given, its part did not finish it, or its SEED.in \
or SEED.out file is gone.\n\
Example: tester merge runs/s0 runs/s1 runs/s2 --out runs/all"
)]
pub struct Args {
    /// The run folders to join (each with its results.json), e.g. the shards 0/3, 1/3, 2/3.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// The folder to write: every seed's files and one results.json.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Merge even when seeds are missing: a shard of the M parts is absent, or a shard did not
    /// finish all its seeds. The merged run is then marked interrupted.
    #[arg(long)]
    pub allow_missing: bool,
    /// Merge even when a seed has results in two folders: the first folder given wins.
    #[arg(long)]
    pub allow_overlap: bool,
    /// Replace a run already in --out (never one that a `tester run` or another tester
    /// process is writing: that folder is refused, exit 2).
    #[arg(long)]
    pub force: bool,
    /// Best known scores for the summary. Default: `testcases/bests.json` (here or of the
    /// project's top folder above) if it exists.
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
    /// Certified lower bounds for the summary's gaps. Default: `testcases/bounds.json` (here or
    /// of the project's top folder above) if it exists.
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
}

/// The runs of `dirs`, checked to be parts of one run: same time limit and ranges, every
/// result for a seed of the part's list. A part without a seed list (a results.json older than
/// the `seeds` key) takes the seeds of its results, with a note.
fn load_parts(dirs: &[PathBuf]) -> Result<Vec<StoredRun>, String> {
    let mut parts = Vec::new();
    for dir in dirs {
        let mut run = read_run(dir)?
            .ok_or_else(|| format!("{} holds no run (no results.json)", dir.display()))?;
        if run.info.seeds.is_empty() {
            run.info.seeds = run.results.iter().map(|r| r.seed).collect();
            crate::diag!(
                "tester merge: note: {} has no seed list (an older results.json): its {} \
                 results are merged, but seeds it did not finish cannot be named",
                dir.display(),
                run.results.len()
            );
        }
        let listed: std::collections::HashSet<u64> = run.info.seeds.iter().copied().collect();
        let extra: Vec<String> = run
            .results
            .iter()
            .filter(|r| !listed.contains(&r.seed))
            .map(|r| r.seed.to_string())
            .collect();
        if !extra.is_empty() {
            return Err(format!(
                "{}: results for seeds not in its seed list ({}): the file was edited or \
                 mixed with another run",
                dir.join(crate::cli::runfile::RESULTS).display(),
                extra.join(", ")
            ));
        }
        parts.push(run);
    }
    let first = &parts[0].info;
    for (dir, part) in dirs.iter().zip(&parts).skip(1) {
        if part.info.time_limit != first.time_limit || part.info.ranges != first.ranges {
            return Err(format!(
                "{} ran with --time-limit {} and ranges {}, {} with {} and {}: not one run",
                dir.display(),
                part.info.time_limit,
                part.info.ranges,
                dirs[0].display(),
                first.time_limit,
                first.ranges
            ));
        }
        if part.info.command != first.command {
            crate::diag!(
                "tester merge: note: {} ran `{}`, {} ran `{}`",
                dir.display(),
                part.info.command,
                dirs[0].display(),
                first.command
            );
        }
    }
    Ok(parts)
}

/// `(K, M)` of a part's `shard`.
fn shard_of(run: &StoredRun) -> Option<(usize, usize)> {
    let (k, m) = run.info.shard.as_deref()?.split_once('/')?;
    Some((k.parse().ok()?, m.parse().ok()?))
}

/// The seed list of the whole run: shards `0..M` of one `M` interleave back into the original
/// order; other parts are concatenated. Also returns what is missing, in words.
fn full_seed_list(parts: &[StoredRun]) -> (Vec<u64>, Vec<String>) {
    let mut missing = Vec::new();
    let shards: Option<Vec<(usize, usize)>> = parts.iter().map(shard_of).collect();
    let m = shards.as_ref().and_then(|s| s.first().map(|&(_, m)| m));
    let mut seeds = Vec::new();
    match (shards, m) {
        (Some(shards), Some(m)) if shards.iter().all(|&(_, mm)| mm == m) => {
            let mut by_k: Vec<Option<&[u64]>> = vec![None; m];
            for (part, &(k, _)) in parts.iter().zip(&shards) {
                by_k[k % m].get_or_insert(&part.info.seeds);
            }
            if let Some(problem) = uneven_shards(&by_k) {
                missing.push(problem);
            }
            for (k, part) in by_k.iter().enumerate() {
                if part.is_none() {
                    missing.push(format!("shard {k}/{m} is not given"));
                }
            }
            let longest = by_k.iter().flatten().map(|s| s.len()).max().unwrap_or(0);
            for i in 0..longest {
                seeds.extend(by_k.iter().flatten().filter_map(|s| s.get(i)));
            }
        }
        _ => parts.iter().for_each(|p| seeds.extend(&p.info.seeds)),
    }
    (seeds, missing)
}

/// Shard `k` of a list of `n` seeds holds `ceil((n - k) / M)` of them: lengths never grow
/// with `k` and differ by at most one. Parts that break this come from different seed lists
/// (`--seeds 1-9` and `--seeds 1-20`), and seeds of the longer list are missing.
fn uneven_shards(by_k: &[Option<&[u64]>]) -> Option<String> {
    let m = by_k.len();
    let given: Vec<(usize, usize)> = by_k
        .iter()
        .enumerate()
        .filter_map(|(k, s)| Some((k, (*s)?.len())))
        .collect();
    for (i, &(k1, n1)) in given.iter().enumerate() {
        for &(k2, n2) in &given[i + 1..] {
            if n2 > n1 || n2 + 1 < n1 {
                return Some(format!(
                    "shard {k1}/{m} lists {n1} seeds and shard {k2}/{m} lists {n2}: parts of \
                     one seed list differ by at most one seed, the lower K holding more; these \
                     ran different --seeds lists, and seeds of the longer one are missing"
                ));
            }
        }
    }
    None
}

/// Seeds with a result whose `SEED.in` or `SEED.out` is gone from its folder: the result
/// cannot be checked or replayed, so the seed counts as missing. Returns what is gone, in words.
fn broken_files(results: &BTreeMap<u64, (SeedResult, &Path)>) -> Vec<(u64, String)> {
    let mut broken = Vec::new();
    for (seed, (_, dir)) in results {
        for ext in ["in", "out"] {
            let file = dir.join(format!("{seed}.{ext}"));
            if !file.is_file() {
                broken.push((*seed, format!("{} is missing", file.display())));
                break;
            }
        }
    }
    broken
}

/// Copies the files of `seed` from `from` to `to`; its case `SEED.in` is written as the
/// generator makes it for `ranges` (the case its answer was judged against), not copied.
fn copy_seed(seed: u64, from: &Path, to: &Path, ranges: &Ranges) -> Result<(), String> {
    let case = to.join(format!("{seed}.in"));
    crate::cli::replace::replace_file(&case, generate(seed, ranges).input.to_string().as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", case.display()))?;
    for ext in ["out", "err", "html"] {
        let name = format!("{seed}.{ext}");
        let src = from.join(&name);
        if src.is_file() {
            // A symbolic link planted in the merged folder is replaced, not written through.
            crate::cli::replace::replace_copy(&src, &to.join(&name))
                .map_err(|e| format!("cannot copy {}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// The results of the parts by seed, with the folder each comes from (the first folder wins a
/// seed with results in two, with --allow-overlap). Each judged verdict is the judge's on the
/// part's saved `SEED.out` (as `--resume`, `rescore` and `ab` take it: an edited score in a
/// results.json must not count), with a warning where it differs from the recorded one.
fn collect<'a>(
    parts: &[StoredRun],
    dirs: &'a [PathBuf],
    (allow_overlap, ranges): (bool, &Ranges),
) -> Result<BTreeMap<u64, (SeedResult, &'a Path)>, String> {
    let mut results: BTreeMap<u64, (SeedResult, &Path)> = BTreeMap::new();
    for (part, dir) in parts.iter().zip(dirs) {
        let (judged, warnings) = rejudged(dir, part.results.clone(), ranges);
        for warning in warnings {
            let warning = warning.trim_start_matches("--resume: ");
            crate::cli::quote::warn("tester merge", &format!("{}: {warning}", dir.display()));
        }
        for r in &judged {
            if let Some((_, first)) = results.get(&r.seed) {
                if !allow_overlap {
                    return Err(format!(
                        "seed {} has results in both {} and {} (pass --allow-overlap to keep \
                         the first)",
                        r.seed,
                        first.display(),
                        dir.display()
                    ));
                }
                continue;
            }
            results.insert(r.seed, (r.clone(), dir.as_path()));
        }
    }
    Ok(results)
}

/// `N seeds …: 1, 2, 3` with at most 20 seeds named.
fn seed_list(what: &str, seeds: &[u64]) -> String {
    let shown: Vec<String> = seeds.iter().take(20).map(u64::to_string).collect();
    format!(
        "{} {what} ({}{})",
        count(seeds.len(), "seed"),
        shown.join(", "),
        if seeds.len() > 20 { ", …" } else { "" }
    )
}

/// Runs `tester merge`; returns the exit code (0, or 1 when seeds are missing and
/// --allow-missing merged what is there).
pub fn run(args: &Args) -> Result<i32, String> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(dir) = args.dirs.iter().find(|d| same(d, &args.out)) {
        return Err(format!(
            "--out {} is one of the folders to merge; write the merged run elsewhere",
            dir.display()
        ));
    }
    let parts = load_parts(&args.dirs)?;
    let (mut seeds, mut missing) = full_seed_list(&parts);
    // load_parts checked that every part drew its cases alike.
    let ranges = parts[0].info.case_ranges();
    let mut results = collect(&parts, &args.dirs, (args.allow_overlap, &ranges))?;
    for (seed, why) in broken_files(&results) {
        missing.push(format!("seed {seed}: {why}"));
        results.remove(&seed);
    }
    let mut unique = std::collections::HashSet::new();
    seeds.retain(|s| unique.insert(*s));
    let unfinished: Vec<u64> = seeds
        .iter()
        .copied()
        .filter(|s| !results.contains_key(s))
        .collect();
    if !unfinished.is_empty() {
        missing.push(seed_list("without a result", &unfinished));
    }
    if !missing.is_empty() && !args.allow_missing {
        return Err(format!(
            "missing seeds: {}; pass --allow-missing to merge what is there",
            missing.join("; ")
        ));
    }
    let _lock = prepare_out(args, &seeds)?;
    for (seed, (_, dir)) in &results {
        copy_seed(*seed, dir, &args.out, &ranges)?;
    }
    let mut merged: Vec<SeedResult> = seeds
        .iter()
        .filter_map(|s| results.get(s).map(|(r, _)| r.clone()))
        .collect();
    let (_, bests) = load_bests(args.bests.as_deref())?;
    let bounds = load_bounds(args.bounds.as_deref())?.1;
    for warning in set_bounds(&mut merged, bounds.as_ref()) {
        crate::cli::quote::warn("tester merge", &warning);
    }
    let mut info = parts[0].info.clone();
    info.seeds = seeds;
    info.shard = None;
    info.cores = parts.iter().map(|p| p.info.cores).sum();
    info.started = parts
        .iter()
        .map(|p| p.info.started.clone())
        .min()
        .unwrap_or_default();
    // The record is the first part's: so is its patch (`git_dirty`, `git_patch`).
    let patch = crate::cli::readcap::read_capped(
        &args.dirs[0].join(crate::cli::provenance::PATCH),
        crate::cli::readcap::JSON_MAX,
        "a git.patch",
    )
    .ok();
    let tree = crate::cli::provenance::TreeState {
        dirty: info.git_dirty,
        patch: patch.filter(|_| info.git_patch.is_some()),
        left_out: info.git_left_out.clone(),
    };
    info.git_patch = crate::cli::provenance::write_patch(&args.out, &tree)?.map(str::to_string);
    let interrupted = !missing.is_empty() || parts.iter().any(|p| p.interrupted);
    let path = write_run(
        &args.out,
        &info.document(&merged, interrupted, bests.as_ref()),
    )?;
    crate::cli::out::print(&summary(&merged, bests.as_ref()));
    outln!(
        "merged {}: {} into {}",
        count(parts.len(), "folder"),
        count(merged.len(), "seed"),
        path.display()
    );
    if missing.is_empty() {
        return Ok(0);
    }
    crate::diag!(
        "tester merge: merged with seeds missing (the run is marked interrupted): {}",
        missing.join("; ")
    );
    Ok(1)
}

/// Readies `--out` for a merged run of `seeds` and locks it (a folder another tester process
/// writes is refused): refuses a run there unless --force (which deletes that run's own files,
/// nothing else) and files of `seeds` no recorded run wrote. The lock lasts as long as the
/// value returned.
fn prepare_out(args: &Args, seeds: &[u64]) -> Result<FolderLock, String> {
    let lock = lock_folder(&args.out, "tester merge")?;
    let recorded = recorded_run(&args.out)?;
    if recorded.is_some() && !args.force {
        return Err(format!(
            "{} already holds a run; pass --force to replace it",
            args.out.display()
        ));
    }
    let (old_seeds, files) = recorded.unwrap_or_default();
    refuse_foreign(&args.out, seeds, &old_seeds)?;
    for file in files {
        fs::remove_file(&file).map_err(|e| format!("cannot delete {}: {e}", file.display()))?;
    }
    Ok(lock)
}
