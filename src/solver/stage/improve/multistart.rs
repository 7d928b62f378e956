//! The post-optimiser ([`improve`]) on several routed boards, not only the winner.
//!
//! The board with the best routed score is often not the best after [`improve`]: on seed 44
//! (N = 24, C = 5) the ten best routed boards (220.1–228.0) ended at 199.2–209.5 when each was
//! improved to convergence, the best routed one at 207.6; seed 86: 126.8 against 131.7; seed
//! 65: 144.8 against 151.7. [`best_of`] gives each candidate a short run, then spends the rest
//! of the time on the best of them.

use super::improve;
use super::lns::{search, Rounds};
use crate::solver::board::{Board, Move};
use crate::solver::params::Params;
use crate::solver::score::replay;
use crate::solver::stage::reorder::polish;
use rand::Rng;
use std::time::Instant;

/// Polishes and improves each of the first `multi_start_boards` of `candidates` (legal move
/// lists, most promising first) for a share (`multi_start_first_round`) of the time until
/// `deadline` (the others while that share lasts), then improves the best result further
/// until `deadline` ([`search`]). Returns the best legal move list found (an empty list when
/// `candidates` is empty; never worse than the best candidate) and the search's rounds.
pub fn best_of(
    board: &Board,
    candidates: Vec<Vec<Move>>,
    deadline: Instant,
    params: &Params,
    rng: &mut impl Rng,
) -> (Vec<Move>, Rounds) {
    let first = params.multi_start_boards;
    let score = |moves: &[Move]| replay(board, moves).map_or(f64::INFINITY, |o| o.score);
    let total = deadline.saturating_duration_since(Instant::now());
    let round_end = Instant::now() + total.mul_f64(params.multi_start_first_round);
    let k = candidates.len().min(first);
    let mut best: Option<(f64, Vec<Move>)> = None;
    for (i, moves) in candidates.into_iter().enumerate() {
        if score(&moves).is_infinite() {
            continue;
        }
        // time left in the round, shared by the candidates still to run (a candidate that
        // converges early leaves its time to the next)
        // beyond the first `k`, candidates run only while the round has time left (on small
        // boards every run converges in a few ms)
        let left = round_end.saturating_duration_since(Instant::now());
        if i >= k && left.is_zero() {
            break;
        }
        let slice_end = Instant::now() + left / k.saturating_sub(i).max(1) as u32;
        let moves = polish(board, moves, Some(slice_end));
        let moves = improve(board, moves, Some(slice_end), params);
        let s = score(&moves);
        if best.as_ref().is_none_or(|b| s < b.0) {
            best = Some((s, moves));
        }
    }
    let Some((_, moves)) = best else {
        return (Vec::new(), Rounds::default());
    };
    search(board, moves, deadline, params, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::WALL;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    /// A random board and a random legal move list on it.
    fn random_moves(rng: &mut Xoshiro256PlusPlus, board: &Board) -> Vec<Move> {
        let mut cells = board.cells.clone();
        let n = board.n;
        let mut moves = Vec::new();
        for _ in 0..rng.random_range(0..30) {
            let mv = Move {
                from: rng.random_range(0..n * n),
                to: rng.random_range(0..n * n),
            };
            if crate::solver::score::check_move(n, &cells, mv).is_ok() {
                moves.push(mv);
                cells[mv.to] = cells[mv.from];
                cells[mv.from] = 0;
            }
        }
        moves
    }

    #[test]
    fn never_worse_than_the_best_candidate_improved_alone() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let params = Params {
            multi_start_boards: 2,
            lns_queens: 0, // no rounds: they would run until the far deadline
            ..Params::default()
        };
        for _ in 0..200 {
            let n = rng.random_range(3..=6);
            let colours = rng.random_range(1..=2);
            let cells = (0..n * n)
                .map(|_| match rng.random_range(0..10) {
                    0 => WALL,
                    1..=4 => rng.random_range(1..=colours) as i8,
                    _ => 0,
                })
                .collect();
            let board = Board { n, colours, cells };
            let candidates: Vec<Vec<Move>> =
                (0..3).map(|_| random_moves(&mut rng, &board)).collect();
            // without a deadline every run converges: the result is at most each candidate
            // polished and improved alone
            let alone = candidates
                .iter()
                .map(|m| {
                    let m = improve(&board, polish(&board, m.clone(), None), None, &params);
                    replay(&board, &m).unwrap().score
                })
                .fold(f64::INFINITY, f64::min);
            let far = Instant::now() + Duration::from_secs(3600);
            let (got, _) = best_of(&board, candidates, far, &params, &mut rng);
            let o = replay(&board, &got).expect("legal");
            assert!(o.score <= alone + 1e-9, "{} > {alone}", o.score);
        }
    }

    #[test]
    fn no_candidates_no_moves() {
        let board = Board::parse("2 1  1 0  0 0").unwrap();
        let params = Params::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let (moves, rounds) = best_of(&board, Vec::new(), Instant::now(), &params, &mut rng);
        assert!(moves.is_empty());
        assert_eq!(rounds.tried, 0);
    }
}
