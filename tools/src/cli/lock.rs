//! One writer per run folder: `tester run`, `tester ab` (in its folder and its arms' run
//! folders), `tester merge` and `tester gen --dir` hold an advisory lock (`flock`) on the file
//! [`LOCK_FILE`] in their folder while they write it, and `tester vis`, `tester init` and
//! `tester compare --html` take it where it exists, so a second process on the same folder (two
//! `--resume` at once, a merge into a running run) is refused instead of deleting or replacing
//! the first one's files. The
//! operating system releases the lock when the process ends, however it ends (`kill -9`
//! included), so a stopped run never leaves a folder locked.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// The lock file's name in the folder (hidden: it is no output).
pub const LOCK_FILE: &str = ".tester.lock";

/// The held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// Creates `dir` if needed and locks it for `who` (`tester run`, `tester ab`, `tester merge`,
/// `tester gen`); refuses when another process holds the lock, naming that process.
pub fn lock_folder(dir: &Path, who: &str) -> Result<FolderLock, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    match lock_file(&path, false)? {
        Some(file) => Ok(held_by(file, who)),
        None => Err(in_use(dir, &path)),
    }
}

/// Locks `dir` for `who` when it holds a lock file (a folder a run or an A/B wrote), else
/// `None`: for commands that write one named file (`tester vis -o`, `tester init`), which
/// must not leave a lock file in every folder they write to, but must not write into a run
/// folder while its run goes on.
pub fn lock_if_present(dir: &Path, who: &str) -> Result<Option<FolderLock>, String> {
    let path = dir.join(LOCK_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    match lock_file(&path, false)? {
        Some(file) => Ok(Some(held_by(file, who))),
        None => Err(in_use(dir, &path)),
    }
}

/// [`lock_if_present`] for each of `folders` that holds a lock file, once per folder (a second
/// `flock` of this process's own would be refused): for a command writing files into them.
pub fn lock_each_present<'a>(
    folders: impl IntoIterator<Item = &'a Path>,
    who: &str,
) -> Result<Vec<FolderLock>, String> {
    let mut locks = Vec::new();
    let mut seen = Vec::new();
    for folder in folders {
        let key = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        if !seen.contains(&key) {
            locks.extend(lock_if_present(folder, who)?);
            seen.push(key);
        }
    }
    Ok(locks)
}

/// The folder the file `path` is written into: its parent, `.` for a bare name.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The lock `file`, with `who` and this process's id written into it: a process refused the
/// folder reads them to say who holds it. A failed write only loses that name.
fn held_by(file: File, who: &str) -> FolderLock {
    use std::os::unix::fs::FileExt;
    let _ = file.set_len(0);
    let _ = file.write_all_at(format!("{who} {}\n", std::process::id()).as_bytes(), 0);
    FolderLock { _file: file }
}

/// The refusal of `dir`, whose lock file `path` another process holds: the holder as its lock
/// file names it (`tester run`, pid 123), else a tester process.
fn in_use(dir: &Path, path: &Path) -> String {
    let mut text = String::new();
    if let Ok(file) = super::readcap::open_regular(path) {
        let _ = file.take(200).read_to_string(&mut text);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let holder = match words.split_last() {
        Some((pid, name)) if pid.parse::<u32>().is_ok() && name.first() == Some(&"tester") => {
            format!("{} (pid {pid})", name.join(" "))
        }
        _ => "tester process".to_string(),
    };
    // Folder names are the user's text: a line break in one is shown escaped.
    let shown = |p: &Path| super::quote::printable(&p.display().to_string(), 300);
    format!(
        "{} is in use by another {holder}, which holds {}: wait until it ends, or choose another \
         folder",
        shown(dir),
        shown(path)
    )
}

/// Opens the lock file `path` (created if missing; a link planted in its place is refused, not
/// followed, and so is anything but a regular file: a named pipe there would block the open)
/// and takes an exclusive `flock` on it: waiting for it when `wait`, else `None` when another
/// process holds it. The lock lasts as long as the returned file.
pub fn lock_file(path: &Path, wait: bool) -> Result<Option<File>, String> {
    let not_regular = || {
        format!(
            "cannot open lock file {}: it is no regular file (a named pipe, a device or a \
             folder): move it away",
            path.display()
        )
    };
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_symlink()) {
        return Err(not_regular());
    }
    // O_NONBLOCK: a pipe put there after the check fails the open instead of blocking it.
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot open lock file {}: {e}", path.display()))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(not_regular());
    }
    let operation = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(Some(file));
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) if !wait => return Ok(None),
            _ => return Err(format!("cannot lock {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("tester-lock-{}", std::process::id()));
        let first = lock_folder(&dir, "tester run").unwrap();
        // flock locks belong to the open file: a second open in this process conflicts too.
        let second = lock_folder(&dir, "tester run").unwrap_err();
        assert!(second.contains("in use by another tester run"), "{second}");
        drop(first);
        assert!(lock_folder(&dir, "tester run").is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
