//! The first answer and the lower bound: a legal answer within a few milliseconds, and the
//! early stop when an answer cannot be beaten.
//!
//! [`first_answer`] runs the greedy descent ([`descent`]) for a small share of the budget;
//! when the pipeline does not fit in the time (big boards), the descent goes on from it until
//! the end ([`descent_only`]). [`bound::lower_bound`] says when an answer is optimal.

pub(crate) mod bound;
pub(crate) mod descent;

use crate::solver::answer::{Solution, Stop};
use crate::solver::board::Board;
use crate::solver::budget::Budget;
use crate::solver::params::Params;
use std::time::Instant;

/// The first answer: [`descent::descend`] until [`Budget::first_end`] (longer on big boards,
/// `big_board`), its first pass of single moves in any case (until the budget's end); the
/// empty answer if that were ever illegal.
pub(crate) fn first_answer(board: &Board, budget: &Budget, params: &Params) -> Solution {
    let big = board.queens().len() * board.n * board.n > params.big_board;
    // Before: on a core shared with eight busy threads, seed 2 at 0.6 s got its 3 ms share
    // after it had passed and answered no move at all (3 runs of 3, issue 49).
    let moves = descent::descend_after_a_pass(
        board,
        budget.end(),
        budget.first_end(big),
        params.chain_cells,
    );
    Solution::of(board, moves, Stop::Budget)
        .or_else(|| Solution::of(board, Vec::new(), Stop::Budget))
        .expect("no moves are legal")
}

/// The descent from where `first` left the board, until `end`; `first` if that is not better.
pub(crate) fn descent_only(
    board: &Board,
    first: Solution,
    end: Instant,
    params: &Params,
) -> Solution {
    let moves = descent::descend_after(board, first.moves.clone(), end, params.chain_cells);
    match Solution::of(board, moves, Stop::Budget) {
        Some(s) if s.outcome.score < first.outcome.score => s,
        _ => first,
    }
}
