//! The worktrees of an A/B (`OUT/src/COMMIT12`, a checkout and a release build each, about
//! 114 MB for queenattack): removed with `git worktree remove` when the A/B reaches its verdict
//! (unless `--keep-worktrees`), or by `tester ab --clean DIR…`, so that git forgets them too.
//! The results (`ab.json`, `base/`, `new/`) stay; `--resume` checks a removed worktree out
//! again and builds it.

use std::path::{Path, PathBuf};

use super::arms::remove_worktree;
use super::folder::AB_JSON;
use crate::cli::lock::lock_folder;

/// The worktrees under `dir/src`.
fn worktrees(dir: &Path) -> Vec<PathBuf> {
    let mut trees: Vec<PathBuf> = std::fs::read_dir(dir.join("src")).map_or(Vec::new(), |d| {
        d.filter_map(Result::ok).map(|e| e.path()).collect()
    });
    trees.sort();
    trees
}

/// Removes the worktrees of the A/B in `dir` (and `dir/src` once empty); the ones removed.
pub fn remove_trees(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut removed = Vec::new();
    for tree in worktrees(dir) {
        if remove_worktree(&tree)? {
            removed.push(tree);
        }
    }
    // Only when empty: a folder git did not know as a worktree is left to its owner.
    let _ = std::fs::remove_dir(dir.join("src"));
    Ok(removed)
}

/// `tester ab --clean DIR…`: removes the worktrees of each A/B folder (each locked meanwhile:
/// an A/B still running there is left alone); says what it removed.
pub fn run(dirs: &[PathBuf]) -> Result<i32, String> {
    for dir in dirs {
        if !dir.join(AB_JSON).is_file() {
            return Err(format!(
                "{} holds no {AB_JSON}: --clean removes the worktrees of A/B folders only",
                dir.display()
            ));
        }
        let _lock = lock_folder(dir, "tester ab")?;
        let removed = remove_trees(dir)?;
        if removed.is_empty() {
            crate::diag!("tester ab: {}: no worktree to remove", dir.display());
        }
        for tree in removed {
            crate::diag!("tester ab: removed the worktree {}", tree.display());
        }
    }
    Ok(0)
}
