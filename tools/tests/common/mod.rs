//! Helpers shared by the integration tests.

use std::path::PathBuf;

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
