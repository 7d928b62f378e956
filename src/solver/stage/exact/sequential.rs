//! Several colours on boards too big to list every N-Queens board: one colour after another,
//! each the best board [`super::one_colour`] finds on the cells the colours before it left.
//!
//! Greedy across colours (a colour placed early takes its cheapest cells), so it is no exact
//! search; each rotation of the colour order gives another board.

use super::{as_kind, one_colour, ExactBoard, Kind};
use std::time::Instant;

/// Up to one error-free board per rotation of the colour order, cheapest first. Each
/// rotation gets an equal share of the time to `deadline`, each colour in it an equal share
/// of what the rotation has left.
pub(super) fn sequential(
    n: usize,
    walls: &[bool],
    members: &[Vec<usize>],
    dist: &[f32],
    deadline: Instant,
) -> Vec<ExactBoard> {
    let colours = members.len();
    let nq = dist.len() / (n * n);
    let mut found: Vec<ExactBoard> = Vec::new();
    for rotation in 0..colours {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let end = now + (deadline - now) / (colours - rotation) as u32;
        let mut taken = walls.to_vec();
        let mut cells = vec![0; nq];
        let mut cost = 0.0;
        let mut complete = true;
        for k in 0..colours {
            let colour = (rotation + k) % colours;
            let now = Instant::now();
            let slice = end.saturating_duration_since(now) / (colours - k) as u32;
            let best = as_kind(Kind::Taken, || {
                one_colour(n, &taken, &members[colour], dist, 1, now + slice)
            });
            let Some(board) = best.into_iter().next() else {
                complete = false;
                break;
            };
            for &q in &members[colour] {
                cells[q] = board.cells[q];
                taken[board.cells[q]] = true;
            }
            cost += board.cost;
        }
        if complete && !found.iter().any(|b| b.cells == cells) {
            found.push(ExactBoard { cells, cost });
        }
    }
    found.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    found
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_valid;
    use super::*;
    use crate::solver::board::{by_colour, Board};
    use crate::solver::problem::walls_only_problem;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    #[test]
    fn boards_are_error_free_and_priced_right() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let far = Instant::now() + Duration::from_secs(3600);
        let mut made = 0;
        for case in 0..20 {
            let n = rng.random_range(8..=12);
            let colours = rng.random_range(2..=3);
            let board = Board::random(n, colours, 0.05, &mut rng);
            let (queens, walls, dist) = walls_only_problem(&board);
            let members = by_colour(&queens);
            let found = sequential(n, &walls, &members, &dist, far);
            assert!(found.len() <= colours, "case {case}");
            assert!(found.windows(2).all(|w| w[0].cost <= w[1].cost));
            for b in &found {
                assert_valid(b, &queens, &walls, &dist);
                made += 1;
            }
        }
        assert!(made >= 20, "only {made} boards in 20 cases");
    }

    #[test]
    fn nothing_when_a_colour_has_no_room() {
        // 4×4 has two 4-queens boards sharing no cell: the third colour finds no board
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let board = Board::random(4, 3, 0.0, &mut rng);
        let (queens, walls, dist) = walls_only_problem(&board);
        let members = by_colour(&queens);
        let far = Instant::now() + Duration::from_secs(3600);
        assert!(sequential(4, &walls, &members, &dist, far).is_empty());
    }
}
