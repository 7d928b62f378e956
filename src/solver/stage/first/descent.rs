//! The first answer: a greedy descent over single legal moves, ready within a few
//! milliseconds on contest boards and a fraction of a second at `N = 128`.
//!
//! Queens are visited in passes; a queen that attacks others plays its best move (along one of
//! its eight rays, up to the first piece or wall) when that move lowers the score: the errors
//! it removes × `N` outweigh √(length). When no single move gains, passes of **re-routes**
//! follow: each attacking queen goes to the cell that gains most over a cheapest route of
//! several moves around the pieces (Dijkstra on the current board). When neither gains, passes
//! of **ejection chains**: an attacking queen goes to one of the nearest cells where it attacks
//! a single queen, which then re-routes itself; the pair is kept when together they lower the
//! score. Every move is legal when it is played and every step (a move, a route, a chain)
//! lowers the score, so the answer is never worse than doing nothing. The pipeline replaces this answer as soon as it has a better one; on
//! boards too big for the pipeline's time (paths of `N = 128` take seconds) it is the answer.

use crate::solver::board::{line_length, Board, Move, DIRS, EMPTY};
use crate::solver::paths::{sqrt_table, Search};
use crate::solver::score::LineCounts;
use std::time::Instant;

/// A move must gain more than this (score units) to be played.
const EPS: f64 = 1e-9;
/// A cheap legal answer for `board`: greedy moves until none lowers the score or `deadline`
/// passes (checked before every queen: a re-route at `N = 128` is one Dijkstra of a few ms).
/// An ejection chain tries the `chain_cells` nearest cells (the parameter of that name).
///
/// # Complexity
/// One pass costs `O(Q · N)` for `Q` queens (each looks along its rays with `O(1)` scoring);
/// every move lowers the score by a positive amount, so the descent ends.
pub fn descend(board: &Board, deadline: Instant, chain_cells: usize) -> Vec<Move> {
    descend_after_a_pass(board, deadline, deadline, chain_cells)
}

/// [`descend`], whose first pass of single moves may go on until `first_pass_end` (later
/// than `deadline`): a process that gets the core late (a loaded machine) still makes the
/// cheap first pass, `O(Q · N)`, instead of answering with no move at all.
pub fn descend_after_a_pass(
    board: &Board,
    first_pass_end: Instant,
    deadline: Instant,
    chain_cells: usize,
) -> Vec<Move> {
    let mut state = State {
        n: board.n,
        cells: board.cells.clone(),
        counts: LineCounts::of_board(board),
        pos: board.queens().iter().map(|q| q.start).collect(),
        colour: board.queens().iter().map(|q| q.colour).collect(),
        moves: Vec::new(),
        cost: 0.0,
        chain_cells,
    };
    let sqrt = sqrt_table(board.n);
    // single moves first (cheap), then re-routes, then chains; after any gain, single moves
    // again where they opened up
    let mut search = None;
    let mut pass_end = first_pass_end.max(deadline);
    loop {
        let Some(moved) = state.pass(std::mem::replace(&mut pass_end, deadline), |s, q, here| {
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
            None => return state.moves,
            Some(false) => {}
        }
        if state.chain_pass(deadline, search) != Some(true) {
            return state.moves;
        }
    }
}

/// [`descend`] from where the legal moves `moves` leave `board`, appended to them.
///
/// # Panics
/// If `moves` is not legal (a move not starting on a queen).
pub fn descend_after(
    board: &Board,
    mut moves: Vec<Move>,
    deadline: Instant,
    chain_cells: usize,
) -> Vec<Move> {
    let mut after = board.clone();
    for mv in &moves {
        assert!(after.cells[mv.from] > 0, "{mv:?} does not start on a queen");
        after.cells[mv.to] = after.cells[mv.from];
        after.cells[mv.from] = EMPTY;
    }
    moves.extend(descend(&after, deadline, chain_cells));
    moves
}

/// The board of the descent: cells, line counts, where each queen stands, the moves so far
/// and their cost, and how many cells an ejection chain tries.
#[derive(Clone)]
struct State {
    n: usize,
    cells: Vec<i8>,
    counts: LineCounts,
    pos: Vec<usize>,
    colour: Vec<usize>,
    moves: Vec<Move>,
    cost: f64,
    chain_cells: usize,
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
            self.apply(q, &route);
            moved = true;
        }
        Some(moved)
    }

    /// Plays queen `q`'s route (cells where its moves start and end, clear on the board).
    fn apply(&mut self, q: usize, route: &[usize]) {
        let (from, colour) = (self.pos[q], self.colour[q]);
        let to = *route.last().expect("a route has cells");
        self.counts.remove(from, colour);
        self.counts.add(to, colour);
        self.cells[to] = self.cells[from];
        self.cells[from] = EMPTY;
        self.pos[q] = to;
        for w in route.windows(2) {
            let len = line_length(self.n, w[0], w[1]).expect("a route moves along lines");
            self.cost += (len as f64).sqrt();
            self.moves.push(Move {
                from: w[0],
                to: w[1],
            });
        }
    }

    /// Score of the moves so far.
    fn score(&self) -> f64 {
        (self.counts.errors * self.n) as f64 + self.cost
    }

    /// One pass of ejection chains over the attacking queens. `Some(moved)`, or `None` when the
    /// deadline came.
    fn chain_pass(&mut self, deadline: Instant, search: &mut Search) -> Option<bool> {
        let mut moved = false;
        for q in 0..self.pos.len() {
            if Instant::now() >= deadline {
                return None;
            }
            let (from, colour) = (self.pos[q], self.colour[q]);
            if self.counts.attacks(from, colour) > 4 {
                if let Some(better) = self.chain(search, q) {
                    *self = better;
                    moved = true;
                }
            }
        }
        Some(moved)
    }

    /// The board after an ejection chain from queen `q` that lowers the score, if one does: `q`
    /// goes (around the pieces) to one of the `chain_cells` nearest cells where it attacks a
    /// single queen, and that queen takes its best route ([`State::best_route`]).
    fn chain(&self, search: &mut Search, q: usize) -> Option<State> {
        let (from, colour) = (self.pos[q], self.colour[q]);
        let (cells, n) = (&self.cells, self.n);
        let mut near = Vec::new();
        search.run_until(
            from,
            |c| cells[c] != EMPTY,
            |to, _| {
                let shared = usize::from(line_length(n, from, to).is_some());
                if to != from && self.counts.attacks(to, colour) - shared == 1 {
                    near.push(to);
                }
                near.len() >= self.chain_cells
            },
        );
        let routes: Vec<Vec<usize>> = near.iter().map(|&x| search.route(x)).collect();
        for route in routes {
            let mut next = self.clone();
            next.apply(q, &route);
            let Some(other) = next.attacked(q) else {
                continue;
            };
            let here = next.counts.attacks(next.pos[other], colour) - 4;
            if let Some(escape) = next.best_route(search, other, here) {
                next.apply(other, &escape);
                if next.score() < self.score() - EPS {
                    return Some(next);
                }
            }
        }
        None
    }

    /// A queen of `q`'s colour that `q` attacks, if any.
    fn attacked(&self, q: usize) -> Option<usize> {
        let (at, colour) = (self.pos[q], self.colour[q]);
        let n = self.n as i64;
        let (r0, c0) = (at as i64 / n, at as i64 % n);
        for &(dr, dc) in &DIRS {
            let (mut r, mut c) = (r0 + dr as i64, c0 + dc as i64);
            while (0..n).contains(&r) && (0..n).contains(&c) {
                let cell = (r * n + c) as usize;
                if self.cells[cell] == colour as i8 + 1 {
                    return self.pos.iter().position(|&p| p == cell);
                }
                r += dr as i64;
                c += dc as i64;
            }
        }
        None
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
    fn every_move_is_legal_and_the_answer_gains() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..200 {
            let n = rng.random_range(1..=12);
            let colours = rng.random_range(1..=3);
            let board = crate::solver::board::random_board(&mut rng, n, colours, 0.15, 0.4);
            let moves = descend(&board, Instant::now() + Duration::from_secs(60), 4);
            let start = replay(&board, &[]).unwrap().score;
            let end = replay(&board, &moves).expect("every move is legal").score;
            assert!(
                moves.is_empty() || end < start,
                "{board:?}: {end} >= {start}"
            );
            // a local optimum: a second descent from the end finds nothing
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
            assert!(descend(&after, Instant::now() + Duration::from_secs(60), 4).is_empty());
        }
    }

    #[test]
    fn a_passed_deadline_gives_no_moves() {
        let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
        assert!(descend(&board, Instant::now(), 4).is_empty());
    }

    /// A descent whose deadline has passed before it starts (the process got the core late)
    /// still makes its first pass of single moves when it may run on until the budget's end,
    /// and only that pass: the score falls, and a full descent goes further.
    #[test]
    fn a_first_pass_is_made_after_the_deadline() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(49);
        for (n, c) in [(8, 1), (12, 3), (20, 5), (30, 6)] {
            let board = Board::random(n, c, 0.05, &mut rng);
            let start = replay(&board, &[]).unwrap();
            let far = Instant::now() + Duration::from_secs(60);
            let moves = descend_after_a_pass(&board, far, Instant::now(), 4);
            let after = replay(&board, &moves).expect("every move is legal");
            assert!(after.score < start.score, "n {n} c {c}: no move made");
            let full = replay(&board, &descend(&board, far, 4)).unwrap();
            assert!(full.score <= after.score + 1e-9, "n {n} c {c}");
        }
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn descend_example() {
        use crate::solver::{board::Board, score::replay, stage::first::descent::descend};
        // four queens on the top row of a 4×4 board: 6 errors × 4 points
        let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
        let moves = descend(
            &board,
            std::time::Instant::now() + std::time::Duration::from_secs(1),
            4,
        );
        let outcome = replay(&board, &moves).unwrap();
        assert!(outcome.score < 24.0);
    }
}
