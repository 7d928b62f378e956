//! The worktrees of an A/B (`OUT/src/COMMIT12`), made with `git worktree add` and removed only
//! when this A/B made them.
//!
//! Each is recorded in `OUT/worktrees.json` *before* git makes it: its absolute path and the
//! repository it belongs to (git's common folder, `.git` of the clone). A removal (`tester ab
//! --clean`, or the verdict) and `--resume` act only on an entry of `OUT/src` that is
//! * recorded there at exactly its place, `OUT/src/NAME` of this folder (an A/B folder copied
//!   into another clone records the first folder's paths: its copies are none of its own);
//! * a real folder, not a symbolic link (`OUT/src` too);
//! * for a removal, registered by git in the recorded repository at exactly that path.
//!
//! Anything else under `OUT/src` is left alone and named; `--resume` refuses to go on beside
//! it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::cli::readcap::{read_text_capped, JSON_MAX};

/// The record's file name in the A/B folder.
pub const WORKTREES_JSON: &str = "worktrees.json";

/// A worktree this A/B made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    /// Its absolute path, `OUT/src/COMMIT12`.
    pub path: PathBuf,
    /// The repository it belongs to: git's common folder (absolute).
    pub repository: PathBuf,
    /// The commit checked out.
    pub commit: String,
}

/// Runs `git ARGS` in `dir`; its trimmed standard output, or its standard error as the error.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    git_with(OsStr::new("-C"), dir.as_os_str(), args)
}

/// Runs `git --git-dir=REPOSITORY ARGS` (see [`git`]).
fn git_in(repository: &Path, args: &[&str]) -> Result<String, String> {
    git_with(OsStr::new("--git-dir"), repository.as_os_str(), args)
}

fn git_with(option: &OsStr, value: &OsStr, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg(option)
        .arg(value)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The top folder of the repository holding the current folder.
pub fn repository_top(why: &str) -> Result<PathBuf, String> {
    git(Path::new("."), &["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .map_err(|e| format!("{why} needs a git repository around the current folder: {e}"))
}

/// The worktree of `commit` in the A/B folder `out`: `OUT/src/COMMIT12`.
pub fn tree_of(out: &Path, commit: &str) -> PathBuf {
    out.join("src").join(&commit[..12.min(commit.len())])
}

/// The common folder (absolute, canonical) of the repository whose top folder is `top`.
fn repository_of(top: &Path) -> Result<PathBuf, String> {
    let dir = git(
        top,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .map_err(|e| format!("cannot find the repository of {}: {e}", top.display()))?;
    Path::new(&dir)
        .canonicalize()
        .map_err(|e| format!("{dir}: {e}"))
}

/// The worktrees recorded in the A/B folder `out` (none without a record).
pub fn recorded(out: &Path) -> Result<Vec<Made>, String> {
    let path = out.join(WORKTREES_JSON);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(Vec::new());
    }
    let text = read_text_capped(&path, JSON_MAX, "a worktrees.json")?;
    let bad = |why: &str| format!("{}: {why}", path.display());
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let list = doc["worktrees"]
        .as_array()
        .ok_or_else(|| bad("no `worktrees` array"))?;
    list.iter()
        .map(|v| {
            let text = |key: &str| v[key].as_str().ok_or_else(|| bad(&format!("no `{key}`")));
            Ok(Made {
                path: PathBuf::from(text("path")?),
                repository: PathBuf::from(text("repository")?),
                commit: text("commit")?.to_string(),
            })
        })
        .collect()
}

/// Writes the record of `out` (atomically).
fn save(out: &Path, made: &[Made]) -> Result<(), String> {
    let list: Vec<Value> = made
        .iter()
        .map(|m| json!({ "path": m.path, "repository": m.repository, "commit": m.commit }))
        .collect();
    let doc = json!({
        "about": "the git worktrees this A/B made: `tester ab --clean` and the verdict remove \
                  these only, each where it was made",
        "worktrees": list,
    });
    let path = out.join(WORKTREES_JSON);
    let text = serde_json::to_string_pretty(&doc).expect("JSON values always serialise") + "\n";
    crate::cli::replace::replace_file(&path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Checks out `commit` of the repository at `top` into `tree` (`OUT/src/COMMIT12` of the A/B
/// folder `out`, absolute), recorded first in `out`'s [`WORKTREES_JSON`]; or checks that
/// `tree` already holds it (its tracked files restored: a checkout stopped midway is
/// completed). A tree left empty or bare by a `git worktree add` that was stopped is taken over
/// (`--force` twice: the stopped add left its entry registered and locked).
pub fn check_out(out: &Path, top: &Path, tree: &Path, commit: &str) -> Result<(), String> {
    let repository = repository_of(top)?;
    let mut made = recorded(out)?;
    made.retain(|m| m.path != tree);
    made.push(Made {
        path: tree.to_path_buf(),
        repository,
        commit: commit.to_string(),
    });
    save(out, &made)?;
    if std::fs::symlink_metadata(tree).is_ok_and(|m| !m.is_dir()) {
        return Err(format!(
            "{} should be a worktree of commit {commit} but is no folder (a link or a file): \
             move it away",
            tree.display()
        ));
    }
    if tree.exists() && take_over(tree, commit)? {
        return Ok(());
    }
    let tree_text = tree
        .to_str()
        .ok_or_else(|| format!("{}: the folder's name is not UTF-8", tree.display()))?;
    git(
        top,
        &[
            "worktree", "add", "--detach", "--quiet", "--force", "--force", tree_text, commit,
        ],
    )
    .map(drop)
    .map_err(|e| format!("git worktree add {tree_text} {commit}: {e}"))
}

/// The existing folder `tree` (recorded by this A/B): a checkout of `commit` restored
/// (`true`: nothing more to do), or the leftover of a stopped `git worktree add` (an empty
/// folder, or one holding only `.git`) cleared for a new one (`false`).
fn take_over(tree: &Path, commit: &str) -> Result<bool, String> {
    let own = git(tree, &["rev-parse", "--show-toplevel"])
        .ok()
        .and_then(|t| Path::new(&t).canonicalize().ok());
    if own.is_some() && own == tree.canonicalize().ok() {
        let head = git(tree, &["rev-parse", "HEAD"]).unwrap_or_default();
        if head != commit {
            return Err(format!(
                "{} should hold commit {commit} but holds `{head}`: move it away",
                tree.display()
            ));
        }
        return git(tree, &["reset", "--hard", "--quiet"])
            .map(|_| true)
            .map_err(|e| format!("git reset --hard in {}: {e}", tree.display()));
    }
    let entries: Vec<_> = std::fs::read_dir(tree)
        .map_err(|e| format!("{}: {e}", tree.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    match entries.as_slice() {
        [] => Ok(false),
        [name] if name == ".git" => std::fs::remove_file(tree.join(".git"))
            .map(|()| false)
            .map_err(|e| format!("{}: {e}", tree.display())),
        _ => Err(format!(
            "{} should hold commit {commit} but is no checkout of it: move it away",
            tree.display()
        )),
    }
}

/// `OUT/src` of the A/B folder `out` when it is a real folder; `None` when there is none;
/// an error for a link or a file there (nothing under it is this A/B's).
fn src_folder(out: &Path) -> Result<Option<PathBuf>, String> {
    let src = out.join("src");
    match std::fs::symlink_metadata(&src) {
        Err(_) => Ok(None),
        Ok(meta) if meta.is_dir() => Ok(Some(src)),
        Ok(_) => Err(format!(
            "{} is no folder of this A/B (a symbolic link or a file): nothing under it was \
             made here",
            src.display()
        )),
    }
}

/// The entries of `src`, sorted.
fn entries(src: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(src)
        .map_err(|e| format!("cannot read {}: {e}", src.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    Ok(entries)
}

/// The record of `entry` (an entry of `OUT/src`) when this A/B made it there: recorded at
/// exactly that path, and a real folder (no link); else why it is not this A/B's.
fn made_here<'a>(entry: &Path, made: &'a [Made]) -> Result<&'a Made, String> {
    let Some(m) = made.iter().find(|m| m.path == entry) else {
        return Err(format!(
            "{WORKTREES_JSON} records no worktree made at this path"
        ));
    };
    match std::fs::symlink_metadata(entry) {
        Ok(meta) if meta.is_dir() => Ok(m),
        Ok(meta) if meta.file_type().is_symlink() => Err("it is a symbolic link".to_string()),
        Ok(_) => Err("it is no folder".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether git registers a worktree at exactly `m.path` in `m.repository`.
fn registered(m: &Made) -> bool {
    let Ok(list) = git_in(&m.repository, &["worktree", "list", "--porcelain", "-z"]) else {
        return false;
    };
    list.split('\0')
        .filter_map(|field| field.strip_prefix("worktree "))
        .any(|path| Path::new(path) == m.path)
}

/// Refuses (for `--resume`) an `OUT/src` holding anything this A/B did not make: a link, a
/// folder it did not record at that path. `out` is absolute and canonical.
pub fn check_known(out: &Path) -> Result<(), String> {
    let Some(src) = src_folder(out)? else {
        return Ok(());
    };
    let made = recorded(out)?;
    for entry in entries(&src)? {
        if let Err(why) = made_here(&entry, &made) {
            return Err(format!(
                "{} is no worktree this A/B made ({why}): --resume goes on only beside its own \
                 worktrees; move it away (it is left as it is)",
                entry.display()
            ));
        }
    }
    Ok(())
}

/// What a removal did: the worktrees removed, and a sentence for each entry left alone.
#[derive(Debug, Default)]
pub struct Removal {
    /// The worktrees removed (git forgot them too).
    pub removed: Vec<PathBuf>,
    /// Why each other entry of `OUT/src` stays.
    pub left: Vec<String>,
}

/// Removes the worktrees the A/B in `out` made (see the module's rules) with `git worktree
/// remove --force --force` in their recorded repository, and `OUT/src` once empty; anything
/// else there is left alone and named.
pub fn remove_trees(out: &Path) -> Result<Removal, String> {
    let out = out
        .canonicalize()
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let mut removal = Removal::default();
    let src = match src_folder(&out) {
        Ok(Some(src)) => src,
        Ok(None) => return Ok(removal),
        Err(why) => {
            removal.left.push(why);
            return Ok(removal);
        }
    };
    let made = recorded(&out)?;
    for entry in entries(&src)? {
        let m = match made_here(&entry, &made) {
            Ok(m) if registered(m) => m,
            Ok(m) => {
                removal.left.push(format!(
                    "{}: left alone: git registers no worktree at this path in {}",
                    entry.display(),
                    m.repository.display()
                ));
                continue;
            }
            Err(why) => {
                removal.left.push(format!(
                    "{}: left alone: this A/B did not make it ({why})",
                    entry.display()
                ));
                continue;
            }
        };
        let text = m.path.to_string_lossy();
        git_in(
            &m.repository,
            &["worktree", "remove", "--force", "--force", &text],
        )
        .map_err(|e| format!("git worktree remove {text}: {e}"))?;
        removal.removed.push(entry);
    }
    // Only when empty: what was left alone stays with its owner.
    let _ = std::fs::remove_dir(&src);
    Ok(removal)
}
