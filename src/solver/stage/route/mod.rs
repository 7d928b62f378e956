//! Stage 5, routing: plays the moves that bring every queen to its target on the real board.
//!
//! Rules of thumb, in this order:
//! 1. **Free moves**: a queen whose cheapest walls-only route to its target is clear right now
//!    moves along it (cost = the lower bound). Queens are tried in the given priority order,
//!    again and again, because every move may clear the way for others.
//! 2. When no queen can move freely, the cheapest of these actions is played, measured as the
//!    cost above the lower bound ("excess"):
//!    * **detour**: Dijkstra on the current board, around the pieces;
//!    * **clear the way**: take the cheapest route with the fewest blockers (pieces on it or on
//!      the target), move each blocker one step aside, off the route, then go. A blocker that
//!      still has to travel is preferably moved towards its own target, so its step is often
//!      no loss at all; a blocker that had arrived will come back by a free move later.
//!
//!    Cycles (queens waiting for each other's cells) are broken by the same action.
//!
//! Every emitted move is legal when it is made: it starts on a queen, ends on an empty cell
//! and only crosses empty cells of the current board.

mod router;

use crate::solver::board::Move;
use crate::solver::params::Params;
use crate::solver::paths::Paths;
use crate::solver::problem::Problem;
use crate::solver::score::best_prefix;
use router::Router;
use std::time::Instant;

/// Everything routing needs to know about a target board.
#[derive(Clone, Copy, Debug)]
pub struct Plan<'a> {
    /// Side of the board.
    pub n: usize,
    /// Wall flags per cell.
    pub walls: &'a [bool],
    /// Start cell of every queen.
    pub starts: &'a [usize],
    /// Target cell of every queen.
    pub targets: &'a [usize],
    /// `home[q]`: walls-only path cost from every cell to queen `q`'s target.
    pub home: &'a [&'a [f32]],
}

/// Limits of one routing run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many moves (the contest allows `2N³`).
    pub max_moves: usize,
    /// Stop after this many blocked situations resolved by a detour or by clearing the way.
    pub max_stuck: usize,
    /// Stop at this instant (the moves so far are still legal).
    pub deadline: Option<Instant>,
    /// At most this many travelling queens are weighed when the board is blocked.
    pub max_considered: usize,
    /// Extra cost of a step aside onto another queen's target.
    pub park_penalty: f32,
    /// Weight of a blocker on its target (a travelling one weighs 1).
    pub arrived_weight: u32,
}

impl Limits {
    /// Generous limits for `queens` queens on an `n × n` board: the contest's `2N³` moves,
    /// `stuck_per_queen` blocked situations per queen plus `stuck_extra`, and
    /// `max_considered`, `park_penalty` and `arrived_blocker_weight` of `params`.
    pub fn for_board(n: usize, queens: usize, params: &Params) -> Limits {
        Limits {
            max_moves: 2 * n * n * n,
            max_stuck: params.stuck_per_queen * queens + params.stuck_extra,
            deadline: None,
            max_considered: params.max_considered,
            park_penalty: params.park_penalty as f32,
            arrived_weight: params.arrived_blocker_weight as u32,
        }
    }
}

/// Routes `plan` with queens tried in `order` (see the module documentation).
pub fn route(plan: Plan<'_>, order: &[usize], limits: Limits) -> Vec<Move> {
    Router::new(plan, &limits).run(order, limits)
}

/// A routed candidate: targets, priority order, moves (already cut to the best prefix) and
/// real score.
#[derive(Clone, Debug)]
pub(crate) struct Routed {
    /// Target cell of every queen.
    pub targets: Vec<usize>,
    /// Priority order of the queens in routing.
    pub order: Vec<usize>,
    /// The moves, cut to their best-scoring prefix.
    pub moves: Vec<Move>,
    /// Real score of `moves`.
    pub score: f64,
    /// Queens that paid more than their walls-only distance (detours, steps aside).
    pub delayed: Vec<usize>,
}

/// Routing on the real board for the later stages: the problem, the walls-only rows built so
/// far (the rows of the start cells first) and the routing limits.
pub(crate) struct Simulator<'a> {
    /// The problem.
    pub(crate) problem: &'a Problem,
    /// Walls-only distances; rows of all start cells must be built.
    pub(crate) paths: &'a mut Paths,
    /// The tuning parameters (routing limits).
    pub(crate) params: &'a Params,
}

impl Simulator<'_> {
    /// Routes `targets` with `order` and scores the best prefix of the moves (cut there).
    pub(crate) fn evaluate(
        &mut self,
        targets: Vec<usize>,
        order: Vec<usize>,
        deadline: Option<Instant>,
    ) -> Routed {
        for &t in &targets {
            if self.paths.get(t).is_some() {
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                // no time for the rows routing needs (N = 80: 1.5 s): the empty answer
                let score = best_prefix(&self.problem.board, &[]).1;
                return Routed {
                    targets,
                    order,
                    moves: Vec::new(),
                    score,
                    delayed: Vec::new(),
                };
            }
            self.paths.ensure(t);
        }
        let paths = &*self.paths;
        let homes: Vec<&[f32]> = targets
            .iter()
            .map(|&t| paths.get(t).expect("row was just built"))
            .collect();
        let starts = &self.problem.starts;
        let plan = Plan {
            n: self.problem.n,
            walls: &self.problem.walls,
            starts,
            targets: &targets,
            home: &homes,
        };
        let limits = Limits {
            deadline,
            ..Limits::for_board(self.problem.n, starts.len(), self.params)
        };
        let mut moves = route(plan, &order, limits);
        let (keep, score) = best_prefix(&self.problem.board, &moves);
        moves.truncate(keep);
        // what each queen paid, to aim the search at the queens that were held up
        let n = self.problem.n;
        let mut at: Vec<u32> = vec![u32::MAX; n * n];
        for (q, &s) in starts.iter().enumerate() {
            at[s] = q as u32;
        }
        let mut paid = vec![0f32; starts.len()];
        for mv in &moves {
            let q = at[mv.from];
            at[mv.from] = u32::MAX;
            at[mv.to] = q;
            let len = crate::solver::board::line_length(n, mv.from, mv.to).unwrap_or(0);
            paid[q as usize] += (len as f32).sqrt();
        }
        let delayed = (0..starts.len())
            .filter(|&q| paid[q] > self.dist(q, targets[q]) + 1e-3)
            .collect();
        Routed {
            targets,
            order,
            moves,
            score,
            delayed,
        }
    }

    /// Walls-only distance from queen `q`'s start to `cell`.
    pub(crate) fn dist(&self, q: usize, cell: usize) -> f32 {
        self.paths
            .get(self.problem.starts[q])
            .expect("start rows are built")[cell]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::Board;
    use crate::solver::paths::Paths;
    use crate::solver::score::replay;
    use rand::{seq::SliceRandom, Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Property: on random boards with random target assignments, every move is legal, and
    /// when the run ends within its limits every queen is on its target.
    #[test]
    fn routing_never_plays_an_illegal_move() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for case in 0..300 {
            let n = rng.random_range(3..=14);
            let c = rng.random_range(1..=4);
            let p = rng.random_range(0.0..0.3);
            let mut cells: Vec<i8> = (0..n * n)
                .map(|_| if rng.random_bool(p) { -1 } else { 0 })
                .collect();
            let mut free: Vec<usize> = (0..n * n).filter(|&i| cells[i] == 0).collect();
            free.shuffle(&mut rng);
            let count = (c * n).min(free.len() * 2 / 3);
            for (i, &cell) in free.iter().take(count).enumerate() {
                cells[cell] = (i % c) as i8 + 1;
            }
            let board = Board {
                n,
                colours: c,
                cells,
            };
            let queens = board.queens();
            let walls = board.walls();
            let mut paths = Paths::new(n, walls.clone());
            // targets: a random reachable free cell per queen, distinct
            let mut targets = Vec::new();
            let mut used = vec![false; n * n];
            for q in &queens {
                let row = paths.row(q.start).to_vec();
                let options: Vec<usize> = (0..n * n)
                    .filter(|&x| !walls[x] && !used[x] && row[x].is_finite())
                    .collect();
                let t = options[rng.random_range(0..options.len())];
                used[t] = true;
                targets.push(t);
            }
            for &t in &targets {
                paths.ensure(t);
            }
            let home: Vec<&[f32]> = targets.iter().map(|&t| paths.get(t).unwrap()).collect();
            let starts: Vec<usize> = queens.iter().map(|q| q.start).collect();
            let plan = Plan {
                n,
                walls: &walls,
                starts: &starts,
                targets: &targets,
                home: &home,
            };
            let mut order: Vec<usize> = (0..queens.len()).collect();
            order.shuffle(&mut rng);
            let limits = Limits::for_board(n, queens.len(), &Default::default());
            let moves = route(plan, &order, limits);
            assert!(moves.len() <= limits.max_moves);
            replay(&board, &moves).unwrap_or_else(|e| panic!("case {case}: {e}"));
        }
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn route_example() {
        use crate::solver::paths::Paths;
        use crate::solver::stage::route::{route, Limits, Plan};
        // 3×3 board: queen 0 at cell 0 goes to cell 2 (queen 1 is in the way), queen 1 to cell 0.
        let walls = vec![false; 9];
        let mut paths = Paths::new(3, walls.clone());
        let (starts, targets) = ([0, 1], [2, 0]);
        paths.ensure(2);
        paths.ensure(0);
        let home = [paths.get(2).unwrap(), paths.get(0).unwrap()];
        let plan = Plan {
            n: 3,
            walls: &walls,
            starts: &starts,
            targets: &targets,
            home: &home,
        };
        let moves = route(plan, &[0, 1], Limits::for_board(3, 2, &Default::default()));
        let outcome = crate::solver::score::replay(
            &crate::solver::board::Board::parse("3 2 1 2 0 0 0 0 0 0 0").unwrap(),
            &moves,
        )
        .unwrap();
        assert!(outcome.move_cost >= 3.0); // 2 + 1 at least; queen 1 must first step aside or wait
    }
}
