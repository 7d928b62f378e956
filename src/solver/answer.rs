//! The answer the solver gives: legal moves, their score and why the search stopped.

use super::board::{Board, Move};
use super::score::{replay, Outcome};

/// The answer: legal moves and their score.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The moves to print.
    pub moves: Vec<Move>,
    /// Their score under the contest rules.
    pub outcome: Outcome,
    /// Why the solver stopped.
    pub stop: Stop,
}

/// Why [`solve`](crate::solver::solve) stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// An answer scored the solver's lower bound: nothing can beat it, so the solver stopped
    /// early.
    Optimal,
    /// The time budget ran out; the answer is the best found.
    Budget,
}

/// What a run did beside its answer, for the `[DATA]` lines of `queenattack`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Candidate target boards made: the exact search's boards plus the annealing runs (0 when
    /// the run stopped before the board phase).
    pub boards: usize,
    /// Runs made: 2 when a long time limit was split (the `first_run` parameter), else 1.
    pub runs: usize,
}

impl Solution {
    /// The legal answer `moves` stopped for `stop`, or `None` if the moves are not legal.
    pub(crate) fn of(board: &Board, moves: Vec<Move>, stop: Stop) -> Option<Solution> {
        let outcome = replay(board, &moves).ok()?;
        Some(Solution {
            moves,
            outcome,
            stop,
        })
    }
}
