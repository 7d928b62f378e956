//! Reading an official input from a stream that may stay open after the board.
//!
//! The official tester writes N, C and the N·N cells, flushes, and waits for the answer; it
//! closes the solver's stdin only after it has read the answer. So the solver must start as
//! soon as the last cell has arrived, never wait for the end of the stream. [`BoardText`]
//! collects bytes as they come and says when the board is complete: `2 + N·N` whitespace-separated
//! tokens, the last one followed by whitespace (or by the end of the stream).

use super::board::MAX_N;

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
