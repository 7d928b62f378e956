//! The file `nqueens solve -o FILE` writes, written as `tester` writes its outputs: a new
//! temporary file beside FILE (created with `O_EXCL`, so nothing planted under its name is
//! opened) renamed over FILE once whole. A symbolic link at FILE is replaced by the new file,
//! never written through: the file it points to is left as it was. A device, a named pipe or a
//! path under `/dev` or `/proc` (`/dev/stdout`) cannot be replaced and is written as it is.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An output being written.
pub enum OutFile {
    /// A new file to be renamed over `path` by [`OutFile::finish`]; removed when dropped
    /// before that (a failed write leaves `path` as it was).
    Replace {
        /// The temporary file.
        file: File,
        /// Its name.
        tmp: PathBuf,
        /// The name it takes once whole.
        path: PathBuf,
    },
    /// A device or a pipe, written as it is.
    Stream(File),
}

/// Whether `path` is written as a stream: a device, a named pipe or a socket, or a path under
/// `/dev` (but `/dev/shm`, a folder anyone may write) or `/proc`.
fn is_stream(path: &Path) -> io::Result<bool> {
    let absolute = std::path::absolute(path)?;
    let system = (absolute.starts_with("/dev") && !absolute.starts_with("/dev/shm"))
        || absolute.starts_with("/proc");
    let special = fs::symlink_metadata(path).is_ok_and(|m| {
        let kind = m.file_type();
        !(kind.is_file() || kind.is_symlink() || kind.is_dir())
    });
    Ok(system || special)
}

/// Opens the output `path` (see the module's documentation).
pub fn create_output(path: &Path) -> io::Result<OutFile> {
    if is_stream(path)? {
        return File::create(path).map(OutFile::Stream);
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    // A leftover of a killed writer is removed, never opened (removing a link removes it only).
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    Ok(OutFile::Replace {
        file,
        tmp,
        path: path.to_path_buf(),
    })
}

impl OutFile {
    /// Ends the output: the new file renamed over its path, or the stream flushed.
    pub fn finish(mut self) -> io::Result<()> {
        self.flush()?;
        if let OutFile::Replace { tmp, path, .. } = &self {
            fs::rename(tmp, path)?;
        }
        // Renamed (or a stream): nothing for `drop` to remove.
        if let OutFile::Replace { tmp, .. } = &mut self {
            *tmp = PathBuf::new();
        }
        Ok(())
    }

    fn file(&mut self) -> &mut File {
        match self {
            OutFile::Replace { file, .. } | OutFile::Stream(file) => file,
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let OutFile::Replace { tmp, .. } = self {
            if !tmp.as_os_str().is_empty() {
                let _ = fs::remove_file(tmp);
            }
        }
    }
}
