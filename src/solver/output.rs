//! Writing on stdout and stderr with plain `write(2)` calls and no allocation: the answer
//! must go out even when memory has run out (the allocator's last resort writes it), and a
//! closed stdout must be an error. The standard library's stdout allocates its buffer and
//! takes a closed descriptor (`queenattack >&-`) for a sink that accepts everything.

use super::board::Move;
use std::io;

/// Whether descriptor 1 is open (`queenattack >&-` starts without it).
pub fn stdout_is_open() -> bool {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) != -1 }
}

/// Writes all of `bytes` on descriptor `fd` (again after a signal or a partial write).
fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live buffer of its length.
        let k = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if k < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if k == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[k as usize..];
    }
    Ok(())
}

/// Writes `bytes` on stdout, unbuffered; a closed or full stdout is an error.
pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    write_all(libc::STDOUT_FILENO, bytes)
}

/// Writes `bytes` on stderr, unbuffered; a failed write is ignored (see [`crate::diag!`]).
pub fn write_stderr(bytes: &[u8]) {
    let _ = write_all(libc::STDERR_FILENO, bytes);
}

/// Bytes gathered on the stack before one `write(2)`.
const CHUNK: usize = 8 << 10;

/// An answer's text gathered in a stack buffer and written in chunks.
struct Chunks {
    buffer: [u8; CHUNK],
    len: usize,
}

impl Chunks {
    /// Appends `value` in decimal and `end` (a space or a newline), writing the buffer first
    /// when it may not hold them.
    fn number(&mut self, value: usize, end: u8) -> io::Result<()> {
        if self.len + 24 > CHUNK {
            self.flush()?;
        }
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = value;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let text = &digits[at..];
        self.buffer[self.len..self.len + text.len()].copy_from_slice(text);
        self.len += text.len();
        self.buffer[self.len] = end;
        self.len += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        write_stdout(&self.buffer[..self.len])?;
        self.len = 0;
        Ok(())
    }
}

/// Writes `moves` on stdout in the official format (the count, then `r1 c1 r2 c2` per move on
/// an `n`×`n` board), without allocating.
pub fn write_answer(n: usize, moves: &[Move]) -> io::Result<()> {
    let mut out = Chunks {
        buffer: [0; CHUNK],
        len: 0,
    };
    out.number(moves.len(), b'\n')?;
    for mv in moves {
        out.number(mv.from / n, b' ')?;
        out.number(mv.from % n, b' ')?;
        out.number(mv.to / n, b' ')?;
        out.number(mv.to % n, b'\n')?;
    }
    out.flush()
}

/// A line of at most 256 bytes formatted on the stack (longer text is cut), for messages
/// that must not allocate.
///
/// # Examples
/// ```
/// use queenattack::solver::output::Line;
/// use std::fmt::Write;
/// let mut line = Line::default();
/// write!(line, "score {:.4}", 2.5).unwrap();
/// assert_eq!(line.as_bytes(), b"score 2.5000");
/// ```
pub struct Line {
    buffer: [u8; 256],
    len: usize,
}

impl Default for Line {
    fn default() -> Line {
        Line {
            buffer: [0; 256],
            len: 0,
        }
    }
}

impl Line {
    /// The text written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = self.buffer.len() - self.len;
        let take = s.len().min(room);
        self.buffer[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        let mut out = Chunks {
            buffer: [0; CHUNK],
            len: 0,
        };
        for (value, end) in [(0, b' '), (7, b' '), (127, b'\n'), (usize::MAX, b'\n')] {
            out.number(value, end).unwrap();
        }
        let text = format!("0 7 127\n{}\n", usize::MAX);
        assert_eq!(&out.buffer[..out.len], text.as_bytes());
    }

    #[test]
    fn a_long_line_is_cut() {
        use std::fmt::Write;
        let mut line = Line::default();
        write!(line, "{}", "x".repeat(300)).unwrap();
        assert_eq!(line.as_bytes().len(), 256);
    }
}
