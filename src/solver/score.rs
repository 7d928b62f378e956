//! The solver's own referee: replays moves under the contest rules and scores the result.
//!
//! Score = errors × N + Σ √(move length), where errors counts same-colour pairs sharing a
//! row, column or diagonal on the final board, whatever lies between them.

use super::board::{line_length, Board, Move, EMPTY};

/// Result of a legal move sequence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Same-colour attacking pairs on the final board.
    pub errors: usize,
    /// Σ √(length) over the moves.
    pub move_cost: f64,
    /// `errors * n + move_cost`.
    pub score: f64,
}

/// Per-colour line counters: counting attacking pairs incrementally in O(1) per change.
#[derive(Clone, Debug)]
pub struct LineCounts {
    n: usize,
    /// `count[(colour * 4 + kind) * 2n + line]`, kinds: row, column, diagonal, anti-diagonal.
    count: Vec<u32>,
    /// The four line ids of every cell for colour 0 (a colour adds `colour * 8n`): a lookup
    /// instead of a division per change (the divisions were a quarter of the annealer's
    /// target changes on seed 44).
    cell_lines: Vec<[u32; 4]>,
    /// Current number of attacking pairs.
    pub errors: usize,
}

impl LineCounts {
    /// Empty counters for `colours` colours on an `n × n` board.
    pub fn new(n: usize, colours: usize) -> LineCounts {
        LineCounts {
            n,
            count: vec![0; colours * 4 * 2 * n],
            cell_lines: (0..n * n)
                .map(|cell| Self::line_ids(n, cell, 0).map(|l| l as u32))
                .collect(),
            errors: 0,
        }
    }

    /// Counters of the queens of an input board.
    pub fn of_board(board: &Board) -> LineCounts {
        let mut counts = LineCounts::new(board.n, board.colours);
        for (cell, &v) in board.cells.iter().enumerate() {
            if v > 0 {
                counts.add(cell, v as usize - 1);
            }
        }
        counts
    }

    /// Number of line ids of `colours` colours on an `n × n` board (see [`LineCounts::line_ids`]).
    pub fn line_total(n: usize, colours: usize) -> usize {
        colours * 8 * n
    }

    /// Ids of the row, column, diagonal and anti-diagonal of `cell` for queens of `colour`,
    /// each below [`LineCounts::line_total`]: two queens of one colour attack each other
    /// exactly when they share an id.
    #[inline]
    pub fn line_ids(n: usize, cell: usize, colour: usize) -> [usize; 4] {
        let (r, c) = (cell / n, cell % n);
        let base = colour * 8 * n;
        [
            base + r,
            base + 2 * n + c,
            base + 4 * n + (r + n - 1 - c),
            base + 6 * n + (r + c),
        ]
    }

    #[inline]
    fn lines(&self, cell: usize, colour: usize) -> [usize; 4] {
        let base = colour * 8 * self.n;
        self.cell_lines[cell].map(|l| base + l as usize)
    }

    /// Number of queens of `colour` that a queen of that colour on `cell` would attack
    /// (a queen standing on `cell` itself counts once per line).
    #[inline]
    pub fn attacks(&self, cell: usize, colour: usize) -> usize {
        self.lines(cell, colour)
            .iter()
            .map(|&line| self.count[line] as usize)
            .sum()
    }

    /// Adds a queen of `colour` on `cell`; returns the number of pairs it creates.
    #[inline]
    pub fn add(&mut self, cell: usize, colour: usize) -> usize {
        let mut gained = 0;
        for line in self.lines(cell, colour) {
            gained += self.count[line] as usize;
            self.count[line] += 1;
        }
        self.errors += gained;
        gained
    }

    /// Removes a queen of `colour` from `cell`; returns the number of pairs it had.
    #[inline]
    pub fn remove(&mut self, cell: usize, colour: usize) -> usize {
        let mut lost = 0;
        for line in self.lines(cell, colour) {
            self.count[line] -= 1;
            lost += self.count[line] as usize;
        }
        self.errors -= lost;
        lost
    }
}

/// Number of same-colour attacking pairs on a board given by its cell values.
///
/// # Examples
/// ```
/// use queenattack::solver::score::errors;
/// // two colour-1 queens on a diagonal of a 2×2 board
/// assert_eq!(errors(2, 1, &[1, 0, 0, 1]), 1);
/// assert_eq!(errors(2, 2, &[1, 0, 0, 2]), 0);
/// ```
pub fn errors(n: usize, colours: usize, cells: &[i8]) -> usize {
    let mut counts = LineCounts::new(n, colours);
    for (cell, &v) in cells.iter().enumerate() {
        if v > 0 {
            counts.add(cell, v as usize - 1);
        }
    }
    counts.errors
}

/// Checks that `mv` is a legal queen move on `cells`: from a queen to an empty cell on a line,
/// every cell strictly between empty.
pub fn check_move(n: usize, cells: &[i8], mv: Move) -> Result<usize, String> {
    let nn = n * n;
    if mv.from >= nn || mv.to >= nn {
        return Err(format!("move {mv:?} leaves the board"));
    }
    if cells[mv.from] <= 0 {
        return Err(format!("move {mv:?} does not start on a queen"));
    }
    if cells[mv.to] != EMPTY {
        return Err(format!("move {mv:?} does not end on an empty cell"));
    }
    let len = line_length(n, mv.from, mv.to)
        .filter(|&l| l > 0)
        .ok_or_else(|| format!("move {mv:?} is not a queen move"))?;
    let (r0, c0) = ((mv.from / n) as i64, (mv.from % n) as i64);
    let (r1, c1) = ((mv.to / n) as i64, (mv.to % n) as i64);
    let (dr, dc) = ((r1 - r0).signum(), (c1 - c0).signum());
    for step in 1..len as i64 {
        let cell = ((r0 + dr * step) * n as i64 + c0 + dc * step) as usize;
        if cells[cell] != EMPTY {
            return Err(format!("move {mv:?} jumps over cell {cell}"));
        }
    }
    Ok(len)
}

/// Replays `moves` on `board` and scores the final board.
///
/// # Errors
/// The first illegal move, with its index.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::{Board, Move}, score::replay};
/// let board = Board::parse("3 1  1 1 0  0 0 0  0 0 0").unwrap();
/// let outcome = replay(&board, &[Move { from: 1, to: 7 }]).unwrap();
/// assert_eq!(outcome.errors, 0);
/// assert_eq!(outcome.score, 2f64.sqrt());
/// assert!(replay(&board, &[Move { from: 0, to: 1 }]).is_err());
/// ```
pub fn replay(board: &Board, moves: &[Move]) -> Result<Outcome, String> {
    let mut cells = board.cells.clone();
    let mut move_cost = 0.0;
    for (i, &mv) in moves.iter().enumerate() {
        let len = check_move(board.n, &cells, mv).map_err(|e| format!("move {i}: {e}"))?;
        move_cost += (len as f64).sqrt();
        cells[mv.to] = cells[mv.from];
        cells[mv.from] = EMPTY;
    }
    let errors = errors(board.n, board.colours, &cells);
    Ok(Outcome {
        errors,
        move_cost,
        score: (errors * board.n) as f64 + move_cost,
    })
}

/// Length of the prefix of a legal move sequence with the lowest score, and that score.
///
/// Stopping early is always legal, so the best prefix is never worse than the whole.
///
/// # Panics
/// If a move does not start on a queen (the sequence must be legal).
pub fn best_prefix(board: &Board, moves: &[Move]) -> (usize, f64) {
    let n = board.n;
    let mut colour_of: Vec<i8> = board.cells.clone();
    let mut counts = LineCounts::of_board(board);
    let mut cost = 0.0;
    let mut best = ((counts.errors * n) as f64, 0);
    for (i, mv) in moves.iter().enumerate() {
        let colour = colour_of[mv.from];
        assert!(colour > 0, "move {i} does not start on a queen");
        let k = colour as usize - 1;
        counts.remove(mv.from, k);
        counts.add(mv.to, k);
        colour_of[mv.to] = colour;
        colour_of[mv.from] = EMPTY;
        cost += (line_length(n, mv.from, mv.to).unwrap_or(0) as f64).sqrt();
        let score = (counts.errors * n) as f64 + cost;
        if score < best.0 - 1e-9 {
            best = (score, i + 1);
        }
    }
    (best.1, best.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_count_pairs_through_pieces() {
        // 3×3, colour 1 on the whole first row with a wall in the middle: still 3 pairs.
        let cells = [1, -1, 1, 0, 0, 0, 0, 0, 1];
        // row pair (0,2), column pair (2,8), diagonal pair (0,8)
        assert_eq!(errors(3, 1, &cells), 3);
    }

    #[test]
    fn illegal_moves_are_caught() {
        let board = Board::parse("3 1  1 0 1  0 -1 0  0 0 0").unwrap();
        assert!(replay(&board, &[Move { from: 0, to: 8 }]).is_err()); // over the wall
        assert!(replay(&board, &[Move { from: 0, to: 5 }]).is_err()); // knight-like
        assert!(replay(&board, &[Move { from: 3, to: 6 }]).is_err()); // not a queen
        assert!(replay(&board, &[Move { from: 0, to: 2 }]).is_err()); // onto a queen
        let ok = replay(&board, &[Move { from: 0, to: 3 }]).unwrap();
        assert_eq!(ok.errors, 0);
        assert_eq!(ok.score, 1.0);
        let far = replay(&board, &[Move { from: 0, to: 6 }]).unwrap();
        assert_eq!(far.errors, 1); // (2,0) and (0,2) share an anti-diagonal
        assert!((far.score - 3.0 - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn best_prefix_can_stop_early() {
        let board = Board::parse("3 1  1 0 0  0 0 0  0 0 1").unwrap();
        // the first move already removes the diagonal error; the second recreates it
        let moves = [Move { from: 0, to: 1 }, Move { from: 1, to: 0 }];
        assert_eq!(best_prefix(&board, &moves), (1, 1.0));
    }
}
