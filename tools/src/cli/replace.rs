//! Writing a file without following a symbolic link that `tester` did not create.
//!
//! [`Replacement`] writes a new temporary file beside the target (opened with `O_CREAT |
//! O_EXCL`, which fails on any existing name, a link included) and renames it over the target.
//! A rename replaces the directory entry itself: when the target is a symbolic link, the link is
//! replaced by the new file and whatever it pointed to is left untouched. Readers see the old
//! file or the new one, never half of one. [`replace_file`] and [`replace_copy`] write whole
//! files so; [`create_fresh`] gives a file to stream into (a solver's output) the same way;
//! [`open_output`] is for a path named on the command line, where a device or a pipe
//! (`/dev/stdout`, a named pipe) is written as it is.

use std::fs::{self, File, OpenOptions};
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
    let mut new = Replacement::new(path)?;
    new.write_all(bytes)?;
    new.commit()
}

/// Copies the regular file `from` to `to` like [`replace_file`] (`to` replaced, never
/// followed); returns the bytes copied. Anything but a regular file at `from` is refused
/// ([`super::readcap::open_regular`]).
pub fn replace_copy(from: &Path, to: &Path) -> io::Result<u64> {
    let mut source = super::readcap::open_regular(from)?;
    let mut new = Replacement::new(to)?;
    let bytes = io::copy(&mut source, &mut new)?;
    new.commit()?;
    Ok(bytes)
}

/// A new, empty file at `path` to stream into (a solver's stdout or stderr): whatever entry
/// `path` is (a file, a symbolic link) is removed first, never opened, and the file is created
/// with `O_EXCL`, so a link planted in between is an error, not followed. A directory at
/// `path` is an error.
pub fn create_fresh(path: &Path) -> io::Result<File> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// A file being written in place of a path: a new temporary file beside it, renamed over the
/// path by [`Replacement::commit`]. Dropped without a commit (a failed write), the temporary
/// file is removed and the path is left as it was.
#[derive(Debug)]
pub struct Replacement {
    file: File,
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl Replacement {
    /// Starts writing a file that will replace `path`.
    pub fn new(path: &Path) -> io::Result<Replacement> {
        let tmp = temporary_name(path)?;
        // A leftover of a killed writer (or anything planted under this name) is removed,
        // never opened: removing a link removes the link only.
        match fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        Ok(Replacement {
            file,
            tmp,
            path: path.to_path_buf(),
            committed: false,
        })
    }

    /// Writes the new file's bytes to the disk (`fsync`), so that once renamed it survives a
    /// power cut whole.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.flush()?;
        self.file.sync_all()
    }

    /// The path this file will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the new file and renames it over the path.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush()?;
        fs::rename(&self.tmp, &self.path)?;
        self.committed = true;
        Ok(())
    }
}

impl Write for Replacement {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Where an output named on the command line (`vis -o`, `vis --gif`, `compare --html`) goes.
#[derive(Debug)]
pub enum Output {
    /// A regular file, a symbolic link or a new name: written as a [`Replacement`].
    Replace(Replacement),
    /// A device, a named pipe or a socket, or a path under `/dev` or `/proc` (`/dev/stdout`,
    /// `/dev/fd/3`, `/proc/self/fd/1`): written as it is, since it cannot be replaced and is
    /// no file a link could redirect the write to.
    Stream(File),
}

impl Output {
    /// Ends the output: the replacement renamed into place, or the stream flushed.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::Replace(new) => new.commit(),
            Output::Stream(mut file) => file.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Replace(new) => new.write(buf),
            Output::Stream(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Replace(new) => new.flush(),
            Output::Stream(file) => file.flush(),
        }
    }
}

/// Opens the output `path` named on the command line (see [`Output`]). A symbolic link is
/// replaced whatever it points to, except under `/dev` and `/proc`, where only the system
/// makes links (but `/dev/shm`, which anyone may write, is a folder like any other).
pub fn open_output(path: &Path) -> io::Result<Output> {
    if is_stream(path)? {
        return File::create(path).map(Output::Stream);
    }
    Replacement::new(path).map(Output::Replace)
}

/// Whether [`open_output`] writes `path` as a stream ([`Output::Stream`]: a device, a named
/// pipe, a socket, a path under `/dev` but `/dev/shm`, or under `/proc`) rather than as a
/// regular file replacing whatever is there.
pub fn is_stream(path: &Path) -> io::Result<bool> {
    let absolute = std::path::absolute(path)?;
    let system = (absolute.starts_with("/dev") && !absolute.starts_with("/dev/shm"))
        || absolute.starts_with("/proc");
    let special = fs::symlink_metadata(path).is_ok_and(|m| {
        let kind = m.file_type();
        !(kind.is_file() || kind.is_symlink() || kind.is_dir())
    });
    Ok(system || special)
}

/// Writes `bytes` to the output `path` named on the command line ([`open_output`]).
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut output = open_output(path)?;
    output.write_all(bytes)?;
    output.finish()
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

/// The inverse of the temporary name of [`Replacement`]: for `.NAME.PID-K.tmp`, the `NAME` of
/// the file it was to replace and the `PID` of the process that wrote it; `None` for any other
/// file name.
///
/// # Examples
///
/// ```
/// use tools::cli::replace::temporary_of;
///
/// assert_eq!(temporary_of(".7.out.4321-0.tmp"), Some(("7.out", 4321)));
/// assert_eq!(temporary_of("7.out"), None);
/// assert_eq!(temporary_of(".7.out.x-0.tmp"), None);
/// ```
pub fn temporary_of(file_name: &str) -> Option<(&str, u32)> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (name, writer) = inner.rsplit_once('.')?;
    let (pid, k) = writer.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if name.is_empty() || !digits(pid) || !digits(k) {
        return None;
    }
    Some((name, pid.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, FileTypeExt};

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qa-replace-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("d")).unwrap();
        dir
    }

    #[test]
    fn a_temporary_name_reads_back_as_its_target_and_writer() {
        let name = temporary_name(Path::new("d/bests.json.pending")).unwrap();
        let file = name.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            temporary_of(file),
            Some(("bests.json.pending", std::process::id()))
        );
        assert_eq!(temporary_of(".a.1-.tmp"), None);
        assert_eq!(temporary_of("..1-2.tmp"), None);
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

    #[test]
    fn an_unfinished_replacement_leaves_the_old_file_and_no_temporary_file() {
        let dir = scratch("unfinished");
        let path = dir.join("d/page.html");
        fs::write(&path, "old\n").unwrap();
        let mut new = Replacement::new(&path).unwrap();
        new.write_all(b"half a pa").unwrap();
        drop(new);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(fs::read_dir(dir.join("d")).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn create_fresh_removes_a_link_and_never_follows_it() {
        let dir = scratch("fresh");
        fs::write(dir.join("precious.txt"), "precious\n").unwrap();
        let path = dir.join("d/1.out");
        symlink("../precious.txt", &path).unwrap();
        create_fresh(&path).unwrap().write_all(b"0\n").unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("precious.txt")).unwrap(),
            "precious\n"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "0\n");
        assert!(
            create_fresh(&dir.join("d")).is_err(),
            "a directory is an error"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn outputs_named_on_the_command_line() {
        let dir = scratch("output");
        // A named pipe is written as it is (a reader takes the bytes), not replaced.
        let fifo = dir.join("d/fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a plain syscall on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(&fifo).unwrap())
        };
        write_output(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        // The system's own paths are streams; a file or a new name is replaced.
        assert!(matches!(
            open_output(Path::new("/dev/null")).unwrap(),
            Output::Stream(_)
        ));
        let file = dir.join("d/new.html");
        assert!(matches!(open_output(&file).unwrap(), Output::Replace(_)));
        fs::remove_dir_all(&dir).unwrap();
    }
}
