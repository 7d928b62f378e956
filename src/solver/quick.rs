//! The first answer: a greedy descent over single legal moves, ready within a few
//! milliseconds on contest boards and a fraction of a second at `N = 128`.
//!
//! Queens are visited in passes; a queen that attacks others plays its best move (along one of
//! its eight rays, up to the first piece or wall) when that move lowers the score: the errors
//! it removes × `N` outweigh √(length). Every move is legal when it is played and every move
//! lowers the score, so every prefix of the answer is a legal answer no worse than doing
//! nothing. The pipeline replaces this answer as soon as it has a better one; on boards too
//! big for the pipeline's time (paths of `N = 128` take seconds) it is the answer.

use super::board::{Board, Move, DIRS, EMPTY};
use super::paths::sqrt_table;
use super::score::LineCounts;
use std::time::Instant;

/// A move must gain more than this (score units) to be played.
const EPS: f64 = 1e-9;
/// Queens visited between two looks at the clock.
const CLOCK_EVERY: usize = 64;

/// A cheap legal answer for `board`: greedy moves until none lowers the score or `deadline`
/// passes (checked every [`CLOCK_EVERY`] queens).
///
/// # Complexity
/// One pass costs `O(Q · N)` for `Q` queens (each looks along its rays with `O(1)` scoring);
/// every move lowers the score by a positive amount, so the descent ends.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, quick::descend, score::replay};
/// // four queens on the top row of a 4×4 board: 6 errors × 4 points
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let moves = descend(&board, std::time::Instant::now() + std::time::Duration::from_secs(1));
/// let outcome = replay(&board, &moves).unwrap();
/// assert!(outcome.score < 24.0);
/// ```
pub fn descend(board: &Board, deadline: Instant) -> Vec<Move> {
    let n = board.n;
    let sqrt = sqrt_table(n);
    let mut cells = board.cells.clone();
    let mut counts = LineCounts::of_board(board);
    let queens = board.queens();
    let mut pos: Vec<usize> = queens.iter().map(|q| q.start).collect();
    let mut moves = Vec::new();
    loop {
        let mut moved = false;
        for (q, queen) in queens.iter().enumerate() {
            if q % CLOCK_EVERY == 0 && Instant::now() >= deadline {
                return moves;
            }
            let (from, colour) = (pos[q], queen.colour);
            // a queen counts itself once on each of its four lines
            let here = counts.attacks(from, colour) - 4;
            if here == 0 {
                continue;
            }
            let Some(to) = best_move(n, &cells, &counts, &sqrt, from, colour, here) else {
                continue;
            };
            counts.remove(from, colour);
            counts.add(to, colour);
            cells[to] = cells[from];
            cells[from] = EMPTY;
            pos[q] = to;
            moves.push(Move { from, to });
            moved = true;
        }
        if !moved {
            return moves;
        }
    }
}

/// The move of the queen of `colour` on `from` (attacking `here` others) that lowers the
/// score most, if one lowers it at all.
fn best_move(
    n: usize,
    cells: &[i8],
    counts: &LineCounts,
    sqrt: &[f32],
    from: usize,
    colour: usize,
    here: usize,
) -> Option<usize> {
    let (r0, c0) = ((from / n) as i64, (from % n) as i64);
    let mut best = (EPS, None);
    for &(dr, dc) in &DIRS {
        let (mut r, mut c) = (r0 + dr as i64, c0 + dc as i64);
        let mut len = 1;
        while r >= 0 && r < n as i64 && c >= 0 && c < n as i64 {
            let to = (r * n as i64 + c) as usize;
            if cells[to] != EMPTY {
                break;
            }
            // the line `to` shares with `from` still counts the moving queen
            let there = counts.attacks(to, colour) - 1;
            let gain = (here as f64 - there as f64) * n as f64 - sqrt[len] as f64;
            if gain > best.0 {
                best = (gain, Some(to));
            }
            r += dr as i64;
            c += dc as i64;
            len += 1;
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::score::replay;
    use rand::{Rng, SeedableRng};
    use std::time::Duration;

    #[test]
    fn every_move_is_legal_and_lowers_the_score() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..200 {
            let n = rng.random_range(1..=12);
            let colours = rng.random_range(1..=3);
            let mut cells: Vec<i8> = (0..n * n)
                .map(|_| if rng.random_bool(0.15) { -1 } else { 0 })
                .collect();
            for cell in cells.iter_mut() {
                if *cell == 0 && rng.random_bool(0.4) {
                    *cell = rng.random_range(1..=colours) as i8;
                }
            }
            let board = Board { n, colours, cells };
            let moves = descend(&board, Instant::now() + Duration::from_secs(60));
            let mut last = replay(&board, &[]).unwrap().score;
            for k in 1..=moves.len() {
                let score = replay(&board, &moves[..k])
                    .expect("every move is legal")
                    .score;
                assert!(score < last, "{board:?}: move {k} does not lower the score");
                last = score;
            }
            // a local optimum: no single move of an attacking queen lowers the score further
            let end = replay(&board, &moves).unwrap();
            if end.errors == 0 {
                continue;
            }
            let mut final_cells = board.cells.clone();
            for mv in &moves {
                final_cells[mv.to] = final_cells[mv.from];
                final_cells[mv.from] = EMPTY;
            }
            let after = Board {
                cells: final_cells,
                ..board.clone()
            };
            assert!(descend(&after, Instant::now() + Duration::from_secs(60)).is_empty());
        }
    }

    #[test]
    fn a_passed_deadline_gives_no_moves() {
        let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
        assert!(descend(&board, Instant::now()).is_empty());
    }
}
