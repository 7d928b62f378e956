//! Reading an official input from a stream that may stay open after the board.
//!
//! The official tester writes N, C and the N·N cells, flushes, and waits for the answer; it
//! closes the solver's stdin only after it has read the answer. So the solver must start as
//! soon as the last cell has arrived, never wait for the end of the stream. [`BoardText`]
//! collects bytes as they come and says when the board is complete: `2 + N·N` whitespace-separated
//! tokens, the last one followed by whitespace (or by the end of the stream).
//! [`read_board`] reads stdin on the calling thread until then, waiting with `poll(2)` up to a
//! deadline: no helper thread, so a process that may start no thread (`ulimit -u`) still
//! reads its board.

use super::board::MAX_N;
use std::time::Instant;

/// Most bytes read from stdin. A 128 × 128 board written one value a line is about 50 KB; 1 MiB
/// leaves room for up to 60 bytes of spacing per value. `yes 0 | queenattack` stops here.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// Why stdin gave no board to parse.
#[derive(Debug)]
pub enum ReadError {
    /// More than [`MAX_INPUT_BYTES`] before the board was complete.
    TooLong,
    /// The deadline came before the board was complete: the values received and the values
    /// the board needs (unknown before N has arrived).
    Stalled(usize, Option<usize>),
    /// Reading failed.
    Failed(std::io::Error),
}

/// Reads stdin until the board is complete (see [`BoardText`]) or the stream ends, at most
/// [`MAX_INPUT_BYTES`], until `deadline`; returns the board's bytes (all bytes received when
/// the stream ended first: the parser says what is missing). Never waits for the end of a
/// stream that stays open after the board, as the official tester's does.
///
/// # Errors
/// See [`ReadError`].
pub fn read_board(deadline: Instant) -> Result<Vec<u8>, ReadError> {
    read_board_from(libc::STDIN_FILENO, deadline)
}

/// [`read_board`] from the file descriptor `fd`.
fn read_board_from(fd: libc::c_int, deadline: Instant) -> Result<Vec<u8>, ReadError> {
    let mut text = BoardText::default();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        if let Some(board) = text.complete() {
            if board.len() > MAX_INPUT_BYTES {
                return Err(ReadError::TooLong);
            }
            return Ok(board.to_vec());
        }
        if text.len() > MAX_INPUT_BYTES {
            return Err(ReadError::TooLong);
        }
        if !readable_by(fd, deadline).map_err(ReadError::Failed)? {
            return match text.progress() {
                // Every value is there, the last one not yet followed by a space: take it.
                (got, Some(needed)) if got >= needed => Ok(text.received().to_vec()),
                (got, needed) => Err(ReadError::Stalled(got, needed)),
            };
        }
        // SAFETY: `chunk` is a live buffer of `chunk.len()` writable bytes.
        let read = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        match read {
            // the end of the stream: the parser says what, if anything, is missing
            0 => return Ok(text.received().to_vec()),
            k if k > 0 => text.push(&chunk[..k as usize]),
            _ => {
                let e = std::io::Error::last_os_error();
                // a descriptor left non-blocking by whoever started us: wait again
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                ) {
                    return Err(ReadError::Failed(e));
                }
            }
        }
    }
}

/// Waits until `fd` can be read without blocking (data, the end of the stream or an error
/// that the read will report): `Ok(false)` when `deadline` came first.
fn readable_by(fd: libc::c_int, deadline: Instant) -> std::io::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        // whole milliseconds, rounded up (a zero timeout would spin)
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid `pollfd`, as the count says.
        match unsafe { libc::poll(&mut poll, 1, ms) } {
            1 if poll.revents & libc::POLLNVAL != 0 => {
                return Err(std::io::Error::from_raw_os_error(libc::EBADF))
            }
            1 => return Ok(true),
            0 => continue, // the deadline is checked again (poll may wake a little early)
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// The bytes of an official input as they arrive, with the count of finished tokens.
///
/// # Examples
/// ```
/// use queenattack::solver::input::BoardText;
/// let mut text = BoardText::default();
/// text.push(b"2 1\n1 0\n0 ");
/// assert_eq!(text.complete(), None); // the last cell has not come yet
/// text.push(b"1\n trailing bytes are never read");
/// assert_eq!(text.complete(), Some(&b"2 1\n1 0\n0 1"[..]));
/// ```
#[derive(Debug, Default)]
pub struct BoardText {
    bytes: Vec<u8>,
    /// Tokens that ended (whitespace seen after them).
    tokens: usize,
    /// Whether the last byte scanned belongs to a token.
    in_token: bool,
    /// Where the first unscanned byte is.
    scanned: usize,
    /// Where the last finished token ends.
    last_end: usize,
    /// Tokens the board needs (`2 + N·N`), known once N has ended; `1` when N is not a valid
    /// size, so that the parser reports it at once.
    needed: Option<usize>,
}

impl BoardText {
    /// Adds bytes that arrived.
    ///
    /// # Complexity
    /// Linear in `chunk.len()`: each byte is scanned once over all calls.
    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        while self.scanned < self.bytes.len() && !self.is_complete() {
            let space = self.bytes[self.scanned].is_ascii_whitespace();
            if space && self.in_token {
                self.tokens += 1;
                self.last_end = self.scanned;
                if self.tokens == 1 {
                    self.needed = Some(self.needed_after_n());
                }
            }
            self.in_token = !space;
            self.scanned += 1;
        }
    }

    /// Tokens the board needs once its first token (N) is `self.bytes[..self.last_end]`.
    fn needed_after_n(&self) -> usize {
        let first = String::from_utf8_lossy(&self.bytes[..self.last_end]);
        match first.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_N).contains(&n) => 2 + n * n,
            _ => 1,
        }
    }

    fn is_complete(&self) -> bool {
        self.needed.is_some_and(|needed| self.tokens >= needed)
    }

    /// The bytes of the board once every token it needs has ended (nothing after the last
    /// one); `None` while more is needed.
    pub fn complete(&self) -> Option<&[u8]> {
        self.is_complete().then(|| &self.bytes[..self.last_end])
    }

    /// Every byte received so far, for the parser when the stream ended or stalled (the last
    /// token may be cut short: the parser then says what is missing).
    pub fn received(&self) -> &[u8] {
        &self.bytes
    }

    /// Bytes received so far.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing was received.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Tokens received so far (the last one counted even if more of it may come), and how
    /// many the board needs once N is known.
    pub fn progress(&self) -> (usize, Option<usize>) {
        (self.tokens + usize::from(self.in_token), self.needed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A pipe: (read end, write end).
    fn pipe() -> (libc::c_int, libc::c_int) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    }

    fn write(fd: libc::c_int, bytes: &[u8]) {
        // SAFETY: `bytes` is a live buffer of its length.
        let k = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        assert_eq!(k, bytes.len() as isize);
    }

    fn close(fd: libc::c_int) {
        // SAFETY: `fd` is a descriptor this test opened and closes once.
        unsafe { libc::close(fd) };
    }

    #[test]
    fn a_board_on_a_pipe_that_stays_open_is_read_at_once() {
        let (read, write_end) = pipe();
        write(write_end, b"2 1\n1 0\n0 1\n");
        let started = Instant::now();
        let board = read_board_from(read, started + Duration::from_secs(30)).expect("a board");
        assert_eq!(board, b"2 1\n1 0\n0 1");
        assert!(started.elapsed() < Duration::from_secs(10));
        close(read);
        close(write_end);
    }

    #[test]
    fn a_stalled_pipe_ends_at_the_deadline() {
        let (read, write_end) = pipe();
        write(write_end, b"3 1\n1 1 ");
        let started = Instant::now();
        let got = read_board_from(read, started + Duration::from_millis(200));
        assert!(
            matches!(got, Err(ReadError::Stalled(4, Some(11)))),
            "{got:?}"
        );
        assert!(started.elapsed() >= Duration::from_millis(200));
        close(write_end);
        close(read);
    }

    #[test]
    fn a_stream_that_ends_early_hands_what_came_to_the_parser() {
        let (read, write_end) = pipe();
        write(write_end, b"3 1\n1 1 ");
        close(write_end);
        let got = read_board_from(read, Instant::now() + Duration::from_secs(30));
        assert_eq!(got.expect("the bytes received"), b"3 1\n1 1 ");
        close(read);
    }

    #[test]
    fn a_closed_descriptor_is_an_error() {
        // far above any descriptor a test opens (closing one of ours could race another test
        // opening the same number)
        let got = read_board_from(1 << 20, Instant::now() + Duration::from_secs(30));
        assert!(matches!(got, Err(ReadError::Failed(_))), "{got:?}");
    }

    fn fed(chunks: &[&[u8]]) -> BoardText {
        let mut text = BoardText::default();
        for chunk in chunks {
            text.push(chunk);
        }
        text
    }

    #[test]
    fn the_board_is_complete_once_its_last_cell_has_ended() {
        let input = b"3 1\n1 0 0\n0 -1 1\n0 1 0\n";
        let whole = fed(&[input]);
        assert_eq!(whole.complete(), Some(&input[..input.len() - 1]));
        // Byte by byte: complete exactly when the newline after the last cell arrives.
        let mut text = BoardText::default();
        for (i, byte) in input.iter().enumerate() {
            assert_eq!(text.complete(), None, "complete after {i} bytes");
            text.push(&[*byte]);
        }
        assert_eq!(text.complete(), whole.complete());
        assert_eq!(text.progress(), (11, Some(11)));
    }

    #[test]
    fn what_follows_the_board_is_not_scanned() {
        let text = fed(&[b"1 1 1 ", b"junk that is never parsed\n", b"more"]);
        assert_eq!(text.complete(), Some(&b"1 1 1"[..]));
        assert_eq!(text.progress().0, 3);
    }

    #[test]
    fn a_last_cell_without_whitespace_is_not_complete_yet() {
        // "1" may still become "10": only the end of the stream or a space settles it
        let text = fed(&[b"2 1\n1 0\n0 1"]);
        assert_eq!(text.complete(), None);
        assert_eq!(text.progress(), (6, Some(6)));
        assert_eq!(text.received(), b"2 1\n1 0\n0 1");
    }

    #[test]
    fn a_size_that_is_no_board_completes_at_once_for_the_parser() {
        for bad in [&b"0 "[..], b"-3\n", b"129 ", b"x1 "] {
            let text = fed(&[bad, b"1 1 1 1"]);
            assert_eq!(text.complete(), Some(bad.trim_ascii_end()), "{bad:?}");
        }
    }

    #[test]
    fn whitespace_alone_never_completes() {
        let text = fed(&[b"\n\n   \t\r\n"]);
        assert_eq!(text.complete(), None);
        assert_eq!(text.progress(), (0, None));
    }
}
