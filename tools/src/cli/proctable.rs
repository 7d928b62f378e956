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
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_ascii_whitespace();
            let state = fields.next()?;
            let ppid = fields.next()?.parse().ok()?;
            Some(Seen {
                pid,
                ppid,
                zombie: state == "Z" || state == "X",
            })
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
    let Ok(entries) = fs::read_dir("/proc") else {
        return std::time::Duration::ZERO;
    };
    let total: u64 = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After `(comm)`: state ppid pgrp session tty tpgid flags minflt cminflt majflt
            // cmajflt utime stime cutime cstime.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 1..]
                .split_ascii_whitespace()
                .collect();
            let pgrp: i32 = fields.get(2)?.parse().ok()?;
            (pgrp == pgid).then(|| {
                fields[11..15.min(fields.len())]
                    .iter()
                    .filter_map(|f| f.parse::<u64>().ok())
                    .sum::<u64>()
            })
        })
        .sum();
    if ticks <= 0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::from_secs_f64(total as f64 / ticks as f64)
}

/// Whether a thread of a process in the process group `pgid` is blocked in `read` (or
/// `readv`) on a descriptor of the pipe whose inode is `inode`: `/proc/PID/task/TID/syscall`
/// names the system call a sleeping thread is in and its first argument, the descriptor, and
/// `/proc/PID/fd/FD` names what it is (`pipe:[INODE]`). A thread blocked so has read
/// everything in the pipe and waits for more. Where the kernel hides `syscall` (a stricter
/// ptrace policy), a thread asleep in the kernel's pipe read (`wchan`) of a process whose
/// stdin is that pipe counts. Where `/proc` tells neither, `false`.
pub(crate) fn group_reads_pipe(pgid: i32, inode: u64) -> bool {
    let Ok(entries) = fs::read_dir("/proc") else {
        return false;
    };
    let wanted = format!("pipe:[{inode}]");
    let in_group = |pid: i32| {
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // After `(comm)`: state ppid pgrp.
        let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
        rest.split_ascii_whitespace().nth(2) == Some(&pgid.to_string())
    };
    let reads = |pid: i32, syscall: &str| {
        let mut fields = syscall.split_ascii_whitespace();
        let number = fields.next().and_then(|n| n.parse::<libc::c_long>().ok());
        let fd = fields
            .next()
            .and_then(|a| i64::from_str_radix(a.trim_start_matches("0x"), 16).ok());
        match (number, fd) {
            (Some(libc::SYS_read | libc::SYS_readv), Some(fd)) => {
                fs::read_link(format!("/proc/{pid}/fd/{fd}"))
                    .is_ok_and(|target| target.as_os_str() == wanted.as_str())
            }
            _ => false,
        }
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| in_group(pid))
        .any(|pid| {
            let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
                return false;
            };
            tasks.filter_map(Result::ok).any(|task| {
                match fs::read_to_string(task.path().join("syscall")) {
                    Ok(syscall) => reads(pid, &syscall),
                    Err(_) => fs::read_to_string(task.path().join("wchan")).is_ok_and(|w| {
                        // `pipe_wait` on kernels before 5.6, `(anon_)pipe_read` since.
                        (w.contains("pipe_read") || w.contains("pipe_wait"))
                            && fs::read_link(format!("/proc/{pid}/fd/0"))
                                .is_ok_and(|t| t.as_os_str() == wanted.as_str())
                    }),
                }
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

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
