//! `tester init`: writes a commented `tester.toml` (the project file of `tester run`, read by
//! [`super::project`]) naming the solver to run and its build: queenattack's own in a Cargo
//! project, the user's with `--solver` and `--build`, and no build where there is no Cargo
//! project to build (a bare `tester run` then never fails on `cargo build`).

use crate::cli::out::outln;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use super::project::FILE;
use crate::cli::quote::printable;
use crate::cli::replace::replace_file;

/// What `tester init` writes in a Cargo project without `--solver` or `--build`: queenattack,
/// built by cargo.
pub const TEMPLATE: &str = r#"# tester.toml: the project file of `tester run` (see docs/tester.md, "Project file").
# `tester run` looks for it in the current folder and the folders above, and then works in
# this file's folder. Options given on the command line win over the values here; delete a
# line to use the default.

# The solver, run with `sh -c` for every seed (the case on stdin, the moves on stdout).
# `{time_limit}` becomes the run's limit in seconds (`time_limit` below, or --time-limit), so
# the solver aims at the moment tester stops it. Without this line (and without --exec) tester
# runs target/release/queenattack beside itself with `--time-limit SECS` appended; a command
# given here gets nothing added. `{seed}` becomes the case's seed (a solver seed that follows it).
solver = "./target/release/queenattack --time-limit {time_limit}"

# Run once before the seeds (skip it with --no-build). If it fails, its output is shown,
# nothing runs, and tester exits with code 3.
build = "cargo build --release"

# The seeds: "1-100", "1,4,9", "1-10,20", or a list [1, 2, 3].
seeds = "1-100"

# Seeds run at the same time (default: the number of cores).
# jobs = 2

# Wall-clock limit per seed in seconds (the solver is killed after it; queenattack answers
# within it).
time_limit = 10.0

# Best known scores for the relative score (default: testcases/bests.json if it exists).
# bests = "testcases/bests.json"

# The folder each run's folder is made in (runs/YYYYMMDD-HHMMSS); --out DIR names the run's
# folder itself.
out = "runs"
"#;

/// The template's solver line, replaced by `--solver`.
const SOLVER_LINE: &str = r#"solver = "./target/release/queenattack --time-limit {time_limit}""#;

/// The template's build line, replaced by `--build` or left out.
const BUILD_LINE: &str = r#"build = "cargo build --release""#;

/// Options of `tester init`.
#[derive(ClapArgs, Debug)]
#[command(
    after_help = "Your own solver in two commands: `tester init --solver \"python3 \
solve.py\"` (or `--solver ./solve --build \"g++ -O2 -o solve solve.cpp\"`), then `tester run`. \
Without --solver: queenattack built by `cargo build --release` in a Cargo project (a \
Cargo.toml in DIR or above), else queenattack beside tester, with no build step.\n\n\
The solver gets the case on stdin, which stays open until it answers, as under the official \
tester: read N, C and the N·N cells, then answer. A solver that reads stdin to its end \
(`sys.stdin.read()`, `while (cin >> x)`) waits for ever and times out on every seed."
)]
pub struct InitArgs {
    /// Folder to write `tester.toml` into (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Replace an existing `tester.toml`. A symbolic link there is replaced itself (never
    /// followed): the file it points to is left untouched.
    #[arg(long)]
    pub force: bool,
    /// The solver command to write: run with `sh -c` in the file's folder for every seed (the
    /// case on stdin, the moves on stdout), `{time_limit}` in it replaced by the run's limit in
    /// seconds; e.g. `--solver "python3 solve.py"`. Without --build it gets no build step.
    #[arg(long, value_name = "CMD")]
    pub solver: Option<String>,
    /// The build command to write, run once before the seeds (e.g. `--build "g++ -O2 -o solve
    /// solve.cpp"`).
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// Write no build step.
    #[arg(long, conflicts_with = "build")]
    pub no_build: bool,
}

/// `text` as a TOML string (quoted and escaped: quotes, backslashes, line breaks).
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Whether `dir` (or a folder above it) holds a `Cargo.toml`, where `cargo build` would find
/// a project to build.
fn in_cargo_project(dir: &Path) -> bool {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| d.join("Cargo.toml").is_file())
}

/// The file `tester init` writes for `args`, where `cargo` tells whether the folder is in a
/// Cargo project (see [`InitArgs`]).
pub fn template(args: &InitArgs, cargo: bool) -> String {
    let solver = match &args.solver {
        Some(command) => format!("solver = {}", toml_string(command)),
        None if cargo => SOLVER_LINE.to_string(),
        None => format!(
            "# No Cargo project here: without this line tester runs the queenattack beside \
             itself.\n# {SOLVER_LINE}"
        ),
    };
    let build = match &args.build {
        Some(command) => format!("build = {}", toml_string(command)),
        None if cargo && args.solver.is_none() && !args.no_build => BUILD_LINE.to_string(),
        None => {
            "# No build step; your own, e.g.:\n# build = \"g++ -O2 -o solve solve.cpp\"".to_string()
        }
    };
    TEMPLATE
        .replacen(SOLVER_LINE, &solver, 1)
        .replacen(BUILD_LINE, &build, 1)
}

/// Runs `tester init`: writes [`template`] as `DIR/tester.toml`. A symbolic link there counts
/// as an existing file (even a dangling one); with --force the link itself is replaced and the
/// file it pointed to is left untouched.
pub fn init(args: &InitArgs) -> Result<(), String> {
    // Not into a run folder while its run writes it.
    let _lock = crate::cli::lock::lock_if_present(&args.dir, "tester init")?;
    let path = args.dir.join(FILE);
    // The folder's name is the user's text: a line break or an escape in it is shown escaped.
    let shown = printable(&path.display().to_string(), 300);
    // `symlink_metadata`: a link is seen as itself, never as its target.
    let existing = std::fs::symlink_metadata(&path).ok();
    if existing.is_some() && !args.force {
        return Err(format!(
            "{shown} already exists (pass --force to replace it)"
        ));
    }
    std::fs::create_dir_all(&args.dir).map_err(|e| {
        let folder = printable(&args.dir.display().to_string(), 300);
        format!("cannot create {folder}: {e}")
    })?;
    let cargo = in_cargo_project(&args.dir);
    let text = template(args, cargo);
    replace_file(&path, text.as_bytes()).map_err(|e| format!("cannot write {shown}: {e}"))?;
    let was_link = existing.is_some_and(|m| m.file_type().is_symlink());
    let note = if was_link {
        " (it replaced a symbolic link; the file the link pointed to is unchanged)"
    } else {
        ""
    };
    outln!("wrote {shown}{note}");
    let project = super::project::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
    let quoted = |c: &str| format!("`{}`", printable(c, 200));
    let solver = project.solver.as_deref().map_or_else(
        || "queenattack beside tester (none named)".to_string(),
        quoted,
    );
    let build = project.build.as_deref().map_or("none".to_string(), quoted);
    outln!("solver {solver}, build {build}; next: `tester run` in that folder");
    outln!(
        "the solver gets the case on stdin, which stays open until it answers: read N, C and \
         the N·N cells, then answer (never read to the end of stdin)"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command::run::project::parse;

    fn args(solver: Option<&str>, build: Option<&str>, no_build: bool) -> InitArgs {
        InitArgs {
            dir: PathBuf::from("."),
            force: false,
            solver: solver.map(str::to_string),
            build: build.map(str::to_string),
            no_build,
        }
    }

    #[test]
    fn the_solver_and_the_build_are_the_users() {
        let tricky = "python3 \"my solve.py\" --x 'a\\b'\n";
        let p = parse(&template(&args(Some(tricky), None, false), true)).unwrap();
        assert_eq!((p.solver.as_deref(), p.build), (Some(tricky), None));
        let with = template(&args(Some("./solve"), Some("make solve"), false), false);
        let p = parse(&with).unwrap();
        assert_eq!(p.build.as_deref(), Some("make solve"));
        // Outside a Cargo project, and with --no-build: no build; the default solver.
        let p = parse(&template(&args(None, None, false), false)).unwrap();
        assert_eq!((p.solver, p.build), (None, None));
        let p = parse(&template(&args(None, None, true), true)).unwrap();
        assert!(p.solver.is_some() && p.build.is_none());
        assert_eq!(template(&args(None, None, false), true), TEMPLATE);
    }

    #[test]
    fn the_template_parses() {
        let p = parse(TEMPLATE).unwrap();
        assert_eq!(p.build.as_deref(), Some("cargo build --release"));
        assert_eq!(p.seeds.unwrap().parse().unwrap().0.len(), 100);
        assert_eq!(p.time_limit, Some(10.0));
        let solver = p.solver.unwrap();
        assert_eq!(
            crate::cli::command::run::with_limit(&solver, 1.0),
            "./target/release/queenattack --time-limit 1"
        );
        assert_eq!(p.out, Some(PathBuf::from("runs")));
    }

    #[test]
    fn init_never_writes_through_a_symlink() {
        let root = std::env::temp_dir().join(format!("qa-init-link-{}", std::process::id()));
        let dir = root.join("d");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(root.join("precious.txt"), "precious\n").unwrap();
        std::os::unix::fs::symlink("../precious.txt", dir.join(FILE)).unwrap();
        let mut args = InitArgs {
            dir: dir.clone(),
            force: false,
            solver: None,
            build: None,
            no_build: false,
        };
        assert!(init(&args).unwrap_err().contains("already exists"));
        args.force = true;
        init(&args).unwrap();
        let precious = std::fs::read_to_string(root.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        let written = template(&args, in_cargo_project(&dir));
        assert_eq!(std::fs::read_to_string(dir.join(FILE)).unwrap(), written);
        // A dangling link is an existing file too: without --force nothing is created.
        std::fs::remove_file(dir.join(FILE)).unwrap();
        std::os::unix::fs::symlink("../made.toml", dir.join(FILE)).unwrap();
        args.force = false;
        assert!(init(&args).is_err());
        assert!(!root.join("made.toml").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
