//! The solver and the tester accept the same boards (issue 13: one set of limits): the same
//! N and C ranges, and the rule of exactly N queens of every colour.

use queenattack::solver::board::{self, Board};
use tools::input::{self, Input};

#[test]
fn the_ranges_are_the_same() {
    assert_eq!(board::MAX_N, input::MAX_N);
    assert_eq!(board::MAX_COLOURS, input::MAX_C);
}

/// A board text with `n`, `c` and the cells given row by row.
fn text(n: usize, c: usize, cells: &[i32]) -> String {
    let mut s = format!("{n}\n{c}\n");
    for v in cells {
        s.push_str(&format!("{v}\n"));
    }
    s
}

#[test]
fn both_take_and_refuse_the_same_boards() {
    let cases = [
        (text(1, 1, &[1]), true),
        (text(2, 1, &[1, 0, 0, 1]), true),
        (text(2, 1, &[1, 0, 0, 0]), false),  // one queen short
        (text(2, 1, &[1, 1, 0, 1]), false),  // one queen extra
        (text(2, 2, &[1, 1, 0, 0]), false),  // colour 2 missing
        (text(2, 1, &[0, 0, -1, 0]), false), // no queens
        (text(2, 2, &[1, 1, 2, 2]), true),
        (text(3, 1, &[1, 1, 1, 0, 0, 0, 0, 0, -1]), true),
        (text(129, 1, &[]), false),           // N above the limit
        (text(2, 101, &[1, 1, 0, 0]), false), // C above the limit
    ];
    for (case, valid) in &cases {
        let solver = Board::parse_official(case);
        let tester = Input::parse(case);
        assert_eq!(
            solver.is_ok(),
            *valid,
            "solver on {case:?}: {:?}",
            solver.err()
        );
        assert_eq!(
            tester.is_ok(),
            *valid,
            "tester on {case:?}: {:?}",
            tester.err()
        );
    }
    // The largest board both accept: N = 128, C = 100, 100 rows of one colour each.
    let n = board::MAX_N;
    let mut cells = vec![0; n * n];
    for colour in 1..=board::MAX_COLOURS {
        cells[(colour - 1) * n..colour * n].fill(colour as i32);
    }
    let big = text(n, board::MAX_COLOURS, &cells);
    assert!(Board::parse_official(&big).is_ok());
    assert!(Input::parse(&big).is_ok());
}
