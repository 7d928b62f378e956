//! Stage 7, the post-optimiser: a finished answer improved one queen at a time.
//!
//! The routing stage plays queens in an order and sometimes leaves a queen with a detour, a
//! move out of the way and back, or a target that was cheap for the annealer's estimate but
//! not on the real board. [`improve`] takes the whole legal move list and, for one queen `q`:
//!
//! 1. removes all of `q`'s moves (the other queens' moves stay legal: the board only gets
//!    emptier);
//! 2. picks a final cell `g` for `q`: its current one (**re-route**), its start (**drop** the
//!    queen, paying for the errors it now makes), or any other cell (**retarget**), ranked by
//!    a lower bound (walls-only distance + errors × N on the final board);
//! 3. re-inserts a cheapest path from `q`'s start to `g` (A* over queen moves on the
//!    board of that moment) as one block at a time `t` where `q` standing on its start before
//!    `t` and on `g` after `t` blocks none of the other moves; or as two blocks, with a stop
//!    on a parking cell, when `q` must leave its start before `g` frees up.
//!
//! When no single queen gains any more, pairs of same-colour queens **swap** final cells
//! (both lose their moves, then each is planned as above, the second seeing the first).
//!
//! A change is kept only when a full [`replay`] confirms it is legal and scores lower, so the
//! answer never gets worse. Queens are visited in order of their excess cost (cost of their
//! moves minus their walls-only distance), in passes, until a pass gains nothing or the
//! deadline comes.

pub(crate) mod lns;
pub(crate) mod multistart;
mod plan;
mod swap;
#[cfg(test)]
mod tests;

use crate::solver::board::{line_cells, Board, Move};
use crate::solver::checkpoint;
use crate::solver::params::Params;
use crate::solver::paths::{Paths, Search};
use crate::solver::score::{replay, LineCounts};
use std::time::Instant;

/// Gains smaller than this are noise from `f32` path costs.
const EPS: f64 = 1e-7;
const NONE: usize = usize::MAX;

/// Improves a legal move list by re-routing, retargeting or dropping single queens and by
/// swapping the final cells of two queens of one colour.
///
/// Returns a legal move list whose score is at most that of `moves`; `moves` is returned
/// unchanged when it is not legal. Stops at `deadline` (checked between candidate paths).
/// Its breadth comes from `params` (`targets_per_queen`, `times_per_target`,
/// `two_phase_targets`).
///
/// # Complexity
/// One queen costs `O(M · N + N²)` for the bookkeeping (`M` moves) plus at most
/// `targets_per_queen × (times_per_target + 3)` early-stopped route searches (A*, guided by
/// walls-only distances); a pass visits every queen once.
pub fn improve(
    board: &Board,
    moves: Vec<Move>,
    deadline: Option<Instant>,
    params: &Params,
) -> Vec<Move> {
    let Ok(outcome) = replay(board, &moves) else {
        return moves;
    };
    let mut state = Improver::new(board, moves, outcome.score, Breadth::of(params));
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    state.descend(&out_of_time);
    state.moves
}

/// How many final cells and times a queen's plan tries (the parameters of those names).
#[derive(Clone, Copy)]
pub(super) struct Breadth {
    targets_per_queen: usize,
    times_per_target: usize,
    two_phase_targets: usize,
    joint_pairs: usize,
}

impl Breadth {
    fn of(params: &Params) -> Breadth {
        Breadth {
            targets_per_queen: params.targets_per_queen,
            times_per_target: params.times_per_target,
            two_phase_targets: params.two_phase_targets,
            joint_pairs: params.joint_pairs,
        }
    }
}

/// The answer being improved and the workspaces reused for every queen.
pub(super) struct Improver<'a> {
    board: &'a Board,
    breadth: Breadth,
    n: usize,
    /// Start cell and colour of every queen (row-major order of the start cells).
    starts: Vec<usize>,
    colours: Vec<usize>,
    moves: Vec<Move>,
    score: f64,
    /// Walls-only distances.
    paths: Paths,
    search: Search,
}

/// A better plan for one queen: final cell, insertion time among the other moves, route.
pub(super) struct Candidate {
    total: f64,
    /// `(time, route)` blocks by time: the route's moves go just before `rest[time]`.
    blocks: Vec<(usize, Vec<usize>)>,
}

impl<'a> Improver<'a> {
    fn new(board: &'a Board, moves: Vec<Move>, score: f64, breadth: Breadth) -> Improver<'a> {
        let queens = board.queens();
        Improver {
            board,
            breadth,
            n: board.n,
            starts: queens.iter().map(|q| q.start).collect(),
            colours: queens.iter().map(|q| q.colour).collect(),
            moves,
            score,
            paths: Paths::new(board.n, board.walls()),
            search: Search::new(board.n),
        }
    }

    /// The queen that makes each move of `moves` (index into `starts`).
    fn owners(&self, moves: &[Move]) -> Vec<usize> {
        let mut at = vec![NONE; self.n * self.n];
        for (q, &s) in self.starts.iter().enumerate() {
            at[s] = q;
        }
        moves
            .iter()
            .map(|mv| {
                let q = at[mv.from];
                at[mv.to] = q;
                at[mv.from] = NONE;
                q
            })
            .collect()
    }

    /// The owner of every move, what every queen pays for its moves and where it ends.
    fn paid(&self) -> (Vec<usize>, Vec<f64>, Vec<usize>) {
        let owners = self.owners(&self.moves);
        let mut cost = vec![0f64; self.starts.len()];
        let mut last = self.starts.clone();
        for (mv, &q) in self.moves.iter().zip(&owners) {
            cost[q] += length(self.n, mv.from, mv.to).sqrt();
            last[q] = mv.to;
        }
        (owners, cost, last)
    }

    /// Queens by decreasing excess cost (moves paid minus walls-only distance to where they
    /// end), then the rest; queens that never move come last, the most attacked first. Out of
    /// time, the distances still missing are taken as zero.
    fn visit_order(&mut self, out_of_time: &impl Fn() -> bool) -> Vec<usize> {
        let nq = self.starts.len();
        let (_, cost, last) = self.paid();
        let mut counts = LineCounts::new(self.n, self.board.colours);
        for (&cell, &colour) in last.iter().zip(&self.colours) {
            counts.add(cell, colour);
        }
        let mut excess: Vec<(f64, usize)> = (0..nq)
            .map(|q| {
                let d = if cost[q] == 0.0 {
                    0.0 // unmoved queens come last anyway: no distance needed
                } else if out_of_time() {
                    self.paths
                        .get(self.starts[q])
                        .map_or(0.0, |row| row[last[q]] as f64)
                } else {
                    self.paths.row(self.starts[q])[last[q]] as f64
                };
                let key = if cost[q] > 0.0 {
                    cost[q] - d
                } else {
                    // unmoved queens after the others, the most attacked first
                    let attacks = counts.remove(last[q], self.colours[q]);
                    counts.add(last[q], self.colours[q]);
                    -1.0 - 1.0 / (1.0 + attacks as f64)
                };
                (key, q)
            })
            .collect();
        excess.sort_by(|a, b| b.0.total_cmp(&a.0));
        excess.into_iter().map(|(_, q)| q).collect()
    }

    /// Passes of single queens, then pairs, until a pass gains nothing (`true`) or time runs
    /// out (`false`).
    fn descend(&mut self, out_of_time: &impl Fn() -> bool) -> bool {
        loop {
            let mut gained = false;
            for q in self.visit_order(out_of_time) {
                if out_of_time() {
                    return false;
                }
                if self.improve_queen(q, out_of_time) {
                    gained = true;
                }
            }
            // pairs only once single queens gain nothing (they cost two plans per pair), and
            // all pairs (many) only once same-colour swaps gain nothing
            for joint in [false, true].into_iter().take(1 + self.breadth.joint_pairs) {
                if gained {
                    break;
                }
                for q in self.visit_order(out_of_time) {
                    if out_of_time() {
                        return false;
                    }
                    if self.swap_queen(q, joint, out_of_time) {
                        gained = true;
                    }
                }
            }
            if !gained {
                return true;
            }
        }
    }

    /// Tries to lower the score by re-planning queen `q` alone; `true` if it did.
    fn improve_queen(&mut self, q: usize, out_of_time: &impl Fn() -> bool) -> bool {
        let moves = std::mem::take(&mut self.moves);
        let planned = self.plan(q, &moves, &[], None, self.score, out_of_time);
        self.moves = moves;
        planned.is_some_and(|m| self.keep_if_better(m))
    }

    /// Replaces the answer by `moves` if the referee finds them legal and better.
    fn keep_if_better(&mut self, moves: Vec<Move>) -> bool {
        match replay(self.board, &moves) {
            Ok(o) if o.score < self.score - EPS => {
                checkpoint::keep(self.board, &moves, o.score);
                self.moves = moves;
                self.score = o.score;
                true
            }
            _ => false,
        }
    }
}

/// Length of a straight move as `f64` (`from` and `to` on one line).
fn length(n: usize, from: usize, to: usize) -> f64 {
    let (r0, c0) = ((from / n) as i64, (from % n) as i64);
    let (r1, c1) = ((to / n) as i64, (to % n) as i64);
    (r1 - r0).abs().max((c1 - c0).abs()) as f64
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn improve_example() {
        use crate::solver::{
            board::{Board, Move},
            score::replay,
            stage::improve::improve,
        };
        // Two queens share the top row; the answer walks one of them (0,0) → (1,0) → (2,0) → (2,1)
        // (cost 3), where its first step alone already ends the conflict (cost 1).
        let board = Board::parse("3 1  1 0 1  0 0 0  0 0 0").unwrap();
        let moves = vec![
            Move { from: 0, to: 3 },
            Move { from: 3, to: 6 },
            Move { from: 6, to: 7 },
        ];
        assert_eq!(replay(&board, &moves).unwrap().score, 3.0);
        let better = improve(&board, moves, None, &Default::default());
        assert_eq!(better.len(), 1);
        assert_eq!(replay(&board, &better).unwrap().score, 1.0);
    }
}
