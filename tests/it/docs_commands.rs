//! Every `queenattack` and `tester` command shown in README.md and docs/*.md parses: its
//! subcommand exists and so does each option it gives (checked against the binary's own
//! `--help`; `tester`'s from its clap definition in the `tools` library). Every `--param
//! NAME=…` the pages write names a parameter `queenattack --list-params` lists (issue 59, item
//! 12: docs/tuning.md showed `--param restarts=5`, which no solver had). The `nqueens` package
//! checks its own commands the same way (`nqueens/tests/it/docs_commands.rs`). Expensive
//! commands are not run: a shown command that parses runs as written.

use super::docs_scan::{
    fault, help_options, help_subcommands, invocations, pages, shown_runs, Invocation, BINARIES,
};
use clap::CommandFactory;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The workspace's top folder.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The text `queenattack` prints for `args`.
fn queenattack(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_queenattack"))
        .args(args)
        .output()
        .expect("queenattack runs");
    assert!(out.status.success(), "queenattack {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The names `--param NAME=` is given with in `text` (across a line break too), placeholders
/// in capitals (`--param NAME=VALUE`) left out.
fn param_names(text: &str) -> Vec<String> {
    text.split("--param")
        .skip(1)
        .filter(|rest| rest.starts_with(|c: char| c.is_whitespace()))
        .filter_map(|rest| {
            let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\\');
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let named = !name.is_empty() && rest[name.len()..].starts_with('=');
            (named && name.starts_with(|c: char| c.is_ascii_lowercase())).then_some(name)
        })
        .collect()
}

#[test]
fn every_param_the_docs_name_exists() {
    let listed: BTreeSet<String> = queenattack(&["--list-params"])
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(listed.len() > 50, "only {} parameters listed", listed.len());
    let mut named = 0;
    let mut unknown = Vec::new();
    for (page, text) in pages(root()) {
        for name in param_names(&text) {
            named += 1;
            if !listed.contains(&name) {
                unknown.push(format!("{}: --param {name}", page.display()));
            }
        }
    }
    assert!(named >= 10, "only {named} `--param NAME=` found");
    assert!(
        unknown.is_empty(),
        "parameters the solver does not have (queenattack --list-params):\n{}",
        unknown.join("\n")
    );
}

#[test]
fn solver_md_names_every_parameter() {
    // docs/solver.md is the design: each stage names the parameters that tune it.
    let text = std::fs::read_to_string(root().join("docs/solver.md")).expect("docs/solver.md");
    let listed: Vec<String> = queenattack(&["--list-params"])
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(listed.len() > 50, "only {} parameters listed", listed.len());
    let missing: Vec<&String> = listed
        .iter()
        .filter(|name| !text.contains(&format!("`{name}`")) && !text.contains(&format!("`{name}=")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/solver.md does not name these parameters (as `name`): {missing:?}"
    );
}

#[test]
fn every_queenattack_and_tester_command_the_docs_show_parses() {
    let pages = pages(root());
    let mut faults = Vec::new();

    let solver_options = help_options(&queenattack(&["--help"]));
    assert!(solver_options.contains("--bound-time") && solver_options.contains("-h"));
    let solver_runs = shown_runs(&pages, "queenattack");
    for (page, run) in &solver_runs {
        if let Some(why) = fault(run, &BTreeSet::new(), &|_| solver_options.clone()) {
            faults.push(format!("{}: {}: {why}", page.display(), run.shown));
        }
    }

    let mut tester = tools::cli::Cli::command();
    tester.build();
    let mut subcommands = BTreeSet::new();
    for sub in tester.get_subcommands() {
        subcommands.insert(sub.get_name().to_string());
        subcommands.extend(sub.get_all_aliases().map(str::to_string));
    }
    let options_of = |sub: Option<&str>| -> BTreeSet<String> {
        let mut command = tester.clone();
        let help = match sub {
            Some(name) => command
                .find_subcommand_mut(name)
                .expect("a subcommand")
                .render_long_help(),
            None => command.render_long_help(),
        };
        help_options(&help.to_string())
    };
    assert!(options_of(Some("run")).contains("--seeds") && subcommands.contains("ab"));
    let listed = help_subcommands(&tester.clone().render_long_help().to_string());
    assert!(
        listed.contains("run") && listed.is_subset(&subcommands),
        "`tester --help` lists {listed:?}"
    );
    let tester_runs = shown_runs(&pages, "tester");
    for (page, run) in &tester_runs {
        if let Some(why) = fault(run, &subcommands, &options_of) {
            faults.push(format!("{}: {}: {why}", page.display(), run.shown));
        }
    }

    // The scan sees the pages' commands (a broken scan would find no fault either).
    assert!(
        solver_runs.len() >= 10 && tester_runs.len() >= 40,
        "only {} queenattack and {} tester commands found",
        solver_runs.len(),
        tester_runs.len()
    );
    eprintln!(
        "{} queenattack, {} tester commands",
        solver_runs.len(),
        tester_runs.len()
    );
    assert!(
        faults.is_empty(),
        "{} shown commands do not parse:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

#[test]
fn the_scan_reads_commands_as_a_shell_splits_them() {
    let shown = |line: &str| -> Vec<(String, Option<String>, Vec<String>)> {
        invocations(line)
            .into_iter()
            .map(
                |Invocation {
                     binary,
                     subcommand,
                     options,
                     ..
                 }| (binary, subcommand, options),
            )
            .collect()
    };
    let run = |b: &str, s: Option<&str>, o: &[&str]| {
        (
            b.to_string(),
            s.map(str::to_string),
            o.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        shown(
            "./target/release/tester run --seeds=1-3 -o x --exec \"queenattack --seed 2\" # --no"
        ),
        [
            run("queenattack", None, &["--seed"]),
            run("tester", Some("run"), &["--seeds", "-o", "--exec"]),
        ]
    );
    assert_eq!(
        shown(
            "nice -n 10 tester ab --time-limit 1 | nqueens verify --timings; cargo test -p nqueens"
        ),
        [
            run("tester", Some("ab"), &["--time-limit"]),
            run("nqueens", Some("verify"), &["--timings"]),
        ]
    );
    // parallel's own options and a binary given as an option's value are not runs
    assert_eq!(
        shown("parallel -j 1 --basefile target/release/tester ./target/release/tester merge --force ::: 1 2"),
        [run("tester", Some("merge"), &["--force"])]
    );
    assert_eq!(shown("python3 bench.py nqueens --count 5"), []);
    assert_eq!(
        shown("python3 bench.py ./target/release/nqueens --count 5"),
        []
    );
    assert_eq!(
        shown("queenattack --time-limit -1 < 1.in > 1.out 2>&1"),
        [run("queenattack", None, &["--time-limit"])]
    );
    let help = "Usage: tester run\n\nOptions:\n  -o, --out <OUT>\n          Folder\n      \
                --seeds <SEEDS>\n          e.g. --not-this\n  -h, --help\n";
    let options: Vec<String> = help_options(help).into_iter().collect();
    assert_eq!(options, ["--help", "--out", "--seeds", "-h", "-o"]);
    // help wrapped at the terminal's width (clap's `wrap_help`): a description's second line is
    // no subcommand nor option, whatever word it starts with
    let wrapped = "Commands:\n  verify  Check a board: no two queens may share a row, column or\n          \
                   diagonal\n  solve   Print one\n\nOptions:\n      --seeds <SEEDS>  the seeds, see\n  \
                   \x20                  --not-this\n  -h, --help  Print help\n";
    let listed: Vec<String> = help_subcommands(wrapped).into_iter().collect();
    assert_eq!(listed, ["solve", "verify"]);
    let options: Vec<String> = help_options(wrapped).into_iter().collect();
    assert_eq!(options, ["--help", "--seeds", "-h"]);
    assert_eq!(
        param_names("a `--param t1=0.2` and --param\n  lift_time=0.5, not --param NAME=V, --param-space x, --param …"),
        ["t1", "lift_time"]
    );
    let typo = Invocation {
        binary: "tester".into(),
        subcommand: Some("rnu".into()),
        options: vec![],
        shown: "tester rnu".into(),
    };
    let subs: BTreeSet<String> = ["run".to_string()].into();
    assert!(fault(&typo, &subs, &|_| BTreeSet::new()).is_some());
    assert!(BINARIES.contains(&"tester"));
}
