//! `tester ab --clean DIR…`: removes the worktrees an A/B made (`OUT/src/COMMIT12`, a checkout
//! and a release build each, about 114 MB for queenattack) with `git worktree remove`, so that
//! git forgets them too; the verdict removes them the same way unless `--keep-worktrees`. Only
//! what the A/B recorded making is removed ([`super::worktrees`]). The results (`ab.json`,
//! `base/`, `new/`) stay; `--resume` checks a removed worktree out again and builds it.

use std::path::PathBuf;

use super::folder::AB_JSON;
use super::worktrees::remove_trees;
use crate::cli::lock::lock_folder;

/// Removes the worktrees of each A/B folder in `dirs` (each locked meanwhile: an A/B still
/// running there is left alone); says what it removed and what it left alone.
pub fn run(dirs: &[PathBuf]) -> Result<i32, String> {
    for dir in dirs {
        if !dir.join(AB_JSON).is_file() {
            return Err(format!(
                "{} holds no {AB_JSON}: --clean removes the worktrees of A/B folders only",
                dir.display()
            ));
        }
        let _lock = lock_folder(dir, "tester ab")?;
        let removal = remove_trees(dir)?;
        if removal.removed.is_empty() && removal.left.is_empty() {
            crate::diag!("tester ab: {}: no worktree to remove", dir.display());
        }
        for tree in removal.removed {
            crate::diag!("tester ab: removed the worktree {}", tree.display());
        }
        for left in removal.left {
            crate::diag!("tester ab: {left}");
        }
    }
    Ok(0)
}
