//! The solver is anytime: it stops at once on a board whose answer is provably optimal, and
//! on boards too big for its pipeline within the limit it still answers legally and better
//! than doing nothing. Assertions are on the solver's own stop reason and on the answer, not
//! on timing (bounds on wall time are generous: the machine may be loaded).

use queenattack::solver::board::Board;
use queenattack::solver::{solve, Options, Stop};
use std::time::Instant;
use tools::input::Input;
use tools::judge::judge;

use crate::common;

fn solve_text(text: &str, time_limit: f64) -> queenattack::solver::Solution {
    let board = Board::parse_official(text).expect("a valid board");
    let options = Options {
        time_limit,
        ..Options::default()
    };
    solve(&board, options, Instant::now())
}

#[test]
fn the_one_by_one_board_stops_as_optimal() {
    let solution = solve_text("1\n1\n1\n", 10.0);
    assert_eq!(solution.stop, Stop::Optimal);
    assert!(solution.moves.is_empty());
    assert_eq!(solution.outcome.score, 0.0);
}

#[test]
fn a_valid_board_stops_as_optimal_with_no_moves() {
    // one colour on an 8-queens solution: nothing to do
    let cols = [0, 4, 7, 5, 2, 6, 1, 3];
    let mut text = String::from("8 1\n");
    for c in cols {
        for col in 0..8 {
            text.push_str(if col == c { "1 " } else { "0 " });
        }
        text.push('\n');
    }
    let solution = solve_text(&text, 10.0);
    assert_eq!(solution.stop, Stop::Optimal);
    assert!(solution.moves.is_empty());
}

#[test]
fn one_step_from_valid_stops_as_optimal() {
    // 4-queens solution with the queen of row 2 pushed down into row 3: one step back (cost 1)
    // equals the lower bound of one attacking pair
    let solution = solve_text("4 1  0 1 0 0  0 0 0 1  0 0 0 0  1 0 1 0", 10.0);
    assert_eq!(solution.stop, Stop::Optimal);
    assert_eq!(solution.outcome.errors, 0);
    assert_eq!(solution.outcome.score, 1.0);
}

#[test]
fn a_board_where_nothing_can_move_stops_as_optimal() {
    // 3 × 3, three colours, every cell taken: the empty answer is the only answer
    let solution = solve_text("3 3  1 2 3  2 3 1  3 1 2", 10.0);
    assert_eq!(solution.stop, Stop::Optimal);
    assert!(solution.moves.is_empty());
}

#[test]
fn a_board_above_its_bound_uses_the_budget() {
    // all four queens on one row: the bound (2 pairs) is below any answer's score
    let solution = solve_text("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0", 0.2);
    assert_eq!(solution.stop, Stop::Budget);
    assert_eq!(solution.outcome.errors, 0);
}

#[test]
fn the_largest_board_gets_a_legal_non_empty_answer_in_a_short_limit() {
    // N = 128, C = 10: the walls-only paths alone take longer than this limit
    let text = common::random_board(128, 10, 128);
    let input = Input::parse(&text).expect("valid");
    let started = Instant::now();
    let out = common::run_with_input(
        env!("CARGO_BIN_EXE_queenattack"),
        &["--time-limit", "2"],
        text.as_bytes(),
    );
    let elapsed = started.elapsed().as_secs_f64();
    assert!(out.status.success());
    let output = String::from_utf8_lossy(&out.stdout);
    let verdict = judge(&input, &output);
    assert_eq!(verdict.error(), None);
    assert!(!output.starts_with("0\n"), "the empty answer");
    assert!(verdict.score < judge(&input, "0\n").score);
    // generous: the machine running the tests may be loaded
    assert!(elapsed < 10.0, "took {elapsed} s");
}
