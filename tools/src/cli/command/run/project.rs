//! `tester.toml`, the project file of `tester run` (`tester init`, in `init.rs`, writes one).
//!
//! The file is looked for in the current folder, then in each folder above, up to the
//! repository's top folder (one holding `.git`) or the home folder. When one is found,
//! `tester run` works in the file's folder: the build, the solver (from the file or `--exec`),
//! the default `runs/` folder and `testcases/bests.json` are all taken there, while the paths
//! given on the command line (`--out`, `--bests`) stay relative to where they were typed.
//! Options on the command line win over the file; with `--exec`, the file's `build` is not run
//! (it builds the file's solver, not necessarily that one).
//!
//! The file names commands `tester` runs as the user, so it is read only when it is trusted
//! ([`trust_problem`]): owned by the user or by root, and writable by nobody else. A file
//! planted by someone else (in a shared folder such as `/tmp`) is refused, not skipped.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use serde::Deserialize;

use crate::cli::args::{parse_seed_list, SeedList};
use crate::cli::root::{home_folder, last_looked_at};

/// The file's name.
pub const FILE: &str = "tester.toml";

/// The keys of `tester.toml` (every one optional).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// The solver command (`--exec`).
    pub solver: Option<String>,
    /// A command run once before the seeds (`--build`).
    pub build: Option<String>,
    /// The seed list (`--seeds`), as text like `1-100` or a list of numbers.
    pub seeds: Option<SeedsValue>,
    /// Seeds run at the same time (`--jobs`).
    pub jobs: Option<u32>,
    /// Seconds per seed (`--time-limit`).
    pub time_limit: Option<f64>,
    /// The bests file (`--bests`), relative to the file's folder.
    pub bests: Option<PathBuf>,
    /// The folder each run's folder is made in (default `runs`), relative to the file's
    /// folder; `--out DIR` names the run's folder itself instead.
    pub out: Option<PathBuf>,
}

/// `seeds` as text (`"1-100"`) or as an array of seeds.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SeedsValue {
    /// `"1-10,20"`.
    Text(String),
    /// `[1, 2, 5]`.
    List(Vec<u64>),
}

impl SeedsValue {
    /// The seed list, checked like `--seeds`.
    pub fn parse(&self) -> Result<SeedList, String> {
        match self {
            SeedsValue::Text(t) => parse_seed_list(t),
            SeedsValue::List(l) => {
                let text: Vec<String> = l.iter().map(u64::to_string).collect();
                parse_seed_list(&text.join(","))
            }
        }
    }
}

/// A project file read from disk.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The folder holding the file.
    pub dir: PathBuf,
    /// Its keys.
    pub project: Project,
}

impl Found {
    /// The file's path.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }
}

/// Looks for `tester.toml` in `start` and the folders above it, up to the first folder that
/// holds `.git` (a repository's top folder) or is the home folder, and reads the first found.
/// A file that is not trusted ([`trust_problem`]) is an error.
pub fn find(start: &Path) -> Result<Option<Found>, String> {
    let home = home_folder();
    for dir in start.ancestors() {
        let path = dir.join(FILE);
        if path.is_file() {
            check_trusted(&path)?;
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let project = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            return Ok(Some(Found {
                dir: dir.to_path_buf(),
                project,
            }));
        }
        if last_looked_at(dir, home.as_deref()) {
            break;
        }
    }
    Ok(None)
}

/// Why a file owned by `owner` with permission bits `mode` must not be trusted by the user
/// `me`, or `None` when it may: it must belong to `me` or to root, and neither its group nor
/// others may write it.
///
/// # Examples
///
/// ```
/// use tools::cli::command::run::project::trust_problem;
///
/// assert_eq!(trust_problem(1000, 0o644, 1000), None);
/// assert_eq!(trust_problem(0, 0o644, 1000), None);
/// assert!(trust_problem(65534, 0o644, 1000).unwrap().contains("uid 65534"));
/// assert!(trust_problem(1000, 0o666, 1000).unwrap().contains("others"));
/// ```
pub fn trust_problem(owner: u32, mode: u32, me: u32) -> Option<String> {
    if owner != me && owner != 0 {
        return Some(format!(
            "it belongs to uid {owner}, not to you (uid {me}) or root"
        ));
    }
    let writers = match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (false, false) => return None,
        (true, false) => "its group",
        (false, true) => "others",
        (true, true) => "its group and others",
    };
    Some(format!("{writers} may write it (mode {:o})", mode & 0o7777))
}

/// `Err` (a message naming the file, why, and what to do) unless the project file at `path`
/// and, when it is a symbolic link, the link itself are trusted.
fn check_trusted(path: &Path) -> Result<(), String> {
    // SAFETY: `geteuid` has no arguments and cannot fail.
    let me = unsafe { libc::geteuid() };
    let stat = |meta: std::io::Result<std::fs::Metadata>| {
        meta.map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let link = stat(std::fs::symlink_metadata(path))?;
    let file = stat(std::fs::metadata(path))?;
    // A link's own mode bits mean nothing; its owner chose what it points to.
    let problem = trust_problem(link.uid(), 0, me)
        .filter(|_| link.file_type().is_symlink())
        .map(|p| format!("the symbolic link: {p}"))
        .or_else(|| trust_problem(file.uid(), file.mode(), me));
    match problem {
        None => Ok(()),
        Some(problem) => Err(format!(
            "refusing the project file {}: {problem}; its `build` and `solver` would run as \
             you. If it is yours, `chown` it or `chmod go-w` it; else remove it, work in \
             another folder, or pass --no-project",
            path.display()
        )),
    }
}

/// Parses the text of a project file and checks its values.
///
/// # Examples
///
/// ```
/// use tools::cli::command::run::project::parse;
///
/// let p = parse("solver = \"./a.out\"\nseeds = \"1-5\"\njobs = 2\n").unwrap();
/// assert_eq!(p.solver.as_deref(), Some("./a.out"));
/// assert!(parse("solvr = \"x\"").unwrap_err().contains("unknown field"));
/// assert!(parse("seeds = \"5-1\"").is_err());
/// ```
pub fn parse(text: &str) -> Result<Project, String> {
    let project: Project = toml::from_str(text).map_err(|e| e.to_string().trim().to_string())?;
    if let Some(seeds) = &project.seeds {
        seeds.parse().map_err(|e| format!("seeds: {e}"))?;
    }
    if let Some(t) = project.time_limit {
        if !crate::cli::args::is_time_limit(t) {
            // `1e308`, not its 309 digits.
            return Err(format!(
                "time_limit = {}: not a time limit in seconds (0 < SECS <= 86400)",
                crate::cli::report::readable(t)
            ));
        }
    }
    if let Some(j) = project.jobs {
        if !(1..=256).contains(&j) {
            return Err(format!("jobs = {j}: must be within 1..=256"));
        }
    }
    Ok(project)
}

/// `args` with the values of the project file (if one is found from the current folder up)
/// where the command line gave none; the current folder becomes the file's folder (command-line
/// paths are made absolute first, so they keep their meaning).
/// Without a project file, the run still finds the project it is in
/// ([`crate::cli::root::find_root`]): its `runs/` and `testcases/` are used from any folder
/// below it.
pub fn apply(args: &super::Args) -> Result<super::Args, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
    let found = if args.project.no_project {
        None
    } else {
        find(&cwd)?
    };
    let Some(found) = found else {
        return Ok(with_root(args));
    };
    let mut args = args.clone();
    args.out = args.out.map(|p| cwd.join(p));
    args.bests = args.bests.map(|p| cwd.join(p));
    args.bounds = args.bounds.map(|p| cwd.join(p));
    std::env::set_current_dir(&found.dir)
        .map_err(|e| format!("cannot work in {}: {e}", found.dir.display()))?;
    let p = found.project.clone();
    if !args.quiet {
        crate::diag!("tester run: project file {}", found.path().display());
    }
    // The file's build makes the file's solver; an --exec solver is the caller's business.
    let build_skipped = args.exec.is_some() && args.project.build.is_none();
    if build_skipped && !args.project.no_build && !args.quiet {
        if let Some(build) = &p.build {
            crate::diag!(
                "tester run: --exec given: the build `{build}` of {FILE} is not run (pass \
                 --build CMD to build first)"
            );
        }
    }
    args.exec = args.exec.or(p.solver);
    if !args.project.no_build && !build_skipped {
        args.project.build = args.project.build.or(p.build);
    }
    if args.seeds.is_none() {
        args.seeds = p.seeds.map(|s| s.parse()).transpose()?;
    }
    args.jobs = args.jobs.or(p.jobs);
    args.time_limit = args.time_limit.or(p.time_limit);
    args.bests = args.bests.or(p.bests);
    args.project.runs_dir = p.out;
    Ok(args)
}

/// `args` for a run without a project file: when the current folder lies below a project's
/// top folder ([`crate::cli::root::find_root`]), run folders go to its `runs/` (and the bests
/// and bounds files are its `testcases/` ones, [`crate::cli::root::default_table`]); the
/// solver still runs in the current folder.
fn with_root(args: &super::Args) -> super::Args {
    let mut args = args.clone();
    let Some(root) = crate::cli::root::root_above() else {
        return args;
    };
    if !args.quiet {
        crate::diag!(
            "tester run: project folder {}: run folders go to its runs/, the bests and bounds \
             are its testcases/ ones",
            root.display()
        );
    }
    args.project.runs_dir = Some(root.join("runs"));
    args
}

/// The options of `tester run` about the project file.
#[derive(ClapArgs, Clone, Debug, Default)]
pub struct ProjectArgs {
    /// A command run once with `sh -c` before the seeds (e.g. `cargo build --release`); if it
    /// fails, the end of its output is shown, nothing runs and the exit code is 3. SIGINT,
    /// SIGTERM or SIGHUP stop it (exit 128 + the signal); it dies with tester. Default: `build`
    /// of tester.toml, but not with --exec (that build is for the file's solver).
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// Skip the build step of tester.toml.
    #[arg(long, conflicts_with = "build")]
    pub no_build: bool,
    /// Do not look for tester.toml: its options are not used (the project's top folder still
    /// holds the default `runs/` and `testcases/`).
    #[arg(long)]
    pub no_project: bool,
    /// The folder default run folders go in (`out` of tester.toml; `runs` without it).
    #[arg(skip)]
    pub runs_dir: Option<PathBuf>,
}

/// Runs the build step of `args` (unless --no-build); `Some(code)`, the exit code, when it
/// failed (3) or was interrupted (128 + the signal); the reason (and the end of the build's
/// output) is then printed on standard error.
pub fn build_step(args: &super::Args) -> Option<i32> {
    let command = args
        .project
        .build
        .as_deref()
        .filter(|_| !args.project.no_build)?;
    let failure = super::build::build(command, args.quiet).err()?;
    // The terminal may be gone (SIGHUP): a failed write must not end in a panic.
    crate::diag!("{}", failure.message);
    Some(failure.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        assert_eq!(
            parse("seeds = [3, 1]").unwrap().seeds.unwrap().parse(),
            Ok(SeedList(vec![3, 1]))
        );
        assert!(parse("seeds = [1, 1]").unwrap_err().contains("twice"));
        assert!(parse("time_limit = 0").is_err());
        // Issue 65 item 7: a huge value is quoted short, not in its 309 digits.
        let huge = parse("time_limit = 1e308").unwrap_err();
        assert!(
            huge.starts_with("time_limit = 1e308: not a time limit"),
            "{huge}"
        );
        assert!(parse("jobs = 0").is_err());
        assert!(parse("jobs = \"x\"").is_err());
        assert_eq!(parse("").unwrap(), Project::default());
    }

    #[test]
    fn found_in_a_folder_above() {
        let root = std::env::temp_dir().join(format!("qa-project-{}", std::process::id()));
        let deep = root.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(root.join(FILE), "jobs = 3\n").unwrap();
        let found = find(&deep).unwrap().unwrap();
        assert_eq!(found.dir, root);
        assert_eq!(found.project.jobs, Some(3));
        std::fs::write(root.join("a").join(FILE), "jobs = [").unwrap();
        assert!(find(&deep).unwrap_err().contains("tester.toml"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
