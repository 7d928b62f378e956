//! Stage 5, reordering: local search over the routing priority order, the assignment and the
//! target board itself, re-simulating every change and keeping it when the real score does
//! not get worse.

use super::board::{Board, Move};
use super::params::Params;
use super::paths::Paths;
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
    pub moves: Vec<Move>,
    /// Real score of `moves`.
    pub score: f64,
    /// Queens that paid more than their walls-only distance (detours, steps aside).
    pub delayed: Vec<usize>,
}

/// The fixed data of a search: the board, its queens and the walls-only distance cache.
pub struct Context<'a> {
    /// The initial board.
    pub board: &'a Board,
    /// Wall flags per cell.
    pub walls: &'a [bool],
    /// Start cell of every queen.
    pub starts: &'a [usize],
    /// Colour of every queen.
    pub colour: &'a [usize],
    /// Walls-only distances; rows of all start cells must be built.
    pub paths: &'a mut Paths,
    /// The tuning parameters.
    pub params: &'a Params,
}

impl Context<'_> {
    /// Routes `targets` with `order` and scores the best prefix of the moves (cut there).
    pub fn evaluate(
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
                let score = best_prefix(self.board, &[]).1;
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
        let plan = Plan {
            n: self.board.n,
            walls: self.walls,
            starts: self.starts,
            targets: &targets,
            home: &homes,
        };
        let limits = Limits {
            deadline,
            ..Limits::for_board(self.board.n, self.starts.len(), self.params)
        };
        let mut moves = route(plan, &order, limits);
        let (keep, score) = best_prefix(self.board, &moves);
        moves.truncate(keep);
        // what each queen paid, to aim the search at the queens that were held up
        let n = self.board.n;
        let mut at: Vec<u32> = vec![u32::MAX; n * n];
        for (q, &s) in self.starts.iter().enumerate() {
            at[s] = q as u32;
        }
        let mut paid = vec![0f32; self.starts.len()];
        for mv in &moves {
            let q = at[mv.from];
            at[mv.from] = u32::MAX;
            at[mv.to] = q;
            let len = super::board::line_length(n, mv.from, mv.to).unwrap_or(0);
            paid[q as usize] += (len as f32).sqrt();
        }
        let delayed = (0..self.starts.len())
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
    fn dist(&self, q: usize, cell: usize) -> f32 {
        self.paths
            .get(self.starts[q])
            .expect("start rows are built")[cell]
    }

    /// A random neighbour of `current`: one queen moved in the order (most often), two
    /// same-colour queens exchanging targets, or a column swap of two same-colour targets
    /// (a new target board, assigned the cheaper way round).
    fn neighbour(&self, current: &Routed, rng: &mut impl Rng) -> Option<(Vec<usize>, Vec<usize>)> {
        let nq = self.starts.len();
        let n = self.board.n;
        let mut order = current.order.clone();
        let mut targets = current.targets.clone();
        let kind = rng.random_range(0..100);
        if kind < 30 && !current.delayed.is_empty() {
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
        if kind < 60 {
            let from = rng.random_range(0..nq);
            let to = rng.random_range(0..nq);
            let q = order.remove(from);
            order.insert(to, q);
            return Some((targets, order));
        }
        let a = rng.random_range(0..nq);
        let b = rng.random_range(0..nq);
        if a == b || self.colour[a] != self.colour[b] {
            return None;
        }
        if kind < 80 {
            targets.swap(a, b);
            return Some((targets, order));
        }
        let (ta, tb) = (targets[a], targets[b]);
        let (x, y) = ((ta / n) * n + tb % n, (tb / n) * n + ta % n);
        let occupied = |cell: usize| self.walls[cell] || targets.contains(&cell);
        if ta / n == tb / n || ta % n == tb % n || occupied(x) || occupied(y) {
            return None;
        }
        if self.dist(a, x) + self.dist(b, y) <= self.dist(a, y) + self.dist(b, x) {
            targets[a] = x;
            targets[b] = y;
        } else {
            targets[a] = y;
            targets[b] = x;
        }
        if !(self.dist(a, targets[a]) + self.dist(b, targets[b])).is_finite() {
            return None;
        }
        Some((targets, order))
    }

    /// Local search from `current` until `deadline`, keeping changes that do not worsen the
    /// real score. Returns the best candidate and the number of simulations run.
    pub fn improve(
        &mut self,
        mut current: Routed,
        rng: &mut impl Rng,
        deadline: Instant,
    ) -> (Routed, usize) {
        let mut sims = 0;
        if self.starts.len() < 2 {
            return (current, sims);
        }
        while Instant::now() < deadline {
            let Some((targets, order)) = self.neighbour(&current, rng) else {
                continue;
            };
            let candidate = self.evaluate(targets, order, Some(deadline));
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
}

/// Polishes a legal move sequence: a queen's move and its next move become one move (played
/// at the time of either) when its two ends share a line, and a queen's trip out and back is
/// dropped; each change is kept only if the whole sequence stays legal and scores lower.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::{Board, Move}, reorder::polish};
/// let board = Board::parse("3 1  1 0 0  0 0 0  0 0 0").unwrap();
/// // two unit moves along the first row, then nothing in between: one move of length 2
/// let moves = vec![Move { from: 0, to: 1 }, Move { from: 1, to: 2 }];
/// assert_eq!(polish(&board, moves, None), vec![Move { from: 0, to: 2 }]);
/// ```
pub fn polish(board: &Board, mut moves: Vec<Move>, deadline: Option<Instant>) -> Vec<Move> {
    use super::board::line_length;
    use super::score::replay;
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
