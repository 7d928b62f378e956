//! Writing a file without following a symbolic link that `tester` did not create.
//!
//! [`replace_file`] writes a new temporary file beside the target (opened with `O_CREAT |
//! O_EXCL`, which fails on any existing name, a link included) and renames it over the target.
//! A rename replaces the directory entry itself: when the target is a symbolic link, the link is
//! replaced by the new file and whatever it pointed to is left untouched. Readers see the old
//! file or the new one, never half of one.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Writes `bytes` as the file `path`, atomically, replacing whatever entry `path` is (a file or
/// a symbolic link, which is not followed). A directory at `path` is an error.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("qa-replace-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("a.txt");
/// tools::cli::replace::replace_file(&path, b"one\n").unwrap();
/// tools::cli::replace::replace_file(&path, b"two\n").unwrap();
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary_name(path)?;
    // A leftover of a killed writer (or anything planted under this name) is removed, never
    // opened: removing a link removes the link only.
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// `.NAME.PID-K.tmp` beside `path`: unique per process and call, so two writers (threads or
/// processes) never share one.
fn temporary_name(path: &Path) -> io::Result<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    Ok(path.with_file_name(format!(
        ".{}.{}-{k}.tmp",
        name.to_string_lossy(),
        std::process::id()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qa-replace-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("d")).unwrap();
        dir
    }

    #[test]
    fn a_symlink_is_replaced_and_its_target_left_alone() {
        let dir = scratch("link");
        fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        let path = dir.join("d/file.txt");
        symlink("../precious.txt", &path).unwrap();
        replace_file(&path, b"new\n").unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("precious.txt")).unwrap(),
            "precious\n"
        );
        assert!(!fs::symlink_metadata(&path).unwrap().is_symlink());
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        // A dangling link is not followed either (it would create its target).
        symlink("../made.txt", dir.join("d/other.txt")).unwrap();
        replace_file(&dir.join("d/other.txt"), b"x").unwrap();
        assert!(!dir.join("made.txt").exists());
        // Nothing temporary is left behind.
        let left: Vec<_> = fs::read_dir(dir.join("d")).unwrap().collect();
        assert_eq!(left.len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_is_an_error_and_leaves_no_temporary_file() {
        let dir = scratch("dir");
        fs::create_dir_all(dir.join("d/sub")).unwrap();
        fs::write(dir.join("d/sub/keep"), "k").unwrap();
        assert!(replace_file(&dir.join("d/sub"), b"x").is_err());
        assert_eq!(fs::read_dir(dir.join("d")).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }
}
