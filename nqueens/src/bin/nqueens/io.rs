//! What the subcommands share: reading standard input, writing numbers one per line, resource
//! usage for the summaries, and argument parsers.

use nqueens::quote::{quote, QUOTE_BYTES};
use std::fs::File;
use std::io::{Read, Write};
use std::process::ExitCode;

/// Standard input as bytes: a regular file is memory-mapped (no copy, no growing buffer),
/// anything else (a pipe) is read whole. Running out of memory is an error, not an abort.
pub fn read_stdin() -> std::io::Result<Input> {
    #[cfg(unix)]
    {
        use std::io::Seek;
        use std::os::fd::AsFd;
        let mut file = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
        let regular = file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
        if regular && file.stream_position().is_ok_and(|p| p == 0) {
            // SAFETY: the map is read-only and lives only while we parse; if another process
            // truncated the file meanwhile we could fault, the usual caveat of reading a file
            // through a map, accepted for the speed on inputs of hundreds of megabytes.
            if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
                return Ok(Input::Mapped(map));
            }
        }
    }
    let mut text = Vec::new();
    // `read_to_end` grows the buffer with `try_reserve`: a failure is an `OutOfMemory` error.
    text.try_reserve(1 << 24)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    std::io::stdin().lock().read_to_end(&mut text)?;
    Ok(Input::Read(text))
}

/// The bytes of the input, mapped or read.
pub enum Input {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(v) => v,
        }
    }
}

/// What this process has used so far: CPU seconds (user + system) and peak resident memory
/// in bytes, from `getrusage`. CPU time is reported beside wall time because the benchmark
/// machine is shared: wall time includes waiting for a core.
#[derive(Clone, Copy)]
pub struct Usage {
    pub cpu: f64,
    pub peak: u64,
}

/// The [`Usage`] of this process now.
pub fn usage() -> Usage {
    // SAFETY: getrusage only writes the struct we pass, which is plain data and zeroed.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return Usage { cpu: 0.0, peak: 0 };
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
        // Linux reports kilobytes.
        peak: ru.ru_maxrss as u64 * 1024,
    }
}

/// Longest time limit accepted, in seconds (about 31 years): beyond it a deadline
/// `Instant::now() + limit` could overflow.
const MAX_SECONDS: f64 = 1e9;

/// Parses a time limit: a positive, finite number of seconds (at most [`MAX_SECONDS`]). The
/// message says which of the three it is not.
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    let text = quote(s.as_bytes());
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= MAX_SECONDS => Ok(v),
        Ok(v) if v > MAX_SECONDS => Err(format!(
            "{text} seconds is too long: at most {MAX_SECONDS:e} seconds"
        )),
        Ok(_) => Err(format!("{text} is not a positive number of seconds")),
        Err(_) => Err(format!("{text} is not a number of seconds")),
    }
}

/// Appends `v` and a newline to `out` (faster than `write!` for 10^8 lines).
fn push_line(out: &mut Vec<u8>, v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = v;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
    out.push(b'\n');
}

/// Writes `head`, then the values one per line with `sep` after each but the last, then
/// `tail`, to standard output in blocks of 1 MB.
/// The exit code after a failed write of `what`: a closed pipe (the reader stopped early, as
/// with `| head`) is not an error of ours and exits 0 quietly; anything else is reported, exit 2.
pub fn write_failed(tool: &str, what: &str, e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    nqueens::diag!("nqueens {tool}: cannot write {what}: {e}");
    ExitCode::from(2)
}

pub fn write_values(
    head: &[u8],
    values: impl Iterator<Item = u64>,
    sep: u8,
    tail: &[u8],
) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let mut buf = Vec::with_capacity(1 << 20);
    buf.extend_from_slice(head);
    let mut first = true;
    for v in values {
        if !first && sep != b'\n' {
            buf.pop();
            buf.push(sep);
        }
        first = false;
        push_line(&mut buf, v);
        if buf.len() >= 1 << 20 {
            lock.write_all(&buf)?;
            buf.clear();
        }
    }
    if sep != b'\n' && !first {
        buf.pop();
    }
    buf.extend_from_slice(tail);
    lock.write_all(&buf)?;
    lock.flush()
}

/// One of clap's messages for stderr, fit for a terminal: clap echoes a refused value or
/// argument whole (in single quotes), so each word holding a control character or longer than
/// [`QUOTE_BYTES`] is replaced by its [`quote`] (escaped, at most [`QUOTE_BYTES`] bytes shown,
/// then its length), and a message still longer than [`MAX_MESSAGE`] characters (a long value
/// made of short words or lines) is cut there, with its length. ANSI escape sequences never
/// get here: clap's plain rendering strips them.
pub fn tame(message: &str) -> String {
    let word = |w: &str| {
        if w.len() > QUOTE_BYTES || w.chars().any(|c| c.is_control()) {
            let bare = w
                .strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .unwrap_or(w);
            quote(bare.as_bytes())
        } else {
            w.to_string()
        }
    };
    let tamed = message
        .split('\n')
        .map(|line| line.split(' ').map(word).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    match tamed.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}… ({} bytes)\n", &tamed[..cut], tamed.len()),
        None => tamed,
    }
}

/// Longest [`tame`]d message, in characters: clap's own messages (value, usage line,
/// possible values) take a few hundred.
const MAX_MESSAGE: usize = 1024;
