//! A lower bound on the score of any answer, so the solver can stop as soon as it holds an
//! answer that is provably optimal.
//!
//! Take pairs of same-colour queens that attack each other on the initial board, no queen in
//! two pairs (a matching of the conflict graph). On the final board each pair either still
//! attacks (an error: `N` points) or one of its two queens has moved (at least one move of
//! length ≥ 1: at least 1 point). The pairs share no queen and no error, so every answer
//! scores at least `min(N, 1) = 1` per pair. With no pair at all the bound is 0, which the
//! empty answer reaches. When no queen can move at all (every neighbour cell of every queen is
//! taken), the empty answer is the only one and its score is the bound.

use crate::solver::board::{Board, DIRS, EMPTY};
use crate::solver::score::{errors, LineCounts};

/// A lower bound on the score of every legal answer for `board`: the size of a maximal
/// matching of the initial conflict graph (queens of one colour on one row, column or
/// diagonal, whatever lies between them).
///
/// # Complexity
/// `O(N² + Q)` for `Q` queens.
pub fn lower_bound(board: &Board) -> f64 {
    let n = board.n;
    if !any_move(board) {
        return (errors(n, board.colours, &board.cells) * n) as f64;
    }
    // matched[cell]: the queen on `cell` is already in a pair
    let mut matched = vec![false; n * n];
    let mut pairs = 0usize;
    // the queens of every (colour, line), in cell order
    let mut lines: Vec<Vec<usize>> = vec![Vec::new(); LineCounts::line_total(n, board.colours)];
    for (cell, &v) in board.cells.iter().enumerate() {
        if v > 0 {
            for line in LineCounts::line_ids(n, cell, v as usize - 1) {
                lines[line].push(cell);
            }
        }
    }
    for line in &lines {
        // pair up the queens of this line that are still free: every two attack each other
        let mut waiting: Option<usize> = None;
        for &cell in line {
            if matched[cell] {
                continue;
            }
            match waiting.take() {
                Some(other) => {
                    matched[other] = true;
                    matched[cell] = true;
                    pairs += 1;
                }
                None => waiting = Some(cell),
            }
        }
    }
    // one move costs at least √1 = 1 and one error N ≥ 1
    pairs as f64 * (n as f64).min(1.0)
}

/// Whether some queen has an empty cell next to it (then it has a legal move).
fn any_move(board: &Board) -> bool {
    let n = board.n as i64;
    board.cells.iter().enumerate().any(|(cell, &v)| {
        let (r, c) = (cell as i64 / n, cell as i64 % n);
        v > 0
            && DIRS.iter().any(|&(dr, dc)| {
                let (r, c) = (r + dr as i64, c + dc as i64);
                (0..n).contains(&r)
                    && (0..n).contains(&c)
                    && board.cells[(r * n + c) as usize] == EMPTY
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::Move;
    use crate::solver::score::{check_move, replay};

    /// The best score of every answer of at most `depth` moves, by brute force.
    fn best_within(board: &Board, cells: &mut Vec<i8>, moves: &mut Vec<Move>, depth: usize) -> f64 {
        let mut best = replay(board, moves).expect("legal by construction").score;
        if depth == 0 {
            return best;
        }
        let nn = board.n * board.n;
        for from in 0..nn {
            for to in 0..nn {
                let mv = Move { from, to };
                if check_move(board.n, cells, mv).is_err() {
                    continue;
                }
                cells[to] = cells[from];
                cells[from] = 0;
                moves.push(mv);
                best = best.min(best_within(board, cells, moves, depth - 1));
                moves.pop();
                cells[from] = cells[to];
                cells[to] = 0;
            }
        }
        best
    }

    #[test]
    fn never_above_the_best_answer_of_up_to_two_moves() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..60 {
            let n = rng.random_range(1..=4);
            let colours = rng.random_range(1..=2);
            let board = crate::solver::board::random_board(&mut rng, n, colours, 0.15, 0.5);
            let mut cells = board.cells.clone();
            let bound = lower_bound(&board);
            let best = best_within(&board, &mut cells, &mut Vec::new(), 2);
            assert!(bound <= best + 1e-9, "{board:?}: bound {bound} > {best}");
        }
    }

    #[test]
    fn a_board_where_nothing_can_move_is_bounded_by_its_start_score() {
        // 2 × 2, two colours on a full board: 2 attacking pairs (one per colour) × N = 2
        let board = Board::parse("2 2  1 2  2 1").unwrap();
        assert_eq!(lower_bound(&board), 4.0);
        // one empty cell: a queen can move, so only the matching counts
        let board = Board::parse("2 2  1 2  2 0").unwrap();
        assert_eq!(lower_bound(&board), 1.0);
    }

    #[test]
    fn counts_disjoint_pairs() {
        // colour 1 on a full row of 3 and colour 2 on a diagonal pair: one pair each
        let board = Board::parse("3 2  1 1 1  0 2 0  0 0 2").unwrap();
        assert_eq!(lower_bound(&board), 2.0);
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn lower_bound_example() {
        use crate::solver::{board::Board, stage::first::bound::lower_bound};
        // a valid 4-queens board: nothing to pay
        assert_eq!(
            lower_bound(&Board::parse("4 1  0 1 0 0  0 0 0 1  1 0 0 0  0 0 1 0").unwrap()),
            0.0
        );
        // four queens on one row: two disjoint attacking pairs, each costs at least one move
        assert_eq!(
            lower_bound(&Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap()),
            2.0
        );
    }
}
