//! One writer per run folder: `tester run` and `tester ab` hold an advisory lock (`flock`) on
//! the file [`LOCK_FILE`] in their folder while they write it, so a second process on the same
//! folder (two `--resume` at once) is refused instead of deleting the first one's outputs. The
//! operating system releases the lock when the process ends, however it ends (`kill -9`
//! included), so a stopped run never leaves a folder locked.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// The lock file's name in the folder (hidden: it is no output).
pub const LOCK_FILE: &str = ".tester.lock";

/// The held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// Creates `dir` if needed and locks it for `who` (`tester run`, `tester ab`); refuses when
/// another process holds the lock.
pub fn lock_folder(dir: &Path, who: &str) -> Result<FolderLock, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
    // SAFETY: flock on a descriptor this function owns; no memory is passed.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !locked {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Err(format!(
                "{} is in use by another {who} (it holds {}): wait until it ends, or choose \
                 another folder",
                dir.display(),
                path.display()
            ));
        }
        return Err(format!("cannot lock {}: {e}", path.display()));
    }
    Ok(FolderLock { _file: file })
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
