//! Writing visualizer pages to files: one for `tester vis`, one per seed for `tester run --vis`.

use std::fs;
use std::path::Path;

use super::report::SeedResult;
use crate::vis::{render_page, PageData};

/// Writes the page for `data` to `path` (a symbolic link there is replaced, not followed; a
/// device such as `/dev/stdout` is written as it is: see [`super::replace::open_output`]).
pub fn write_page(path: &Path, data: &PageData) -> Result<(), String> {
    super::replace::write_output(path, render_page(data).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_replaces_a_symlink_instead_of_writing_through_it() {
        let dir = std::env::temp_dir().join(format!("qa-pages-link-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        let page = dir.join("1.html");
        std::os::unix::fs::symlink("precious.txt", &page).unwrap();
        let data = PageData {
            input: "8\n2\n".into(),
            output: None,
            seed: Some(1),
            p: None,
            title: "seed 1".into(),
        };
        write_page(&page, &data).unwrap();
        let precious = fs::read_to_string(dir.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        assert!(fs::read_to_string(&page).unwrap().contains("<html"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
