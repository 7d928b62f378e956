//! `tester run --resume` and `--force`: a folder that holds a run is finished with the options
//! that run stored in its `results.json` (the solver command, the limit, `--n/--c/--p`, the
//! shard, the seeds, the comment), wherever the command line leaves them out; options given
//! must agree with the stored ones, and a disagreement is said as a sentence naming each one.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{default_solver, kept, Args};
use crate::cli::args::parse_shard;
use crate::cli::report::SeedResult;
use crate::cli::runfile::{is_run_file, read_run, recorded_run, refuse_foreign, RunInfo};
use crate::cli::select;

/// `args` (the command line after the project file, `given` the command line alone) with the
/// options of the run that `--resume` finishes in `--out` wherever `given` leaves them out.
/// Without `--resume`, or without a readable run there, `args` as they are (the folder is
/// then judged by [`prepare_folder`]).
pub(super) fn stored_options(given: &Args, args: &Args) -> Args {
    let mut args = args.clone();
    let Some(dir) = args.out.clone().filter(|_| args.resume) else {
        return args;
    };
    let Ok(Some(run)) = read_run(&dir) else {
        return args;
    };
    let old = run.info;
    // What is taken from the run, for the line that says so.
    let mut reused = Vec::new();
    if given.time_limit.is_none() && old.time_limit > 0.0 {
        args.time_limit = Some(old.time_limit);
        reused.push(format!("--time-limit {}", old.time_limit));
    }
    if given.exec.is_none() {
        // The default solver is stored as its command line: run it as such again only when it
        // is not that solver (a command, or a tester.toml `solver`).
        let default = default_solver(args.limit()).map(|s| s.describe());
        args.exec = (default.as_ref() != Ok(&old.command)).then(|| old.command.clone());
        reused.push(format!(
            "the solver `{}`",
            crate::cli::quote::printable(&old.command, 200)
        ));
    }
    if given.ranges.n.is_none() && given.ranges.c.is_none() && given.ranges.p.is_none() {
        let stored = old.case_ranges();
        (args.ranges.n, args.ranges.c, args.ranges.p) = (stored.n, stored.c, stored.p);
        reused.push(ranges_text(&old.ranges));
    }
    if given.shard.is_none() {
        args.shard = old.shard.as_deref().and_then(|s| parse_shard(s).ok());
        reused.extend(old.shard.as_ref().map(|s| format!("--shard {s}")));
    }
    if given.seeds.is_none() && !old.seeds.is_empty() {
        args.seeds = Some(crate::cli::args::SeedList(old.seeds.clone()));
        // A shard's stored list is already its part of the seeds.
        args.shard_selected = true;
        reused.push(format!(
            "its {}",
            crate::cli::quote::count(old.seeds.len(), "seed")
        ));
    }
    if given.comment.is_none() {
        args.comment = old.comment.clone();
    }
    if !args.quiet && !reused.is_empty() {
        crate::diag!(
            "tester run: --resume: the run in {} goes on with the options it stored: {}",
            dir.display(),
            reused.join(", ")
        );
    }
    args
}

/// `results.json`'s `ranges` as options: `--n 8-12 --p 0.1`, or `the official parameters (no
/// --n, --c, --p)`.
fn ranges_text(ranges: &Value) -> String {
    let parts: Vec<String> = ["n", "c", "p"]
        .iter()
        .filter_map(|key| {
            let pair = ranges.get(key)?.as_array()?;
            let (a, b) = (pair.first()?, pair.get(1)?);
            Some(if a == b {
                format!("--{key} {a}")
            } else {
                format!("--{key} {a}-{b}")
            })
        })
        .collect();
    if parts.is_empty() {
        "the official parameters (no --n, --c, --p)".to_string()
    } else {
        parts.join(" ")
    }
}

/// Each option in which `new` differs from the stored run `old`, as `what the run had; what
/// this one asks for`.
fn differences(old: &RunInfo, new: &RunInfo) -> Vec<String> {
    let mut said = Vec::new();
    if old.command != new.command {
        said.push(format!(
            "it ran the solver `{}`, this one would run `{}`",
            old.command, new.command
        ));
    }
    if old.time_limit != new.time_limit {
        said.push(format!(
            "it ran at --time-limit {}, this one asks for --time-limit {}",
            old.time_limit, new.time_limit
        ));
    }
    if old.ranges != new.ranges {
        said.push(format!(
            "it ran with {}, this one with {}",
            ranges_text(&old.ranges),
            ranges_text(&new.ranges)
        ));
    }
    if old.shard != new.shard {
        let shard = |s: &Option<String>| {
            s.as_ref()
                .map_or("no --shard".to_string(), |s| format!("--shard {s}"))
        };
        said.push(format!(
            "it ran {}, this one asks for {}",
            shard(&old.shard),
            shard(&new.shard)
        ));
    }
    said
}

/// Readies `dir` for a run of `seeds`: refuses a folder that holds a run (a `results.json`)
/// unless --resume (returns the finished results, judged again, see [`kept`], and the seed
/// list of that run) or --force
/// (deletes that run's files: its `results.json` and the `SEED.*` files of its seeds, nothing
/// else), and refuses files of `seeds` that no recorded run wrote.
pub(super) fn prepare_folder(
    dir: &Path,
    args: &Args,
    info: &RunInfo,
    seeds: &[u64],
) -> Result<(Vec<SeedResult>, Vec<u64>), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // A tester killed in the middle of a write (SIGKILL, a file-size limit) left its temporary
    // file: removed once its writer is gone, never kept as the run's.
    let mut notes = Vec::new();
    super::answers::remove_temporaries(dir, &mut notes, is_run_file)?;
    select::warn_all(&notes);
    let recorded = recorded_run(dir).map_err(|e| {
        format!(
            "{e} (the run in {} cannot be read: move it away)",
            dir.display()
        )
    })?;
    let Some((old_seeds, files)) = recorded else {
        refuse_foreign(dir, seeds, &[])?;
        return Ok((Vec::new(), Vec::new()));
    };
    if args.force {
        refuse_foreign(dir, seeds, &old_seeds)?;
        for file in files {
            fs::remove_file(&file).map_err(|e| format!("cannot delete {}: {e}", file.display()))?;
        }
        return Ok((Vec::new(), Vec::new()));
    }
    if !args.resume {
        return Err(format!(
            "{} already holds a run ({} files of a run there); pass --resume to finish its \
             missing seeds, --force to replace it, or another --out",
            dir.display(),
            files.len()
        ));
    }
    refuse_foreign(dir, seeds, &old_seeds)?;
    let Some(old) = read_run(dir)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let differ = differences(&old.info, info);
    if !differ.is_empty() {
        return Err(format!(
            "--resume: the run in {} cannot be finished this way: {}. A resumed run must use \
             the same solver, time limit, --n/--c/--p and shard as the run it finishes: leave \
             those options out to reuse the run's own, or pass --force to replace the run",
            dir.display(),
            differ.join("; ")
        ));
    }
    // What the earlier run recorded counts only as judged again now.
    let (kept, warnings) = kept::rejudged(dir, old.results, &args.ranges.ranges());
    select::warn_all(&warnings);
    Ok((kept, old.info.seeds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::runfile::{float_range, int_range};
    use serde_json::json;

    #[test]
    fn options_are_said_as_options() {
        let none = json!({"n": null, "c": null, "p": null});
        assert_eq!(
            ranges_text(&none),
            "the official parameters (no --n, --c, --p)"
        );
        let some = json!({"n": [8, 12], "c": null, "p": [0.1, 0.1]});
        assert_eq!(ranges_text(&some), "--n 8-12 --p 0.1");
        assert_eq!(int_range(&some["n"]), Some((8, 12)));
        assert_eq!(int_range(&some["c"]), None);
        assert_eq!(float_range(&some["p"]), Some((0.1, 0.1)));
    }

    #[test]
    fn every_difference_is_a_sentence_without_json() {
        let solver = crate::cli::exec::Solver::Shell("echo 0".into());
        let old = RunInfo::now(&solver, 1.0, json!({"n": null, "c": null, "p": null}), None);
        let mut new = old.clone();
        assert!(differences(&old, &new).is_empty());
        new.time_limit = 2.0;
        new.ranges = json!({"n": null, "c": [2, 3], "p": null});
        new.shard = Some("1/2".into());
        let said = differences(&old, &new).join("; ");
        assert_eq!(
            said,
            "it ran at --time-limit 1, this one asks for --time-limit 2; it ran with the \
             official parameters (no --n, --c, --p), this one with --c 2-3; it ran no --shard, \
             this one asks for --shard 1/2"
        );
        assert!(!said.contains('{'), "{said}");
    }
}
