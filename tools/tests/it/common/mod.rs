//! Helpers shared by the integration tests (each test file uses some of them).

// one file for both packages' tests that run a program as another user
#[path = "../../../../tests/it/common/shared_folder.rs"]
mod shared_folder;

pub use shared_folder::SharedFolder;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The official reference data (inputs of seeds 1-10, `params.csv`, the 155 scorer cases):
/// `$QA_OFFICIAL` if set, else the copy of `shared/official` kept in `tools/tests/official`.
#[allow(dead_code)]
pub fn official() -> PathBuf {
    let dir = match std::env::var("QA_OFFICIAL") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/official"),
    };
    assert!(
        dir.join("scorer_cases.csv").is_file() && dir.join("inputs").is_dir(),
        "official reference data not found in {}",
        dir.display()
    );
    dir
}

/// The `tester` binary under test.
#[allow(dead_code)]
pub fn tester() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_tester"))
}

/// `sh 'PATH'` for a fixture solver of `tests/fixtures`.
#[allow(dead_code)]
pub fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    format!("sh '{}'", path.display())
}

/// A fresh, empty scratch folder `name` under the target folder.
#[allow(dead_code)]
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh scratch folder `name` that is a Cargo project of its own (a `Cargo.toml` in it), as
/// `tester init` tells one: whether a scratch folder lies in one otherwise depends on where the
/// target folder is (`CARGO_TARGET_DIR` outside the clone has no `Cargo.toml` above it).
#[allow(dead_code)]
pub fn cargo_scratch(name: &str) -> PathBuf {
    let dir = scratch(name);
    let manifest = "[package]\nname = \"scratch\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    dir
}

/// The standard output of a command that must have succeeded (else the test fails with its
/// exit status and standard error).
#[allow(dead_code)]
pub fn ok_text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "tester failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `tester run --no-project --quiet` in `dir`, the other options to be added.
#[allow(dead_code)]
pub fn quiet_run(dir: &std::path::Path) -> Command {
    let mut command = tester();
    command
        .current_dir(dir)
        .args(["run", "--no-project", "--quiet"]);
    command
}

/// A run folder `dir/NAME` of seeds 1-3 with a solver that prints `0` (no moves).
#[allow(dead_code)]
pub fn echo_run(dir: &std::path::Path, name: &str) -> PathBuf {
    let run = dir.join(name);
    let out = tester()
        .args(["run", "--quiet", "--no-project", "--seeds", "1-3"])
        .args(["--exec", "echo 0", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    ok_text(&out);
    run
}

/// Replaces `path` by a named pipe that no process ever writes.
#[allow(dead_code)]
pub fn fifo(path: &std::path::Path) {
    let _ = std::fs::remove_file(path);
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path this test owns.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// The peak resident memory of a running process so far (KiB), where Linux tells it.
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `command`, killed after `limit`; returns its output (`None` when it was killed) and
/// the largest peak memory seen while it ran (KiB, 0 where unknown).
pub fn run_within(mut command: Command, limit: Duration) -> (Option<Output>, u64) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut peak = 0;
    loop {
        if let Some(kib) = peak_kib(child.id()) {
            peak = peak.max(kib);
        }
        if child.try_wait().unwrap().is_some() {
            return (Some(child.wait_with_output().unwrap()), peak);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return (None, peak);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Copies the executable `from` to `to` (mode and all) with `cp`, in a process of its own,
/// and waits for it. A copy written by this process would hold its file open for writing in
/// every child that another test's thread forks meanwhile, until that child execs; running
/// the copy then fails with "Text file busy" (`cli::run_without_a_default_solver_says_how_to_
/// build_it` did once). `cp`'s descriptors are its own, closed when it ends.
#[allow(dead_code)]
pub fn copy_executable(from: &std::path::Path, to: &std::path::Path) {
    let out = Command::new("cp")
        .arg("--")
        .arg(from)
        .arg(to)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run cp: {e}"));
    assert!(
        out.status.success(),
        "cp {} {}: {}",
        from.display(),
        to.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
