//! `tester runs` (alias `history`): one line per run folder, newest first; an A/B folder of
//! `tester ab` as its two arms (`ab-…/base`, `ab-…/new`).

use crate::cli::out::outln;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use clap::Args as ClapArgs;
use serde_json::{json, Value};

use crate::cli::bests::load_bests;
use crate::cli::bests::Bests;
use crate::cli::command::ab::folder::AB_JSON;
use crate::cli::command::run::project;
use crate::cli::folder::RunFolder;
use crate::cli::quote::{printable, printable_lines};
use crate::cli::report::Group;
use crate::cli::root;

/// Options of `tester runs`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The folder holding the run folders (`tester run` writes `runs/YYYYMMDD-HHMMSS` by
    /// default). Default: where `tester run` puts them: beside the nearest tester.toml (its
    /// `out`, else `runs`), else `runs` of the project's top folder above (the nearest holding
    /// `testcases/bests.json` or `testcases/bounds.json`), else `runs` here.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print one JSON object per run (a JSON array) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Best known scores for the relative score (so that old and new runs are measured
    /// against the same bests). Default: `testcases/bests.json` (here or of the project's top
    /// folder) if it exists.
    #[arg(long, value_name = "FILE")]
    pub bests: Option<PathBuf>,
}

/// One listed run.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The folder's name under the listed folder.
    pub name: String,
    /// What `results.json` says.
    pub run: RunFolder,
    /// Seeds, ok count, mean of the ok scores and relative score (against the bests file
    /// today, for runs on the official cases with a seed in it).
    pub group: Group,
}

/// When `results.json` was last written (to order runs that only know their day).
fn modified(dir: &Path) -> Option<SystemTime> {
    fs::metadata(dir.join("results.json"))
        .and_then(|m| m.modified())
        .ok()
}

/// The run folders directly under `dir` (and the two arms of an A/B folder), newest first: by
/// `started` (or `date`), then by the time `results.json` was written, then by name. Folders
/// whose `results.json` cannot be read are reported on standard error and skipped.
pub fn list(dir: &Path, bests: Option<&Bests>) -> Result<Vec<Entry>, String> {
    let entries = fs::read_dir(dir).map_err(|e| {
        format!(
            "cannot read folder {}: {e} (`tester run` writes its runs under runs/)",
            dir.display()
        )
    })?;
    let mut folders = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let (path, name) = (
            entry.path(),
            entry.file_name().to_string_lossy().into_owned(),
        );
        // An A/B (`tester ab`) is listed as its two arms, each a run folder.
        if path.join(AB_JSON).is_file() {
            for arm in ["base", "new"] {
                folders.push((path.join(arm), format!("{name}/{arm}")));
            }
        } else {
            folders.push((path, name));
        }
    }
    let mut found = Vec::new();
    for (path, name) in folders {
        if !path.join("results.json").is_file() {
            continue;
        }
        match RunFolder::load(&path) {
            Ok(run) => {
                let bests = bests.filter(|_| run.official);
                let mut group = Group::of(run.results.values(), bests);
                // A seed missing from the bests file is measured against its own score (100):
                // with no seed there, the relative score would read as perfect, and says
                // nothing.
                if bests.is_some_and(|b| run.results.keys().all(|&s| b.score(s).is_none())) {
                    group.relative = None;
                }
                found.push((
                    run.when.clone(),
                    modified(&path),
                    Entry { name, run, group },
                ));
            }
            Err(e) => crate::diag!("tester runs: skipped: {}", printable_lines(&e, 300)),
        }
    }
    found.sort_by(|a, b| (&b.0, b.1, &b.2.name).cmp(&(&a.0, a.1, &a.2.name)));
    Ok(found.into_iter().map(|(_, _, e)| e).collect())
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The table: one line per run.
pub fn table(entries: &[Entry]) -> String {
    let mut s = format!(
        "{:<20} {:<18} {:>5} {:>5} {:>11} {:>8} {:>6}  {}\n",
        "when", "folder", "seeds", "ok", "mean", "relative", "limit", "command / comment"
    );
    for e in entries {
        let mut what = e.run.command.clone().unwrap_or_else(|| "-".into());
        // Long commands are mostly a path: keep their end, the program's name.
        let count = what.chars().count();
        if count > 60 {
            what = format!("…{}", what.chars().skip(count - 59).collect::<String>());
        }
        if e.run.interrupted {
            what.push_str("  [unfinished: interrupted or still running]");
        }
        if let Some(c) = &e.run.comment {
            what = format!("{what} — {c}");
        }
        // Names, dates, commands and comments come from files: escaped, shortened.
        let what = printable(&what, 300);
        let when = printable(e.run.when.as_deref().unwrap_or("-"), 40);
        s.push_str(&format!(
            "{:<20} {:<18} {:>5} {:>5} {:>11} {:>8} {:>6}  {what}\n",
            when,
            printable(&e.name, 60),
            e.group.seeds,
            e.group.ok,
            opt(e.group.mean, 3),
            opt(e.group.relative, 3),
            e.run.time_limit.map_or("-".into(), |t| format!("{t}s")),
        ));
    }
    s
}

/// One run as JSON.
fn entry_json(e: &Entry) -> Value {
    json!({
        "folder": e.run.dir.display().to_string(),
        "when": e.run.when,
        "command": e.run.command,
        "comment": e.run.comment,
        "time_limit": e.run.time_limit,
        "interrupted": e.run.interrupted,
        "git_commit": e.run.git_commit,
        "seeds": e.group.seeds,
        "ok": e.group.ok,
        "mean": e.group.mean,
        "relative": e.group.relative,
    })
}

/// Runs `tester runs`.
pub fn run(args: &Args) -> Result<(), String> {
    let (_, bests) = load_bests(args.bests.as_deref())?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| runs_folder(&std::env::current_dir().unwrap_or_default()));
    let entries = list(&dir, bests.as_ref())?;
    if args.json {
        let list: Vec<Value> = entries.iter().map(entry_json).collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&list).expect("JSON values always serialise")
        );
    } else if entries.is_empty() {
        outln!("no run folders in {}", dir.display());
    } else {
        crate::cli::out::print(&table(&entries));
        if bests.is_none() {
            outln!("(relative: - without a bests file; --bests FILE)");
        } else if entries.iter().any(|e| e.group.relative.is_none()) {
            outln!(
                "(relative: - where no seed of the run has a best known score in the bests file, \
                 or the cases are not the official ones)"
            );
        }
    }
    Ok(())
}

/// The default folder of run folders seen from the folder `cwd`, where `tester run` puts its
/// runs: that of the nearest `tester.toml` (its `out`, else `runs` beside it; a file that is
/// not trusted is passed over here, `tester run` refuses it), else [`root::runs_folder`].
fn runs_folder(cwd: &Path) -> PathBuf {
    if let Ok(Some(found)) = project::find(cwd) {
        let runs = found.project.out.unwrap_or_else(|| PathBuf::from("runs"));
        return found.dir.join(runs);
    }
    root::runs_folder(cwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_listed_where_tester_run_puts_them() {
        // A tester.toml below the project's top folder: tester run wrote sub/myruns, tester
        // runs listed the top folder's runs/.
        let root = root::test_tree(
            "runs",
            &["testcases", "sub/deep", "docs"],
            &[
                ("testcases/bests.json", "{}"),
                ("sub/tester.toml", "out = \"myruns\"\n"),
            ],
        );
        assert_eq!(runs_folder(&root.join("sub/deep")), root.join("sub/myruns"));
        assert_eq!(runs_folder(&root.join("docs")), root.join("runs"));
        assert_eq!(runs_folder(&root), PathBuf::from("runs"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
