//! Reading queen placements in the two formats the N-Queens seeds use.
//!
//! * `cols`: first line `N`, then `N` lines; line `i` is the 1-based column of the queen in row
//!   `i`, or `0` for an empty row.
//! * `pairs` (seed 000): first line `N K`, then `K` lines `row col`, both 1-based.
//! * `answer` (what `nqueens complete` prints): first line `YES`, then one line per row with
//!   the 1-based column; `N` is the number of rows. (A `NO` answer holds no board: see
//!   [`is_no_answer`].)
//!
//! The format is told apart by the first line: `YES`, or the number of integers on it.

use crate::quote::quote;
use std::fmt;

mod fast;
use fast::{count_newlines, parse_strict_cols};
pub(crate) use fast::{parse_batch, parse_lines_bytewise, strict_cols_header};

/// A set of queens on an `n × n` board, as read from one of the two text formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// One entry per row: the 1-based column of that row's queen, or 0 for an empty row.
    Cols { n: usize, cols: Vec<u32> },
    /// A list of queens, 0-based `(row, col)`, in input order.
    Pairs { n: usize, queens: Vec<(u32, u32)> },
}

impl Placement {
    /// The board size.
    pub fn n(&self) -> usize {
        match self {
            Placement::Cols { n, .. } | Placement::Pairs { n, .. } => *n,
        }
    }

    /// Number of slots ([`Placement::queen`] indices): `n` for `Cols`, `K` for `Pairs`.
    pub fn slots(&self) -> usize {
        match self {
            Placement::Cols { cols, .. } => cols.len(),
            Placement::Pairs { queens, .. } => queens.len(),
        }
    }

    /// The queen in slot `i` as 0-based `(row, col)`, or `None` for an empty row.
    ///
    /// # Panics
    /// If `i >= self.slots()`.
    #[inline]
    pub fn queen(&self, i: usize) -> Option<(usize, usize)> {
        match self {
            Placement::Cols { cols, .. } => {
                let c = cols[i];
                (c != 0).then(|| (i, c as usize - 1))
            }
            Placement::Pairs { queens, .. } => {
                let (r, c) = queens[i];
                Some((r as usize, c as usize))
            }
        }
    }

    /// Number of queens placed.
    pub fn count(&self) -> usize {
        match self {
            Placement::Cols { cols, .. } => cols.iter().filter(|&&c| c != 0).count(),
            Placement::Pairs { queens, .. } => queens.len(),
        }
    }
}

/// Why a placement could not be read; `line` is 1-based (an empty text is line 1; a text
/// that ends too early names its last line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PlacementError {}

/// Largest board the readers accept (the column of a queen must fit in a `u32`).
pub const MAX_N: usize = u32::MAX as usize - 1;

/// A byte cursor that reads unsigned integers separated by spaces/tabs, line by line.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, message: impl Into<String>) -> PlacementError {
        PlacementError {
            line: self.line,
            message: message.into(),
        }
    }

    /// An error at the end of the text: it names the last line there is.
    fn eof_err(&self, message: impl Into<String>) -> PlacementError {
        let ends_in_newline = matches!(self.text.last(), Some(b'\n'));
        let lines = count_newlines(self.text) + usize::from(!ends_in_newline);
        PlacementError {
            line: lines.max(1),
            message: message.into(),
        }
    }

    /// Whether the current line is the word `word` alone (spaces around it allowed); moves
    /// past the line if so.
    fn word_line(&mut self, word: &[u8]) -> bool {
        let rest = &self.text[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(rest.len());
        if rest[..end].trim_ascii() != word {
            return false;
        }
        self.pos += end;
        if self.text.get(self.pos) == Some(&b'\r') {
            self.pos += 1;
        }
        if self.text.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
        }
        self.line += 1;
        true
    }

    /// Lines with something on them from here to the end (the cursor does not move).
    fn lines_left(&self) -> usize {
        self.text[self.pos..]
            .split(|&b| b == b'\n' || b == b'\r')
            .filter(|l| !l.trim_ascii().is_empty())
            .count()
    }

    /// Skips blank lines; returns false at the end of the text.
    fn next_line(&mut self) -> bool {
        loop {
            while self.pos < self.text.len() && matches!(self.text[self.pos], b' ' | b'\t') {
                self.pos += 1;
            }
            match self.text.get(self.pos) {
                None => return false,
                Some(b'\r') | Some(b'\n') => {
                    if self.text[self.pos] == b'\r' && self.text.get(self.pos + 1) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    self.pos += 1;
                    self.line += 1;
                }
                Some(_) => return true,
            }
        }
    }

    /// Reads all integers of the current line (at most `max`, more is an error) and moves past
    /// the line end.
    fn integers(&mut self, out: &mut [u64], max: usize) -> Result<usize, PlacementError> {
        let mut k = 0;
        loop {
            while self.pos < self.text.len() && matches!(self.text[self.pos], b' ' | b'\t') {
                self.pos += 1;
            }
            match self.text.get(self.pos) {
                None => break,
                Some(b'\n') | Some(b'\r') => {
                    if self.text[self.pos] == b'\r' && self.text.get(self.pos + 1) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    self.pos += 1;
                    self.line += 1;
                    return Ok(k);
                }
                Some(_) => {}
            }
            let start = self.pos;
            let mut v: u64 = 0;
            while let Some(&b) = self.text.get(self.pos) {
                if b.is_ascii_digit() {
                    v = v
                        .checked_mul(10)
                        .and_then(|v| v.checked_add((b - b'0') as u64))
                        .ok_or_else(|| self.err("number too large"))?;
                    self.pos += 1;
                } else {
                    break;
                }
            }
            let end_ok = matches!(
                self.text.get(self.pos),
                None | Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r')
            );
            if self.pos == start || !end_ok {
                let mut stop = self.pos;
                while stop < self.text.len() && !self.text[stop].is_ascii_whitespace() {
                    stop += 1;
                }
                let word = quote(&self.text[start..stop.max(start + 1)]);
                return Err(self.err(format!("expected a non-negative integer, found {word}")));
            }
            if k == max {
                return Err(self.err(format!("expected at most {max} numbers on this line")));
            }
            out[k] = v;
            k += 1;
        }
        self.line += 1;
        Ok(k)
    }
}

/// Reads a placement in `cols` or `pairs` format (see the module docs).
///
/// Checks the shape only (counts, ranges, two queens on one cell are *not* checked here):
/// attacks are the verifier's job.
///
/// # Errors
/// A [`PlacementError`] naming the line: no header, a non-integer, a value off the board,
/// too few or too many lines, `K > N`.
///
/// # Complexity
/// O(length of the text).
///
/// # Examples
/// ```
/// use nqueens::{parse_placement, Placement};
/// let p = parse_placement(b"4\n2\n4\n1\n3\n").unwrap();
/// assert_eq!(p, Placement::Cols { n: 4, cols: vec![2, 4, 1, 3] });
/// let p = parse_placement(b"4 1\n1 2\n").unwrap();
/// assert_eq!(p, Placement::Pairs { n: 4, queens: vec![(0, 1)] });
/// ```
pub fn parse_placement(text: &[u8]) -> Result<Placement, PlacementError> {
    if let Some(p) = parse_strict_cols(text) {
        return Ok(p);
    }
    let mut cur = Cursor {
        text,
        pos: 0,
        line: 1,
    };
    let mut nums = [0u64; 2];
    if !cur.next_line() {
        return Err(PlacementError {
            line: 1,
            message: "empty input: expected `N` or `N K` (or `YES`) on the first line".into(),
        });
    }
    let header_line = cur.line;
    if cur.word_line(b"NO") {
        return Err(PlacementError {
            line: header_line,
            message: "a `NO` answer holds no board".into(),
        });
    }
    if cur.word_line(b"YES") {
        let n = cur.lines_left();
        if n == 0 || n > MAX_N {
            return Err(PlacementError {
                line: header_line,
                message: format!("`YES` must be followed by 1 to {MAX_N} rows, found {n}"),
            });
        }
        return read_cols(&mut cur, n);
    }
    let k = cur.integers(&mut nums, 2)?;
    let n = nums[0];
    if n == 0 || n as usize > MAX_N {
        return Err(PlacementError {
            line: header_line,
            message: format!("N must be between 1 and {MAX_N}, got {n}"),
        });
    }
    let n = n as usize;
    if k == 1 {
        return read_cols(&mut cur, n);
    }
    let count = nums[1];
    if count as usize > n {
        return Err(PlacementError {
            line: header_line,
            message: format!("K = {count} queens cannot fit on a board of size N = {n} (K > N)"),
        });
    }
    let count = count as usize;
    // Reserve for what the text can hold (a queen takes at least 4 bytes), not for what
    // its header claims.
    let mut queens = Vec::with_capacity(count.min(text.len() / 4 + 1));
    for i in 0..count {
        if !cur.next_line() {
            return Err(cur.eof_err(format!("expected K = {count} queens, found {i}")));
        }
        let line = cur.line;
        let got = cur.integers(&mut nums, 2)?;
        if got != 2 {
            return Err(PlacementError {
                line,
                message: "expected two numbers `row col`".into(),
            });
        }
        let (r, c) = (nums[0], nums[1]);
        if r == 0 || c == 0 || r as usize > n || c as usize > n {
            return Err(PlacementError {
                line,
                message: format!("queen ({r}, {c}) is off the board (1..{n})"),
            });
        }
        queens.push((r as u32 - 1, c as u32 - 1));
    }
    if cur.next_line() {
        return Err(cur.err(format!("more than K = {count} queens")));
    }
    Ok(Placement::Pairs { n, queens })
}

/// Whether `text` is a `NO` answer of `nqueens complete` (its first non-blank line is `NO`):
/// a verdict without a board.
///
/// # Examples
/// ```
/// use nqueens::placement::is_no_answer;
/// assert!(is_no_answer(b"NO\n"));
/// assert!(!is_no_answer(b"YES\n1\n"));
/// ```
pub fn is_no_answer(text: &[u8]) -> bool {
    let mut cur = Cursor {
        text,
        pos: 0,
        line: 1,
    };
    cur.next_line() && cur.word_line(b"NO")
}

/// Reads the `n` rows of the `cols` shape (a column per line, 0 for an empty row) that
/// follow the header, and nothing after them.
fn read_cols(cur: &mut Cursor, n: usize) -> Result<Placement, PlacementError> {
    let mut nums = [0u64; 2];
    // A row takes at least 2 bytes: reserve for what the text can hold.
    let mut cols = Vec::with_capacity(n.min(cur.text.len() / 2 + 1));
    for i in 0..n {
        if !cur.next_line() {
            return Err(cur.eof_err(format!("expected {n} rows after the header, found {i}")));
        }
        let line = cur.line;
        let got = cur.integers(&mut nums, 1)?;
        debug_assert_eq!(got, 1);
        if nums[0] as usize > n {
            return Err(PlacementError {
                line,
                message: format!(
                    "column {} is off the board (1..{n}, or 0 for an empty row)",
                    nums[0]
                ),
            });
        }
        cols.push(nums[0] as u32);
    }
    if cur.next_line() {
        return Err(cur.err(format!("more than {n} rows after the header")));
    }
    Ok(Placement::Cols { n, cols })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_formats_with_crlf_and_blank_lines() {
        let p = parse_placement(b"\r\n3\r\n0\r\n1\r\n\r\n3").unwrap();
        assert_eq!(
            p,
            Placement::Cols {
                n: 3,
                cols: vec![0, 1, 3]
            }
        );
        assert_eq!(p.count(), 2);
        assert_eq!(p.queen(0), None);
        assert_eq!(p.queen(2), Some((2, 2)));
        let p = parse_placement(b"5 2\n1 1\n5 5\n").unwrap();
        assert_eq!(p.queen(1), Some((4, 4)));
    }

    #[test]
    fn reads_complete_answers() {
        let cols = Placement::Cols {
            n: 4,
            cols: vec![2, 4, 1, 3],
        };
        assert_eq!(parse_placement(b"YES\n2\n4\n1\n3\n").unwrap(), cols);
        assert_eq!(parse_placement(b"YES\r\n2\r\n4\r\n1\r\n3").unwrap(), cols);
        assert_eq!(parse_placement(b" YES \n2\n4\n\n1\n3\n").unwrap(), cols);
        assert_eq!(parse_placement(b"YES\n2\n5\n1\n3\n").unwrap_err().line, 3);
        assert!(is_no_answer(b"\n NO\r\n"));
        assert!(!is_no_answer(b"NOPE\n"));
        assert!(!is_no_answer(b"4\n"));
    }

    #[test]
    fn a_header_alone_sizes_no_buffer() {
        // Claims of a billion rows or queens in a few bytes: errors, no giant reservation.
        let e = parse_placement(b"1000000000\n1\n2\n").unwrap_err();
        assert!(e.message.contains("found 2"), "{e}");
        let e = parse_placement(b"4294967294 4294967294\n1 1\n").unwrap_err();
        assert!(e.message.contains("found 1"), "{e}");
        assert_eq!(strict_cols_header(b"1000000000\n1\n2\n"), None);
    }

    #[test]
    fn rejects_malformed_input_with_the_line() {
        let e = |t: &[u8]| parse_placement(t).unwrap_err();
        assert_eq!(e(b"").line, 1);
        assert_eq!(e(b"\n\n").line, 1);
        assert_eq!(e(b"0\n").line, 1);
        // A text that ends early names its last line.
        assert_eq!(e(b"3\n1\n2\n").line, 3);
        assert_eq!(e(b"3\n1\n2").line, 3);
        assert_eq!(e(b"3 2\n1 1\n").line, 2);
        assert_eq!(e(b"NO\n").line, 1);
        assert_eq!(e(b"YES\n").line, 1);
        assert!(e(b"2 3\n").message.contains("board of size N = 2"));
        assert_eq!(e(b"3\n1\n4\n2\n").line, 3);
        assert_eq!(e(b"3\n1\nx\n2\n").line, 3);
        assert_eq!(e(b"3\n1\n2\n3\n1\n").line, 5);
        assert_eq!(e(b"3 4\n").line, 1);
        assert_eq!(e(b"3 1\n0 1\n").line, 2);
        assert_eq!(e(b"3 1\n1\n").line, 2);
        assert_eq!(e(b"3 1\n1 2 3\n").line, 2);
        assert_eq!(e(b"2\n-1\n1\n").line, 2);
        assert!(e(b"99999999999999999999999\n")
            .message
            .contains("too large"));
    }
}
