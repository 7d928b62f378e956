//! What code a run measured beyond its commit: whether the git tree had uncommitted changes
//! (`git_dirty` in `results.json`) and, when it had, the changes themselves as `git.patch` in
//! the run folder, so the run can be rebuilt: `git checkout COMMIT && git apply git.patch`.
//!
//! The patch is `git diff --binary HEAD` (staged and unstaged changes to tracked files) followed
//! by one `git diff --no-index --binary /dev/null FILE` per untracked file that `.gitignore` does not
//! exclude and that reads as source: text (no NUL byte in its first 8000 bytes, git's own test)
//! of at most [`MAX_UNTRACKED_BYTES`], up to [`MAX_UNTRACKED`] files and
//! [`MAX_UNTRACKED_TOTAL`] bytes in all. Outputs left in the tree (a GIF, a page, a big answer)
//! are no change of the code: the files left out are named in the patch's first lines (which
//! `git apply` skips), in [`TreeState::left_out`] and so in `results.json`. The whole
//! repository is looked at (not only the folder `tester` runs in), paths are relative to its
//! top folder (apply the patch there), and the run folder itself is left out.
//!
//! What a run cannot see in its tree is whether the solver's file is that tree's build:
//! [`freshness`] compares it with the sources cargo's dep-info file lists beside it.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The patch file's name in the run folder.
pub const PATCH: &str = "git.patch";

/// Untracked files put into the patch, at most.
pub const MAX_UNTRACKED: usize = 200;

/// Largest untracked file put into the patch, in bytes (a source file is far smaller).
pub const MAX_UNTRACKED_BYTES: u64 = 128 << 10;

/// The most bytes of untracked files put into the patch, in all.
pub const MAX_UNTRACKED_TOTAL: u64 = 1 << 20;

/// The bytes looked at for a NUL byte (a file holding one is binary, as git tells).
const BINARY_PROBE: usize = 8000;

/// The state of the tree a run starts in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeState {
    /// `Some(true)` with uncommitted changes, `Some(false)` clean, `None` outside a repository
    /// (or without git).
    pub dirty: Option<bool>,
    /// The patch text when dirty.
    pub patch: Option<Vec<u8>>,
    /// The untracked files left out of the patch (binary, too large, too many, unreadable),
    /// relative to the repository's top folder.
    pub left_out: Vec<String>,
}

/// Runs `git -C TOP ARGS`; its stdout when it exits with one of `ok_codes`.
fn git<S: AsRef<std::ffi::OsStr>>(top: &Path, args: &[S], ok_codes: &[i32]) -> Option<Vec<u8>> {
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
            ..TreeState::default()
        };
    }
    let tracked = run(with(&["diff", "--binary", "HEAD"])).unwrap_or_default();
    let listed =
        run(with(&["ls-files", "--others", "--exclude-standard", "-z"])).unwrap_or_default();
    let (patch, left_out) = patch(&top, tracked, &listed);
    TreeState {
        dirty: Some(true),
        patch: Some(patch),
        left_out,
    }
}

/// Whether the file at `path` (of metadata `meta`, not following a link) reads as source
/// text: no NUL byte in its first [`BINARY_PROBE`] bytes (a symbolic link is its target's name:
/// text). An unreadable file is not.
fn is_text(path: &Path, meta: &std::fs::Metadata) -> bool {
    if meta.file_type().is_symlink() {
        return true;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(BINARY_PROBE);
    file.take(BINARY_PROBE as u64)
        .read_to_end(&mut head)
        .is_ok_and(|_| !head.contains(&0))
}

/// The tracked changes, then the untracked files that read as source (see the module
/// documentation); and the untracked files left out.
fn patch(top: &Path, tracked: Vec<u8>, listed: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut untracked = Vec::new();
    let mut total: u64 = 0;
    for raw in listed.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(raw).into_owned();
        // The file by its own bytes: a name that is no UTF-8 is still that file.
        let path = top.join(std::ffi::OsStr::from_bytes(raw));
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            skipped.push(name);
            continue;
        };
        let size = meta.len();
        let full =
            untracked.len() >= MAX_UNTRACKED || total.saturating_add(size) > MAX_UNTRACKED_TOTAL;
        if full || size > MAX_UNTRACKED_BYTES || !is_text(&path, &meta) {
            skipped.push(name);
            continue;
        }
        // `--no-index` exits 1 when the files differ, which they do, and when it cannot read
        // one: a new file's diff is never empty.
        let file = std::ffi::OsStr::from_bytes(raw);
        let args = ["diff", "--no-index", "--binary", "--", "/dev/null"].map(std::ffi::OsStr::new);
        match git(top, &[&args[..], &[file]].concat(), &[0, 1]) {
            Some(diff) if !diff.is_empty() => {
                total += size;
                untracked.push(diff);
            }
            _ => skipped.push(name),
        }
    }
    let mut out = Vec::new();
    if !skipped.is_empty() {
        out.extend_from_slice(
            format!(
                "# tester: untracked files left out of this patch (binary, larger than \
                 {MAX_UNTRACKED_BYTES} bytes, past {MAX_UNTRACKED} files or \
                 {MAX_UNTRACKED_TOTAL} bytes in all, or unreadable):\n"
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
    (out, skipped)
}

/// What a binary's dep-info file tells of it (see [`freshness`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// No dep-info file names it: not a cargo build, or one copied away from its own.
    Unknown,
    /// Written after each source it was built from last changed.
    UpToDate,
    /// Built before this source last changed: not what its sources build now.
    Stale(PathBuf),
}

/// Whether `binary` is what its sources build now, by the dep-info file `BINARY.d` cargo
/// writes beside a binary it built: a source listed there changed after the binary was
/// written (an edit, a revert, a checkout), or none did.
pub fn freshness(binary: &Path) -> Freshness {
    let modified = |p: &Path| -> Option<SystemTime> { std::fs::metadata(p).ok()?.modified().ok() };
    let (Some(built), Some(sources)) = (modified(binary), dep_info(binary)) else {
        return Freshness::Unknown;
    };
    match sources
        .into_iter()
        .find(|s| modified(s).is_some_and(|m| m > built))
    {
        Some(source) => Freshness::Stale(source),
        None => Freshness::UpToDate,
    }
}

/// The sources cargo lists in `BINARY.d` (the dep-info file beside a binary it built), when
/// that file names `binary` itself as what it built (a target folder copied from elsewhere
/// names another).
pub fn dep_info(binary: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(binary.with_extension("d")).ok()?;
    let line = text.lines().next()?;
    let mut words = make_words(line).into_iter();
    let built = words.next()?;
    let built = PathBuf::from(built.strip_suffix(':')?);
    if built.canonicalize().ok()? != binary.canonicalize().ok()? {
        return None;
    }
    Some(words.map(PathBuf::from).collect())
}

/// The words of a dep-info line: split at spaces, `\ ` being a space inside a word.
fn make_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            ' ' | '\t' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            _ => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
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
    fn dep_info_words_keep_escaped_spaces() {
        assert_eq!(
            make_words(r"/t/release/queenattack: /a b/src/main.rs /a\ b/src/lib.rs"),
            [
                "/t/release/queenattack:",
                "/a",
                "b/src/main.rs",
                "/a b/src/lib.rs"
            ]
        );
    }

    #[test]
    fn an_untracked_name_that_is_no_utf8_is_left_out_without_a_panic() {
        // Its name read as UTF-8 named no file, whose size (taken as u64::MAX) overflowed the
        // sum of the files kept before it: a panic in a debug build.
        let dir = std::env::temp_dir().join(format!("qa-patch-name-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "kept\n").unwrap();
        let odd: &[u8] = b"caf\xe9.txt";
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(odd)), "odd\n").unwrap();
        let listed = [b"a.txt\0".as_slice(), odd, b"\0"].concat();
        let (patch, left_out) = patch(&dir, Vec::new(), &listed);
        let patch = String::from_utf8_lossy(&patch);
        assert!(patch.contains("+kept"), "{patch}");
        assert!(patch.contains("+odd"), "{patch}");
        assert!(left_out.is_empty(), "{left_out:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_patch_replaces_a_symlink_instead_of_writing_through_it() {
        let dir = std::env::temp_dir().join(format!("qa-patch-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        std::os::unix::fs::symlink("precious.txt", dir.join(PATCH)).unwrap();
        let state = TreeState {
            dirty: Some(true),
            patch: Some(b"diff\n".to_vec()),
            left_out: Vec::new(),
        };
        assert_eq!(write_patch(&dir, &state), Ok(Some(PATCH)));
        let precious = std::fs::read_to_string(dir.join("precious.txt")).unwrap();
        assert_eq!(precious, "precious\n");
        assert_eq!(std::fs::read(dir.join(PATCH)).unwrap(), b"diff\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
