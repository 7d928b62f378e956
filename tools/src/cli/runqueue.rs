//! How long a solver's processes were ready to run but waited for a CPU: the run-queue wait
//! that Linux keeps per thread (`/proc/PID/task/TID/schedstat`, its second field, in ns).
//!
//! That wait is what the machine denied a run. Its CPU time is not: a solver that sleeps,
//! blocks or computes little on purpose uses little CPU on an idle machine too, while a solver
//! that wants a core and waits behind other work for half its time shows the wait. `tester ab`
//! judges starvation by it (`cli::cpu`).
//!
//! The threads of the solver and of its descendants (found through
//! `/proc/PID/task/TID/children`) are sampled while it runs; a thread's count only grows, so
//! the last value seen of each is kept, and the solver's own main thread is read once more
//! after it exited, before it is reaped (a zombie keeps its counts). A thread that ended
//! between two samples loses its last interval (at most one poll of waiting), and a process
//! that left the tree (re-parented when its parent exited) is no longer followed.

use std::collections::HashMap;
use std::fs;
use std::time::Duration;

/// The most threads followed in one run (a fork bomb is not walked whole); a result's times
/// may stand for as many (`report::MAX_THREADS`).
pub const MAX_TASKS: usize = 4096;

/// The run-queue wait (ns) of thread `tid` of process `pid` (`pid` itself: its main thread),
/// when Linux tells it.
pub fn task_wait(pid: i32, tid: i32) -> Option<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// Whether this kernel reports run-queue waits (`/proc/self/schedstat`) and each thread's
/// children (`/proc/self/task/TID/children`, `CONFIG_PROC_CHILDREN`): without them no run is
/// judged starved (a shell's wait alone would stand for its solver's). Asked once: the
/// kernel does not change under a run.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let own = fs::read_to_string("/proc/self/schedstat").ok();
        let children = format!("/proc/self/task/{}/children", std::process::id());
        own.is_some_and(|t| t.split_ascii_whitespace().nth(1).is_some())
            && fs::metadata(children).is_ok()
    })
}

/// The run-queue waits seen of one run's threads.
#[derive(Debug, Default)]
pub struct Waits {
    /// The last wait seen of each thread, by thread id.
    seen: HashMap<i32, u64>,
    /// The waits of threads whose id came back for a new thread (its count restarted).
    retired: u64,
}

impl Waits {
    /// Records `wait` (ns) for thread `tid`.
    pub fn record(&mut self, tid: i32, wait: u64) {
        let last = self.seen.entry(tid).or_insert(0);
        if wait < *last {
            // Counts only grow: this is another thread with the same id.
            self.retired += *last;
        }
        *last = wait;
    }

    /// Samples the threads of `pid` and of all its descendants.
    pub fn sample(&mut self, pid: i32) {
        let mut todo = vec![pid];
        let mut walked = 0;
        while let Some(process) = todo.pop() {
            let Ok(tasks) = fs::read_dir(format!("/proc/{process}/task")) else {
                continue;
            };
            for tid in tasks
                .filter_map(Result::ok)
                .filter_map(|t| t.file_name().to_str()?.parse::<i32>().ok())
            {
                walked += 1;
                if walked > MAX_TASKS {
                    return;
                }
                if let Some(wait) = task_wait(process, tid) {
                    self.record(tid, wait);
                }
                let children = fs::read_to_string(format!("/proc/{process}/task/{tid}/children"));
                todo.extend(
                    children
                        .unwrap_or_default()
                        .split_ascii_whitespace()
                        .filter_map(|c| c.parse::<i32>().ok()),
                );
            }
        }
    }

    /// The total wait of the threads seen; `None` when none was seen (no schedstat here).
    pub fn total(&self) -> Option<Duration> {
        (!self.seen.is_empty())
            .then(|| Duration::from_nanos(self.retired + self.seen.values().sum::<u64>()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_id_that_comes_back_adds_to_the_wait() {
        let mut waits = Waits::default();
        assert_eq!(waits.total(), None);
        waits.record(7, 1_000_000);
        waits.record(7, 3_000_000);
        waits.record(8, 2_000_000);
        assert_eq!(waits.total(), Some(Duration::from_millis(5)));
        // Thread 7 again with a smaller count: a new thread; the old one's 3 ms stay.
        waits.record(7, 500_000);
        assert_eq!(waits.total(), Some(Duration::from_micros(5_500)));
    }

    #[test]
    fn a_sleeping_child_waits_next_to_nothing() {
        if !available() {
            return;
        }
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let mut waits = Waits::default();
        waits.sample(child.id() as i32);
        // SAFETY: a signal to the process group this test started.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
        // The shell and its sleep were both found; sleeping is no wait for a CPU.
        assert!(waits.seen.len() >= 2, "{waits:?}");
        assert!(
            waits.total().unwrap() < Duration::from_millis(250),
            "{waits:?}"
        );
    }
}
