//! Running a solver on one case under a wall-clock limit.
//!
//! The solver runs in its own process group. Its input comes through a pipe that stays open
//! until the solver has ended, as the official tester's does (it closes the solver's stdin only
//! after reading the answer): a solver that waits for the end of its input times out here as
//! it would there. Its stdout and stderr go straight to files, so nothing it prints is lost.
//! On timeout the whole group is killed (a shell `--exec` and everything it started).
//!
//! The solver's output is capped ([`output_cap`]): its size is checked every 20 ms, a solver
//! that reaches the cap is stopped, the file is cut to the cap and the run ends
//! [`Ending::TooLong`]. Every file the solver writes is also limited by `RLIMIT_FSIZE` to the
//! larger of the cap and [`FILE_LIMIT_FLOOR`] (a write beyond it gets SIGXFSZ). Descendants that left the group are ended by [`super::reaper`].
//!
//! The CPU time of a run ([`RunOutcome::cpu`]) is what the solver and the children it reaped
//! used (`wait4`), or, for a solver killed by `tester`, what its process group had used just
//! before the kill, if that is more (a shell killed with its solver never reaps it). Its
//! run-queue wait ([`RunOutcome::wait`]) is sampled every poll ([`super::runqueue`]).

use std::os::unix::process::{CommandExt, ExitStatusExt};

use super::reaper;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
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

/// What a solver command holds where the seed of the case goes (`tester run` and `tester ab`
/// replace it seed by seed).
pub const SEED_MARK: &str = "{seed}";

impl Solver {
    /// The solver of the case of `seed`: [`SEED_MARK`] replaced by it in the arguments or the
    /// command line.
    pub fn for_seed(&self, seed: u64) -> Solver {
        let put = |text: &str| text.replace(SEED_MARK, &seed.to_string());
        match self {
            Solver::Program { path, args } => Solver::Program {
                path: path.clone(),
                args: args.iter().map(|a| put(a)).collect(),
            },
            Solver::Shell(line) => Solver::Shell(put(line)),
        }
    }

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
    /// It wrote as much as the output cap allows; it was stopped there.
    TooLong,
    /// The run was interrupted (SIGINT, SIGTERM or SIGHUP to `tester`) and we killed it.
    Interrupted,
}

// The cap lives with the caps on what `tester` reads (the largest output read is this cap at
// N = 128); re-exported here, where solvers are run under it.
pub use super::readcap::output_cap;

/// The least `RLIMIT_FSIZE` a solver gets (64 MiB), so that a solver's stderr log or scratch
/// file may exceed a small board's output cap; beyond it a write fails with SIGXFSZ.
pub const FILE_LIMIT_FLOOR: u64 = 64 << 20;

/// How often a running solver is checked (limit, interrupt, output size).
const POLL: Duration = Duration::from_millis(20);

/// The result of one solver run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// How it ended.
    pub ending: Ending,
    /// Wall time from start to exit (or to the kill).
    pub wall: Duration,
    /// CPU time (user + system) of the solver's processes: the solver with every child it
    /// reaped, and at a kill its whole process group.
    pub cpu: Duration,
    /// How long the solver's threads were ready to run but waited for a CPU (summed over its
    /// threads and descendants): what the machine denied it; `None` where Linux does not say.
    pub wait: Option<Duration>,
    /// The file-size limit the solver ran under, in bytes, when the hard limit of `tester`
    /// itself (`ulimit -Hf`) forced it below the usual one (the larger of the output cap and
    /// [`FILE_LIMIT_FLOOR`]); `None` otherwise.
    pub lowered_file_limit: Option<u64>,
    /// At a timeout, whether the solver had been given its whole input and was blocked
    /// reading stdin for more (a solver that reads to the end of its input, which does not
    /// come while it runs; see `proctable::group_reads_pipe`).
    pub waited_for_input: bool,
}

/// Kills the process group led by `pid`.
pub(crate) fn kill_group(pid: u32) {
    // SAFETY: a plain syscall on a process group we created; an error (group already gone) is
    // fine.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// Makes the child (a solver, the build) die (SIGKILL) when `tester` dies, even by SIGKILL
/// (Linux `PR_SET_PDEATHSIG`). The kernel sends it when the *thread* that started the child
/// ends; the worker threads of `tester run` outlive every solver they start (and the main
/// thread the build), so that is when `tester` dies. Not inherited by the child's own children:
/// those are ended by the guardian ([`super::guardian`]).
pub(crate) fn die_with_tester(cmd: &mut Command) {
    let tester = std::process::id() as libc::pid_t;
    // SAFETY: `prctl`, `getppid` and `raise` are async-signal-safe and touch only the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // `tester` died between the fork and the prctl: no signal will come.
            if libc::getppid() != tester {
                libc::raise(libc::SIGKILL);
            }
            Ok(())
        });
    }
}

/// Waits in a thread until `child` exits, kills what is left of its process group, reaps it and
/// sends the exit status with the moment it exited.
///
/// The exit is first awaited *without* reaping (`waitid` with `WNOWAIT`): until the child is
/// reaped its pid cannot be reused, so killing the group by that id cannot hit anyone else.
fn watch(child: Child, tx: mpsc::Sender<Watched>) {
    let pid = child.id();
    while !exited_unreaped(pid, true) {}
    let exited = Instant::now();
    // Not reaped yet: its main thread's counts are still there, final.
    let wait = super::runqueue::task_wait(pid as i32, pid as i32);
    kill_group(pid);
    let _ = tx.send((reap(pid), exited, wait));
    // Reaped above: dropping a `Child` neither waits nor kills.
    drop(child);
}

/// Reaps the exited child `pid` (`wait4`): its exit status, and the CPU time (user + system)
/// it used with the children it reaped.
fn reap(pid: u32) -> std::io::Result<(ExitStatus, Duration)> {
    let mut status = 0;
    // SAFETY: `wait4` only writes into the status and the zeroed `rusage` we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above; `pid` is our own child, whose status nobody else waits for.
        let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if rc == pid as libc::pid_t {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Ok((
        ExitStatus::from_raw(status),
        time(usage.ru_utime) + time(usage.ru_stime),
    ))
}

/// Whether the child `pid` has exited, asked without reaping it (`waitid` with `WNOWAIT`):
/// until it is reaped its pid (the id of its process group) cannot be reused, so killing that
/// group cannot hit anyone else. With `block` it waits for the exit; a wait cut by a signal
/// says `false` (ask again), any other error (no such child) counts as exited.
pub(crate) fn exited_unreaped(pid: u32, block: bool) -> bool {
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    // SAFETY: `waitid` only writes into the zeroed `siginfo_t` we pass.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 {
            // With WNOHANG a child still running leaves `si_pid` 0.
            info.si_pid() != 0
        } else {
            std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        }
    }
}

/// Limits every file the solver writes to the larger of `cap` and [`FILE_LIMIT_FLOOR`]
/// (`RLIMIT_FSIZE`): the hard backstop; stdout itself is cut at `cap` by [`run_solver`]. A
/// lower hard limit of `tester`'s own is kept (no process may raise it): the limit, when so
/// lowered, is returned.
fn limit_file_size(cmd: &mut Command, cap: u64) -> Option<u64> {
    let (file_limit, lowered) =
        super::resources::within_hard_limit(libc::RLIMIT_FSIZE, cap.max(FILE_LIMIT_FLOOR));
    let fsize = libc::rlimit {
        rlim_cur: file_limit as libc::rlim_t,
        rlim_max: file_limit as libc::rlim_t,
    };
    // SAFETY: `setrlimit` is async-signal-safe and touches only the child's own limits.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_FSIZE, &fsize) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    lowered.then_some(file_limit)
}

/// Why [`run_solver`] gave no outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The seed's own failure: its files, or a solver that cannot be started (a missing
    /// program). The seed is reported so and the run goes on.
    Seed(String),
    /// `tester`'s: a thread, process or file it needs could not be had (a limit on
    /// processes, memory or open files, `ulimit -u`, `-v`, `-n`; a full disk; see
    /// [`super::resources::shortage`]). No verdict on the seed: the run stops.
    Tester(String),
}

impl Failure {
    /// The failure of `message` caused by `e`: `tester`'s when `e` is a lack of resources
    /// ([`super::resources::shortage`]), else the seed's.
    fn of(message: String, e: &std::io::Error) -> Failure {
        match super::resources::tester_failure(&message, e) {
            Some(theirs) => Failure::Tester(theirs),
            None => Failure::Seed(message),
        }
    }
}

pub use super::guardian::RESOURCE_HINT;
pub use super::resources::start_thread;
use super::stdin_feed::feed;

/// Ends a solver that was started but cannot be watched (its threads did not start): kills its
/// group, reaps it and forgets it.
fn abandon(pid: u32) {
    kill_group(pid);
    // SAFETY: reaps our own child, whose exit status nobody else waits for now.
    unsafe { libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0) };
    forget(pid);
}

/// Takes `pid` off the children that a sweep would kill (it has ended, or its watcher reaped
/// it: the pid is not ours to kill any more).
fn forget(pid: u32) {
    reaper::active()
        .get_or_insert_with(Default::default)
        .remove(&pid);
}

/// Starts the solver of `cmd`, registered among the children a sweep kills before any sweep
/// can see it (so no sweep misses it). A start refused for lack of processes, memory or open
/// files is tester's failure, any other the seed's.
fn spawn_registered(cmd: &mut Command, solver: &Solver) -> Result<Child, Failure> {
    let mut active = reaper::active();
    let child = cmd
        .spawn()
        .map_err(|e| Failure::of(format!("cannot start `{}`: {e}", solver.describe()), &e))?;
    active
        .get_or_insert_with(Default::default)
        .insert(child.id());
    Ok(child)
}

/// What the watcher of a solver reports: its exit status and CPU time, when it exited, and its
/// main thread's final run-queue wait (ns).
type Watched = (
    std::io::Result<(ExitStatus, Duration)>,
    Instant,
    Option<u64>,
);

/// Waits for the watcher's report on `rx`, asking `stop` every poll (with the time since
/// `start`) whether the solver must end; the first ending it names kills the group `pid`
/// and is returned beside the report, with the CPU time the group had used just before.
fn wait_watched(
    rx: &mpsc::Receiver<Watched>,
    pid: u32,
    start: Instant,
    stop: impl Fn(Duration) -> Option<Ending>,
) -> Result<(Watched, Option<(Ending, Duration)>), Failure> {
    let mut stopped = None;
    loop {
        match rx.recv_timeout(POLL) {
            Ok(done) => return Ok((done, stopped)),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Failure::Tester(
                    "the thread watching the solver stopped".to_string(),
                ))
            }
            Err(mpsc::RecvTimeoutError::Timeout) if stopped.is_none() => {
                if let Some(ending) = stop(start.elapsed()) {
                    stopped = Some((ending, super::proctable::group_cpu(pid as i32)));
                    kill_group(pid);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Runs `solver` with the contents of `stdin` on its standard input (a pipe kept open until it
/// ends), writing its standard output and error to
/// the files `stdout` and `stderr`, and kills it (with its whole process group) once it has run
/// longer than `limit`, has written `cap` bytes to a file, or the run is interrupted. Whatever
/// the solver left running in its group is killed when it exits. `marker` goes to the solver's
/// environment as [`reaper::MARKER_VAR`].
pub fn run_solver(
    solver: &Solver,
    files: [&Path; 3],
    limit: Duration,
    cap: u64,
    marker: &str,
) -> Result<RunOutcome, Failure> {
    let [stdin, stdout, stderr] = files;
    // New files: a symbolic link planted at a seed's file is replaced, never written through.
    let create = |p: &Path| {
        super::replace::create_fresh(p)
            .map_err(|e| Failure::of(format!("cannot create {}: {e}", p.display()), &e))
    };
    let mut cmd = solver.command();
    let input = std::fs::read(stdin)
        .map_err(|e| Failure::of(format!("cannot read {}: {e}", stdin.display()), &e))?;
    let out = create(stdout)?;
    // The size is watched and the file cut through this handle, never by its name again.
    let out_watch = out
        .try_clone()
        .map_err(|e| Failure::of(format!("cannot watch {}: {e}", stdout.display()), &e))?;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(create(stderr)?))
        .env(reaper::MARKER_VAR, marker)
        .process_group(0);
    let lowered_file_limit = limit_file_size(&mut cmd, cap);
    die_with_tester(&mut cmd);
    super::resources::default_signals(&mut cmd);
    let start = Instant::now();
    let mut child = spawn_registered(&mut cmd, solver)?;
    let pid = child.id();
    let feeder = feed(&mut child, input).map_err(|e| {
        abandon(pid);
        Failure::Tester(e)
    })?;
    let (tx, rx) = mpsc::channel();
    // The child moves into the watcher; should the watcher not start, it is ended by its pid.
    start_thread("solver watcher", move || watch(child, tx)).map_err(|e| {
        abandon(pid);
        Failure::Tester(e)
    })?;
    let written = || out_watch.metadata().map_or(0, |m| m.len());
    // Asked at the limit, before the kill: was it waiting for more input?
    let waited_for_input = std::cell::Cell::new(false);
    // Sampled every poll, so also just before a kill; none where the kernel cannot tell them
    // all (then no run is judged starved).
    let waits = std::cell::RefCell::new(super::runqueue::Waits::default());
    let sampled = super::runqueue::available();
    let watched = wait_watched(&rx, pid, start, |elapsed| {
        if sampled {
            waits.borrow_mut().sample(pid as i32);
        }
        if reaper::interrupted().is_some() {
            Some(Ending::Interrupted)
        } else if elapsed > limit {
            waited_for_input.set(feeder.as_ref().is_some_and(|f| f.waited_on(pid)));
            Some(Ending::TimedOut)
        } else if written() >= cap {
            Some(Ending::TooLong)
        } else {
            None
        }
    });
    forget(pid);
    let ((status, exited, last_wait), stopped) = watched?;
    let mut waits = waits.into_inner();
    if let Some(last) = last_wait.filter(|_| sampled) {
        waits.record(pid as i32, last);
    }
    // The solver has ended: now its stdin closes. A write still blocked (a descendant that left
    // the group holds the pipe without reading) is left to its thread, which the broken pipe
    // ends once that descendant is gone.
    if let Some(feeder) = feeder.filter(|f| f.thread.is_finished()) {
        drop(feeder.thread.join());
    }
    let (status, reaped_cpu) =
        status.map_err(|e| Failure::Seed(format!("cannot wait for the solver: {e}")))?;
    let wall = exited.saturating_duration_since(start);
    let cpu = stopped.map_or(reaped_cpu, |(_, sampled)| sampled.max(reaped_cpu));
    if written() >= cap {
        // Stopped within a poll of reaching the cap: keep exactly `cap` bytes.
        let _ = out_watch.set_len(cap);
    }
    Ok(RunOutcome {
        ending: ending_of(
            stopped.map(|(e, _)| e),
            status,
            written() >= cap,
            wall > limit,
        ),
        wall,
        cpu,
        wait: waits.total(),
        lowered_file_limit,
        waited_for_input: waited_for_input.get(),
    })
}

/// How a run ended: as tester `stopped` it, else past its output cap (`too_long`) or its
/// limit (`late`: it ended within a poll after it), else as its `status` says.
fn ending_of(stopped: Option<Ending>, status: ExitStatus, too_long: bool, late: bool) -> Ending {
    match (stopped, status.code(), status.signal()) {
        (Some(ending), _, _) => ending,
        _ if too_long => Ending::TooLong,
        _ if late => Ending::TimedOut,
        (None, Some(code), _) => Ending::Exited(code),
        (None, None, Some(signal)) => Ending::Signaled(signal),
        (None, None, None) => Ending::Exited(-1),
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
            [&i, &o, &e],
            Duration::from_millis(limit_ms),
            1 << 20,
            "test",
        )
        .unwrap();
        let out = std::fs::read_to_string(&o).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (outcome, out)
    }

    #[test]
    fn stdin_goes_in_and_stdout_comes_out() {
        let (outcome, out) = run_shell("head -n 1; echo done >&2", 20_000);
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(out, "hello\n");
    }

    #[test]
    fn stdin_stays_open_until_the_solver_ends() {
        // As under the official tester: a solver that waits for the end of its input never
        // sees it, and times out.
        let (outcome, out) = run_shell("cat; echo 0", 500);
        assert_eq!(outcome.ending, Ending::TimedOut);
        assert_eq!(out, "hello\n");
        // One that reads what it needs answers at once.
        let (outcome, out) = run_shell("read line; echo \"$line\"", 20_000);
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(out, "hello\n");
    }

    #[test]
    fn a_solver_that_never_reads_a_large_input_still_ends() {
        // 1 MB does not fit the pipe: the write is cut short when the solver is gone.
        let dir = std::env::temp_dir().join(format!("qa-exec-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (i, o, e) = (dir.join("in"), dir.join("out"), dir.join("err"));
        std::fs::write(&i, vec![b'0'; 1 << 20]).unwrap();
        let outcome = run_solver(
            &Solver::Shell("echo 0".into()),
            [&i, &o, &e],
            Duration::from_secs(20),
            1 << 20,
            "test",
        )
        .unwrap();
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(std::fs::read_to_string(&o).unwrap(), "0\n");
        std::fs::remove_dir_all(&dir).unwrap();
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
    fn leftovers_are_killed_when_the_solver_exits() {
        let flag = std::env::temp_dir().join(format!("qa-exec-late-{}", std::process::id()));
        let _ = std::fs::remove_file(&flag);
        let line = format!("(sleep 1; echo late > '{}') & echo 0", flag.display());
        let (outcome, out) = run_shell(&line, 20_000);
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(out, "0\n");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(
            !flag.exists(),
            "a background child of the solver outlived it"
        );
    }

    #[test]
    fn output_is_capped() {
        let (outcome, out) = run_shell("yes", 20_000);
        assert_eq!(outcome.ending, Ending::TooLong);
        assert_eq!(out.len(), 1 << 20);
        // Stderr may exceed the output cap (up to the 64 MiB floor).
        let (outcome, out) = run_shell("head -c 3000000 /dev/zero >&2; echo 0", 20_000);
        assert_eq!(outcome.ending, Ending::Exited(0));
        assert_eq!(out, "0\n");
    }

    #[test]
    fn the_cpu_time_of_the_solver_is_measured() {
        // A busy loop until the limit: its CPU time is counted (at least a twentieth of the
        // wall time however loaded the machine; a sleeping solver uses next to none).
        let (busy, _) = run_shell("while :; do :; done", 1000);
        assert_eq!(busy.ending, Ending::TimedOut);
        assert!(busy.cpu >= Duration::from_millis(50), "{busy:?}");
        // Behind a shell that waits for it (killed with it at the limit): still counted.
        let (wrapped, _) = run_shell("sh -c 'while :; do :; done'; echo 0", 1000);
        assert_eq!(wrapped.ending, Ending::TimedOut);
        assert!(wrapped.cpu >= Duration::from_millis(50), "{wrapped:?}");
        // A child that exits and is reaped by the shell: counted through the shell.
        let (child, out) = run_shell(
            "i=0; sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'; echo 0",
            60_000,
        );
        assert_eq!((child.ending, out.as_str()), (Ending::Exited(0), "0\n"));
        assert!(child.cpu >= Duration::from_millis(20), "{child:?}");
        let (idle, _) = run_shell("sleep 0.3; echo 0", 20_000);
        assert!(idle.cpu < Duration::from_millis(100), "{idle:?}");
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
