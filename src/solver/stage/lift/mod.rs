//! The lift search (stage 3b): large moves on whole colours of an elite board.
//!
//! Annealing and its one-colour re-plans change a board a few queens at a time and settle in
//! one basin; re-solving a band of rows exactly changes nothing (with the other rows fixed, an
//! N-Queens band has almost no freedom). A lift frees a whole colour (or two) of a routed
//! elite board — every other colour keeps its cells — and places it again with the exact
//! one-colour branch and bound of [`super::exact`] on the cells the others leave, priced by a
//! distance table whose cells carry random price noise (so that lifts of the same colour of
//! the same board reach different boards). With two colours lifted, they are placed one
//! after the other in a random order. The caller matches the result and routes it: a lift is
//! accepted when its routed board ranks in the pool, and the best routed board is the base
//! of the next lifts (see `docs/solver.md`, "Stage 3b: the lift search").

#[cfg(test)]
mod tests;

use super::exact::{as_kind, place_colour, place_colour_turned, Kind};
use crate::solver::board::by_colour;
use crate::solver::paths::{Search, WALLED_OFF};
use crate::solver::problem::Problem;
use rand::Rng;
use std::time::Instant;

/// What to lift from a base board and how to place it again.
#[derive(Clone, Debug)]
pub(crate) struct LiftMove {
    /// The colours freed, placed again in this order.
    pub(crate) colours: Vec<usize>,
    /// Relative price noise: each free cell's costs are scaled by a factor drawn uniformly in
    /// `1 ± noise` (0: the cheapest board the search finds on the true table).
    pub(crate) noise: f64,
    /// The orientation of the board the search places the colours on
    /// (`exact::place_colour_turned`; 0: as it is).
    pub(crate) turn: u64,
}

/// The target cells of `base` (one per queen of `problem`) with the colours of `lift` placed
/// again by the one-colour search on `dist` (`q * n² + cell`) until `deadline` (shared equally
/// by the lifted colours); every other queen keeps its cell. `None` when a colour found no
/// board on the cells left (or in time). The lifted colours' queens are matched to their new
/// cells by the noisy prices: the caller re-matches them on the true table.
pub(crate) fn lift(
    problem: &Problem,
    dist: &[f32],
    base: &[usize],
    lift: &LiftMove,
    deadline: Instant,
    rng: &mut impl Rng,
) -> Option<Vec<usize>> {
    let (n, nn) = (problem.n, problem.cells());
    let members = by_colour(&problem.queens);
    let mut taken = problem.walls.clone();
    for (q, &cell) in base.iter().enumerate() {
        if !lift.colours.contains(&problem.colour[q]) {
            taken[cell] = true;
        }
    }
    let mut cells = base.to_vec();
    for (k, &colour) in lift.colours.iter().enumerate() {
        let group = members.get(colour)?;
        let now = Instant::now();
        let end = now + deadline.saturating_duration_since(now) / (lift.colours.len() - k) as u32;
        let prices = noisy_rows(dist, nn, group, lift.noise, rng);
        let local: Vec<usize> = (0..group.len()).collect();
        let board = as_kind(Kind::Taken, || match lift.turn {
            0 => place_colour(n, &taken, &local, &prices, end),
            turn => place_colour_turned(n, &taken, &local, &prices, end, turn),
        })?;
        for (i, &q) in group.iter().enumerate() {
            cells[q] = board.cells[i];
            taken[board.cells[i]] = true;
        }
    }
    Some(cells)
}

/// `table` (`q * n² + cell`) with the rows of the queens of `colours` (the colours a lift frees)
/// moved towards their walls-only routes around the queens of the other colours that stay home
/// in `base`: `share ×` that route's cost `+ (1 − share) ×` the table's (a cell the staying
/// queens wall off costs its walls-only distance plus [`WALLED_OFF`]). A queen that stays is in
/// every route across its cell for the whole answer, and after the post-optimiser an answer
/// costs about its board's stayer-aware estimate, while the table prices every piece of the
/// initial board at half (see `docs/solver.md`, "Stage 3b"). Other rows are the table's.
///
/// # Complexity
/// One Dijkstra over queen moves per queen of `colours`, and a copy of the table.
pub(crate) fn around_stayers(
    problem: &Problem,
    base: &[usize],
    colours: &[usize],
    table: &[f32],
    share: f32,
) -> Vec<f32> {
    let (n, nn) = (problem.n, problem.cells());
    let lifted = |q: usize| colours.contains(&problem.colour[q]);
    let mut blocked = problem.walls.clone();
    for (q, &cell) in base.iter().enumerate() {
        if cell == problem.starts[q] && !lifted(q) {
            blocked[cell] = true;
        }
    }
    let walls_only = problem.walls_only();
    let mut out = table.to_vec();
    let mut search = Search::new(n);
    for q in (0..base.len()).filter(|&q| lifted(q)) {
        let start = problem.starts[q];
        // only other colours' queens are blocked, so never this queen's own start
        search.run(start, |c| blocked[c], None);
        let row = q * nn..(q + 1) * nn;
        for (cell, (priced, &alone)) in out[row.clone()]
            .iter_mut()
            .zip(&walls_only[row])
            .enumerate()
        {
            let around = search.dist(cell);
            let around = if around.is_finite() {
                around
            } else {
                alone + WALLED_OFF
            };
            // a cell the table cannot reach stays out of reach: with `share` 1 the blend
            // would be `0 · ∞`, a NaN, which the engine's searches read as ∞ and its dump
            // (`QUEENATTACK_ENGINE_DUMP`) refuses
            if priced.is_finite() {
                *priced = share * around + (1.0 - share) * *priced;
            }
        }
    }
    out
}

/// The rows of `dist` of the queens `group`, in that order, each cell's costs scaled by one
/// factor per cell drawn in `1 ± noise` (a queen that stays keeps cost 0: staying is what
/// the routing likes best).
fn noisy_rows(
    dist: &[f32],
    nn: usize,
    group: &[usize],
    noise: f64,
    rng: &mut impl Rng,
) -> Vec<f32> {
    let factors: Vec<f32> = (0..nn)
        .map(|_| (1.0 + noise * (2.0 * rng.random::<f64>() - 1.0)).max(0.0) as f32)
        .collect();
    let mut rows = Vec::with_capacity(group.len() * nn);
    for &q in group {
        let row = &dist[q * nn..(q + 1) * nn];
        // A cell out of reach stays so: a factor of 0 (noise of 1 or more) would make it NaN.
        rows.extend(
            row.iter()
                .zip(&factors)
                .map(|(&d, f)| if d.is_finite() { d * f } else { d }),
        );
    }
    rows
}

/// Recombination of two elite boards: `a` with the cells of `colour` taken from `b` (the
/// colour's queens matched to them later), and the other colours of `a` that now share a cell
/// with it — they are the colours to lift, so that the child is a board again (none: the
/// child is a board as it is). Colours are sub-boards that only have to be disjoint, so a
/// colour of one board fits any other board whose remaining colours avoid its cells.
pub(crate) fn recombine(
    problem: &Problem,
    a: &[usize],
    b: &[usize],
    colour: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut child = a.to_vec();
    let mut theirs = vec![false; problem.cells()];
    for q in (0..a.len()).filter(|&q| problem.colour[q] == colour) {
        child[q] = b[q];
        theirs[b[q]] = true;
    }
    let mut conflicts: Vec<usize> = (0..a.len())
        .filter(|&q| problem.colour[q] != colour && theirs[a[q]])
        .map(|q| problem.colour[q])
        .collect();
    conflicts.sort_unstable();
    conflicts.dedup();
    (child, conflicts)
}

/// The colours a lift frees: one colour, or with chance `two` two different ones (when the
/// board has two), the first drawn from `faulty` (the base's colours with errors) with chance
/// `faulty_chance`.
pub(crate) fn lift_colours(
    colours: usize,
    faulty: &[usize],
    faulty_chance: f64,
    two: f64,
    rng: &mut impl Rng,
) -> Vec<usize> {
    let first = if !faulty.is_empty() && rng.random_bool(faulty_chance) {
        faulty[rng.random_range(0..faulty.len())]
    } else {
        rng.random_range(0..colours)
    };
    let mut lifted = vec![first];
    if colours >= 2 && rng.random_bool(two) {
        let other = (first + rng.random_range(1..colours)) % colours;
        lifted.push(other);
    }
    lifted
}
