//! What code a run measured beyond its commit: whether the git tree had uncommitted changes
//! (`git_dirty` in `results.json`) and, when it had, the changes themselves as `git.patch` in
//! the run folder, so the run can be rebuilt: `git checkout COMMIT && git apply git.patch`.
//!
//! The patch is `git diff --binary HEAD` (staged and unstaged changes to tracked files) followed
//! by one `git diff --no-index --binary /dev/null FILE` per untracked file that `.gitignore`
//! does not exclude, up to [`MAX_UNTRACKED`] files of at most [`MAX_UNTRACKED_BYTES`] each;
//! the files left out are named in the patch's first lines (which `git apply` skips). The
//! whole repository is looked at (not only the folder `tester` runs in), paths are relative to
//! its top folder (apply the patch there), and the run folder itself is left out.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The patch file's name in the run folder.
pub const PATCH: &str = "git.patch";

/// Untracked files put into the patch, at most.
pub const MAX_UNTRACKED: usize = 200;

/// Largest untracked file put into the patch, in bytes.
pub const MAX_UNTRACKED_BYTES: u64 = 1 << 20;

/// The state of the tree a run starts in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeState {
    /// `Some(true)` with uncommitted changes, `Some(false)` clean, `None` outside a repository
    /// (or without git).
    pub dirty: Option<bool>,
    /// The patch text when dirty.
    pub patch: Option<Vec<u8>>,
}

/// Runs `git -C TOP ARGS`; its stdout when it exits with one of `ok_codes`.
fn git(top: &Path, args: &[&str], ok_codes: &[i32]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    ok_codes.contains(&out.status.code()?).then_some(out.stdout)
}

/// The pathspecs of the whole repository at `top` but `run_dir`.
fn pathspecs(top: &Path, run_dir: &Path) -> Vec<String> {
    let mut specs = vec![".".to_string()];
    if let (Ok(top), Ok(dir)) = (top.canonicalize(), run_dir.canonicalize()) {
        if let Ok(rel) = dir.strip_prefix(&top) {
            if !rel.as_os_str().is_empty() {
                specs.push(format!(":(exclude){}", rel.display()));
            }
        }
    }
    specs
}

/// Looks at the whole repository holding the current folder, leaving `run_dir` out.
///
/// # Complexity
///
/// One `git status`, and when dirty one `git diff` plus one per untracked file (at most
/// [`MAX_UNTRACKED`]).
pub fn tree_state(run_dir: &Path) -> TreeState {
    let Some(top) = git(Path::new("."), &["rev-parse", "--show-toplevel"], &[0]) else {
        return TreeState::default();
    };
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim_end_matches('\n'));
    let specs = pathspecs(&top, run_dir);
    let with = |args: &[&str]| -> Vec<String> {
        args.iter()
            .map(|a| a.to_string())
            .chain(["--".to_string()])
            .chain(specs.iter().cloned())
            .collect()
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        git(&top, &args, &[0])
    };
    let Some(status) = run(with(&["status", "--porcelain"])) else {
        return TreeState::default();
    };
    if status.is_empty() {
        return TreeState {
            dirty: Some(false),
            patch: None,
        };
    }
    let tracked = run(with(&["diff", "--binary", "HEAD"])).unwrap_or_default();
    let listed =
        run(with(&["ls-files", "--others", "--exclude-standard", "-z"])).unwrap_or_default();
    TreeState {
        dirty: Some(true),
        patch: Some(patch(&top, tracked, &listed)),
    }
}

/// The tracked changes, then the untracked files (see the module documentation).
fn patch(top: &Path, tracked: Vec<u8>, listed: &[u8]) -> Vec<u8> {
    let mut skipped = Vec::new();
    let mut untracked = Vec::new();
    for name in listed.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let size = std::fs::metadata(top.join(&name)).map_or(u64::MAX, |m| m.len());
        if untracked.len() >= MAX_UNTRACKED || size > MAX_UNTRACKED_BYTES {
            skipped.push(name);
            continue;
        }
        // `--no-index` exits 1 when the files differ, which they do.
        let args = ["diff", "--no-index", "--binary", "--", "/dev/null", &name];
        match git(top, &args, &[0, 1]) {
            Some(diff) => untracked.push(diff),
            None => skipped.push(name),
        }
    }
    let mut out = Vec::new();
    if !skipped.is_empty() {
        out.extend_from_slice(
            format!(
                "# tester: untracked files left out of this patch (more than {MAX_UNTRACKED} \
                 files, larger than {MAX_UNTRACKED_BYTES} bytes, or unreadable):\n"
            )
            .as_bytes(),
        );
        for name in &skipped {
            out.extend_from_slice(format!("#   {name}\n").as_bytes());
        }
    }
    out.extend(tracked);
    for diff in untracked {
        out.extend(diff);
    }
    out
}

/// Writes `git.patch` into `dir` when the tree is dirty (else removes one left there); returns
/// the file's name, if written.
pub fn write_patch(dir: &Path, state: &TreeState) -> Result<Option<&'static str>, String> {
    let path = dir.join(PATCH);
    let Some(patch) = &state.patch else {
        // A clean run in a reused folder keeps no patch of an earlier run.
        let _ = std::fs::remove_file(&path);
        return Ok(None);
    };
    // A symbolic link there is replaced, not followed.
    super::replace::replace_file(&path, patch).map_err(|e| {
        super::resources::explained(&format!("cannot write {}", path.display()), &e)
    })?;
    Ok(Some(PATCH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_replaces_a_symlink_instead_of_writing_through_it() {
        let dir = std::env::temp_dir().join(format!("qa-patch-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        std::os::unix::fs::symlink("precious.txt", dir.join(PATCH)).unwrap();
        let state = TreeState {
            dirty: Some(true),
            patch: Some(b"diff\n".to_vec()),
        };
        assert_eq!(write_patch(&dir, &state), Ok(Some(PATCH)));
        let precious = std::fs::read_to_string(dir.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        assert_eq!(std::fs::read(dir.join(PATCH)).unwrap(), b"diff\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
