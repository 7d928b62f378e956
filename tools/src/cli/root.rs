//! The project's top folder, found from any folder below it as git and cargo find theirs: the
//! default run folders (`runs/`) and the bests and bounds files (`testcases/`) are its, so
//! `cd docs && tester run` neither writes `docs/runs/` nor runs without the bests file.

use std::path::{Path, PathBuf};

/// The files that mark a project's top folder.
const MARKS: [&str; 2] = ["testcases/bests.json", "testcases/bounds.json"];

/// The top folder of the project `start` lies in: `start` or the nearest folder above that
/// holds `testcases/bests.json` or `testcases/bounds.json`. The search stops at a repository's
/// top folder (`.git`), the home folder and a cache folder (`CACHEDIR.TAG`, as in cargo's
/// `target/`: build output, never a project's own folder).
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let home = home_folder();
    for dir in start.ancestors() {
        if MARKS.iter().any(|mark| dir.join(mark).is_file()) {
            return Some(dir.to_path_buf());
        }
        if last_looked_at(dir, home.as_deref()) || dir.join("CACHEDIR.TAG").is_file() {
            break;
        }
    }
    None
}

/// `$HOME`, with its links resolved (the current folder is given that way by the system).
pub fn home_folder() -> Option<PathBuf> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    Some(home.canonicalize().unwrap_or(home))
}

/// Whether a search upwards for a project's files ends at `dir`: a repository's top folder
/// (it holds `.git`) or the `home` folder.
pub fn last_looked_at(dir: &Path, home: Option<&Path>) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok() || home == Some(dir)
}

/// The project's top folder when it is above the current folder (`None` in it, or outside
/// any project).
pub fn root_above() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    find_root(&cwd).filter(|root| *root != cwd)
}

/// The default bests (`name` = `bests`) or bounds (`bounds`) file: `testcases/NAME.json` of
/// the current folder when it exists, else that of the project's top folder above
/// ([`root_above`]) when there is one (to be created there by `--update-bests`), else
/// `testcases/NAME.json` here.
pub fn default_table(name: &str) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    table_from(name, &cwd)
}

/// [`default_table`] as seen from the folder `cwd` (the path relative to it when it is
/// there).
fn table_from(name: &str, cwd: &Path) -> PathBuf {
    let here = PathBuf::from(format!("testcases/{name}.json"));
    if cwd.join(&here).is_file() {
        return here;
    }
    match find_root(cwd).filter(|root| root != cwd) {
        Some(root) => root.join(&here),
        None => here,
    }
}

/// The default folder of run folders seen from the folder `cwd` without a `tester.toml`:
/// `runs` of the project's top folder, else `runs` here.
pub fn runs_folder(cwd: &Path) -> PathBuf {
    match find_root(cwd).filter(|root| root != cwd) {
        Some(root) => root.join("runs"),
        None => PathBuf::from("runs"),
    }
}

/// A fresh folder `qa-NAME-PID` in the temporary folder holding the folders `dirs` and the
/// files `files` (path, text): a project tree for the tests of the folders found from it.
#[cfg(test)]
pub(crate) fn test_tree(name: &str, dirs: &[&str], files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("qa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in dirs {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for (path, text) in files {
        std::fs::write(root.join(path), text).unwrap();
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subfolders_bests_file_is_its_projects_even_before_it_exists() {
        // A project marked by its bounds file only: --update-bests in docs/ created
        // docs/testcases/bests.json, not the project's.
        let root = test_tree(
            "table",
            &["testcases", "docs"],
            &[("testcases/bounds.json", "{}")],
        );
        let docs = root.join("docs");
        assert_eq!(
            table_from("bests", &docs),
            root.join("testcases/bests.json")
        );
        assert_eq!(
            table_from("bounds", &docs),
            root.join("testcases/bounds.json")
        );
        assert_eq!(
            table_from("bests", &root),
            PathBuf::from("testcases/bests.json")
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_top_folder_is_found_but_not_through_a_cache_or_another_repository() {
        let root = test_tree(
            "root",
            &[
                "testcases",
                "docs/deep",
                "target/tmp/t",
                "other/.git",
                "other/sub",
            ],
            &[("testcases/bounds.json", "{}"), ("target/CACHEDIR.TAG", "")],
        );
        assert_eq!(find_root(&root.join("docs/deep")), Some(root.clone()));
        assert_eq!(find_root(&root), Some(root.clone()));
        // cargo's target folder (a test's scratch folder) and a repository of its own: not
        // this project
        assert_eq!(find_root(&root.join("target/tmp/t")), None);
        assert_eq!(find_root(&root.join("other/sub")), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
