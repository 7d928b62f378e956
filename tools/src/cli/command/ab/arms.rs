//! The two arms of an A/B: where each solver comes from, its build, and one arm's run of one
//! seed.
//!
//! An arm is one of:
//! * a git revision (`--base REV`): checked out with `git worktree add --detach` into
//!   `OUT/src/COMMIT12` (two arms of one commit share it; recorded as this A/B's, see
//!   [`super::worktrees`]) and built there with the revision's own `tester.toml` `build`, else
//!   `cargo build --release` (with `CARGO_TARGET_DIR=target`, so the binary lands in the
//!   worktree whatever the caller's environment says); its solver is that `tester.toml`'s
//!   `solver` run in the worktree, else `target/release/queenattack`;
//! * a command (`--base-exec CMD`), run with `sh -c` as given;
//! * neither: the current project's solver, as `tester run` would run it: `tester.toml`'s
//!   `solver` (after its `build`), else the working tree's `queenattack`, each copied into
//!   `OUT/bin/` so a rebuild during the A/B cannot change it (see [`current`]).
//!
//! The queenattack binaries get `--time-limit SECS --seed SEED` and the arm's `--*-args`; so
//! does a `tester.toml` solver that runs a queenattack ([`current::seeded`]). Commands and
//! other `tester.toml` solvers get their `{seed}` replaced by the pair's seed, their
//! `{time_limit}` by the arm's limit and the arm's args appended, and nothing else (like
//! `tester run --exec`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::current::{self, sh_quote, shell};
use super::worktrees::{check_out, git, repository_top, tree_of};
use crate::cli::args::is_time_limit;
use crate::cli::command::run::{build::build, project, run_seed, with_limit};
use crate::cli::exec::Solver;
use crate::cli::reaper;
use crate::cli::report::SeedResult;
use crate::gen::Ranges;

pub use super::current::SEED_MARK;

/// Where an arm's solver comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A git revision as typed, and its commit.
    Revision {
        /// As typed (`HEAD~1`, a branch, a hash).
        rev: String,
        /// Its full commit hash.
        commit: String,
    },
    /// A command run with `sh -c`, as typed.
    Exec(String),
    /// The current project's solver.
    Current,
}

/// What the command line says about one arm.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArmSpec {
    /// `--base REV` / `--new REV`.
    pub rev: Option<String>,
    /// `--base-exec CMD` / `--new-exec CMD`.
    pub exec: Option<String>,
    /// `--base-args` / `--new-args`, split at spaces.
    pub args: Vec<String>,
    /// The arm's time limit in seconds.
    pub time_limit: f64,
}

/// One arm, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// `A` (base) or `B` (new).
    pub label: char,
    /// Where its solver comes from.
    pub source: Source,
    /// The solver, with [`SEED_MARK`] where the seed goes.
    pub solver: Solver,
    /// Seconds per seed (the solver is killed after it).
    pub time_limit: f64,
    /// The extra arguments given for it.
    pub args: Vec<String>,
    /// The shell line that builds it, if any.
    pub build: Option<String>,
    /// Whether that build has succeeded.
    pub built: bool,
}

/// The commit of `rev` in the repository holding the current folder, and that repository's
/// top folder. The revision is resolved first and its object peeled to a commit after, so
/// that a revision by message (`:/fix the bound`) is searched for as typed.
fn commit_of(rev: &str) -> Result<(String, PathBuf), String> {
    let top = repository_top(&format!("a revision (`{rev}`)"))?;
    let not_commit = |_| {
        format!(
            "`{rev}` is not a commit of the repository in {}",
            top.display()
        )
    };
    let verify = |text: &str| {
        git(
            &top,
            &["rev-parse", "--verify", "--quiet", "--end-of-options", text],
        )
    };
    let object = verify(rev).map_err(not_commit)?;
    let commit = verify(&format!("{object}^{{commit}}")).map_err(not_commit)?;
    Ok((commit, top))
}

/// The arguments of a queenattack arm: `--time-limit`, `--seed`, then the arm's own.
fn queenattack_args(spec: &ArmSpec) -> Vec<String> {
    let mut args = vec![
        "--time-limit".to_string(),
        spec.time_limit.to_string(),
        "--seed".to_string(),
        SEED_MARK.to_string(),
    ];
    args.extend(spec.args.iter().cloned());
    args
}

impl Arm {
    /// Resolves `spec` into arm `label` of the A/B in `out` (an absolute folder): checks out a
    /// revision, copies the current build; builds nothing yet (see [`Arm::build`]).
    pub fn resolve(
        label: char,
        spec: &ArmSpec,
        out: &Path,
        current: Option<&project::Found>,
    ) -> Result<Arm, String> {
        let mut arm = Arm {
            label,
            source: Source::Current,
            solver: Solver::Shell(String::new()),
            time_limit: spec.time_limit,
            args: spec.args.clone(),
            build: None,
            built: false,
        };
        if let Some(rev) = &spec.rev {
            let (commit, top) = commit_of(rev)?;
            let tree = tree_of(out, &commit);
            check_out(out, &top, &tree, &commit)?;
            let own = project::find(&tree)?.filter(|f| f.dir == tree);
            let own = own.map(|f| f.project).unwrap_or_default();
            let build = own.build.as_deref().unwrap_or("cargo build --release");
            arm.build = Some(format!(
                "cd {} && export CARGO_TARGET_DIR=target && {build}",
                sh_quote(&tree.to_string_lossy())
            ));
            arm.solver = match &own.solver {
                Some(solver) => shell(Some(&tree), &current::seeded(solver), &spec.args),
                None => Solver::Program {
                    path: tree.join("target/release/queenattack"),
                    args: queenattack_args(spec),
                },
            };
            arm.source = Source::Revision {
                rev: rev.clone(),
                commit,
            };
        } else if let Some(exec) = &spec.exec {
            arm.solver = shell(None, exec, &spec.args);
            arm.source = Source::Exec(exec.clone());
        } else if let Some(found) = current.filter(|f| f.project.solver.is_some()) {
            let frozen = current::project_solver(found, out, &spec.args);
            if let Some(note) = &frozen.note {
                crate::diag!("tester ab: warning: {label} (current build): {note}");
            }
            arm.solver = frozen.solver;
            arm.build = frozen.build;
        } else {
            let current = current::plan(out, repository_top("").ok().as_deref())?;
            if let Some(stale) = &current.stale {
                crate::diag!("tester ab: warning: {label} (current build): {stale}");
            }
            arm.build = current.build;
            arm.solver = Solver::Program {
                path: current.copy,
                args: queenattack_args(spec),
            };
        }
        Ok(arm)
    }

    /// `base` or `new`, also the name of its run folder.
    pub fn folder(&self) -> &'static str {
        if self.label == 'A' {
            "base"
        } else {
            "new"
        }
    }

    /// What the arm is, for people: `revision HEAD~1 (1a2b3c4d5e6f)`, `command`, `current
    /// build`.
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Revision { rev, commit } => {
                format!("revision {rev} ({})", &commit[..12.min(commit.len())])
            }
            Source::Exec(_) => "command".to_string(),
            Source::Current => "current build".to_string(),
        }
    }

    /// The solver of the pair on `seed`: [`SEED_MARK`] replaced by the seed and
    /// `{time_limit}` by the arm's time limit.
    pub fn solver_for(&self, seed: u64) -> Solver {
        match self.solver.for_seed(seed) {
            Solver::Program { path, args } => Solver::Program {
                path,
                args: args
                    .iter()
                    .map(|a| with_limit(a, self.time_limit))
                    .collect(),
            },
            Solver::Shell(line) => Solver::Shell(with_limit(&line, self.time_limit)),
        }
    }

    /// Checks out the worktree of a revision arm again when it is gone (`tester ab --clean`
    /// removed it), to be built again; nothing for other arms.
    pub fn restore_tree(&mut self, out: &Path) -> Result<(), String> {
        let Source::Revision { commit, .. } = &self.source else {
            return Ok(());
        };
        let tree = tree_of(out, commit);
        if tree.join(".git").exists() {
            return Ok(());
        }
        let top = repository_top(&format!("the worktree {}", tree.display()))?;
        check_out(out, &top, &tree, commit)?;
        self.built = false;
        Ok(())
    }

    /// Runs the arm's build unless it already succeeded. `Ok(None)`: built; `Ok(Some(code))`:
    /// interrupted by a signal (exit with `code`); `Err`: the build failed (its output's end).
    pub fn build(&mut self, quiet: bool) -> Result<Option<i32>, String> {
        let Some(line) = self.build.clone().filter(|_| !self.built) else {
            return Ok(None);
        };
        if !quiet {
            crate::diag!(
                "tester ab: building {} ({}): `{line}` ...",
                self.label,
                self.describe()
            );
        }
        let start = Instant::now();
        match build(&line, true) {
            Ok(()) => {
                self.built = true;
                if !quiet {
                    let secs = start.elapsed().as_secs_f64();
                    crate::diag!("tester ab: build of {} ok in {secs:.1} s", self.label);
                }
                Ok(None)
            }
            Err(failure) if failure.code > 128 => {
                crate::diag!("{}", failure.message.replace("tester run:", "tester ab:"));
                Ok(Some(failure.code))
            }
            // The message names `tester run` (the build step is the one of `tester run`); it
            // starts with the build's own output, so the first line says what failed.
            Err(failure) => Err(format!(
                "the build of {} ({}) failed; the end of its output:\n{}",
                self.label,
                self.describe(),
                failure.message.replace("tester run:", "tester ab:")
            )),
        }
    }

    /// Runs the arm's solver on `seed`'s case in the run folder `dir` and judges it (see
    /// [`run_seed`]); `None` when interrupted. Its processes carry their own marker, so ending
    /// this arm's leftovers never touches the other arm's solver of the same seed.
    pub fn run(&self, seed: u64, dir: &Path) -> Result<Option<SeedResult>, String> {
        let marker = format!("{}-{}", reaper::marker(seed), self.label);
        let how = (&Ranges::default(), false, self.time_limit, marker.as_str());
        let limit = Duration::from_secs_f64(self.time_limit);
        run_seed(seed, how, &self.solver_for(seed), dir, limit)
    }

    /// The arm in `ab.json`.
    pub fn to_json(&self) -> Value {
        let (source, rev, commit, exec) = match &self.source {
            Source::Revision { rev, commit } => ("revision", Some(rev), Some(commit), None),
            Source::Exec(exec) => ("exec", None, None, Some(exec)),
            Source::Current => ("current", None, None, None),
        };
        let solver = match &self.solver {
            Solver::Program { path, args } => json!({ "program": path, "args": args }),
            Solver::Shell(line) => json!({ "shell": line }),
        };
        json!({
            "label": self.label.to_string(),
            "folder": self.folder(),
            "source": source,
            "rev": rev,
            "commit": commit,
            "exec": exec,
            "args": self.args,
            "time_limit": self.time_limit,
            "command": self.solver.describe(),
            "solver": solver,
            "build": self.build,
            "built": self.built,
        })
    }

    /// Reads [`Arm::to_json`] back.
    pub fn from_json(v: &Value) -> Result<Arm, String> {
        let text = |key: &str| v[key].as_str().map(str::to_string);
        let need = |key: &str| text(key).ok_or_else(|| format!("`{key}` is missing"));
        let source = match need("source")?.as_str() {
            "revision" => Source::Revision {
                rev: need("rev")?,
                commit: need("commit")?,
            },
            "exec" => Source::Exec(need("exec")?),
            "current" => Source::Current,
            other => return Err(format!("unknown source `{other}`")),
        };
        let solver = match (
            v["solver"]["program"].as_str(),
            v["solver"]["shell"].as_str(),
        ) {
            (Some(path), _) => Solver::Program {
                path: PathBuf::from(path),
                args: strings(&v["solver"]["args"]),
            },
            (None, Some(line)) => Solver::Shell(line.to_string()),
            (None, None) => return Err("`solver` is missing".into()),
        };
        let label = match need("label")?.as_str() {
            "A" => 'A',
            "B" => 'B',
            other => return Err(format!("unknown label `{other}`")),
        };
        Ok(Arm {
            label,
            source,
            solver,
            time_limit: v["time_limit"]
                .as_f64()
                .filter(|&t| is_time_limit(t))
                .ok_or_else(|| {
                    format!(
                        "`time_limit` {} is not a time limit in seconds (0 < SECS <= 86400)",
                        v["time_limit"]
                    )
                })?,
            args: strings(&v["args"]),
            build: text("build"),
            built: v["built"].as_bool().unwrap_or(false),
        })
    }
}

/// The strings of a JSON array (none when it is not one).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(solver: Solver) -> Arm {
        Arm {
            label: 'B',
            source: Source::Exec("x".into()),
            solver,
            time_limit: 0.5,
            args: vec!["--param".into(), "a=1".into()],
            build: None,
            built: false,
        }
    }

    #[test]
    fn the_seed_goes_where_the_mark_is() {
        let a = arm(Solver::Shell("./s --seed {seed} --x {seed}".into()));
        assert_eq!(a.solver_for(7), Solver::Shell("./s --seed 7 --x 7".into()));
        let t = arm(Solver::Shell("./s --time-limit {time_limit}".into()));
        assert_eq!(
            t.solver_for(7),
            Solver::Shell("./s --time-limit 0.5".into())
        );
        let spec = ArmSpec {
            time_limit: 0.25,
            args: vec!["--param".into(), "t=1".into()],
            ..ArmSpec::default()
        };
        let p = arm(Solver::Program {
            path: "/q".into(),
            args: queenattack_args(&spec),
        });
        assert_eq!(
            p.solver_for(10_001).describe(),
            "/q --time-limit 0.25 --seed 10001 --param t=1"
        );
    }

    #[test]
    fn arms_read_back_from_json() {
        for a in [
            arm(Solver::Shell("cd '/a b' && ./s {seed}".into())),
            arm(Solver::Program {
                path: "/x/queenattack".into(),
                args: vec!["--seed".into(), SEED_MARK.into()],
            }),
        ] {
            assert_eq!(Arm::from_json(&a.to_json()).unwrap(), a);
        }
        let mut r = arm(Solver::Shell("s".into()));
        r.label = 'A';
        r.source = Source::Revision {
            rev: "HEAD~1".into(),
            commit: "0123456789abcdef".into(),
        };
        r.build = Some("cd '/t' && cargo build --release".into());
        r.built = true;
        assert_eq!(Arm::from_json(&r.to_json()).unwrap(), r);
        assert_eq!(r.describe(), "revision HEAD~1 (0123456789ab)");
        assert!(Arm::from_json(&json!({"source": "what"})).is_err());
    }

    #[test]
    fn shell_quoting_survives_quotes() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        let s = shell(Some(Path::new("/a'b")), "./run", &["--x".into()]);
        assert_eq!(s, Solver::Shell(r"cd '/a'\''b' && ./run --x".into()));
    }
}
