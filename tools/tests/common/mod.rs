//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The official reference data (inputs of seeds 1-10, `params.csv`, the 155 scorer cases):
/// `$QA_OFFICIAL` if set, else the copy of `shared/official` kept in `tools/tests/official`.
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

/// A fresh scratch folder `GROUP-NAME` under the target folder's test scratch space.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{group}-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The standard output of a command that must have succeeded (else the test fails with its
/// exit status and standard error).
pub fn ok_text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "tester failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}
