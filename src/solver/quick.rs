//! The first answer: a greedy descent over single legal moves, ready within a few
//! milliseconds on contest boards and a fraction of a second at `N = 128`.
//!
//! Queens are visited in passes; a queen that attacks others plays its best move (along one of
//! its eight rays, up to the first piece or wall) when that move lowers the score: the errors
//! it removes × `N` outweigh √(length). When no single move gains, passes of **re-routes**
//! follow: each attacking queen goes to the cell that gains most over a cheapest route of
//! several moves around the pieces (Dijkstra on the current board). Every move is legal when
//! it is played and every queen's move or route lowers the score, so the answer is never worse
//! than doing nothing. The pipeline replaces this answer as soon as it has a better one; on
//! boards too big for the pipeline's time (paths of `N = 128` take seconds) it is the answer.

use super::board::{line_length, Board, Move, DIRS, EMPTY};
use super::paths::{sqrt_table, Search};
use super::score::LineCounts;
use std::time::Instant;

/// A move must gain more than this (score units) to be played.
const EPS: f64 = 1e-9;

/// A cheap legal answer for `board`: greedy moves until none lowers the score or `deadline`
/// passes (checked before every queen: a re-route at `N = 128` is one Dijkstra of a few ms).
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
    let mut state = State {
        n: board.n,
        cells: board.cells.clone(),
        counts: LineCounts::of_board(board),
        pos: board.queens().iter().map(|q| q.start).collect(),
        colour: board.queens().iter().map(|q| q.colour).collect(),
        moves: Vec::new(),
    };
    let sqrt = sqrt_table(board.n);
    // single moves first (cheap), then re-routes, then single moves again where they opened up
    let mut search = None;
    loop {
        let Some(moved) = state.pass(deadline, |s, q, here| {
            let (from, colour) = (s.pos[q], s.colour[q]);
            best_move(s.n, &s.cells, &s.counts, &sqrt, from, colour, here).map(|to| vec![from, to])
        }) else {
            return state.moves;
        };
        if moved {
            continue;
        }
        let search = search.get_or_insert_with(|| Search::new(board.n));
        match state.pass(deadline, |s, q, here| s.best_route(search, q, here)) {
            Some(true) => continue,
            _ => return state.moves,
        }
    }
}

/// [`descend`] from where the legal moves `moves` leave `board`, appended to them.
///
/// # Panics
/// If `moves` is not legal (a move not starting on a queen).
pub fn descend_after(board: &Board, mut moves: Vec<Move>, deadline: Instant) -> Vec<Move> {
    let mut after = board.clone();
    for mv in &moves {
        assert!(after.cells[mv.from] > 0, "{mv:?} does not start on a queen");
        after.cells[mv.to] = after.cells[mv.from];
        after.cells[mv.from] = EMPTY;
    }
    moves.extend(descend(&after, deadline));
    moves
}

/// The board of the descent: cells, line counts, where each queen stands, the moves so far.
struct State {
    n: usize,
    cells: Vec<i8>,
    counts: LineCounts,
    pos: Vec<usize>,
    colour: Vec<usize>,
    moves: Vec<Move>,
}

impl State {
    /// One pass over the attacking queens: each plays the route `choose` gives it (cells where
    /// its moves start and end, clear on the current board). `Some(moved)`, or `None` when the
    /// deadline came.
    fn pass(
        &mut self,
        deadline: Instant,
        mut choose: impl FnMut(&State, usize, usize) -> Option<Vec<usize>>,
    ) -> Option<bool> {
        let mut moved = false;
        for q in 0..self.pos.len() {
            if Instant::now() >= deadline {
                return None;
            }
            let (from, colour) = (self.pos[q], self.colour[q]);
            // a queen counts itself once on each of its four lines
            let here = self.counts.attacks(from, colour) - 4;
            if here == 0 {
                continue;
            }
            let Some(route) = choose(self, q, here) else {
                continue;
            };
            let to = *route.last().expect("a route has cells");
            self.counts.remove(from, colour);
            self.counts.add(to, colour);
            self.cells[to] = self.cells[from];
            self.cells[from] = EMPTY;
            self.pos[q] = to;
            for w in route.windows(2) {
                self.moves.push(Move {
                    from: w[0],
                    to: w[1],
                });
            }
            moved = true;
        }
        Some(moved)
    }

    /// The cheapest route (around the pieces) of queen `q`, attacking `here` others, to the
    /// cell where it gains most, if it gains at all. Cells come in order of distance, so the
    /// search stops once even a cell without errors could not beat the best so far.
    fn best_route(&self, search: &mut Search, q: usize, here: usize) -> Option<Vec<usize>> {
        let (from, colour) = (self.pos[q], self.colour[q]);
        let (cells, n) = (&self.cells, self.n);
        let most = (here * n) as f64;
        let mut best = (EPS, None);
        search.run_until(
            from,
            |c| cells[c] != EMPTY,
            |to, d| {
                if to != from {
                    // a line `to` shares with `from` still counts the moving queen
                    let shared = usize::from(line_length(n, from, to).is_some());
                    let there = self.counts.attacks(to, colour) - shared;
                    let gain = (here as f64 - there as f64) * n as f64 - d as f64;
                    if gain > best.0 {
                        best = (gain, Some(to));
                    }
                }
                most - d as f64 <= best.0
            },
        );
        best.1.map(|to| search.route(to))
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
    fn every_move_is_legal_and_every_route_lowers_the_score() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..200 {
            let n = rng.random_range(1..=12);
            let colours = rng.random_range(1..=3);
            let board = crate::solver::board::random_board(&mut rng, n, colours, 0.15, 0.4);
            let moves = descend(&board, Instant::now() + Duration::from_secs(60));
            replay(&board, &moves).expect("every move is legal");
            // a queen's route ends where the next move starts elsewhere; each route gains
            let mut last = replay(&board, &[]).unwrap().score;
            for k in 1..=moves.len() {
                if k < moves.len() && moves[k].from == moves[k - 1].to {
                    continue;
                }
                let score = replay(&board, &moves[..k]).unwrap().score;
                assert!(
                    score < last,
                    "{board:?}: route ending at move {k} gains nothing"
                );
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
