//! Running a solver on one case under a wall-clock limit.
//!
//! The solver runs in its own process group with the input file on stdin and its stdout and
//! stderr going straight to files, so nothing it prints is lost and no pipe can block. On
//! timeout the whole group is killed (a shell `--exec` and everything it started).

use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How to start the solver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solver {
    /// A program with arguments, started directly.
    Program {
        /// The executable.
        path: PathBuf,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A command line run with `sh -c`.
    Shell(String),
}

impl Solver {
    fn command(&self) -> Command {
        match self {
            Solver::Program { path, args } => {
                let mut cmd = Command::new(path);
                cmd.args(args);
                cmd
            }
            Solver::Shell(line) => {
                let mut cmd = Command::new("sh");
                cmd.arg("-c").arg(line);
                cmd
            }
        }
    }

    /// The command as a person would type it.
    pub fn describe(&self) -> String {
        match self {
            Solver::Program { path, args } => {
                let mut s = path.display().to_string();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            Solver::Shell(line) => line.clone(),
        }
    }
}

/// How a solver run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (not us).
    Signaled(i32),
    /// It was still running at the limit and we killed it.
    TimedOut,
}

/// The result of one solver run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// How it ended.
    pub ending: Ending,
    /// Wall time from start to exit (or to the kill).
    pub wall: Duration,
}

/// Kills the process group of `child` (it leads its own group).
fn kill_group(child: &Child) {
    // SAFETY: plain syscall on a process group we created; errors (already gone) are fine.
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
}

/// Runs `solver` with `stdin` as its standard input, writing its standard output and error to
/// the files `stdout` and `stderr`, and kills it (with its whole process group) once it has run
/// longer than `limit`.
pub fn run_solver(
    solver: &Solver,
    stdin: &Path,
    stdout: &Path,
    stderr: &Path,
    limit: Duration,
) -> Result<RunOutcome, String> {
    let open = |p: &Path| File::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()));
    let create =
        |p: &Path| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    let mut cmd = solver.command();
    cmd.stdin(Stdio::from(open(stdin)?))
        .stdout(Stdio::from(create(stdout)?))
        .stderr(Stdio::from(create(stderr)?))
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", solver.describe()))?;
    let mut pause = Duration::from_millis(1);
    loop {
        let status: Option<ExitStatus> = child
            .try_wait()
            .map_err(|e| format!("cannot wait for the solver: {e}"))?;
        if let Some(status) = status {
            let wall = start.elapsed();
            // Leftover background processes of the solver must not outlive it.
            kill_group(&child);
            let ending = match (status.code(), status.signal()) {
                _ if wall > limit => Ending::TimedOut,
                (Some(code), _) => Ending::Exited(code),
                (None, Some(signal)) => Ending::Signaled(signal),
                (None, None) => Ending::Exited(-1),
            };
            return Ok(RunOutcome { ending, wall });
        }
        let elapsed = start.elapsed();
        if elapsed > limit {
            kill_group(&child);
            let _ = child.wait();
            return Ok(RunOutcome {
                ending: Ending::TimedOut,
                wall: start.elapsed(),
            });
        }
        // Poll often at first (fast solvers), then every 10 ms; never sleep past the limit.
        std::thread::sleep(pause.min(limit - elapsed + Duration::from_millis(1)));
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_shell(line: &str, limit_ms: u64) -> (RunOutcome, String) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("qa-exec-{}-{id}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (i, o, e) = (dir.join("in"), dir.join("out"), dir.join("err"));
        std::fs::write(&i, "hello\n").unwrap();
        let outcome = run_solver(
            &Solver::Shell(line.into()),
            &i,
            &o,
            &e,
            Duration::from_millis(limit_ms),
        )
        .unwrap();
        let out = std::fs::read_to_string(&o).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (outcome, out)
    }

    #[test]
    fn stdin_goes_in_and_stdout_comes_out() {
        let (outcome, out) = run_shell("cat; echo done >&2", 20_000);
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(out, "hello\n");
    }

    #[test]
    fn exit_codes_and_signals() {
        assert_eq!(run_shell("exit 3", 20_000).0.ending, Ending::Exited(3));
        assert_eq!(
            run_shell("kill -SEGV $$", 20_000).0.ending,
            Ending::Signaled(11)
        );
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        // The background sleep keeps running unless the group is killed; the run must still end
        // right after the limit.
        let (outcome, _) = run_shell("sleep 30 & sleep 30", 300);
        assert_eq!(outcome.ending, Ending::TimedOut);
        assert!(outcome.wall < Duration::from_secs(20));
    }
}
