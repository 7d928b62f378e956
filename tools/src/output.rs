//! Reading a solution's output the way the official tester does.
//!
//! The official order, which decides *which* message an output gets:
//! 1. the first line is the move count, read with `Integer.parseInt` (no spaces, optional sign);
//!    a missing or unreadable line is [`CANNOT_PARSE`]; a count outside `0..=2·N³` is
//!    "Number of moves must between 0 and 2N³ inclusive";
//! 2. all the counted lines are read *before any move is checked*: if the text ends early, the
//!    answer is [`CANNOT_PARSE`] even when an earlier move is illegal; lines after them are
//!    ignored;
//! 3. then move by move: the line is split on single spaces (Java's `split(" ")`), it must give
//!    exactly 4 pieces, each an `Integer.parseInt` number, and then the move must be legal on the
//!    current board (checked by `replay::Replay`, which builds on this module).
//!
//! Because step 3 interleaves reading and playing, [`parse_output`] stops at the first line that
//! is not four numbers and reports it in [`ParsedOutput::bad_line`]; the replay then decides
//! whether an earlier illegal move comes first.

use std::fmt;

use crate::input::{excerpt, EXCERPT_BYTES};
use crate::java::{lines, parse_int, split_space};

/// The official message for any failure to read a number or a line.
pub const CANNOT_PARSE: &str = "Cannot parse your output";

/// One move: the queen on `(r1, c1)` goes to `(r2, c2)`. Coordinates are as written, so they
/// may lie outside the board (the replay rejects that).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Start row.
    pub r1: i32,
    /// Start column.
    pub c1: i32,
    /// End row.
    pub r2: i32,
    /// End column.
    pub c2: i32,
}

impl Move {
    /// The move from `(r1, c1)` to `(r2, c2)`.
    pub fn new(r1: i32, c1: i32, r2: i32, c2: i32) -> Move {
        Move { r1, c1, r2, c2 }
    }
}

impl fmt::Display for Move {
    /// The output line: `r1 c1 r2 c2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {} {}", self.r1, self.c1, self.r2, self.c2)
    }
}

/// A line that stopped the reading of moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// Index of the move (0-based) whose line is bad.
    pub index: usize,
    /// The official message for it.
    pub message: String,
}

/// The moves read from an output, up to the first line that is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedOutput<'a> {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The line of each move as written (without its line terminator); the official messages
    /// quote it.
    pub lines: Vec<&'a str>,
    /// The first counted line that is not four numbers, if any. Lines after it were not read.
    pub bad_line: Option<BadLine>,
}

impl ParsedOutput<'_> {
    /// All moves, or the first bad line's message. This is the official verdict only if every
    /// move before the bad line is legal; `judge::judge` (above this module) gives the verdict itself.
    pub fn into_moves(self) -> Result<Vec<Move>, String> {
        match self.bad_line {
            Some(bad) => Err(bad.message),
            None => Ok(self.moves),
        }
    }
}

/// Reads an output for a board of side `n`: the count, then the counted lines as moves.
///
/// `Err` carries the official message of a fatal that comes before any move is played (the
/// count, or text ending before the last counted line).
///
/// # Examples
///
/// ```
/// use tools::output::{parse_output, Move, CANNOT_PARSE};
///
/// let out = parse_output("2\r\n0 1 1 0\r\n1 0 0 0 \r\nignored", 8).unwrap();
/// assert_eq!(out.moves, [Move::new(0, 1, 1, 0), Move::new(1, 0, 0, 0)]);
/// assert_eq!(out.lines[1], "1 0 0 0 ");
/// assert!(out.bad_line.is_none());
///
/// assert_eq!(parse_output("3\n0 1 1 0\n", 8).unwrap_err(), CANNOT_PARSE);
/// let bad = parse_output("2\n0 1 1 0\n0  1 1 0\n", 8).unwrap().bad_line.unwrap();
/// assert_eq!(bad.index, 1);
/// assert_eq!(bad.message, "Each move must contain exactly 4 numbers separated by a space: 0  1 1 0");
/// ```
///
/// # Complexity
///
/// Linear in the length of the text.
pub fn parse_output(text: &str, n: usize) -> Result<ParsedOutput<'_>, String> {
    let mut reader = lines(text);
    let count = reader
        .next()
        .and_then(parse_int)
        .ok_or_else(|| CANNOT_PARSE.to_string())?;
    let limit = 2 * (n as i64).pow(3);
    if count < 0 || i64::from(count) > limit {
        return Err(format!(
            "Number of moves must between 0 and {limit} inclusive"
        ));
    }
    let count = count as usize;
    // Reserve only what the text can hold (a move line takes at least 8 bytes), never what the
    // count claims: `2000000000` on a short text must not allocate gigabytes.
    let room = count.min(text.len() / 8 + 1);
    let mut raw = Vec::with_capacity(room);
    for _ in 0..count {
        raw.push(reader.next().ok_or_else(|| CANNOT_PARSE.to_string())?);
    }
    let mut moves = Vec::with_capacity(room);
    let mut bad_line = None;
    for (index, line) in raw.iter().enumerate() {
        match parse_move(line) {
            Ok(mv) => moves.push(mv),
            Err(message) => {
                bad_line = Some(BadLine { index, message });
                break;
            }
        }
    }
    raw.truncate(moves.len());
    Ok(ParsedOutput {
        moves,
        lines: raw,
        bad_line,
    })
}

/// Reads one move line: exactly four single-space separated `Integer.parseInt` numbers
/// (trailing spaces allowed), with the official messages.
///
/// # Examples
///
/// ```
/// use tools::output::{parse_move, Move};
///
/// assert_eq!(parse_move("+1 -2 3 4  "), Ok(Move::new(1, -2, 3, 4)));
/// assert_eq!(parse_move("1 2 3 x"), Err("Cannot parse your output".to_string()));
/// ```
pub fn parse_move(line: &str) -> Result<Move, String> {
    let Some(parts) = split_space::<4>(line) else {
        return Err(format!(
            "Each move must contain exactly 4 numbers separated by a space: {}",
            quote_line(line)
        ));
    };
    let mut v = [0i32; 4];
    for (slot, part) in v.iter_mut().zip(&parts) {
        *slot = parse_int(part).ok_or_else(|| CANNOT_PARSE.to_string())?;
    }
    Ok(Move::new(v[0], v[1], v[2], v[3]))
}

/// A move line as the official messages quote it: verbatim up to [`EXCERPT_BYTES`] bytes (the
/// official text), else a bounded, escaped [`excerpt`] (the official tester would echo the
/// whole line; a 100 MB line must not come back in a message).
///
/// # Examples
///
/// ```
/// use tools::output::quote_line;
///
/// assert_eq!(quote_line("0\t1\t1\t0"), "0\t1\t1\t0");
/// assert!(quote_line(&"0 ".repeat(500)).ends_with("… (1000 bytes)"));
/// ```
pub fn quote_line(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= EXCERPT_BYTES {
        std::borrow::Cow::Borrowed(line)
    } else {
        std::borrow::Cow::Owned(excerpt(line))
    }
}

/// The output text of a move list: the count, then one move per line, `\n` endings.
///
/// # Examples
///
/// ```
/// use tools::output::{format_moves, Move};
///
/// assert_eq!(format_moves(&[Move::new(0, 1, 1, 0)]), "1\n0 1 1 0\n");
/// ```
pub fn format_moves(moves: &[Move]) -> String {
    let mut text = format!("{}\n", moves.len());
    for mv in moves {
        text.push_str(&mv.to_string());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_line_rules() {
        for text in ["", "\n", " 1\n", "1.0\n", "x", "1 \n", "+\n"] {
            assert_eq!(parse_output(text, 8).unwrap_err(), CANNOT_PARSE, "{text:?}");
        }
        assert_eq!(
            parse_output("-1\n", 8).unwrap_err(),
            "Number of moves must between 0 and 1024 inclusive"
        );
        assert_eq!(
            parse_output("54001\n", 30).unwrap_err(),
            "Number of moves must between 0 and 54000 inclusive"
        );
        assert!(parse_output("+0", 8).unwrap().moves.is_empty());
        assert!(parse_output("0\ngarbage", 8).unwrap().moves.is_empty());
    }

    #[test]
    fn missing_line_beats_a_bad_line() {
        // The second line is bad, but the third counted line is missing: reading fails first.
        assert_eq!(
            parse_output("3\n0 1 1 0\nbad\n", 8).unwrap_err(),
            CANNOT_PARSE
        );
    }

    #[test]
    fn move_line_rules() {
        let msg = |l: &str| parse_move(l).unwrap_err();
        assert!(msg("").starts_with("Each move must contain exactly 4"));
        assert!(msg("   ").starts_with("Each move must contain exactly 4"));
        assert!(msg(" 0 1 1 0").ends_with(":  0 1 1 0"));
        assert!(msg("0 1 1 0 5").starts_with("Each move"));
        assert_eq!(msg("0 1 1 0x"), CANNOT_PARSE);
        assert_eq!(msg("0 1 1 99999999999"), CANNOT_PARSE);
        assert_eq!(parse_move("0 1 1 0   "), Ok(Move::new(0, 1, 1, 0)));
    }

    #[test]
    fn huge_counts_and_lines_stay_bounded() {
        // The count claims far more moves than the text holds: no big reservation, the official
        // answer for a short text.
        assert_eq!(
            parse_output("4194304\n0 0 1 0\n", 128).unwrap_err(),
            CANNOT_PARSE
        );
        assert_eq!(
            parse_output("2000000000\n0 0 1 0\n", 128).unwrap_err(),
            "Number of moves must between 0 and 4194304 inclusive"
        );
        let long = format!("1\n{}\n", "0 ".repeat(5_000_000));
        let bad = parse_output(&long, 8).unwrap().bad_line.unwrap();
        assert!(bad.message.len() < 200, "{}", bad.message);
        assert!(
            bad.message.ends_with("… (10000000 bytes)"),
            "{}",
            bad.message
        );
    }

    #[test]
    fn format_then_parse_round_trips() {
        let moves = vec![Move::new(0, 1, 1, 0), Move::new(-3, 4, 99, 2)];
        let text = format_moves(&moves);
        assert_eq!(parse_output(&text, 8).unwrap().into_moves(), Ok(moves));
    }
}
