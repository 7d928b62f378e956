//! The process table as `/proc` shows it, and the run marker in a process's environment: what
//! both the reaper (during a run) and the guardian (after `tester` died) use to find the
//! processes of a run. It imports neither of them: both depend on it, and the reaper on the
//! guardian, never the other way.

use std::fs;

/// The environment variable that marks a process of a run and its descendants: `TESTER_PID-SEED`
/// for a seed's solver, `TESTER_PID-build` for the build step.
pub const MARKER_VAR: &str = "QA_TESTER_RUN";

/// One process seen in `/proc`.
pub(crate) struct Seen {
    pub(crate) pid: i32,
    pub(crate) ppid: i32,
    pub(crate) zombie: bool,
}

/// Every process `/proc` lists now (one that vanishes while being read is left out).
pub(crate) fn processes() -> Vec<Seen> {
    pids()
        .into_iter()
        .filter_map(|pid| {
            let fields = stat_fields(&format!("/proc/{pid}/stat"));
            let state = fields.first()?;
            let ppid = fields.get(1)?.parse().ok()?;
            Some(Seen {
                pid,
                ppid,
                zombie: state == "Z" || state == "X",
            })
        })
        .collect()
}

/// The processes of `/proc` (none where it cannot be read).
fn pids() -> Vec<i32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .collect()
}

/// The processes of the process group `pgid`, each with its `stat` fields ([`stat_fields`]).
fn group(pgid: i32) -> Vec<(i32, Vec<String>)> {
    pids()
        .into_iter()
        .filter_map(|pid| {
            let fields = stat_fields(&format!("/proc/{pid}/stat"));
            (fields.get(2)?.parse::<i32>().ok()? == pgid).then_some((pid, fields))
        })
        .collect()
}

/// Whether the environment of `pid` holds `MARKER_VAR=<value>` (`prefix`: value starting so).
pub(crate) fn has_marker(pid: i32, value: &str, prefix: bool) -> bool {
    let Ok(environ) = fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let want = format!("{MARKER_VAR}={value}");
    environ.split(|&b| b == 0).any(|var| {
        if prefix {
            var.starts_with(want.as_bytes())
        } else {
            var == want.as_bytes()
        }
    })
}

/// The CPU time (user + system) used so far by the processes of the process group `pgid`,
/// each with the children it has reaped (`/proc/PID/stat`: utime, stime, cutime, cstime, in
/// clock ticks). `tester run` reads it just before it kills a solver's group (at the limit):
/// a shell that waits for the solver dies with it, and the solver, re-parented, is reaped
/// without its time reaching the shell's.
pub(crate) fn group_cpu(pgid: i32) -> std::time::Duration {
    // SAFETY: `sysconf` only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    // After `(comm)`: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime.
    let total: u64 = group(pgid)
        .iter()
        .flat_map(|(_, fields)| fields.iter().skip(11).take(4))
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    if ticks <= 0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::from_secs_f64(total as f64 / ticks as f64)
}

/// Whether the process group `pgid` waits on the pipe whose inode is `inode` (its stdin,
/// every byte of which was written): a thread of it is blocked reading that pipe (`read`,
/// `readv`) or waiting for it to become readable (`poll`, `ppoll`, `select`, `pselect6`,
/// `epoll_wait` on a set that holds it), and nothing else of the group computes: no thread of
/// the group is running, or the only running threads are in the process whose main thread is
/// the one blocked. A solver whose helper thread (or helper process) waits on stdin while its
/// main thread computes past the limit did not time out for want of input.
///
/// `/proc/PID/task/TID/syscall` names the system call a sleeping thread is in and its
/// arguments; the descriptors are read from `/proc/PID/fd` (`pipe:[INODE]`), a `poll` or
/// `select` set from `/proc/PID/mem`, an epoll set from `/proc/PID/fdinfo`. Where the kernel
/// hides `syscall` (a stricter ptrace policy), a thread asleep in the kernel's pipe read
/// (`wchan`) of a process whose stdin is that pipe counts. Where `/proc` tells neither, `false`.
pub(crate) fn group_reads_pipe(pgid: i32, inode: u64) -> bool {
    let wanted = format!("pipe:[{inode}]");
    let threads: Vec<ThreadSeen> = group(pgid)
        .into_iter()
        .flat_map(|(pid, _)| threads_of(pid, &wanted))
        .collect();
    waits_on_pipe(&threads)
}

/// One thread of a solver's process group at one moment.
#[derive(Clone, Copy, Debug)]
struct ThreadSeen {
    /// Its process.
    pid: i32,
    /// Whether it is its process's main thread.
    main: bool,
    /// Whether it is running or ready to run (state `R`).
    running: bool,
    /// Whether it is blocked reading the pipe or waiting for it to become readable.
    on_pipe: bool,
}

/// The rule of [`group_reads_pipe`] on the threads seen.
fn waits_on_pipe(threads: &[ThreadSeen]) -> bool {
    threads.iter().any(|t| {
        t.on_pipe
            && threads
                .iter()
                .all(|r| !r.running || (t.main && r.pid == t.pid))
    })
}

/// The fields after `(comm)` of a `stat` file (`state ppid pgrp …`); none when unreadable.
fn stat_fields(path: &str) -> Vec<String> {
    let Ok(stat) = fs::read_to_string(path) else {
        return Vec::new();
    };
    // comm may hold spaces and parentheses.
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    rest.split_ascii_whitespace().map(str::to_string).collect()
}

/// The threads of `pid` (see [`ThreadSeen`]); `wanted` is the pipe's `/proc/PID/fd` target.
fn threads_of(pid: i32, wanted: &str) -> Vec<ThreadSeen> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let fds = pipe_fds(pid, wanted);
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| {
            let tid: i32 = task.file_name().to_str()?.parse().ok()?;
            let state = stat_fields(&task.path().join("stat").to_string_lossy());
            let on_pipe = match fs::read_to_string(task.path().join("syscall")) {
                Ok(syscall) => waits_in(pid, &syscall, &fds),
                Err(_) => fs::read_to_string(task.path().join("wchan")).is_ok_and(|w| {
                    // `pipe_wait` on kernels before 5.6, `(anon_)pipe_read` since.
                    (w.contains("pipe_read") || w.contains("pipe_wait")) && fds.contains(&0)
                }),
            };
            Some(ThreadSeen {
                pid,
                main: tid == pid,
                running: state.first().map(String::as_str) == Some("R"),
                on_pipe,
            })
        })
        .collect()
}

/// The descriptors of `pid` open on the pipe (`/proc/PID/fd/FD` is `wanted`).
fn pipe_fds(pid: i32, wanted: &str) -> Vec<i64> {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.filter_map(Result::ok)
        .filter(|fd| fs::read_link(fd.path()).is_ok_and(|t| t.as_os_str() == wanted))
        .filter_map(|fd| fd.file_name().to_str()?.parse().ok())
        .collect()
}

/// How a system call waits for a descriptor to become readable.
enum Wait {
    /// `read`, `readv`: the first argument is the descriptor.
    Read,
    /// `poll`, `ppoll`: an array of `struct pollfd` and its length.
    Poll,
    /// `select`, `pselect6`: the number of descriptors and the set of those read.
    Select,
    /// `epoll_wait` and its kin: the epoll descriptor.
    Epoll,
}

/// The kind of wait of the system call `number`, if it is one.
fn wait_kind(number: libc::c_long) -> Option<Wait> {
    // Calls of x86-64 alone (newer architectures have only their `p` forms).
    #[cfg(target_arch = "x86_64")]
    match number {
        libc::SYS_poll => return Some(Wait::Poll),
        libc::SYS_select => return Some(Wait::Select),
        libc::SYS_epoll_wait => return Some(Wait::Epoll),
        _ => {}
    }
    match number {
        libc::SYS_read | libc::SYS_readv => Some(Wait::Read),
        libc::SYS_ppoll => Some(Wait::Poll),
        libc::SYS_pselect6 => Some(Wait::Select),
        libc::SYS_epoll_pwait | libc::SYS_epoll_pwait2 => Some(Wait::Epoll),
        _ => None,
    }
}

/// Whether a thread of `pid` whose `/proc/…/syscall` reads `syscall` waits on one of `fds`.
fn waits_in(pid: i32, syscall: &str, fds: &[i64]) -> bool {
    if fds.is_empty() {
        return false;
    }
    let mut fields = syscall.split_ascii_whitespace();
    let Some(kind) = fields
        .next()
        .and_then(|n| n.parse::<libc::c_long>().ok())
        .and_then(wait_kind)
    else {
        return false;
    };
    let args: Vec<u64> = fields
        .take(2)
        .filter_map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
        .collect();
    let [first, second] = args[..] else {
        return false;
    };
    match kind {
        Wait::Read => fds.contains(&(first as i64)),
        Wait::Poll => {
            // `struct pollfd { int fd; short events; short revents; }`, at most 256 read.
            let entries = read_memory(pid, first, 8 * second.min(256) as usize);
            entries.chunks_exact(8).any(|e| {
                let fd = i32::from_ne_bytes([e[0], e[1], e[2], e[3]]);
                let events = i16::from_ne_bytes([e[4], e[5]]);
                fds.contains(&i64::from(fd)) && events & (libc::POLLIN | libc::POLLRDNORM) != 0
            })
        }
        Wait::Select => {
            // The read set: a bit per descriptor below the first argument (at most 1024).
            let bits = first.min(1024) as usize;
            let set = read_memory(pid, second, bits.div_ceil(64) * 8);
            let words: Vec<u64> = set
                .chunks_exact(8)
                .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
                .collect();
            fds.iter().any(|&fd| {
                let fd = fd as usize;
                fd < bits && words.get(fd / 64).is_some_and(|w| w >> (fd % 64) & 1 == 1)
            })
        }
        Wait::Epoll => {
            fs::read_to_string(format!("/proc/{pid}/fdinfo/{first}")).is_ok_and(|info| {
                // `tfd:        0 events:       19 data: …` for each descriptor of the set.
                info.lines().any(|line| {
                    line.strip_prefix("tfd:")
                        .and_then(|rest| rest.split_ascii_whitespace().next())
                        .and_then(|fd| fd.parse::<i64>().ok())
                        .is_some_and(|fd| fds.contains(&fd))
                })
            })
        }
    }
}

/// `len` bytes of the memory of `pid` at `address` (`/proc/PID/mem`, readable where
/// `/proc/PID/task/TID/syscall` is); empty where they cannot be read.
fn read_memory(pid: i32, address: u64, len: usize) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    if address == 0 {
        return Vec::new();
    }
    let mut bytes = vec![0; len];
    let read = fs::File::open(format!("/proc/{pid}/mem"))
        .and_then(|mem| mem.read_exact_at(&mut bytes, address));
    if read.is_err() {
        return Vec::new();
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// A thread of process `pid` (`tid == pid`: its main thread).
    fn thread(pid: i32, tid: i32, running: bool, on_pipe: bool) -> ThreadSeen {
        ThreadSeen {
            pid,
            main: tid == pid,
            running,
            on_pipe,
        }
    }

    #[test]
    fn only_a_group_that_does_nothing_but_wait_on_stdin_waits() {
        // One thread blocked on stdin, nothing running (a shell waiting for it asleep too).
        assert!(waits_on_pipe(&[thread(7, 7, false, true)]));
        assert!(waits_on_pipe(&[
            thread(6, 6, false, false),
            thread(7, 7, false, true)
        ]));
        // A helper thread reads stdin while the main thread computes: not waiting.
        assert!(!waits_on_pipe(&[
            thread(7, 7, true, false),
            thread(7, 8, false, true)
        ]));
        // The main thread waits on stdin while its workers compute: waiting for input.
        assert!(waits_on_pipe(&[
            thread(7, 7, false, true),
            thread(7, 8, true, false)
        ]));
        // A helper process reads stdin while another process computes: not waiting.
        assert!(!waits_on_pipe(&[
            thread(6, 6, true, false),
            thread(7, 7, false, true)
        ]));
        // Nothing on stdin: not waiting, however idle.
        assert!(!waits_on_pipe(&[thread(7, 7, false, false)]));
        assert!(!waits_on_pipe(&[]));
    }

    #[test]
    fn a_busy_group_shows_its_cpu_time() {
        // A busy loop in a group of its own: its CPU time grows (however loaded the machine,
        // within the deadline).
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id() as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut seen = std::time::Duration::ZERO;
        while seen < std::time::Duration::from_millis(100) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
            seen = group_cpu(pgid);
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(seen >= std::time::Duration::from_millis(100), "{seen:?}");
        // A group no process is in has used nothing.
        assert_eq!(group_cpu(i32::MAX), std::time::Duration::ZERO);
    }
}
