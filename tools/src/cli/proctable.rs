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
