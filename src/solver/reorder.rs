//! Stage 5, reordering: local search over the routing priority order and the assignment,
//! re-simulating each change and keeping it when the real score does not get worse.

use super::board::Board;
use super::route::{route, Limits, Plan};
use super::score::best_prefix;
use rand::Rng;
use std::time::Instant;

/// A routed candidate: targets, priority order, moves (already cut to the best prefix) and
/// real score.
#[derive(Clone, Debug)]
pub struct Routed {
    /// Target cell of every queen.
    pub targets: Vec<usize>,
    /// Priority order of the queens in routing.
    pub order: Vec<usize>,
    /// The moves, cut to their best-scoring prefix.
    pub moves: Vec<super::board::Move>,
    /// Real score of `moves`.
    pub score: f64,
}

/// Routes `targets` with `order` and scores the best prefix of the moves.
///
/// `home(cell)` must give the walls-only distances to `cell` for every target cell.
pub fn evaluate<'a>(
    board: &Board,
    walls: &[bool],
    starts: &[usize],
    targets: Vec<usize>,
    order: Vec<usize>,
    home: &impl Fn(usize) -> &'a [f32],
    deadline: Option<Instant>,
) -> Routed {
    let homes: Vec<&[f32]> = targets.iter().map(|&t| home(t)).collect();
    let plan = Plan {
        n: board.n,
        walls,
        starts,
        targets: &targets,
        home: &homes,
    };
    let limits = Limits {
        deadline,
        ..Limits::for_board(board.n, starts.len())
    };
    let mut moves = route(plan, &order, limits);
    let (keep, score) = best_prefix(board, &moves);
    moves.truncate(keep);
    Routed {
        targets,
        order,
        moves,
        score,
    }
}

/// Local search from `current` until `deadline`: move one queen earlier or later in the
/// order, or swap the targets of two same-colour queens; keep changes that do not worsen the
/// score. Returns the best candidate and the number of simulations run.
#[allow(clippy::too_many_arguments)]
pub fn improve<'a>(
    board: &Board,
    walls: &[bool],
    starts: &[usize],
    colour: &[usize],
    mut current: Routed,
    home: &impl Fn(usize) -> &'a [f32],
    rng: &mut impl Rng,
    deadline: Instant,
) -> (Routed, usize) {
    let nq = starts.len();
    let mut sims = 0;
    if nq < 2 {
        return (current, sims);
    }
    while Instant::now() < deadline {
        let mut order = current.order.clone();
        let mut targets = current.targets.clone();
        if rng.random_range(0..100) < 70 {
            let from = rng.random_range(0..nq);
            let to = rng.random_range(0..nq);
            let q = order.remove(from);
            order.insert(to, q);
        } else {
            let a = rng.random_range(0..nq);
            let mates: Vec<usize> = (0..nq)
                .filter(|&b| b != a && colour[b] == colour[a])
                .collect();
            if mates.is_empty() {
                continue;
            }
            let b = mates[rng.random_range(0..mates.len())];
            targets.swap(a, b);
        }
        let candidate = evaluate(board, walls, starts, targets, order, home, Some(deadline));
        if Instant::now() >= deadline {
            break; // the last simulation may have been cut short
        }
        sims += 1;
        if candidate.score <= current.score + 1e-9 {
            current = candidate;
        }
    }
    (current, sims)
}
