//! Issue 52: the traps a newcomer meets in `tester run`, each said where it is met.

use crate::common::{scratch, tester};

#[test]
fn an_exec_command_without_the_limit_is_told_how_to_pass_it() {
    // A solver that keeps its own (longer) limit: every seed times out at tester's.
    let dir = scratch("run_traps_exec_limit");
    let run = |name: &str, solver: &str| {
        tester()
            .current_dir(&dir)
            .args(["run", "--no-project", "--quiet", "--seeds", "1-2"])
            .args(["--time-limit", "0.3", "--exec", solver, "--out", name])
            .output()
            .unwrap()
    };
    let out = run("slow", "sleep 5; echo 0");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("2 of 2 seeds timed out at the limit of 0.3 s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--exec \"sleep 5; echo 0 --time-limit 0.3\""),
        "{stderr}"
    );
    // A command that names its limit, or seeds that end in time: no such warning.
    let out = run("named", "sleep 5; echo 0 # --time-limit 0.3");
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("timed out at the limit"));
    let out = run("fast", "echo 0");
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("timed out at the limit"));
}
