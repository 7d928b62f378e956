//! Helpers shared by the integration tests (each test file uses some of them).

use std::path::PathBuf;
use std::process::Output;

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
