//! Post-optimisation of a finished answer, one queen at a time.
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
//! 3. re-inserts a cheapest path from `q`'s start to `g` (Dijkstra over queen moves on the
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

use super::board::{Board, Move, EMPTY};
use super::paths::{Paths, Search};
use super::score::{replay, LineCounts};
use std::time::Instant;

/// Final cells tried per queen (the best by lower bound).
const TARGETS_PER_QUEEN: usize = 8;
/// Insertion times tried per final cell (besides the window ends and the original time).
const TIMES_PER_TARGET: usize = 6;
/// Final cells per queen (the best few) also tried with a stop on a parking cell.
const TWO_PHASE_TARGETS: usize = 3;
/// Gains smaller than this are noise from `f32` path costs.
const EPS: f64 = 1e-7;
const NONE: usize = usize::MAX;

/// Improves a legal move list by re-routing, retargeting or dropping single queens and by
/// swapping the final cells of two queens of one colour.
///
/// Returns a legal move list whose score is at most that of `moves`; `moves` is returned
/// unchanged when it is not legal. Stops at `deadline` (checked between candidate paths).
///
/// # Complexity
/// One queen costs `O(M · N + N²)` for the bookkeeping (`M` moves) plus at most
/// `TARGETS_PER_QUEEN × (TIMES_PER_TARGET + 3)` early-stopped Dijkstra runs; a pass visits every
/// queen once.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::{Board, Move}, improve::improve, score::replay};
/// // Two queens share the top row; the answer walks one of them (0,0) → (1,0) → (2,0) → (2,1)
/// // (cost 3), where its first step alone already ends the conflict (cost 1).
/// let board = Board::parse("3 1  1 0 1  0 0 0  0 0 0").unwrap();
/// let moves = vec![
///     Move { from: 0, to: 3 },
///     Move { from: 3, to: 6 },
///     Move { from: 6, to: 7 },
/// ];
/// assert_eq!(replay(&board, &moves).unwrap().score, 3.0);
/// let better = improve(&board, moves, None);
/// assert_eq!(better.len(), 1);
/// assert_eq!(replay(&board, &better).unwrap().score, 1.0);
/// ```
pub fn improve(board: &Board, moves: Vec<Move>, deadline: Option<Instant>) -> Vec<Move> {
    let Ok(outcome) = replay(board, &moves) else {
        return moves;
    };
    let mut state = Improver::new(board, moves, outcome.score);
    let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
    loop {
        let mut gained = false;
        for q in state.visit_order(&out_of_time) {
            if out_of_time() {
                return state.moves;
            }
            if state.improve_queen(q, &out_of_time) {
                gained = true;
            }
        }
        // pairs only once single queens gain nothing (they cost two plans per pair), and all
        // pairs (many) only once same-colour swaps gain nothing
        for joint in [false, true] {
            if gained {
                break;
            }
            for q in state.visit_order(&out_of_time) {
                if out_of_time() {
                    return state.moves;
                }
                if state.swap_queen(q, joint, &out_of_time) {
                    gained = true;
                }
            }
        }
        if !gained {
            return state.moves;
        }
    }
}

/// The answer being improved and the workspaces reused for every queen.
struct Improver<'a> {
    board: &'a Board,
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
struct Candidate {
    total: f64,
    /// `(time, route)` blocks by time: the route's moves go just before `rest[time]`.
    blocks: Vec<(usize, Vec<usize>)>,
}

impl<'a> Improver<'a> {
    fn new(board: &'a Board, moves: Vec<Move>, score: f64) -> Improver<'a> {
        let queens = board.queens();
        Improver {
            board,
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

    /// Queens by decreasing excess cost (moves paid minus walls-only distance to where they
    /// end), then the rest; queens that never move come last, the most attacked first. Out of
    /// time, the distances still missing are taken as zero.
    fn visit_order(&mut self, out_of_time: &impl Fn() -> bool) -> Vec<usize> {
        let owners = self.owners(&self.moves);
        let nq = self.starts.len();
        let mut cost = vec![0f64; nq];
        let mut last = self.starts.clone();
        for (mv, &q) in self.moves.iter().zip(&owners) {
            cost[q] += length(self.n, mv.from, mv.to).sqrt();
            last[q] = mv.to;
        }
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

    /// Tries to lower the score by re-planning queen `q` alone; `true` if it did.
    fn improve_queen(&mut self, q: usize, out_of_time: &impl Fn() -> bool) -> bool {
        let moves = std::mem::take(&mut self.moves);
        let planned = self.plan(q, &moves, None, None, self.score, out_of_time);
        self.moves = moves;
        planned.is_some_and(|m| self.keep_if_better(m))
    }

    /// Replaces the answer by `moves` if the referee finds them legal and better.
    fn keep_if_better(&mut self, moves: Vec<Move>) -> bool {
        match replay(self.board, &moves) {
            Ok(o) if o.score < self.score - EPS => {
                self.moves = moves;
                self.score = o.score;
                true
            }
            _ => false,
        }
    }

    /// Tries to lower the score by swapping the final cells of `q` and a queen `p` of its
    /// colour: both lose their moves, `q` is planned to `p`'s final cell, then `p` to `q`'s (so
    /// its plan sees `q`'s new moves). With `joint`, also any `p` with both keeping their final
    /// cells: `q` re-planned with `p` out of the way, then `p`.
    fn swap_queen(&mut self, q: usize, joint: bool, out_of_time: &impl Fn() -> bool) -> bool {
        let owners = self.owners(&self.moves);
        let nq = self.starts.len();
        let mut cost = vec![0f64; nq];
        let mut last = self.starts.clone();
        for (mv, &o) in self.moves.iter().zip(&owners) {
            cost[o] += length(self.n, mv.from, mv.to).sqrt();
            last[o] = mv.to;
        }
        let (s1, f1) = (self.starts[q], last[q]);
        for p in 0..nq {
            if p == q || out_of_time() {
                continue;
            }
            let (s2, f2) = (self.starts[p], last[p]);
            // final cells (of q, of p): swapped (same colour only), or kept but planned anew
            // with p out of q's way
            let mut pairs = Vec::with_capacity(2);
            if self.colours[p] == self.colours[q] && !(f1 == s1 && f2 == s2) {
                pairs.push((f2, f1));
            }
            if joint && cost[q] > 0.0 && cost[p] > 0.0 {
                pairs.push((f1, f2));
            }
            for (g1, g2) in pairs {
                let bound = self.paths.row(s1)[g1] as f64 + self.paths.row(s2)[g2] as f64;
                if bound >= cost[q] + cost[p] - EPS {
                    continue;
                }
                let without_p: Vec<Move> = self
                    .moves
                    .iter()
                    .zip(&owners)
                    .filter(|&(_, &o)| o != p)
                    .map(|(m, _)| *m)
                    .collect();
                let Some(first) = self.plan(
                    q,
                    &without_p,
                    Some(s2),
                    Some(g1),
                    f64::INFINITY,
                    out_of_time,
                ) else {
                    continue;
                };
                let Some(both) = self.plan(p, &first, None, Some(g2), self.score, out_of_time)
                else {
                    continue;
                };
                if self.keep_if_better(both) {
                    return true;
                }
            }
        }
        false
    }

    /// A new move list where `q`'s moves in `moves` are replaced by a cheapest plan found, if
    /// its estimated score is below `limit`. `absent`: the start of a queen that has no moves
    /// in `moves` and is left off the board; `only`: the one final cell allowed for `q`.
    fn plan(
        &mut self,
        q: usize,
        moves: &[Move],
        absent: Option<usize>,
        only: Option<usize>,
        limit: f64,
        out_of_time: &impl Fn() -> bool,
    ) -> Option<Vec<Move>> {
        let (n, nn) = (self.n, self.n * self.n);
        let (s, colour) = (self.starts[q], self.colours[q]);
        let owners = self.owners(moves);
        // the other queens' moves, and how many of them come before q's first move
        let mut rest = Vec::with_capacity(moves.len());
        let (mut first_time, mut last_time) = (NONE, NONE);
        for (mv, &o) in moves.iter().zip(&owners) {
            if o == q {
                if first_time == NONE {
                    first_time = rest.len();
                }
                last_time = rest.len();
            } else {
                rest.push(*mv);
            }
        }
        let rest_cost: f64 = rest.iter().map(|m| length(n, m.from, m.to).sqrt()).sum();

        // Play the other moves on the board without q. `first_touch[c]`: first move that
        // crosses or enters c; `last_touch[c]`: last move that crosses, enters or leaves c.
        let mut initial = self.board.cells.clone();
        initial[s] = EMPTY;
        if let Some(a) = absent {
            initial[a] = EMPTY;
        }
        let mut cells = initial.clone();
        let mut first_touch = vec![NONE; nn];
        let mut last_touch = vec![NONE; nn];
        for (i, mv) in rest.iter().enumerate() {
            for c in line_cells(n, mv.from, mv.to) {
                if first_touch[c] == NONE {
                    first_touch[c] = i;
                }
                last_touch[c] = i;
            }
            last_touch[mv.from] = i;
            cells[mv.to] = cells[mv.from];
            cells[mv.from] = EMPTY;
        }
        // q may stay on its start until the first move that needs it
        let latest = if first_touch[s] == NONE {
            rest.len()
        } else {
            first_touch[s]
        };
        let mut counts = LineCounts::new(n, self.board.colours);
        for (c, &v) in cells.iter().enumerate() {
            if v > 0 {
                counts.add(c, v as usize - 1);
            }
        }
        let base_errors = counts.errors;

        // Final cells ranked by lower bound: free from some time on, reachable in time.
        let walls_dist = self.paths.row(s);
        // (lower bound, cell, earliest time, score without q's moves)
        let mut targets: Vec<(f64, usize, usize, f64)> = Vec::new();
        for g in 0..nn {
            if cells[g] != EMPTY || only.is_some_and(|o| o != g) {
                continue; // a wall, or another queen ends there
            }
            let earliest = if last_touch[g] == NONE {
                0
            } else {
                last_touch[g] + 1
            };
            if (g == s && earliest > latest) || !walls_dist[g].is_finite() {
                continue;
            }
            let errors = base_errors + counts.add(g, colour);
            counts.remove(g, colour);
            let fixed = rest_cost + (errors * n) as f64;
            let bound = fixed + walls_dist[g] as f64;
            if bound < limit - EPS {
                targets.push((bound, g, earliest, fixed));
            }
        }
        if targets.is_empty() {
            return None;
        }
        targets.sort_by(|a, b| a.0.total_cmp(&b.0));
        targets.truncate(TARGETS_PER_QUEEN);

        let mut best: Option<Candidate> = None;
        for (rank, &(bound, g, earliest, fixed)) in targets.iter().enumerate() {
            if best.as_ref().is_some_and(|b| b.total <= bound) || out_of_time() {
                break;
            }
            if g == s {
                // drop: q never moves (its start is untouched, since earliest <= latest)
                best = Some(Candidate {
                    total: fixed,
                    blocks: Vec::new(),
                });
                continue;
            }
            let single = if earliest <= latest {
                insertion_times(earliest, latest, first_time)
            } else {
                Vec::new()
            };
            for time in single {
                if out_of_time() {
                    break;
                }
                board_at(&initial, &rest[..time], &mut cells);
                let board = &cells;
                self.search.run(s, |c| board[c] != EMPTY, Some(g));
                if !self.search.settled(g) {
                    continue;
                }
                let route = self.search.route(g);
                let cost: f64 = route.windows(2).map(|w| length(n, w[0], w[1]).sqrt()).sum();
                let total = fixed + cost;
                if best.as_ref().is_none_or(|b| total < b.total) {
                    best = Some(Candidate {
                        total,
                        blocks: vec![(time, route)],
                    });
                }
            }
            if rank < TWO_PHASE_TARGETS {
                let times = Times {
                    earliest,
                    latest,
                    first: first_time,
                    last: last_time,
                };
                if let Some(c) = self.two_phase(&initial, &rest, s, g, fixed, times, out_of_time) {
                    if best.as_ref().is_none_or(|b| c.total < b.total) {
                        best = Some(c);
                    }
                }
            }
        }
        let best = best.filter(|b| b.total < limit - EPS)?;
        let mut moves = Vec::with_capacity(rest.len() + 8);
        let mut done = 0;
        for (time, route) in &best.blocks {
            moves.extend_from_slice(&rest[done..*time]);
            done = *time;
            moves.extend(route.windows(2).map(|w| Move {
                from: w[0],
                to: w[1],
            }));
        }
        moves.extend_from_slice(&rest[done..]);
        // the bookkeeping above is checked by the referee before anything is kept
        Some(moves)
    }

    /// Two blocks for `q`: from its start `s` to a parking cell `m` at time `t1` (while `s`
    /// is still untouched), then from `m` to `g` at time `t2 >= t1` (once `g` is free for
    /// good), with `m` empty and untouched by the other moves between the two. Covers the
    /// queens that must leave their start before their final cell frees up.
    #[allow(clippy::too_many_arguments)]
    fn two_phase(
        &mut self,
        initial: &[i8],
        rest: &[Move],
        s: usize,
        g: usize,
        fixed: f64,
        times: Times,
        out_of_time: &impl Fn() -> bool,
    ) -> Option<Candidate> {
        let (n, nn) = (self.n, self.n * self.n);
        let mut t1s = vec![times.latest];
        if times.first != NONE {
            t1s.push(times.first.min(times.latest));
        }
        t1s.sort_unstable();
        t1s.dedup();
        let (mut at1, mut at2) = (initial.to_vec(), initial.to_vec());
        let (mut from_s, mut from_g) = (vec![0f32; nn], vec![0f32; nn]);
        let mut touched = vec![false; nn];
        let mut best: Option<(f32, usize, usize, usize)> = None;
        for &t1 in &t1s {
            board_at(initial, &rest[..t1], &mut at1);
            let board = &at1;
            self.search.run(s, |c| board[c] != EMPTY, None);
            self.search.copy_dist(&mut from_s);
            let mut t2s = vec![times.earliest.max(t1), rest.len()];
            if times.last != NONE {
                t2s.push(times.last.max(times.earliest).max(t1));
            }
            t2s.sort_unstable();
            t2s.dedup();
            for &t2 in &t2s {
                if out_of_time() {
                    return None;
                }
                board_at(initial, &rest[..t2], &mut at2);
                let board = &at2;
                self.search.run(g, |c| board[c] != EMPTY, None);
                self.search.copy_dist(&mut from_g);
                touched.fill(false);
                for mv in &rest[t1..t2] {
                    touched[mv.from] = true;
                    for c in line_cells(n, mv.from, mv.to) {
                        touched[c] = true;
                    }
                }
                for m in 0..nn {
                    if at1[m] != EMPTY || touched[m] {
                        continue;
                    }
                    let cost = from_s[m] + from_g[m];
                    if cost.is_finite() && best.is_none_or(|b| cost < b.0) {
                        best = Some((cost, m, t1, t2));
                    }
                }
            }
        }
        let (_, m, t1, t2) = best?;
        // the two routes again (the search keeps only its last run)
        board_at(initial, &rest[..t1], &mut at1);
        let board = &at1;
        self.search.run(s, |c| board[c] != EMPTY, Some(m));
        let first = self.search.route(m);
        board_at(initial, &rest[..t2], &mut at2);
        let board = &at2;
        self.search.run(m, |c| c != m && board[c] != EMPTY, Some(g));
        let second = self.search.route(g);
        if first.is_empty() || second.is_empty() {
            return None;
        }
        let cost: f64 = first
            .windows(2)
            .chain(second.windows(2))
            .map(|w| length(n, w[0], w[1]).sqrt())
            .sum();
        Some(Candidate {
            total: fixed + cost,
            blocks: vec![(t1, first), (t2, second)],
        })
    }
}

/// The window of one queen and one final cell: `q` may stay on its start until `latest`, the
/// final cell is free for good from `earliest` on; `first`/`last`: where `q`'s own moves were.
#[derive(Clone, Copy)]
struct Times {
    earliest: usize,
    latest: usize,
    first: usize,
    last: usize,
}

/// `out` = the board `initial` after `moves`.
fn board_at(initial: &[i8], moves: &[Move], out: &mut [i8]) {
    out.copy_from_slice(initial);
    for mv in moves {
        out[mv.to] = out[mv.from];
        out[mv.from] = EMPTY;
    }
}

/// Times to try in the window `earliest..=latest`: both ends, the original time and a few
/// evenly spread ones, ascending and distinct.
fn insertion_times(earliest: usize, latest: usize, original: usize) -> Vec<usize> {
    let mut times = vec![earliest, latest];
    if original != NONE {
        times.push(original.clamp(earliest, latest));
    }
    let span = latest - earliest;
    for k in 1..=TIMES_PER_TARGET {
        times.push(earliest + span * k / (TIMES_PER_TARGET + 1));
    }
    times.sort_unstable();
    times.dedup();
    times
}

/// Length of a straight move as `f64` (`from` and `to` on one line).
fn length(n: usize, from: usize, to: usize) -> f64 {
    let (r0, c0) = ((from / n) as i64, (from % n) as i64);
    let (r1, c1) = ((to / n) as i64, (to % n) as i64);
    (r1 - r0).abs().max((c1 - c0).abs()) as f64
}

/// The cells a straight move crosses or enters: strictly after `from`, up to `to` included.
fn line_cells(n: usize, from: usize, to: usize) -> impl Iterator<Item = usize> {
    let (r0, c0) = ((from / n) as i64, (from % n) as i64);
    let (r1, c1) = ((to / n) as i64, (to % n) as i64);
    let (dr, dc) = ((r1 - r0).signum(), (c1 - c0).signum());
    let len = (r1 - r0).abs().max((c1 - c0).abs());
    (1..=len).map(move |k| ((r0 + dr * k) * n as i64 + c0 + dc * k) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::WALL;
    use crate::solver::score::check_move;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn score(board: &Board, moves: &[Move]) -> f64 {
        replay(board, moves).expect("legal").score
    }

    #[test]
    fn drops_a_queen_whose_moves_cannot_escape_its_error() {
        // 3×3, one colour, queens on (0,0) and (2,2); walls on (0,1) and (1,0). Every cell the
        // first queen can reach attacks (2,2), so its moves are pure cost: they are dropped,
        // and then one step of the other queen, (2,2) → (1,2), ends the conflict.
        let board = Board::parse("3 1  1 -1 0  -1 0 0  0 0 1").unwrap();
        let moves = vec![Move { from: 0, to: 4 }, Move { from: 4, to: 2 }];
        assert_eq!(score(&board, &moves), 3.0 + 2.0);
        let after = improve(&board, moves, None);
        assert!(after.iter().all(|m| m.from != 0), "{after:?}");
        assert_eq!(score(&board, &after), 1.0, "{after:?}");
    }

    #[test]
    fn drops_a_queen_that_comes_back_home() {
        let board = Board::parse("3 2  1 0 0  0 2 0  0 0 0").unwrap();
        let moves = vec![Move { from: 0, to: 1 }, Move { from: 1, to: 0 }];
        assert!(improve(&board, moves, None).is_empty());
    }

    #[test]
    fn reroutes_around_a_blocker_that_moved_away() {
        // Colour 1 on (0,0) and (3,0), colour 2 on (0,1) and (3,1): each pair shares a column.
        // B = (0,1) goes to (2,3) first; A = (0,0) then detours (0,0)→(1,0)→(1,2)→(0,2),
        // although the row is free by then: (0,0)→(0,2) costs √2 instead of 1 + √2 + 1 (and
        // (0,1), one step away, is conflict-free too).
        let board = Board::parse("4 2  1 2 0 0  0 0 0 0  0 0 0 0  1 2 0 0").unwrap();
        let moves = vec![
            Move { from: 1, to: 11 },
            Move { from: 0, to: 4 },
            Move { from: 4, to: 6 },
            Move { from: 6, to: 2 },
        ];
        let before = score(&board, &moves);
        assert_eq!(replay(&board, &moves).unwrap().errors, 0);
        let after = improve(&board, moves, None);
        let o = replay(&board, &after).unwrap();
        assert_eq!(o.errors, 0, "{after:?}");
        assert!(o.score <= before - 2.0 + 1e-9, "{after:?}");
    }

    #[test]
    fn retargets_to_a_cheaper_free_cell() {
        // Queens (0,0) and (3,3) share a diagonal. The answer walks (0,0) → (0,1) → (2,1) →
        // (2,0) (cost 2 + √2), but (0,1), one step away, is already conflict-free.
        let board = Board::parse("4 1  1 0 0 0  0 0 0 0  0 0 0 0  0 0 0 1").unwrap();
        let moves = vec![
            Move { from: 0, to: 1 },
            Move { from: 1, to: 9 },
            Move { from: 9, to: 8 },
        ];
        let before = score(&board, &moves);
        assert_eq!(replay(&board, &moves).unwrap().errors, 0);
        let after = improve(&board, moves, None);
        let o = replay(&board, &after).unwrap();
        assert_eq!(o.errors, 0);
        assert!(o.score <= 1.0 + 1e-9, "{after:?}"); // (0,0) → (0,1) alone is conflict-free
        assert!(o.score < before);
    }

    #[test]
    fn swaps_the_final_cells_of_two_queens() {
        // 5×5, one colour, A = (0,0) and B = (0,2) share a row. The answer sends B to (2,0)
        // and A round to (1,3) (cost √2 + 1 + √2); the other way round costs √2 + 1.
        let board =
            Board::parse("5 1  1 0 1 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 0 0").unwrap();
        let moves = vec![
            Move { from: 2, to: 10 },
            Move { from: 0, to: 6 },
            Move { from: 6, to: 8 },
        ];
        let before = score(&board, &moves);
        let mut state = Improver::new(&board, moves, before);
        assert!(state.swap_queen(0, false, &|| false));
        let o = replay(&board, &state.moves).unwrap();
        assert_eq!(o.errors, 0);
        assert!(
            (o.score - (2f64.sqrt() + 1.0)).abs() < 1e-9,
            "{:?}",
            state.moves
        );
        // A ends on (2,0), B on (1,3)
        assert!(state.moves.contains(&Move { from: 0, to: 10 }));
    }

    /// A random legal move list: random queens make random legal moves.
    fn random_case(rng: &mut Xoshiro256PlusPlus) -> (Board, Vec<Move>) {
        let n = rng.random_range(3..=7);
        let colours = rng.random_range(1..=3);
        let mut cells = vec![EMPTY; n * n];
        for c in cells.iter_mut() {
            let x: f64 = rng.random();
            *c = if x < 0.1 {
                WALL
            } else if x < 0.45 {
                rng.random_range(1..=colours) as i8
            } else {
                EMPTY
            };
        }
        let board = Board {
            n,
            colours,
            cells: cells.clone(),
        };
        let mut moves = Vec::new();
        for _ in 0..rng.random_range(0..40) {
            let from = rng.random_range(0..n * n);
            let to = rng.random_range(0..n * n);
            let mv = Move { from, to };
            if check_move(n, &cells, mv).is_ok() {
                moves.push(mv);
                cells[to] = cells[from];
                cells[from] = EMPTY;
            }
        }
        (board, moves)
    }

    #[test]
    fn never_illegal_never_worse_on_random_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut gained = 0;
        for _ in 0..2000 {
            let (board, moves) = random_case(&mut rng);
            let before = score(&board, &moves);
            let after = improve(&board, moves, None);
            let o = replay(&board, &after).expect("improve returned an illegal list");
            assert!(o.score <= before + 1e-9, "{} > {before}", o.score);
            if o.score < before - 1e-9 {
                gained += 1;
            }
        }
        // random walks are wasteful: most lists must get better
        assert!(gained > 1000, "only {gained} of 2000 improved");
    }

    #[test]
    fn illegal_input_comes_back_unchanged() {
        let board = Board::parse("2 1  1 0  0 0").unwrap();
        let moves = vec![Move { from: 1, to: 0 }];
        assert_eq!(improve(&board, moves.clone(), None), moves);
    }

    #[test]
    fn insertion_times_stay_in_the_window() {
        let t = insertion_times(3, 20, 40);
        assert!(t.iter().all(|&x| (3..=20).contains(&x)));
        assert!(t.contains(&3) && t.contains(&20));
        assert_eq!(insertion_times(5, 5, NONE), vec![5]);
    }
}
