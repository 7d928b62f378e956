//! Writing visualizer pages to files: one for `tester vis`, one per seed for `tester run --vis`.

use std::fs;
use std::path::Path;

use super::report::SeedResult;
use crate::vis::{render_page, PageData};

/// Writes the page for `data` to `path`.
pub fn write_page(path: &Path, data: &PageData) -> Result<(), String> {
    fs::write(path, render_page(data)).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `SEED.html` of a finished seed: whatever the solver printed, even after a timeout or crash,
/// is worth a look (the page inlines at most [`crate::vis::PAGE_OUTPUT_MAX`] bytes of it).
pub fn write_seed_page(
    dir: &Path,
    seed: u64,
    p: Option<f64>,
    input: &crate::input::Input,
    result: &SeedResult,
) -> Result<(), String> {
    let out = dir.join(format!("{seed}.out"));
    // The output is at most the run's output cap (the solver was stopped there).
    let output = fs::read(&out).ok();
    let data = PageData {
        input: input.to_string(),
        output: output.map(|b| String::from_utf8_lossy(&b).into_owned()),
        seed: Some(seed),
        p,
        title: format!("seed {seed}: {} {}", result.status.as_str(), result.score),
    };
    write_page(&dir.join(format!("{seed}.html")), &data)
}
