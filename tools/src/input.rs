//! A QueenAttack test case: the board size `N`, the number of colours `C` and the grid.
//!
//! The text form is exactly what the official tester writes to a solution's standard input:
//! `N`, `C`, then the `N·N` cell values row-major, one per line, each `-1` (wall), `0` (empty)
//! or a queen colour `1..=C`.

use std::fmt;

/// Cell value of a wall.
pub const WALL: i8 = -1;
/// Cell value of an empty cell.
pub const EMPTY: i8 = 0;

/// Largest board side [`Input::new`] accepts: the project's one limit for the solver and the
/// tester (the contest's boards have N in 8..=30).
pub const MAX_N: usize = 128;
/// Largest number of colours [`Input::new`] accepts (the contest has C in 1..=6).
pub const MAX_C: usize = 100;
/// The rule every board must follow, as `--help` texts state it.
pub const LIMITS: &str = "N in 1..=128, C in 1..=100, and exactly N queens of every colour \
                          1..=C on the board (so C <= N)";

/// At most [`EXCERPT_BYTES`] bytes of `text`, escaped like Rust's `{:?}` (with the quotes), and
/// `… (B bytes)` after it when it was cut: what error messages quote of a bad token, so that a
/// huge or binary token never floods a terminal.
///
/// # Examples
///
/// ```
/// use tools::input::excerpt;
///
/// assert_eq!(excerpt("x\ty"), "\"x\\ty\"");
/// let long = "9".repeat(1000);
/// assert_eq!(excerpt(&long), format!("{:?}… (1000 bytes)", "9".repeat(80)));
/// ```
pub fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT_BYTES {
        return format!("{text:?}");
    }
    let mut end = EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}… ({} bytes)", &text[..end], text.len())
}

/// How many bytes of a bad token [`excerpt`] quotes.
pub const EXCERPT_BYTES: usize = 80;

/// One test case.
///
/// # Examples
///
/// ```
/// use tools::input::Input;
///
/// let input = Input::parse("2\n1\n1\n0\n-1\n1\n").unwrap();
/// assert_eq!((input.n, input.c), (2, 1));
/// assert_eq!(input.at(1, 0), -1);
/// assert_eq!(input.to_string(), "2\n1\n1\n0\n-1\n1\n");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Board side `N`.
    pub n: usize,
    /// Number of colours `C`.
    pub c: usize,
    /// Cell values row-major: cell `(r, c)` is `grid[r * n + c]`.
    pub grid: Vec<i8>,
}

impl Input {
    /// A test case from its parts, checked for its shape: `1 <= n <= MAX_N`, `1 <= c <= MAX_C`,
    /// `n·n` cells, each `-1`, `0` or a colour `1..=c`.
    ///
    /// The queen counts are not checked, so that tests can build small boards for the judge;
    /// [`Input::parse`], which every `tester` command uses, also checks them (see [`LIMITS`]).
    pub fn new(n: usize, c: usize, grid: Vec<i8>) -> Result<Input, String> {
        if !(1..=MAX_N).contains(&n) {
            return Err(format!("N must be between 1 and {MAX_N}, got {n}"));
        }
        if !(1..=MAX_C).contains(&c) {
            return Err(format!("C must be between 1 and {MAX_C}, got {c}"));
        }
        if grid.len() != n * n {
            return Err(format!(
                "the grid must have N*N = {} cells, got {}",
                n * n,
                grid.len()
            ));
        }
        if let Some(i) = grid
            .iter()
            .position(|&v| v < WALL || i64::from(v) > c as i64)
        {
            return Err(format!(
                "cell ({},{}) has value {}, expected -1, 0 or a colour 1..{c}",
                i / n,
                i % n,
                grid[i]
            ));
        }
        Ok(Input { n, c, grid })
    }

    /// Reads the official input text and checks the whole rule of [`LIMITS`], queen counts
    /// included. Numbers may be separated by any whitespace; nothing may follow the last cell.
    pub fn parse(text: &str) -> Result<Input, String> {
        let mut tokens = text.split_ascii_whitespace();
        let mut number = |what: &str| -> Result<i64, String> {
            let token = tokens
                .next()
                .ok_or_else(|| format!("input ends before {what}"))?;
            token
                .parse::<i64>()
                .map_err(|_| format!("{what}: {} is not an integer", excerpt(token)))
        };
        let n = number("N")?;
        let c = number("C")?;
        if !(1..=MAX_N as i64).contains(&n) {
            return Err(format!("N must be between 1 and {MAX_N}, got {n}"));
        }
        if !(1..=MAX_C as i64).contains(&c) {
            return Err(format!("C must be between 1 and {MAX_C}, got {c}"));
        }
        let (n, c) = (n as usize, c as usize);
        // N was checked above, so this reservation is at most 128² bytes.
        let mut grid = Vec::with_capacity(n * n);
        for i in 0..n * n {
            let v = number(&format!("cell ({},{})", i / n, i % n))?;
            if v < -1 || v > c as i64 {
                return Err(format!(
                    "cell ({},{}) has value {v}, expected -1, 0 or a colour 1..{c}",
                    i / n,
                    i % n
                ));
            }
            grid.push(v as i8);
        }
        if let Some(extra) = tokens.next() {
            return Err(format!("unexpected {} after the last cell", excerpt(extra)));
        }
        let input = Input::new(n, c, grid)?;
        input.check_queens()?;
        Ok(input)
    }

    /// Checks that every colour `1..=C` has exactly `N` queens; the message names the first
    /// colour that does not and its count.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::input::Input;
    ///
    /// let two = Input::new(2, 1, vec![1, 0, 0, 1]).unwrap();
    /// assert!(two.check_queens().is_ok());
    /// let one = Input::new(2, 1, vec![1, 0, 0, 0]).unwrap();
    /// assert_eq!(
    ///     one.check_queens().unwrap_err(),
    ///     "colour 1 has 1 queens, expected exactly N = 2 of every colour 1..=1"
    /// );
    /// ```
    pub fn check_queens(&self) -> Result<(), String> {
        let mut count = vec![0usize; self.c + 1];
        for &v in self.grid.iter().filter(|&&v| v > EMPTY) {
            count[v as usize] += 1;
        }
        match (1..=self.c).find(|&k| count[k] != self.n) {
            Some(colour) => Err(format!(
                "colour {colour} has {} queens, expected exactly N = {} of every colour 1..={}",
                count[colour], self.n, self.c
            )),
            None => Ok(()),
        }
    }

    /// The value of cell `(r, c)`.
    ///
    /// # Panics
    ///
    /// If the cell is outside the board.
    pub fn at(&self, r: usize, c: usize) -> i8 {
        assert!(
            r < self.n && c < self.n,
            "cell ({r},{c}) is outside the board"
        );
        self.grid[r * self.n + c]
    }

    /// The official limit on the number of moves: `2·N³`.
    pub fn max_moves(&self) -> i64 {
        2 * (self.n as i64).pow(3)
    }

    /// Number of wall cells.
    pub fn walls(&self) -> usize {
        self.grid.iter().filter(|&&v| v == WALL).count()
    }
}

impl fmt::Display for Input {
    /// The official text: `N`, `C`, then the cells, one value per line, `\n` endings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.n)?;
        writeln!(f, "{}", self.c)?;
        for v in &self.grid {
            writeln!(f, "{v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_rejects_bad_text() {
        assert!(Input::parse("").is_err());
        assert!(Input::parse("2\n1\n0\n0\n0\n").is_err(), "missing a cell");
        assert!(
            Input::parse("2\n1\n0\n0\n0\n0\n7\n").is_err(),
            "extra value"
        );
        assert!(
            Input::parse("2\n1\n0\n0\n0\n2\n").is_err(),
            "colour above C"
        );
        assert!(Input::parse("2\n1\n0\n0\n0\n-2\n").is_err(), "below wall");
        assert!(Input::parse("0\n1\n").is_err(), "N = 0");
        assert!(Input::parse("2\n0\n0\n0\n0\n0\n").is_err(), "C = 0");
        assert!(Input::parse("2\nx\n").is_err());
        assert!(Input::parse("129\n1\n").unwrap_err().contains("128"));
        assert!(Input::parse("8\n101\n").unwrap_err().contains("100"));
        // Colour 1 has one queen too few (and colour 2 one too many).
        assert_eq!(
            Input::parse("2 2  1 2  2 1").map(|_| ()),
            Ok(()),
            "two of each colour"
        );
        assert_eq!(
            Input::parse("2 2  1 2  2 2").unwrap_err(),
            "colour 1 has 1 queens, expected exactly N = 2 of every colour 1..=2"
        );
        assert!(Input::parse("2 1  1 0  0 0")
            .unwrap_err()
            .contains("colour 1 has 1"));
    }

    #[test]
    fn messages_quote_a_bounded_excerpt() {
        let huge = format!("8\n{}\n", "7".repeat(100_000));
        let message = Input::parse(&huge).unwrap_err();
        assert!(message.len() < 200, "{message}");
        assert!(message.contains("(100000 bytes)"), "{message}");
        let control = Input::parse("8\n\u{1b}[2J\n").unwrap_err();
        assert!(control.contains("\\u{1b}"), "{control}");
        let extra = Input::parse("2 1  1 0  0 1 \u{1b}junk").unwrap_err();
        assert_eq!(extra, "unexpected \"\\u{1b}junk\" after the last cell");
    }

    #[test]
    fn round_trip_and_limits() {
        let text = "3\n2\n1\n0\n2\n-1\n1\n2\n2\n0\n1\n";
        let input = Input::parse(text).unwrap();
        assert_eq!(input.to_string(), text);
        assert_eq!(input.max_moves(), 54);
        assert_eq!(input.walls(), 1);
        assert_eq!(input.at(2, 2), 1);
        assert!(Input::new(2, 1, vec![0; 3]).is_err());
        assert!(Input::new(2, 1, vec![0, 0, 0, 2]).is_err());
    }
}
