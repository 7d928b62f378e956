//! Every `nqueens` command shown in README.md and docs/*.md parses: its subcommand exists and
//! so does each option it gives, checked against `nqueens --help` and `nqueens SUBCOMMAND
//! --help`. The scan of the pages is the root package's (`tests/it/docs_scan.rs`, which checks
//! `queenattack` and `tester` the same way), included by its path: only this package's tests
//! can run the `nqueens` binary.

#[path = "../../../tests/it/docs_scan.rs"]
#[allow(dead_code)] // the root package's checks use the rest
mod docs_scan;

use docs_scan::{fault, help_options, help_subcommands, pages, shown_runs};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The help text of `nqueens ARGS --help`.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(args)
        .arg("--help")
        .output()
        .expect("nqueens runs");
    assert!(out.status.success(), "nqueens {args:?} --help: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn every_nqueens_command_the_docs_show_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pages = pages(&root);
    let mut subcommands = help_subcommands(&help(&[]));
    assert!(
        subcommands.contains("solve") && subcommands.contains("gen-composition"),
        "`nqueens --help` lists {subcommands:?}"
    );
    subcommands.remove("help");
    let mut options = std::collections::BTreeMap::new();
    options.insert(None, help_options(&help(&[])));
    for sub in &subcommands {
        options.insert(Some(sub.clone()), help_options(&help(&[sub])));
    }
    let options_of = |sub: Option<&str>| -> BTreeSet<String> {
        options
            .get(&sub.map(str::to_string))
            .cloned()
            .unwrap_or_default()
    };
    assert!(options_of(Some("complete")).contains("--nightrider"));
    let runs = shown_runs(&pages, "nqueens");
    let faults: Vec<String> = runs
        .iter()
        .filter_map(|(page, run)| {
            let why = fault(run, &subcommands, &options_of)?;
            Some(format!("{}: {}: {why}", page.display(), run.shown))
        })
        .collect();
    // The scan sees the pages' commands (a broken scan would find no fault either).
    assert!(
        runs.len() >= 20,
        "only {} nqueens commands found",
        runs.len()
    );
    assert!(
        faults.is_empty(),
        "{} shown commands do not parse:\n{}",
        faults.len(),
        faults.join("\n")
    );
}
