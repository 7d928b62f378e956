//! Stage 6, reordering: local search over the routing priority order, the assignment and the
//! target board itself, re-simulating every change and keeping it when the real score does
//! not get worse; and the final polish of the moves.

use super::route::{Routed, Simulator};
use crate::solver::board::{Board, Move};
use crate::solver::checkpoint;
use rand::Rng;
use std::time::Instant;

/// Local search from `current` until `deadline`, keeping changes that do not worsen the
/// real score. Returns the best candidate and the number of simulations run.
pub(crate) fn reorder(
    sim: &mut Simulator<'_>,
    mut current: Routed,
    rng: &mut impl Rng,
    deadline: Instant,
) -> (Routed, usize) {
    let mut sims = 0;
    if sim.problem.starts.len() < 2 {
        return (current, sims);
    }
    while Instant::now() < deadline {
        let Some((targets, order)) = neighbour(sim, &current, rng) else {
            continue;
        };
        let candidate = sim.evaluate(targets, order, Some(deadline));
        if Instant::now() >= deadline {
            break; // the last simulation may have been cut short
        }
        sims += 1;
        if candidate.score <= current.score + 1e-9 {
            if candidate.score < current.score {
                checkpoint::keep(&sim.problem.board, &candidate.moves, candidate.score);
            }
            current = candidate;
        }
    }
    (current, sims)
}

/// A random neighbour of `current`: one queen moved in the order (most often), two
/// same-colour queens exchanging targets, or a column swap of two same-colour targets
/// (a new target board, assigned the cheaper way round).
fn neighbour(
    sim: &Simulator<'_>,
    current: &Routed,
    rng: &mut impl Rng,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let p = sim.problem;
    let nq = p.starts.len();
    let n = p.n;
    let mut order = current.order.clone();
    let mut targets = current.targets.clone();
    let params = sim.params;
    let held_up = params.held_up_moves;
    let order_moves = held_up + params.order_moves;
    let target_swaps = order_moves + params.target_swaps;
    let kind = rng.random_range(0..100);
    if kind < held_up && !current.delayed.is_empty() {
        // a held-up queen goes earlier
        let q = current.delayed[rng.random_range(0..current.delayed.len())];
        let from = order
            .iter()
            .position(|&x| x == q)
            .expect("q is in the order");
        let to = rng.random_range(0..=from);
        order.remove(from);
        order.insert(to, q);
        return Some((targets, order));
    }
    if kind < order_moves {
        let from = rng.random_range(0..nq);
        let to = rng.random_range(0..nq);
        let q = order.remove(from);
        order.insert(to, q);
        return Some((targets, order));
    }
    let a = rng.random_range(0..nq);
    let b = rng.random_range(0..nq);
    if a == b || p.colour[a] != p.colour[b] {
        return None;
    }
    if kind < target_swaps {
        targets.swap(a, b);
        return Some((targets, order));
    }
    let (ta, tb) = (targets[a], targets[b]);
    let (x, y) = ((ta / n) * n + tb % n, (tb / n) * n + ta % n);
    let occupied = |cell: usize| p.walls[cell] || targets.contains(&cell);
    if ta / n == tb / n || ta % n == tb % n || occupied(x) || occupied(y) {
        return None;
    }
    if sim.dist(a, x) + sim.dist(b, y) <= sim.dist(a, y) + sim.dist(b, x) {
        targets[a] = x;
        targets[b] = y;
    } else {
        targets[a] = y;
        targets[b] = x;
    }
    if !(sim.dist(a, targets[a]) + sim.dist(b, targets[b])).is_finite() {
        return None;
    }
    Some((targets, order))
}

/// Polishes a legal move sequence: a queen's move and its next move become one move (played
/// at the time of either) when its two ends share a line, and a queen's trip out and back is
/// dropped; each change is kept only if the whole sequence stays legal and scores lower.
pub(crate) fn polish(board: &Board, mut moves: Vec<Move>, deadline: Option<Instant>) -> Vec<Move> {
    use crate::solver::board::line_length;
    use crate::solver::score::replay;
    let Ok(outcome) = replay(board, &moves) else {
        return moves;
    };
    let mut score = outcome.score;
    let n = board.n;
    'restart: loop {
        // the next move of the same queen, for every move
        let mut last_move_at: Vec<usize> = vec![usize::MAX; n * n];
        let mut next = vec![usize::MAX; moves.len()];
        for (i, mv) in moves.iter().enumerate() {
            let prev = last_move_at[mv.from];
            if prev != usize::MAX {
                next[prev] = i;
            }
            last_move_at[mv.from] = usize::MAX;
            last_move_at[mv.to] = i;
        }
        for i in 0..moves.len() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break 'restart;
            }
            let j = next[i];
            if j == usize::MAX {
                continue;
            }
            let (a, c) = (moves[i].from, moves[j].to);
            let mut candidates = Vec::new();
            if a == c {
                let mut v = moves.clone();
                v.remove(j);
                v.remove(i);
                candidates.push(v);
            } else if line_length(n, a, c).is_some() {
                let mut late = moves.clone();
                late[j] = Move { from: a, to: c };
                late.remove(i);
                candidates.push(late);
                let mut early = moves.clone();
                early[i] = Move { from: a, to: c };
                early.remove(j);
                candidates.push(early);
            }
            for v in candidates {
                if let Ok(o) = replay(board, &v) {
                    if o.score < score - 1e-9 {
                        score = o.score;
                        moves = v;
                        continue 'restart;
                    }
                }
            }
        }
        break;
    }
    moves
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn polish_example() {
        use crate::solver::{
            board::{Board, Move},
            stage::reorder::polish,
        };
        let board = Board::parse("3 1  1 0 0  0 0 0  0 0 0").unwrap();
        // two unit moves along the first row, then nothing in between: one move of length 2
        let moves = vec![Move { from: 0, to: 1 }, Move { from: 1, to: 2 }];
        assert_eq!(polish(&board, moves, None), vec![Move { from: 0, to: 2 }]);
    }
}
