//! The problem every stage reads: the board, its walls, the queens' starts and colours, and
//! the distance tables once stage 1 has built them.

use super::board::{Board, Queen};

/// The data of one QueenAttack instance, shared (read-only) by every stage.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// The initial board.
    pub(crate) board: Board,
    /// Side of the board.
    pub(crate) n: usize,
    /// Number of colours.
    pub(crate) colours: usize,
    /// The queens in row-major order of their start cells.
    pub(crate) queens: Vec<Queen>,
    /// Start cell of every queen.
    pub(crate) starts: Vec<usize>,
    /// Colour of every queen (`0..colours`).
    pub(crate) colour: Vec<usize>,
    /// `true` for every wall cell: the solver's one encoding of walls (the input's is
    /// [`WALL`](super::board::WALL) in [`Board::cells`]).
    pub(crate) walls: Vec<bool>,
    /// Distance tables (`queen * N² + cell`): walls-only first, then the one that also knows
    /// the pieces of the initial board if it fit. Empty until stage 1 built them.
    pub(crate) tables: Vec<Vec<f32>>,
}

impl Problem {
    /// The problem of `board`, without distance tables.
    pub(crate) fn new(board: &Board) -> Problem {
        let queens = board.queens();
        Problem {
            board: board.clone(),
            n: board.n,
            colours: board.colours,
            starts: queens.iter().map(|q| q.start).collect(),
            colour: queens.iter().map(|q| q.colour).collect(),
            queens,
            walls: board.walls(),
            tables: Vec::new(),
        }
    }

    /// Number of cells.
    pub(crate) fn cells(&self) -> usize {
        self.n * self.n
    }

    /// The walls-only distance table (`queen * N² + cell`).
    ///
    /// # Panics
    /// Before stage 1 built the tables.
    pub(crate) fn walls_only(&self) -> &[f32] {
        &self.tables[0]
    }

    /// The problem of `board` with its walls-only table (for tests of the later stages).
    #[cfg(test)]
    pub(crate) fn with_walls_only(board: &Board) -> Problem {
        let mut problem = Problem::new(board);
        let mut paths = super::paths::Paths::new(board.n, problem.walls.clone());
        let table = problem
            .starts
            .iter()
            .flat_map(|&s| paths.row(s).to_vec())
            .collect();
        problem.tables = vec![table];
        problem
    }
}

/// The queens, walls and walls-only distance table of `board` (for tests of the stages that
/// take them as slices).
#[cfg(test)]
pub(crate) fn walls_only_problem(board: &Board) -> (Vec<Queen>, Vec<bool>, Vec<f32>) {
    let problem = Problem::with_walls_only(board);
    let dist = problem.walls_only().to_vec();
    (problem.queens, problem.walls, dist)
}
