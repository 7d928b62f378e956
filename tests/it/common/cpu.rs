//! Claims that need CPU time on a machine that may be busy (issue 59, item 7). A run's limit is
//! wall-clock time (the contest's rule), so a run starved by other processes gets less of the
//! CPU its limit stands for, and a quality it reaches on an idle core ("better than doing
//! nothing", "solved") fails for want of CPU, not for a fault. [`with_cpu`] gives such a claim
//! its budget in CPU time instead: a run that misses the claim having got less than most of
//! the budget (and of a core) is run again with a longer limit, the longer the more it was
//! starved, so that the claim is asserted on a run that got the budget (or, past [`MAX_RUNS`]
//! or [`MAX_LIMIT`], on the last one, whose message says how little it got). A run that got
//! its CPU and misses the claim fails at once.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// A run that got at least this share of its CPU budget counts as having had it.
const ENOUGH: f64 = 0.8;

/// At most this many runs of one claim.
pub const MAX_RUNS: usize = 4;

/// The longest limit [`with_cpu`] gives one run: a machine so busy that a run needs more is
/// beyond what a test can wait for.
pub const MAX_LIMIT: Duration = Duration::from_secs(60);

/// The CPU time (user + system) the calling thread has used so far.
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    let got = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(got, 0, "clock_gettime: {}", std::io::Error::last_os_error());
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// A run of [`measure`] or the last of [`with_cpu`]: what it returned, the CPU time it got,
/// its wall-clock time and limit, and how many runs there were.
#[derive(Debug)]
pub struct Measured<T> {
    /// What the run returned.
    pub out: T,
    /// The CPU time it got.
    pub cpu: Duration,
    /// Its wall-clock time.
    pub wall: Duration,
    /// The limit it was given.
    pub limit: Duration,
    /// How many runs were made, this one included.
    pub runs: usize,
}

impl<T> Measured<T> {
    /// The run in words, for a failed assertion's message.
    pub fn said(&self) -> String {
        format!(
            "run {} of at most {MAX_RUNS}: {:.3} s of CPU in {:.3} s of wall time, limit {:.3} s",
            self.runs,
            self.cpu.as_secs_f64(),
            self.wall.as_secs_f64(),
            self.limit.as_secs_f64()
        )
    }

    /// Whether the run got less than [`ENOUGH`] of `budget` in CPU time and less than that
    /// share of a core while it ran. A run that ended early at full speed did not need more;
    /// one that ended early on a slow core may have (a search that plans its steps by the wall
    /// time left gives up sooner when its steps look slow).
    pub fn starved(&self, budget: Duration) -> bool {
        let cpu = self.cpu.as_secs_f64();
        cpu < ENOUGH * budget.as_secs_f64() && cpu < ENOUGH * self.wall.as_secs_f64()
    }
}

/// One run of `run(limit)` (a run cut at `limit` of wall-clock time, returning what it made
/// and the CPU time it got), measured.
pub fn measure<T>(limit: Duration, run: impl FnOnce(Duration) -> (T, Duration)) -> Measured<T> {
    let started = Instant::now();
    let (out, cpu) = run(limit);
    Measured {
        out,
        cpu,
        wall: started.elapsed(),
        limit,
        runs: 1,
    }
}

/// [`measure`]s `run` with `limit = budget`, then [`again`].
pub fn with_cpu<T>(
    budget: Duration,
    mut run: impl FnMut(Duration) -> (T, Duration),
    holds: impl Fn(&T) -> bool,
) -> Measured<T> {
    let first = measure(budget, &mut run);
    again(first, budget, run, holds)
}

/// While the claim `holds` does not hold on the last run and that run was [`Measured::starved`]
/// of `budget`, runs `run` again with a longer limit: the budget at the share of a core the
/// last run got, with a fourth more room, and at least half as long again as the last limit;
/// at most [`MAX_RUNS`] runs, none limited beyond [`MAX_LIMIT`]. Returns the last run.
pub fn again<T>(
    mut last: Measured<T>,
    budget: Duration,
    mut run: impl FnMut(Duration) -> (T, Duration),
    holds: impl Fn(&T) -> bool,
) -> Measured<T> {
    while !holds(&last.out)
        && last.starved(budget)
        && last.runs < MAX_RUNS
        && last.limit < MAX_LIMIT
    {
        let share = (last.cpu.as_secs_f64() / last.wall.as_secs_f64()).max(0.01);
        let limit = budget
            .mul_f64(1.25 / share)
            .max(last.limit.mul_f64(1.5))
            .min(MAX_LIMIT);
        let runs = last.runs + 1;
        last = measure(limit, &mut run);
        last.runs = runs;
    }
    last
}

/// Runs `exe` with `args` and `input` on its standard input, like
/// [`super::run_with_input`], and returns its output and the CPU time (user + system) it and
/// the children it waited for used, from `wait4`.
pub fn run_with_cpu(exe: &str, args: &[&str], input: &[u8]) -> (Output, Duration) {
    command_with_cpu(Command::new(exe).args(args), input)
}

/// [`run_with_cpu`] for a `command` set up by the caller.
pub fn command_with_cpu(command: &mut Command, input: &[u8]) -> (Output, Duration) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let pid = child.id() as libc::pid_t;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || {
        // a program that stops reading early only breaks the pipe
        let _ = stdin.write_all(&data);
    });
    let read_all = |mut from: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            from.read_to_end(&mut bytes).expect("the output is read");
            bytes
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = read_all(Box::new(child.stderr.take().expect("stderr is piped")));
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child
        // (std's `Child` is never waited for: dropping it neither waits nor kills).
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            break;
        }
        let error = std::io::Error::last_os_error();
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::Interrupted,
            "wait4: {error}"
        );
    }
    drop(child);
    feeder.join().expect("the input thread ends");
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let output = Output {
        status: ExitStatus::from_raw(status),
        stdout: stdout.join().expect("stdout is read"),
        stderr: stderr.join().expect("stderr is read"),
    };
    (output, time(usage.ru_utime) + time(usage.ru_stime))
}

#[test]
fn a_starved_run_that_misses_its_claim_is_run_again_with_a_longer_limit() {
    let budget = Duration::from_millis(40);
    // a quarter of a core: the first run gets 10 ms of CPU and misses the claim, the second,
    // 4 x 1.25 times as long, gets enough
    let mut quarter = |limit| {
        std::thread::sleep(limit);
        (limit, limit / 4)
    };
    let got = with_cpu(budget, &mut quarter, |&limit| limit > budget);
    assert_eq!(got.runs, 2, "{got:?}");
    assert!(
        got.out >= budget * 4 && got.cpu >= budget.mul_f64(ENOUGH),
        "{got:?}"
    );
    // a claim that holds needs no second run, starved or not
    assert_eq!(with_cpu(budget, &mut quarter, |_| true).runs, 1);
    // nor does a run that ended before its limit at full speed (here two threads' worth)
    let early = with_cpu(
        Duration::from_millis(200),
        |_| {
            std::thread::sleep(Duration::from_millis(50));
            ((), Duration::from_millis(150))
        },
        |_| false,
    );
    assert_eq!(early.runs, 1, "{early:?}");
    // a claim that never holds stops after MAX_RUNS runs, or at MAX_LIMIT
    let tiny = Duration::from_millis(1);
    let never = with_cpu(
        tiny,
        |limit| {
            std::thread::sleep(limit);
            ((), tiny / 10)
        },
        |_| false,
    );
    assert!(
        never.runs == MAX_RUNS || never.limit == MAX_LIMIT,
        "{never:?}"
    );
    assert!(never.starved(tiny));
    // the CPU of a busy child is counted, that of an idle one is not
    let (out, busy) = run_with_cpu(
        "sh",
        &[
            "-c",
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo $i",
        ],
        b"",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "20000\n");
    assert!(
        out.status.success() && busy >= Duration::from_millis(5),
        "{busy:?}"
    );
    let (out, idle) = run_with_cpu(
        "sh",
        &["-c", "read line; sleep 0.3; echo \"$line\""],
        b"in\n",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "in\n");
    assert!(idle < Duration::from_millis(100), "{idle:?}");
    // a thread's own CPU time grows with its work, not with its sleep
    let before = thread_cpu();
    std::thread::sleep(Duration::from_millis(50));
    assert!(thread_cpu() - before < Duration::from_millis(20));
}
