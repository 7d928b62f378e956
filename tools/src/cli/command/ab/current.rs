//! The current build of `tester ab`: an arm with neither a revision nor a command is what the
//! working tree builds, run from a copy of its own in `OUT/bin/` (a rebuild during the A/B
//! cannot change it) with the pair's solver seed.
//!
//! Without a `tester.toml` solver: when the `queenattack` beside `tester` is the build of the
//! repository the A/B runs in (it lies inside that repository, as `target/release/queenattack`
//! does, or the dep-info file `queenattack.d` that cargo writes beside it lists that
//! repository's sources), the arm's build is `cargo build --release --bin queenattack` in the
//! repository's top folder into a target folder of the A/B's own, `T/tester-ab` beside the
//! binary's `T/release` (kept from one A/B to the next, so only changes are compiled), followed
//! by the copy into `OUT/bin/`: the arm runs the working tree, uncommitted changes included,
//! and `T/release/queenattack`, the binary `tester run` runs, is left as it was (an A/B of an
//! edit since reverted leaves no build of the edit there). Otherwise the binary is copied as it
//! is, and a warning says so when its dep-info names a source that changed after it was built.
//!
//! With a `tester.toml` solver ([`project_solver`]): its program, when the command names one by
//! its path, is copied into `OUT/bin/` after the file's build and run from there, in the
//! file's folder; a queenattack gets `--seed {seed}`.

use std::path::{Path, PathBuf};

use crate::cli::command::run::project::Found;
use crate::cli::command::run::{default_solver, TIME_LIMIT_MARK};
use crate::cli::exec::Solver;
use crate::cli::provenance::{dep_info, freshness, Freshness};

/// What a command's text holds where the pair's solver seed goes.
pub use crate::cli::exec::SEED_MARK;

/// The A/B's own target folder for the working tree's build, beside `release` in the target
/// folder of the binary beside `tester`.
pub const AB_TARGET: &str = "tester-ab";

pub use crate::cli::quote::sh_quote;

/// How the current build is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Current {
    /// The copy the arm runs, `OUT/bin/queenattack`.
    pub copy: PathBuf,
    /// The shell line that builds the working tree and copies the binary (when the binary is
    /// that tree's build); without it, the binary is already copied.
    pub build: Option<String>,
    /// Why the copied binary may not be what its sources build now.
    pub stale: Option<String>,
}

/// `mkdir -p BIN && cp FROM COPY.new && mv COPY.new COPY` (`BIN` the folder of `copy`): the
/// copy is written whole and then renamed, so a stopped copy leaves no half binary.
fn copy_line(from: &str, copy: &Path) -> String {
    let q = |p: &Path| sh_quote(&p.to_string_lossy());
    format!(
        "mkdir -p {} && cp {from} {}.new && mv {}.new {}",
        q(&bin_of(copy)),
        q(copy),
        q(copy),
        q(copy)
    )
}

/// The current build of an A/B in `out`, in the repository whose top folder is `top` (the
/// one holding the current folder, if any).
pub fn plan(out: &Path, top: Option<&Path>) -> Result<Current, String> {
    let copy = out.join("bin").join("queenattack");
    let Solver::Program { path, .. } = default_solver(1.0)? else {
        unreachable!("the default solver is a program");
    };
    if let Some((top, target)) = top.and_then(|t| Some((t, target_of(&path, t)?))) {
        let own = target.join(AB_TARGET);
        let built = own
            .join("release")
            .join(path.file_name().unwrap_or_default());
        let q = |p: &Path| sh_quote(&p.to_string_lossy());
        let line = format!(
            "cd {} && export CARGO_TARGET_DIR={} && cargo build --release --bin queenattack && {}",
            q(top),
            q(&own),
            copy_line(&q(&built), &copy)
        );
        return Ok(Current {
            copy,
            build: Some(line),
            stale: None,
        });
    }
    if !copy.is_file() {
        let bin = bin_of(&copy);
        std::fs::create_dir_all(&bin)
            .map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
        std::fs::copy(&path, &copy)
            .map_err(|e| format!("cannot copy {} to {}: {e}", path.display(), copy.display()))?;
    }
    let stale = match freshness(&path) {
        Freshness::Stale(source) => Some(format!(
            "it runs {}, built before {} last changed: not what its sources build now. Build it \
             first (cargo build --release), or run tester ab in the repository it is built \
             from, which builds it",
            path.display(),
            source.display()
        )),
        _ => None,
    };
    Ok(Current {
        copy,
        build: None,
        stale,
    })
}

/// A shell solver: `cd DIR && ` (when given), the command, the arm's args.
pub fn shell(dir: Option<&Path>, command: &str, args: &[String]) -> Solver {
    let cd = dir.map_or(String::new(), |d| {
        format!("cd {} && ", sh_quote(&d.to_string_lossy()))
    });
    let extra: String = args.iter().map(|a| format!(" {a}")).collect();
    Solver::Shell(format!("{cd}{command}{extra}"))
}

/// A `tester.toml` solver as an arm of an A/B runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectSolver {
    /// The command, run in the file's folder.
    pub solver: Solver,
    /// The file's build (in its folder, in a shell of its own), then the copy of the program
    /// into `OUT/bin/`.
    pub build: Option<String>,
    /// What the arm cannot have: a frozen copy (the command names no program by its path) or
    /// the pair's seed (neither queenattack nor `{seed}`).
    pub note: Option<String>,
}

/// The solver of `found` (a `tester.toml` with a `solver`) for an arm of the A/B in `out`
/// with the extra arguments `args`: the program the command names by its path (`./solve`,
/// `./target/release/queenattack`) is copied into `OUT/bin/` after the file's build and run
/// from there, in the file's folder, with the rest of the command, [`seeded`]; a command of
/// another kind (`python3 solve.py`, a pipe) runs in place, as written, and the note says so.
pub fn project_solver(found: &Found, out: &Path, args: &[String]) -> ProjectSolver {
    let command = found.project.solver.as_deref().unwrap_or_default();
    let cd = format!("cd {} && ", sh_quote(&found.dir.to_string_lossy()));
    let build = found.project.build.as_deref();
    let program = simple_program(command).filter(|(word, _)| word.contains('/'));
    // Decided on the command as written: the copy's path may hold what `seeded` refuses.
    let with_seed = seeded(command);
    let given_seed = with_seed != command || command.contains(SEED_MARK);
    let Some((word, rest)) = program else {
        let mut note = format!(
            "tester.toml's solver `{command}` names no program by its path (`./solve ...`): it \
             runs in place, so a rebuild during the A/B changes what is measured"
        );
        if !given_seed {
            note += "; and it gets no solver seed of the pair (write {seed} where it takes one)";
        }
        return ProjectSolver {
            solver: shell(Some(&found.dir), &with_seed, args),
            build: build.map(|b| format!("{cd}{b}")),
            note: Some(note),
        };
    };
    let name = Path::new(&word).file_name().unwrap_or_default();
    let copy = out.join("bin").join(name);
    // The build in a shell of its own: a comment or a `cd` in it cannot touch the copy.
    let built = build.map_or(String::new(), |b| format!("sh -c {} && ", sh_quote(b)));
    let copied = format!("{cd}{built}{}", copy_line(&sh_quote(&word), &copy));
    let seed = if with_seed != command {
        format!(" --seed {SEED_MARK}")
    } else {
        String::new()
    };
    let line = format!(
        "{}{}{seed}",
        sh_quote(&copy.to_string_lossy()),
        rest.trim_end()
    );
    let note = (!given_seed).then(|| {
        format!(
            "tester.toml's solver `{command}` gets no solver seed of the pair (only queenattack \
             is given --seed; write {{seed}} where yours takes one)"
        )
    });
    ProjectSolver {
        solver: shell(Some(&found.dir), &line, args),
        build: Some(copied),
        note,
    }
}

/// `command` with ` --seed {seed}` appended when it is a simple command running a
/// `queenattack` that is given no seed (no `--seed`, no `{seed}`): both arms of a pair run
/// with the pair's solver seed, as the queenattack binaries of revisions and the current build
/// do. Any other command is returned as it is.
pub fn seeded(command: &str) -> String {
    let queenattack = simple_program(command).is_some_and(|(word, _)| {
        Path::new(&word)
            .file_name()
            .is_some_and(|n| n == "queenattack")
    });
    if queenattack && !command.contains(SEED_MARK) && !command.contains("--seed") {
        format!("{} --seed {SEED_MARK}", command.trim_end())
    } else {
        command.to_string()
    }
}

/// The program of a simple shell command (one command: no operator, redirection, expansion,
/// escape or glob outside tester's marks) as its first word (unquoted), and the rest of the
/// line as written; `None` for any other line.
fn simple_program(line: &str) -> Option<(String, &str)> {
    let plain = line.replace(SEED_MARK, "").replace(TIME_LIMIT_MARK, "");
    if plain.contains(|c: char| ";&|<>`$(){}\\\n*?[~#".contains(c)) {
        return None;
    }
    let line = line.trim_start();
    let (word, rest) = match line.chars().next()? {
        q @ ('\'' | '"') => {
            let end = line[1..].find(q)? + 1;
            (&line[1..end], &line[end + 1..])
        }
        _ => line.split_at(line.find(char::is_whitespace).unwrap_or(line.len())),
    };
    let glued = !rest.is_empty() && !rest.starts_with(char::is_whitespace);
    if glued || word.is_empty() || word.contains(['\'', '"', '=']) {
        return None;
    }
    Some((word.to_string(), rest))
}

/// The folder of `copy`.
fn bin_of(copy: &Path) -> PathBuf {
    copy.parent().map_or_else(PathBuf::new, Path::to_path_buf)
}

/// The target folder (`T` of `T/release/queenattack`) of `binary` when it is the release
/// build of the cargo project in `top`: it lies inside `top`, or its dep-info lists a source
/// inside `top`.
fn target_of(binary: &Path, top: &Path) -> Option<PathBuf> {
    let release = binary.parent()?;
    if release.file_name()? != "release" || !top.join("Cargo.toml").is_file() {
        return None;
    }
    let top = top.canonicalize().ok()?;
    let inside = binary.canonicalize().ok()?.starts_with(&top);
    let listed =
        dep_info(binary).is_some_and(|sources| sources.iter().any(|s| s.starts_with(&top)));
    (inside || listed).then(|| release.parent().map(Path::to_path_buf))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command::run::project::Project;

    fn found(solver: &str, build: Option<&str>) -> Found {
        Found {
            dir: PathBuf::from("/p q"),
            project: Project {
                solver: Some(solver.to_string()),
                build: build.map(str::to_string),
                ..Project::default()
            },
        }
    }

    #[test]
    fn a_project_queenattack_runs_from_its_copy_with_the_pairs_seed() {
        // Issue 69 item 5: what `tester init` writes ran in place, with no --seed.
        let init = "./target/release/queenattack --time-limit {time_limit}";
        let out = Path::new("/ab");
        let args = ["--param".to_string(), "t1=0.2".to_string()];
        let p = project_solver(&found(init, Some("cargo build --release")), out, &args);
        assert_eq!(
            p.solver,
            Solver::Shell(
                "cd '/p q' && '/ab/bin/queenattack' --time-limit {time_limit} --seed {seed} \
                 --param t1=0.2"
                    .into()
            )
        );
        assert_eq!(
            p.build.as_deref(),
            Some(
                "cd '/p q' && sh -c 'cargo build --release' && mkdir -p '/ab/bin' && cp \
                 './target/release/queenattack' '/ab/bin/queenattack'.new && mv \
                 '/ab/bin/queenattack'.new '/ab/bin/queenattack'"
            )
        );
        assert_eq!(p.note, None);
        // A program of another name is copied too, and told that it gets no seed.
        let own = project_solver(&found("'./my solve' --fast", None), out, &[]);
        assert_eq!(
            own.solver,
            Solver::Shell("cd '/p q' && '/ab/bin/my solve' --fast".into())
        );
        assert!(own
            .build
            .unwrap()
            .starts_with("cd '/p q' && mkdir -p '/ab/bin' && cp"));
        assert!(own.note.unwrap().contains("no solver seed"));
        // What names no program by its path runs in place, as written, and says so.
        let script = project_solver(&found("python3 solve.py", None), out, &[]);
        assert_eq!(
            script.solver,
            Solver::Shell("cd '/p q' && python3 solve.py".into())
        );
        assert_eq!(script.build, None);
        assert!(script.note.unwrap().contains("runs in place"));
    }

    #[test]
    fn the_pairs_seed_does_not_depend_on_the_out_folders_name_or_a_path() {
        // The seed was decided on the line with the copy's quoted path: an --out folder with
        // `(` in its name left queenattack unseeded, without a note; one found on PATH was
        // never seeded here, while the revision's arm seeds it.
        let init = "./target/release/queenattack --time-limit {time_limit}";
        let p = project_solver(&found(init, None), Path::new("runs/ab (2)"), &[]);
        assert_eq!(
            p.solver,
            Solver::Shell(
                "cd '/p q' && 'runs/ab (2)/bin/queenattack' --time-limit {time_limit} \
                 --seed {seed}"
                    .into()
            )
        );
        assert_eq!(p.note, None);
        let on_path = project_solver(&found("queenattack", None), Path::new("/ab"), &[]);
        assert_eq!(
            on_path.solver,
            Solver::Shell("cd '/p q' && queenattack --seed {seed}".into())
        );
        assert!(!on_path.note.unwrap().contains("no solver seed"));
    }

    #[test]
    fn only_a_simple_queenattack_command_without_a_seed_is_seeded() {
        let q = "./target/release/queenattack --time-limit {time_limit}";
        assert_eq!(seeded(q), format!("{q} --seed {{seed}}"));
        for kept in [
            "./target/release/queenattack --seed 3",
            "./queenattack --seed={seed}",
            "./solve --time-limit {time_limit}",
            "./target/release/queenattack | tee log",
            "cd x && ./queenattack",
            "Q=1 ./queenattack",
            "$HOME/queenattack",
        ] {
            assert_eq!(seeded(kept), kept);
        }
        assert_eq!(
            simple_program("'/a b/queenattack' --x"),
            Some(("/a b/queenattack".to_string(), " --x"))
        );
        assert_eq!(simple_program("'/a'b --x"), None);
        assert_eq!(simple_program("  "), None);
    }

    #[test]
    fn a_binary_is_the_trees_build_when_inside_it_or_listed_by_its_dep_info() {
        let root = std::env::temp_dir().join(format!("qa-ab-current-{}", std::process::id()));
        let (tree, elsewhere) = (root.join("tree"), root.join("elsewhere/release"));
        std::fs::create_dir_all(tree.join("target/release")).unwrap();
        std::fs::create_dir_all(tree.join("src")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(tree.join("Cargo.toml"), "").unwrap();
        std::fs::write(tree.join("src/main.rs"), "").unwrap();
        let inside = tree.join("target/release/queenattack");
        let outside = elsewhere.join("queenattack");
        for bin in [&inside, &outside] {
            std::fs::write(bin, "").unwrap();
        }
        assert_eq!(target_of(&inside, &tree), Some(tree.join("target")));
        // Outside the tree: only with a dep-info naming this binary and the tree's sources.
        assert_eq!(target_of(&outside, &tree), None);
        let main = tree.join("src/main.rs").canonicalize().unwrap();
        let info = |built: &Path| format!("{}: {}\n", built.display(), main.display());
        std::fs::write(outside.with_extension("d"), info(&inside)).unwrap();
        assert_eq!(target_of(&outside, &tree), None, "it names another binary");
        std::fs::write(outside.with_extension("d"), info(&outside)).unwrap();
        assert_eq!(target_of(&outside, &tree), Some(root.join("elsewhere")));
        // A source written after the binary: stale.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(tree.join("src/main.rs"), "fn main() {}").unwrap();
        assert_eq!(freshness(&outside), Freshness::Stale(main));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
