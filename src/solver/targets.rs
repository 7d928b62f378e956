//! Stage 2, target boards: where every queen should end.
//!
//! The state is the target cell of every queen. Hard rules are kept by construction: no two
//! targets share a cell and no target is a wall or unreachable. The annealed cost is an
//! estimate of the real score:
//!
//! `error_weight × (same-colour attacking pairs among the targets) + Σ dist(start, target)`
//!
//! with walls-only path costs, so a queen that stays where it stands costs nothing and errors
//! cost `N` each, as in the contest: an error is left where every fix costs more than `N`.
//!
//! Moves, all O(1) to evaluate:
//! * **column swap** of two same-colour targets `(r1,c1),(r2,c2) → (r1,c2),(r2,c1)`: the
//!   N-Queens permutation swap, keeping rows and columns intact; the cheaper of the two
//!   assignments of the new cells to the two queens is taken;
//! * **relocation** of one target along its row or column, or back to the queen's start;
//! * **three-cycle** of the columns of three same-colour targets (valid boards are often
//!   connected only through it);
//! * **assignment swap**: two same-colour queens exchange targets.
//!
//! A run may move one colour only ([`Schedule::only_colour`]), from a start made by
//! [`reset_colour`]: the solver's iterated local search re-plans one colour of its best board
//! at a time, which leaves the basins where whole-board runs freeze (breaking a valid colour
//! costs `N`).

use super::board::Queen;
use super::score::LineCounts;
use rand::Rng;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A target board: the target cell of every queen.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetBoard {
    /// Target cell of every queen (indexed like the queen list).
    pub cells: Vec<usize>,
    /// Same-colour attacking pairs among the targets.
    pub errors: usize,
    /// Σ walls-only path cost from each queen's start to its target.
    pub move_cost: f64,
}

/// What the annealer needs to know about the problem.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// Side of the board.
    pub n: usize,
    /// Number of colours.
    pub colours: usize,
    /// The queens.
    pub queens: &'a [Queen],
    /// Wall flags per cell.
    pub walls: &'a [bool],
    /// `dist[q * n² + cell]`: walls-only path cost from queen `q`'s start to `cell`.
    pub dist: &'a [f32],
}

/// Annealing schedule.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Cost of one attacking pair at the end (the contest charges `N`); the best board met is
    /// judged with it.
    pub error_weight: f64,
    /// Cost of one attacking pair at the start; it grows linearly to `error_weight`, so early
    /// on the search may cross boards with errors to reach cheaper ones.
    pub error_weight_start: f64,
    /// Number of proposed moves.
    pub iterations: u64,
    /// Start temperature.
    pub t0: f64,
    /// End temperature.
    pub t1: f64,
    /// Wall-clock length of the run: the schedule follows whichever of iterations and time
    /// runs out first.
    pub duration: Option<Duration>,
    /// When set, only the queens of this colour get new targets (the others stay fixed):
    /// re-planning one colour against the rest is a far smaller search than the whole board.
    pub only_colour: Option<usize>,
}

/// Zobrist keys: one random 64-bit word per (colour, cell), for deduplicating target boards.
#[derive(Clone, Debug)]
pub struct Zobrist {
    nn: usize,
    keys: Vec<u64>,
}

impl Zobrist {
    /// Keys for `colours` colours on `nn` cells.
    pub fn new(nn: usize, colours: usize, rng: &mut impl Rng) -> Zobrist {
        Zobrist {
            nn,
            keys: (0..nn * colours).map(|_| rng.random()).collect(),
        }
    }

    /// Hash of a set of coloured targets (independent of which queen goes where).
    pub fn hash(&self, queens: &[Queen], cells: &[usize]) -> u64 {
        queens
            .iter()
            .zip(cells)
            .fold(0, |h, (q, &cell)| h ^ self.keys[q.colour * self.nn + cell])
    }
}

/// Annealing state.
struct State<'a> {
    p: Problem<'a>,
    nn: usize,
    target: Vec<usize>,
    /// `owner[cell]`: 1 + queen whose target it is, 0 if none.
    owner: Vec<u32>,
    lines: LineCounts,
    move_cost: f64,
}

impl<'a> State<'a> {
    fn new(p: Problem<'a>, target: &[usize]) -> State<'a> {
        let nn = p.n * p.n;
        let mut owner = vec![0; nn];
        let mut lines = LineCounts::new(p.n, p.colours);
        let mut move_cost = 0.0;
        for (q, &cell) in target.iter().enumerate() {
            owner[cell] = q as u32 + 1;
            lines.add(cell, p.queens[q].colour);
            move_cost += p.dist[q * nn + cell] as f64;
        }
        State {
            p,
            nn,
            target: target.to_vec(),
            owner,
            lines,
            move_cost,
        }
    }

    #[inline]
    fn d(&self, q: usize, cell: usize) -> f64 {
        self.p.dist[q * self.nn + cell] as f64
    }

    /// Moves the target of `q` to `cell`; returns the change in errors.
    #[inline]
    fn set(&mut self, q: usize, cell: usize) -> i64 {
        let k = self.p.queens[q].colour;
        let old = self.target[q];
        let lost = self.lines.remove(old, k) as i64;
        self.owner[old] = 0;
        let gained = self.lines.add(cell, k) as i64;
        self.owner[cell] = q as u32 + 1;
        self.move_cost += self.d(q, cell) - self.d(q, old);
        self.target[q] = cell;
        gained - lost
    }

    fn board(&self) -> TargetBoard {
        TargetBoard {
            cells: self.target.clone(),
            errors: self.lines.errors,
            move_cost: self.move_cost,
        }
    }
}

/// `-ln(u)` for `u` at the centres of 4 096 equal steps of `(0, 1)`: a move that raises the
/// cost by `delta` is accepted when `delta <= -T ln(u)`, and a table lookup replaces the
/// logarithm of every iteration (the logarithm was 15 % of the annealing's time on seed 44).
fn neg_ln_table() -> &'static [f64; NEG_LN_SIZE] {
    static TABLE: OnceLock<[f64; NEG_LN_SIZE]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| -((i as f64 + 0.5) / NEG_LN_SIZE as f64).ln()))
}
const NEG_LN_SIZE: usize = 4096;

/// `x` (32 random bits) scaled into `0..len`.
#[inline]
fn below(x: u32, len: usize) -> usize {
    ((x as u64 * len as u64) >> 32) as usize
}

impl State<'_> {
    /// Keeps a move whose cost change `delta` is at most `threshold`, else undoes the target
    /// changes `undo` (latest first) and restores the path cost `before`.
    #[inline]
    fn settle(&mut self, delta: f64, threshold: f64, undo: &[(usize, usize)], before: f64) {
        if delta > threshold {
            for &(q, cell) in undo {
                self.set(q, cell);
            }
            self.move_cost = before;
        }
    }

    /// The N-Queens column swap of the targets of `q` and `q2` (same colour): the two new
    /// cells go to the two queens the cheaper way round.
    fn column_swap(&mut self, q: usize, q2: usize, w: f64, threshold: f64) {
        let n = self.p.n;
        let (t1, t2) = (self.target[q], self.target[q2]);
        let (r1, c1, r2, c2) = (t1 / n, t1 % n, t2 / n, t2 % n);
        if r1 == r2 || c1 == c2 {
            return;
        }
        let (a, b) = (r1 * n + c2, r2 * n + c1);
        if self.p.walls[a] || self.p.walls[b] || self.owner[a] != 0 || self.owner[b] != 0 {
            return;
        }
        let (qa, qb) = if self.d(q, a) + self.d(q2, b) <= self.d(q, b) + self.d(q2, a) {
            (q, q2)
        } else {
            (q2, q)
        };
        if !(self.d(qa, a) + self.d(qb, b)).is_finite() {
            return;
        }
        let before = self.move_cost;
        let (old_a, old_b) = (self.target[qa], self.target[qb]);
        let de = self.set(qa, a) + self.set(qb, b);
        let delta = w * de as f64 + self.move_cost - before;
        self.settle(delta, threshold, &[(qb, old_b), (qa, old_a)], before);
    }

    /// A three-cycle of the columns of the targets of `q`, `q2`, `q3` (same colour): valid
    /// boards are often connected only through it.
    fn three_cycle(&mut self, q: usize, q2: usize, q3: usize, w: f64, threshold: f64) {
        let n = self.p.n;
        if q2 == q || q3 == q || q2 == q3 {
            return;
        }
        let (t1, t2, t3) = (self.target[q], self.target[q2], self.target[q3]);
        let (r1, c1, r2, c2, r3, c3) = (t1 / n, t1 % n, t2 / n, t2 % n, t3 / n, t3 % n);
        if r1 == r2 || r1 == r3 || r2 == r3 || c1 == c2 || c1 == c3 || c2 == c3 {
            return;
        }
        let (a, b, c) = (r1 * n + c2, r2 * n + c3, r3 * n + c1);
        let blocked = |x: usize| self.p.walls[x] || self.owner[x] != 0;
        if blocked(a) || blocked(b) || blocked(c) {
            return;
        }
        if !(self.d(q, a) + self.d(q2, b) + self.d(q3, c)).is_finite() {
            return;
        }
        let before = self.move_cost;
        let de = self.set(q, a) + self.set(q2, b) + self.set(q3, c);
        let delta = w * de as f64 + self.move_cost - before;
        self.settle(delta, threshold, &[(q3, t3), (q2, t2), (q, t1)], before);
    }

    /// Two same-colour queens exchange targets: only the path costs change.
    fn assignment_swap(&mut self, q: usize, q2: usize, threshold: f64) {
        let (t1, t2) = (self.target[q], self.target[q2]);
        let delta = self.d(q, t2) + self.d(q2, t1) - self.d(q, t1) - self.d(q2, t2);
        if delta <= threshold {
            self.target[q] = t2;
            self.target[q2] = t1;
            self.owner[t2] = q as u32 + 1;
            self.owner[t1] = q2 as u32 + 1;
            self.move_cost += delta;
        }
    }

    /// The target of `q` moves to `cell`; when the cell is another queen's target (of the
    /// colour `only` when set), the two queens exchange targets.
    fn relocate(&mut self, q: usize, cell: usize, only: Option<usize>, w: f64, threshold: f64) {
        let t = self.target[q];
        if cell == t || self.p.walls[cell] || !self.d(q, cell).is_finite() {
            return;
        }
        let other = self.owner[cell];
        let before = self.move_cost;
        if other == 0 {
            let de = self.set(q, cell);
            let delta = w * de as f64 + self.move_cost - before;
            self.settle(delta, threshold, &[(q, t)], before);
            return;
        }
        let q2 = other as usize - 1;
        let (k, k2) = (self.p.queens[q].colour, self.p.queens[q2].colour);
        if !self.d(q2, t).is_finite() || only.is_some_and(|o| o != k2) {
            return;
        }
        // q2 to a parking cell is avoided: exchange via the colour counters directly
        let de = self.lines.remove(t, k) as i64 + self.lines.remove(cell, k2) as i64;
        let dg = self.lines.add(cell, k) as i64 + self.lines.add(t, k2) as i64;
        let dcost = self.d(q, cell) + self.d(q2, t) - self.d(q, t) - self.d(q2, cell);
        let delta = w * (dg - de) as f64 + dcost;
        if delta <= threshold {
            self.target[q] = cell;
            self.target[q2] = t;
            self.owner[cell] = q as u32 + 1;
            self.owner[t] = q2 as u32 + 1;
            self.move_cost = before + dcost;
        } else {
            self.lines.remove(cell, k);
            self.lines.remove(t, k2);
            self.lines.add(t, k);
            self.lines.add(cell, k2);
        }
    }

    /// One proposed move drawn from two random words: which queen, which kind of move (40 %
    /// column swaps, 5 % three-cycles, 35 % relocations, 20 % assignment swaps), the partners
    /// and the acceptance threshold.
    #[inline]
    fn propose(&mut self, x: u64, y: u64, moves: &Moves<'_>, w: f64, temp: f64) {
        let q = moves.movers[below(x as u32, moves.movers.len())];
        let kind = (((x >> 32) & 0xffff) * 100) >> 16;
        let threshold = temp * moves.neg_ln[(x >> 52) as usize];
        let mates = &moves.by_colour[self.p.queens[q].colour];
        let mate = |bits: u32| mates[below(bits, mates.len())];
        match kind {
            40..45 => {
                if mates.len() >= 3 {
                    self.three_cycle(q, mate(y as u32), mate((y >> 32) as u32), w, threshold);
                }
            }
            45..80 => {
                let n = self.p.n;
                let t = self.target[q];
                let cell = match kind % 3 {
                    0 => (t / n) * n + below(y as u32, n),
                    1 => below(y as u32, n) * n + t % n,
                    _ => self.p.queens[q].start,
                };
                self.relocate(q, cell, moves.only, w, threshold);
            }
            _ => {
                let q2 = mate(y as u32);
                if q2 == q {
                } else if kind >= 80 {
                    self.assignment_swap(q, q2, threshold);
                } else {
                    self.column_swap(q, q2, w, threshold);
                }
            }
        }
    }
}

/// What a run may move: the queens it re-plans, every colour's queens (to draw partners),
/// the colour it is limited to, and the threshold table.
struct Moves<'a> {
    movers: Vec<usize>,
    by_colour: Vec<Vec<usize>>,
    only: Option<usize>,
    neg_ln: &'a [f64; NEG_LN_SIZE],
}

/// Anneals from `start` (a valid target assignment: distinct, non-wall, reachable cells) and
/// returns the best target board met.
///
/// # Panics
/// If `start` puts two targets on one cell.
///
/// # Complexity
/// `O(1)` per iteration (every move changes at most three targets); `O(Q + N²)` to set up.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, paths::Paths, targets::*};
/// use rand::SeedableRng;
/// // 4×4, one colour, all four queens on the first row: 6 row errors.
/// let board = Board::parse("4 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0").unwrap();
/// let queens = board.queens();
/// let mut paths = Paths::new(4, board.walls());
/// let dist: Vec<f32> = queens.iter().flat_map(|q| paths.row(q.start).to_vec()).collect();
/// let walls = board.walls();
/// let problem = Problem { n: 4, colours: 1, queens: &queens, walls: &walls, dist: &dist };
/// let schedule = Schedule { error_weight: 4.0, error_weight_start: 1.0, iterations: 200_000, t0: 2.0, t1: 0.05, duration: None, only_colour: None };
/// let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
/// let start: Vec<usize> = queens.iter().map(|q| q.start).collect();
/// let best = anneal(problem, &start, schedule, &mut rng);
/// assert_eq!(best.errors, 0); // a 4-queens solution
/// ```
pub fn anneal(
    p: Problem<'_>,
    start: &[usize],
    schedule: Schedule,
    rng: &mut impl Rng,
) -> TargetBoard {
    let began = Instant::now();
    let nq = p.queens.len();
    let mut s = State::new(p, start);
    assert_eq!(
        s.owner.iter().filter(|&&o| o != 0).count(),
        nq,
        "targets must be distinct"
    );
    // Queens of each colour, to draw same-colour partners.
    let mut by_colour: Vec<Vec<usize>> = vec![Vec::new(); p.colours];
    for (q, queen) in p.queens.iter().enumerate() {
        by_colour[queen.colour].push(q);
    }
    let movers: Vec<usize> = match schedule.only_colour {
        Some(k) => by_colour[k].clone(),
        None => (0..nq).collect(),
    };
    if movers.len() < 2 {
        return s.board();
    }
    let moves = Moves {
        movers,
        by_colour,
        only: schedule.only_colour,
        neg_ln: neg_ln_table(),
    };
    let w_end = schedule.error_weight;
    let mut w = schedule.error_weight_start;
    let mut best = s.board();
    let mut best_cost = w_end * s.lines.errors as f64 + s.move_cost;
    let mut temp = schedule.t0;
    let ratio = schedule.t1 / schedule.t0;
    let total = schedule.iterations.max(1);
    for it in 0..total {
        if it & 1023 == 0 {
            let mut progress = it as f64 / total as f64;
            if let Some(d) = schedule.duration {
                progress = progress.max(began.elapsed().as_secs_f64() / d.as_secs_f64());
            }
            if progress >= 1.0 {
                break;
            }
            temp = schedule.t0 * ratio.powf(progress);
            w = schedule.error_weight_start + (w_end - schedule.error_weight_start) * progress;
        }
        s.propose(rng.next_u64(), rng.next_u64(), &moves, w, temp);
        let cost = w_end * s.lines.errors as f64 + s.move_cost;
        if cost < best_cost - 1e-9 {
            best_cost = cost;
            best.cells.copy_from_slice(&s.target);
            best.errors = s.lines.errors;
            best.move_cost = s.move_cost;
        }
    }
    // Recompute the cost exactly (the running sum drifts by rounding).
    best.move_cost = best
        .cells
        .iter()
        .enumerate()
        .map(|(q, &cell)| p.dist[q * s.nn + cell] as f64)
        .sum();
    best
}

/// The targets of `best` with colour `colour` partly sent back to the starts: each queen of
/// the colour, with probability `share`, goes to its start when no other target is there; the
/// others keep their target when still free, else take the first free cell they can reach
/// (`dist` as in [`Problem`]). The result is a valid annealing start for a one-colour run
/// ([`Schedule::only_colour`]); `None` if some queen finds no free cell it can reach.
///
/// # Panics
/// If `share` is not in `0..=1`.
///
/// # Complexity
/// `O(Q + N²)` for `Q` queens, plus `O(N²)` per queen that must look for a free cell.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, targets::reset_colour};
/// use rand::SeedableRng;
/// // input colour 1 (solver colour 0) at cells 0 and 4, colour 2 at cell 8; in `best` the
/// // two colour-0 queens have swapped cells
/// let board = Board::parse("3 2  1 0 0  0 1 0  0 0 2").unwrap();
/// let queens = board.queens();
/// let dist = vec![1.0f32; queens.len() * 9];
/// let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
/// let cells = reset_colour(&queens, &board.walls(), &dist, &[4, 0, 8], 0, 1.0, &mut rng);
/// assert_eq!(cells, Some(vec![0, 4, 8])); // share 1: every colour-0 queen back home
/// ```
pub fn reset_colour(
    queens: &[Queen],
    walls: &[bool],
    dist: &[f32],
    best: &[usize],
    colour: usize,
    share: f64,
    rng: &mut impl Rng,
) -> Option<Vec<usize>> {
    let nn = walls.len();
    let mut cells = best.to_vec();
    let mut used = walls.to_vec();
    for (q, &cell) in best.iter().enumerate() {
        if queens[q].colour != colour {
            used[cell] = true;
        }
    }
    let mut placed = vec![false; queens.len()];
    for (q, queen) in queens.iter().enumerate() {
        if queen.colour == colour && !used[queen.start] && rng.random_bool(share) {
            used[queen.start] = true;
            cells[q] = queen.start;
            placed[q] = true;
        }
    }
    for (q, queen) in queens.iter().enumerate() {
        if queen.colour != colour || placed[q] {
            continue;
        }
        if used[cells[q]] {
            cells[q] = (0..nn).find(|&c| !used[c] && dist[q * nn + c].is_finite())?;
        }
        used[cells[q]] = true;
    }
    Some(cells)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::solver::{board::Board, paths::Paths, score::errors};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The queens, walls and walls-only distance table of `board`, for a [`Problem`].
    pub(crate) fn walls_only_problem(board: &Board) -> (Vec<Queen>, Vec<bool>, Vec<f32>) {
        let queens = board.queens();
        let walls = board.walls();
        let mut paths = Paths::new(board.n, walls.clone());
        let dist = queens
            .iter()
            .flat_map(|q| paths.row(q.start).to_vec())
            .collect();
        (queens, walls, dist)
    }

    /// Hard rules of a target board (distinct cells, no wall) and its reported errors.
    fn assert_valid(board: &Board, queens: &[Queen], walls: &[bool], found: &TargetBoard) {
        let mut cells = vec![0i8; board.n * board.n];
        for (q, &t) in found.cells.iter().enumerate() {
            assert!(!walls[t]);
            assert_eq!(cells[t], 0, "two targets on one cell");
            cells[t] = queens[q].colour as i8 + 1;
        }
        assert_eq!(found.errors, errors(board.n, board.colours, &cells));
    }

    #[test]
    fn annealed_boards_are_valid_and_consistent() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for n in [8, 11, 14, 17, 20, 23, 26, 30] {
            for c in 1..=6 {
                let board = Board::random(n, c, 0.05, &mut rng);
                let (queens, walls, dist) = walls_only_problem(&board);
                let problem = Problem {
                    n,
                    colours: c,
                    queens: &queens,
                    walls: &walls,
                    dist: &dist,
                };
                // errors made expensive: this test is about finding valid boards
                let w = 100.0 * n as f64;
                let schedule = Schedule {
                    error_weight: w,
                    error_weight_start: w,
                    iterations: 20_000 * (n * c) as u64,
                    t0: 300.0,
                    t1: 0.05,
                    duration: None,
                    only_colour: None,
                };
                let start: Vec<usize> = queens.iter().map(|q| q.start).collect();
                let best = anneal(problem, &start, schedule, &mut rng);
                assert_valid(&board, &queens, &walls, &best);
                // the reported cost is the real one
                let cost: f64 = (0..queens.len())
                    .map(|q| dist[q * n * n + best.cells[q]] as f64)
                    .sum();
                assert!((cost - best.move_cost).abs() < 1e-6);
                // never worse than leaving the board as it is
                let start_errors = errors(n, c, &board.cells);
                let est = best.errors as f64 * w + best.move_cost;
                assert!(est <= start_errors as f64 * w + 1e-9);
                // with few walls and room to spare, a board with no errors is found
                if 4 * c <= n {
                    assert_eq!(best.errors, 0, "n={n} c={c}");
                }
            }
        }
    }

    /// One-colour runs (the iterated local search of the solver): starts made by
    /// `reset_colour` are valid, and annealing them moves only the chosen colour.
    #[test]
    fn one_colour_runs_keep_the_other_colours() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for (n, c) in [(8, 2), (12, 3), (19, 4), (25, 4), (30, 6)] {
            let board = Board::random(n, c, 0.2, &mut rng);
            let (queens, walls, dist) = walls_only_problem(&board);
            let problem = Problem {
                n,
                colours: c,
                queens: &queens,
                walls: &walls,
                dist: &dist,
            };
            let schedule = Schedule {
                error_weight: n as f64,
                error_weight_start: n as f64,
                iterations: 2_000 * (n * c) as u64,
                t0: 2.0,
                t1: 0.05,
                duration: None,
                only_colour: None,
            };
            let start: Vec<usize> = queens.iter().map(|q| q.start).collect();
            let mut best = anneal(problem, &start, schedule, &mut rng).cells;
            for _ in 0..20 {
                let colour = rng.random_range(0..c);
                let share = rng.random_range(0.0..=1.0);
                let cells = reset_colour(&queens, &walls, &dist, &best, colour, share, &mut rng)
                    .expect("a free reachable cell exists on these boards");
                // a valid start: distinct, no wall, reachable; other colours untouched
                let mut taken = vec![false; n * n];
                for (q, &t) in cells.iter().enumerate() {
                    assert!(!walls[t] && !taken[t] && dist[q * n * n + t].is_finite());
                    taken[t] = true;
                    if queens[q].colour != colour {
                        assert_eq!(t, best[q]);
                    }
                }
                let schedule = Schedule {
                    only_colour: Some(colour),
                    iterations: 2_000 * n as u64,
                    ..schedule
                };
                let found = anneal(problem, &cells, schedule, &mut rng);
                for (q, (&t, &before)) in found.cells.iter().zip(&cells).enumerate() {
                    if queens[q].colour != colour {
                        assert_eq!(t, before, "queen {q} of another colour moved");
                    }
                }
                assert_valid(&board, &queens, &walls, &found);
                best = found.cells;
            }
        }
    }
}
