//! The post-optimiser ([`improve`]) on several routed boards, not only the winner.
//!
//! The board with the best routed score is often not the best after [`improve`]: on seed 44
//! (N = 24, C = 5) the ten best routed boards (220.1–228.0) ended at 199.2–209.5 when each was
//! improved to convergence, the best routed one at 207.6; seed 86: 126.8 against 131.7; seed
//! 65: 144.8 against 151.7. [`best_of`] races the candidates (a short run each, then the
//! better half go on, until one is left), then spends the rest of the time on the winner.

use super::improve;
use super::lns::{search, Rounds};
use crate::solver::board::{Board, Move};
use crate::solver::params::Params;
use crate::solver::score::replay;
use crate::solver::stage::reorder::polish;
use rand::Rng;
use std::time::{Duration, Instant};

/// One candidate of the race: its move list as improved so far and whether its descent has
/// converged (ended before its slice did).
struct Entrant {
    score: f64,
    moves: Vec<Move>,
    converged: bool,
}

/// The field of each round of the race over `k` boards: halved (rounded up) until one is left,
/// that one excluded (`6 → [6, 3, 2]`).
fn round_sizes(k: usize) -> Vec<usize> {
    let mut sizes = vec![k.max(1)];
    while let Some(&last) = sizes.last().filter(|&&s| s > 2) {
        sizes.push(last.div_ceil(2));
    }
    sizes
}

/// Polishes and improves each of the first `multi_start_boards` of `candidates` (legal move
/// lists, most promising first) for a share (`multi_start_first_round`) of the time until
/// `deadline` (the others while the first round lasts), then improves the best result further
/// until `deadline` ([`search`]). Returns the best legal move list found (an empty list when
/// `candidates` is empty; never worse than the best candidate) and the search's rounds.
///
/// The share is a race: every board gets a slice, then the better half go on with one more
/// slice each, and so on until one is left. A descent cut short ranks boards poorly (on seed
/// 1053 at 1 s, a board ranked first after its slice ended at 105.4, the others at 101-102).
pub fn best_of(
    board: &Board,
    candidates: Vec<Vec<Move>>,
    deadline: Instant,
    params: &Params,
    rng: &mut impl Rng,
) -> (Vec<Move>, Rounds) {
    let k = candidates.len().min(params.multi_start_boards);
    let total = deadline.saturating_duration_since(Instant::now());
    let race = total.mul_f64(params.multi_start_first_round);
    let sizes = round_sizes(k);
    let unit = race / sizes.iter().sum::<usize>().max(1) as u32;
    let mut field = first_round(board, candidates, k, unit * k as u32, params);
    for &size in &sizes[1..] {
        field.sort_by(|a, b| a.score.total_cmp(&b.score));
        field.truncate(size);
        let open: Vec<&mut Entrant> = field.iter_mut().filter(|e| !e.converged).collect();
        if open.is_empty() {
            break;
        }
        let round_end = Instant::now() + unit * size as u32;
        let count = open.len();
        for (i, entrant) in open.into_iter().enumerate() {
            let slice_end = slice_end(round_end, count - i);
            let moves = std::mem::take(&mut entrant.moves);
            *entrant = run(board, moves, slice_end, params);
        }
    }
    let Some(best) = field.into_iter().min_by(|a, b| a.score.total_cmp(&b.score)) else {
        return (Vec::new(), Rounds::default());
    };
    search(board, best.moves, deadline, params, rng)
}

/// The end of a slice of the time left until `round_end`, shared by `left` runs.
fn slice_end(round_end: Instant, left: usize) -> Instant {
    let now = Instant::now();
    now + round_end.saturating_duration_since(now) / left.max(1) as u32
}

/// Improves `moves` until `end`.
fn run(board: &Board, moves: Vec<Move>, end: Instant, params: &Params) -> Entrant {
    let moves = improve(board, moves, Some(end), params);
    Entrant {
        score: replay(board, &moves).map_or(f64::INFINITY, |o| o.score),
        moves,
        converged: Instant::now() < end,
    }
}

/// The race's first round: the first `k` legal candidates share `span` (a candidate that
/// converges early leaves its time to the next); beyond them, candidates run only while the
/// round has time left (on small boards every run converges in a few ms).
fn first_round(
    board: &Board,
    candidates: Vec<Vec<Move>>,
    k: usize,
    span: Duration,
    params: &Params,
) -> Vec<Entrant> {
    let round_end = Instant::now() + span;
    let mut field = Vec::new();
    for (i, moves) in candidates.into_iter().enumerate() {
        if replay(board, &moves).is_err() {
            continue;
        }
        if i >= k && Instant::now() >= round_end {
            break;
        }
        let slice_end = slice_end(round_end, k.saturating_sub(i));
        let moves = polish(board, moves, Some(slice_end));
        field.push(run(board, moves, slice_end, params));
    }
    field
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
    fn the_race_halves_its_field_until_two_are_left() {
        assert_eq!(round_sizes(6), vec![6, 3, 2]);
        assert_eq!(round_sizes(12), vec![12, 6, 3, 2]);
        assert_eq!(round_sizes(3), vec![3, 2]);
        assert_eq!(round_sizes(2), vec![2]);
        assert_eq!(round_sizes(1), vec![1]);
        assert_eq!(round_sizes(0), vec![1]);
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
