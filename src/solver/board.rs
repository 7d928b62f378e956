//! The board of the official input: size, colours, walls and queens, and the queen move.
//!
//! Cells are numbered row-major (`cell = row * n + col`), so every per-cell table in the
//! pipeline is a plain `Vec` indexed by cell.

use std::fmt;

/// Value of a wall cell in the official input.
pub const WALL: i8 = -1;
/// Value of an empty cell in the official input.
pub const EMPTY: i8 = 0;

/// Largest board side the solver accepts (memory of the per-cell tables grows as `n⁴`).
pub const MAX_N: usize = 128;
/// Largest number of colours the solver accepts.
pub const MAX_COLOURS: usize = 100;
/// A bad token is quoted in a message escaped and cut to this many bytes, so a huge or binary
/// token never floods the terminal.
pub const QUOTE_BYTES: usize = 80;

/// The eight queen directions as `(dr, dc)`.
pub const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// One queen move from cell `from` to cell `to` (row-major cell numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Start cell.
    pub from: usize,
    /// End cell.
    pub to: usize,
}

/// Where each queen ends after `moves`: `starts` are the queens' start cells (in the order
/// every stage indexes queens), `cells` the board's cell count, `moves` legal moves of them.
///
/// ```
/// use queenattack::solver::board::{final_cells, Move};
/// let moves = [Move { from: 0, to: 3 }, Move { from: 5, to: 0 }, Move { from: 3, to: 8 }];
/// assert_eq!(final_cells(&[0, 5], 9, &moves), vec![8, 0]);
/// ```
///
/// # Panics
/// If a move starts where no queen stands (the moves are not legal for `starts`).
pub fn final_cells(starts: &[usize], cells: usize, moves: &[Move]) -> Vec<usize> {
    const EMPTY: usize = usize::MAX;
    let mut at = vec![EMPTY; cells];
    for (q, &s) in starts.iter().enumerate() {
        at[s] = q;
    }
    let mut ends = starts.to_vec();
    for m in moves {
        let q = std::mem::replace(&mut at[m.from], EMPTY);
        assert_ne!(q, EMPTY, "a move from an empty cell");
        at[m.to] = q;
        ends[q] = m.to;
    }
    ends
}

/// A queen of the initial board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queen {
    /// Cell where the queen starts.
    pub start: usize,
    /// Colour, `0..colours` (the input's colour minus one).
    pub colour: usize,
}

/// The queens of each colour (indices into `queens`), colour by colour: as many colours as
/// the highest colour present.
///
/// ```
/// use queenattack::solver::board::{by_colour, Queen};
/// let queens = [Queen { start: 0, colour: 1 }, Queen { start: 5, colour: 0 }, Queen { start: 7, colour: 1 }];
/// assert_eq!(by_colour(&queens), vec![vec![1], vec![0, 2]]);
/// ```
pub fn by_colour(queens: &[Queen]) -> Vec<Vec<usize>> {
    let colours = queens.iter().map(|q| q.colour + 1).max().unwrap_or(0);
    let mut members = vec![Vec::new(); colours];
    for (q, queen) in queens.iter().enumerate() {
        members[queen.colour].push(q);
    }
    members
}

/// Why an input could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// The initial board: side `n`, `colours` colours, and the input value of every cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Side of the board.
    pub n: usize,
    /// Number of colours.
    pub colours: usize,
    /// Input value of each cell: [`WALL`], [`EMPTY`] or a colour `1..=colours`.
    pub cells: Vec<i8>,
}

impl Board {
    /// Reads the official input: `N`, `C`, then `N*N` cell values, separated by white space.
    ///
    /// # Errors
    /// A message naming the first problem: a missing or non-integer token, a size out of range,
    /// a cell value outside `-1..=C`, or trailing tokens.
    ///
    /// # Examples
    /// ```
    /// use queenattack::solver::board::Board;
    /// let board = Board::parse("2 1\n1\n0\n-1\n1\n").unwrap();
    /// assert_eq!((board.n, board.colours), (2, 1));
    /// assert_eq!(board.queens().len(), 2);
    /// assert!(Board::parse("2 1 1 0").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Board, InputError> {
        let mut tokens = text.split_ascii_whitespace();
        let mut next = |what: &str| -> Result<i64, InputError> {
            let token = tokens
                .next()
                .ok_or_else(|| InputError(format!("input ends before {what}")))?;
            token
                .parse::<i64>()
                .map_err(|_| InputError(format!("{what}: {} is not an integer", quote(token))))
        };
        let n = next("N")?;
        if !(1..=MAX_N as i64).contains(&n) {
            return Err(InputError(format!("N = {n} is outside 1..={MAX_N}")));
        }
        let colours = next("C")?;
        if !(1..=MAX_COLOURS as i64).contains(&colours) {
            return Err(InputError(format!(
                "C = {colours} is outside 1..={MAX_COLOURS}"
            )));
        }
        let n = n as usize;
        let mut cells = Vec::with_capacity(n * n);
        for cell in 0..n * n {
            let value = next(&format!(
                "cell {cell} (row {}, column {})",
                cell / n,
                cell % n
            ))?;
            if !(-1..=colours).contains(&value) {
                return Err(InputError(format!(
                    "cell {cell} has value {value}, expected -1..={colours}"
                )));
            }
            cells.push(value as i8);
        }
        if let Some(extra) = tokens.next() {
            return Err(InputError(format!(
                "unexpected token {} after the {} cells",
                quote(extra),
                n * n
            )));
        }
        Ok(Board {
            n,
            colours: colours as usize,
            cells,
        })
    }

    /// Reads an input under the solver's rule (the same as `tester`'s): [`Board::parse`], and
    /// every colour `1..=C` has exactly `N` queens on the board (so `C ≤ N`).
    ///
    /// # Errors
    /// As [`Board::parse`], or the first colour whose count is not `N`.
    ///
    /// # Examples
    /// ```
    /// use queenattack::solver::board::Board;
    /// assert!(Board::parse_official("2 1  1 0  0 1").is_ok());
    /// let err = Board::parse_official("2 2  1 0  0 1").unwrap_err();
    /// assert_eq!(err.to_string(), "colour 2 has 0 queens, expected N = 2");
    /// ```
    pub fn parse_official(text: &str) -> Result<Board, InputError> {
        let board = Board::parse(text)?;
        let mut count = vec![0usize; board.colours];
        for &v in &board.cells {
            if v > 0 {
                count[v as usize - 1] += 1;
            }
        }
        match count.iter().position(|&c| c != board.n) {
            Some(k) => Err(InputError(format!(
                "colour {} has {} queens, expected N = {}",
                k + 1,
                count[k],
                board.n
            ))),
            None => Ok(board),
        }
    }

    /// A random board like the contest generator's: each cell a wall with probability `walls`,
    /// then `n` queens of each of the `colours` colours on random free cells.
    ///
    /// # Panics
    /// If the free cells are fewer than `n × colours`.
    ///
    /// # Examples
    /// ```
    /// use queenattack::solver::board::Board;
    /// use rand::SeedableRng;
    /// let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    /// let board = Board::random(64, 10, 0.1, &mut rng);
    /// assert_eq!(board.queens().len(), 640);
    /// assert!(Board::parse_official(&board.to_string()).is_ok());
    /// ```
    pub fn random(n: usize, colours: usize, walls: f64, rng: &mut impl rand::Rng) -> Board {
        let mut cells: Vec<i8> = (0..n * n)
            .map(|_| if rng.random_bool(walls) { WALL } else { EMPTY })
            .collect();
        let mut free: Vec<usize> = (0..n * n).filter(|&i| cells[i] == EMPTY).collect();
        for k in 1..=colours {
            for _ in 0..n {
                let i = rng.random_range(0..free.len());
                cells[free.swap_remove(i)] = k as i8;
            }
        }
        Board { n, colours, cells }
    }

    /// The queens in row-major order of their start cells.
    pub fn queens(&self) -> Vec<Queen> {
        self.cells
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v > 0)
            .map(|(start, &v)| Queen {
                start,
                colour: v as usize - 1,
            })
            .collect()
    }

    /// `true` for every wall cell.
    pub fn walls(&self) -> Vec<bool> {
        self.cells.iter().map(|&v| v == WALL).collect()
    }

    /// Row and column of a cell.
    #[inline]
    pub fn rc(&self, cell: usize) -> (usize, usize) {
        (cell / self.n, cell % self.n)
    }
}

/// The official input text: `N`, `C`, then one row of cell values per line.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}\n{}", self.n, self.colours)?;
        for row in self.cells.chunks(self.n) {
            let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            writeln!(f, "{}", values.join(" "))?;
        }
        Ok(())
    }
}

/// `token` for a message: in quotes, every character outside printable ASCII escaped
/// (`\u{0}`, `\n`), cut after [`QUOTE_BYTES`] bytes of escaped text, with the token's full
/// length when it was cut.
///
/// # Examples
/// ```
/// use queenattack::solver::board::quote;
/// assert_eq!(quote("x\0y"), "\"x\\u{0}y\"");
/// let long = "7".repeat(1_000_000);
/// assert!(quote(&long).len() < 120);
/// assert!(quote(&long).ends_with("(1000000 bytes)"));
/// ```
pub fn quote(token: &str) -> String {
    let mut out = String::new();
    for ch in token.chars() {
        let escaped = ch.escape_default().to_string();
        if out.len() + escaped.len() > QUOTE_BYTES {
            return format!("\"{out}\"… ({} bytes)", token.len());
        }
        out.push_str(&escaped);
    }
    format!("\"{out}\"")
}

/// Length of a queen move between two cells on a line (`max(|dr|, |dc|)`), or `None` when
/// the cells do not share a row, column or diagonal.
///
/// # Examples
/// ```
/// use queenattack::solver::board::line_length;
/// assert_eq!(line_length(8, 0, 63), Some(7));
/// assert_eq!(line_length(8, 0, 10), None);
/// ```
pub fn line_length(n: usize, a: usize, b: usize) -> Option<usize> {
    let (ra, ca) = ((a / n) as i64, (a % n) as i64);
    let (rb, cb) = ((b / n) as i64, (b % n) as i64);
    let (dr, dc) = (rb - ra, cb - ca);
    if dr == 0 || dc == 0 || dr.abs() == dc.abs() {
        Some(dr.abs().max(dc.abs()) as usize)
    } else {
        None
    }
}

/// The cells a straight move from `from` to `to` (on one line) crosses or enters: strictly
/// after `from`, up to `to` included, in order.
///
/// # Examples
/// ```
/// use queenattack::solver::board::line_cells;
/// assert_eq!(line_cells(8, 0, 27).collect::<Vec<_>>(), [9, 18, 27]);
/// assert_eq!(line_cells(8, 5, 2).collect::<Vec<_>>(), [4, 3, 2]);
/// ```
pub fn line_cells(n: usize, from: usize, to: usize) -> impl Iterator<Item = usize> {
    let (r0, c0) = ((from / n) as i64, (from % n) as i64);
    let (r1, c1) = ((to / n) as i64, (to % n) as i64);
    let (dr, dc) = ((r1 - r0).signum(), (c1 - c0).signum());
    let len = (r1 - r0).abs().max((c1 - c0).abs());
    (1..=len).map(move |k| ((r0 + dr * k) * n as i64 + c0 + dc * k) as usize)
}

/// A random board for tests: side `n`, `colours` colours, each cell a wall with probability
/// `walls`, else a queen of a random colour with probability `queens` (any queen counts).
#[cfg(test)]
pub(crate) fn random_board(
    rng: &mut impl rand::Rng,
    n: usize,
    colours: usize,
    walls: f64,
    queens: f64,
) -> Board {
    let cells = (0..n * n)
        .map(|_| {
            if rng.random_bool(walls) {
                WALL
            } else if rng.random_bool(queens) {
                rng.random_range(1..=colours) as i8
            } else {
                EMPTY
            }
        })
        .collect();
    Board { n, colours, cells }
}
