//! Every file `tester` reads, read with a size cap: an endless or huge stream (`yes | tester
//! score --seed 1 -`) is refused with a message instead of filling the memory. A named file must
//! be a regular file ([`open_regular`]): a named pipe, a device (`/dev/zero`), a socket or a
//! folder is refused at once, never waited on.
//!
//! The caps, stated in `tester --help`:
//! * an output (`score`, `vis`, `rescore`): [`OUTPUT_MAX`], the largest output `tester run`
//!   ever keeps (its output cap at N = 128);
//! * an input (`--input`, `SEED.in`): [`INPUT_MAX`];
//! * a `results.json` or bests file: [`JSON_MAX`].

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::input::MAX_N;

/// The cap on a solver's output file (and on any file it writes) for a board of side `n`:
/// `64 + 2·N³ · 32` bytes, room for the largest legal answer (2·N³ moves) with 32 bytes per
/// move line (`127 127 127 127` is 15; leading zeros, `+` signs and trailing spaces fit).
/// N = 30: 1 728 064 bytes; N = 128: 134 217 792 bytes. Defined here, with the caps on what
/// `tester` reads, because the largest output read ([`OUTPUT_MAX`]) is this cap; `tester
/// run` applies it when it starts a solver.
///
/// # Examples
///
/// ```
/// assert_eq!(tools::cli::readcap::output_cap(30), 1_728_064);
/// ```
pub const fn output_cap(n: usize) -> u64 {
    64 + 2 * (n as u64).pow(3) * 32
}

/// The largest output read: `64 + 2·128³·32` = 134 217 792 bytes, the cap `tester run` puts on
/// a solver's output at N = 128 (room for 2·N³ moves of 32 bytes).
pub const OUTPUT_MAX: u64 = output_cap(MAX_N);

/// The largest input read: 4 MiB. The largest legal input (N = 128, C = 100) is about 66 KB.
pub const INPUT_MAX: u64 = 4 << 20;

/// The largest `results.json` or bests file read: 256 MiB (a results.json holds about 250
/// bytes per seed: a million seeds).
pub const JSON_MAX: u64 = 256 << 20;

/// What a file that is no regular file is, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "no regular file"
    }
}

/// The error for a file of `meta`'s kind that is no regular file.
fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is {}, not a regular file, and tester reads only regular files there",
            kind_of(meta)
        ),
    )
}

/// Opens `path` for reading when it is a regular file (or a symbolic link to one); anything
/// else is refused without blocking: a named pipe would block the open until a writer comes
/// (and the reads until it ends), a device may be endless (`/dev/zero`) or wait for a keyboard.
/// The type is checked before the open, and again on the opened file, which is opened with
/// `O_NONBLOCK` so that a pipe put in its place in between cannot block either. Every reader of
/// a file named by the user or found in a folder (answers, inputs, `results.json`, tables)
/// opens it through here.
///
/// # Examples
///
/// ```
/// use tools::cli::readcap::open_regular;
///
/// let err = open_regular(std::path::Path::new("/dev/zero")).unwrap_err();
/// assert!(err.to_string().contains("a device, not a regular file"), "{err}");
/// assert!(open_regular(std::path::Path::new("/")).is_err());
/// ```
pub fn open_regular(path: &Path) -> io::Result<File> {
    let before = std::fs::metadata(path)?;
    if !before.is_file() {
        return Err(not_regular(&before));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(not_regular(&opened));
    }
    Ok(file)
}

/// Reads `path` (`-`: standard input), refusing more than `cap` bytes, and anything but a
/// regular file ([`open_regular`]); `what` names the file's role in the message (`an output`,
/// `an input`, ...).
///
/// # Examples
///
/// ```
/// use tools::cli::readcap::read_capped;
///
/// let path = std::env::temp_dir().join(format!("qa-readcap-doc-{}", std::process::id()));
/// std::fs::write(&path, "0 0 1 1\n".repeat(200)).unwrap();
/// let err = read_capped(&path, 1000, "an output").unwrap_err();
/// assert!(err.contains("more than 1000 bytes"), "{err}");
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, String> {
    let name = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let too_big = || {
        format!(
            "cannot read {name}: more than {cap} bytes, the most tester reads as {what}{}",
            if cap == OUTPUT_MAX {
                " (the output cap of `tester run` at N = 128)"
            } else {
                ""
            }
        )
    };
    let mut buf = Vec::new();
    let got = if path.as_os_str() == "-" {
        std::io::stdin().lock().take(cap + 1).read_to_end(&mut buf)
    } else {
        let file = open_regular(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        // A regular file says its size: refuse before reading anything.
        if file.metadata().is_ok_and(|m| m.is_file() && m.len() > cap) {
            return Err(too_big());
        }
        file.take(cap + 1).read_to_end(&mut buf)
    };
    got.map_err(|e| format!("cannot read {name}: {e}"))?;
    if buf.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(buf)
}

/// [`read_capped`] as text: bytes that are not UTF-8 become U+FFFD, as Java's reader makes
/// them. Valid UTF-8 (the usual case) is taken without a copy.
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> Result<String, String> {
    let bytes = read_capped(path, cap, what)?;
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Reads an output file as text (`-`: standard input), at most [`OUTPUT_MAX`] bytes; bytes
/// that are not UTF-8 become U+FFFD, as Java's reader makes them.
pub fn read_text(path: &Path) -> Result<String, String> {
    read_text_capped(path, OUTPUT_MAX, "an output")
}

/// Reads an input file as text (`-`: standard input), at most [`INPUT_MAX`] bytes.
pub fn read_input_text(path: &Path) -> Result<String, String> {
    read_text_capped(path, INPUT_MAX, "an input")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_max_is_the_run_cap_at_the_largest_board() {
        assert_eq!(OUTPUT_MAX, output_cap(MAX_N));
        assert_eq!(OUTPUT_MAX, 134_217_792);
    }

    #[test]
    fn files_at_the_cap_pass_and_beyond_it_are_refused() {
        let path = std::env::temp_dir().join(format!("qa-readcap-{}", std::process::id()));
        std::fs::write(&path, "x".repeat(10)).unwrap();
        assert_eq!(read_capped(&path, 10, "a test").unwrap().len(), 10);
        let err = read_capped(&path, 9, "a test").unwrap_err();
        assert!(err.contains("more than 9 bytes, the most tester reads as a test"));
        std::fs::remove_file(&path).unwrap();
        // A device (endless, or waiting for input) is refused before any read.
        let err = read_capped(Path::new("/dev/zero"), 1 << 20, "x").unwrap_err();
        assert!(err.contains("it is a device, not a regular file"), "{err}");
    }

    #[test]
    fn a_named_pipe_is_refused_without_blocking() {
        let path = std::env::temp_dir().join(format!("qa-readcap-fifo-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path this test owns.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // No writer ever comes: an open for reading would block for good.
        let err = read_capped(&path, 100, "an output").unwrap_err();
        assert!(
            err.contains("a named pipe (FIFO), not a regular file"),
            "{err}"
        );
        std::fs::remove_file(&path).unwrap();
    }
}
