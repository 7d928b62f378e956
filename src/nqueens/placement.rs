//! Reading queen placements in the two formats the N-Queens seeds use.
//!
//! * `cols`: first line `N`, then `N` lines; line `i` is the 1-based column of the queen in row
//!   `i`, or `0` for an empty row.
//! * `pairs` (seed 000): first line `N K`, then `K` lines `row col`, both 1-based.
//!
//! The format is told apart by the number of integers on the first line.

use std::fmt;

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

/// Why a placement could not be read; `line` is 1-based (0 when the text has no lines).
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
                let word = String::from_utf8_lossy(&self.text[start..stop.max(start + 1)]);
                return Err(self.err(format!("expected a non-negative integer, found `{word}`")));
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
/// use queenattack::nqueens::{parse_placement, Placement};
/// let p = parse_placement(b"4\n2\n4\n1\n3\n").unwrap();
/// assert_eq!(p, Placement::Cols { n: 4, cols: vec![2, 4, 1, 3] });
/// let p = parse_placement(b"4 1\n1 2\n").unwrap();
/// assert_eq!(p, Placement::Pairs { n: 4, queens: vec![(0, 1)] });
/// ```
pub fn parse_placement(text: &[u8]) -> Result<Placement, PlacementError> {
    let mut cur = Cursor {
        text,
        pos: 0,
        line: 1,
    };
    let mut nums = [0u64; 2];
    if !cur.next_line() {
        return Err(PlacementError {
            line: 0,
            message: "empty input: expected `N` or `N K` on the first line".into(),
        });
    }
    let header_line = cur.line;
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
        let mut cols = Vec::with_capacity(n);
        for i in 0..n {
            if !cur.next_line() {
                return Err(cur.err(format!("expected {n} rows after the header, found {i}")));
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
    } else {
        let count = nums[1];
        if count as usize > n {
            return Err(PlacementError {
                line: header_line,
                message: format!("K = {count} queens cannot fit on an {n}×{n} board (K > N)"),
            });
        }
        let count = count as usize;
        let mut queens = Vec::with_capacity(count);
        for i in 0..count {
            if !cur.next_line() {
                return Err(cur.err(format!("expected {count} queens, found {i}")));
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
    fn rejects_malformed_input_with_the_line() {
        let e = |t: &[u8]| parse_placement(t).unwrap_err();
        assert_eq!(e(b"").line, 0);
        assert_eq!(e(b"0\n").line, 1);
        assert_eq!(e(b"3\n1\n2\n").line, 4);
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
