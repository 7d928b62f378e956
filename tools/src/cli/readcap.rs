//! Every file `tester` reads, read with a size cap: an endless or huge file (`/dev/zero`,
//! `yes | tester score --seed 1 -`) is refused with a message instead of filling the memory.
//!
//! The caps, stated in `tester --help`:
//! * an output (`score`, `vis`, `rescore`): [`OUTPUT_MAX`], the largest output `tester run`
//!   ever keeps (its output cap at N = 128);
//! * an input (`--input`, `SEED.in`): [`INPUT_MAX`];
//! * a `results.json` or bests file: [`JSON_MAX`].

use std::io::Read;
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

/// Reads `path` (`-`: standard input), refusing more than `cap` bytes; `what` names the file's
/// role in the message (`an output`, `an input`, ...).
///
/// # Examples
///
/// ```
/// use tools::cli::readcap::read_capped;
///
/// let err = read_capped(std::path::Path::new("/dev/zero"), 1000, "an output").unwrap_err();
/// assert!(err.contains("more than 1000 bytes"), "{err}");
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
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
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
        // An endless stream is cut at the cap, not read to the end.
        assert!(read_capped(Path::new("/dev/zero"), 1 << 20, "x").is_err());
    }
}
