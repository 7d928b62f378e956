//! A certified lower bound on the score of every legal answer: a Lagrangian relaxation whose
//! steps are assignment problems. The proof is in `docs/solver.md` ("The certified lower
//! bound"); in short:
//!
//! * **Relaxation.** Every queen ends on a distinct free cell `j`, paying the walls-only
//!   distance `d(q, j)` (cheapest `Σ √L` of queen moves blocked by walls only: no legal route
//!   is cheaper), plus `N` per same-colour attacking pair of the final cells. Any subset of the
//!   queens relaxes further (all terms are non-negative).
//! * **Pairs.** A line (row, column, diagonal, anti-diagonal) holding `k` queens of one colour
//!   makes `C(k, 2)` pairs, and `N·C(k, 2) ≥ λ·(k − 1)` for every integer `k ≥ 0` when
//!   `0 ≤ λ ≤ N`.
//! * **Cells.** With prices `p_j ≥ 0` on the cells, `Σ_q p_{cell(q)} ≤ Σ_j p_j` for distinct
//!   cells.
//!
//! So for any weights `λ ∈ [0, N]` and prices `p ≥ 0` every answer scores at least
//! `B(λ, p) = Σ_q min_j (d(q, j) + Λ_q(j) + p_j) − Σ_j p_j − Σ λ` (`certificate`), where
//! `Λ_q(j)` sums the weights of `q`'s colour on `j`'s four lines. The weights and the prices
//! climb together by projected subgradient (`joint`, thousands of `O(Q·M)` steps a second);
//! then one assignment problem at the best weights (Hungarian method, `Hungarian`, warm-started
//! from the best prices) gives the optimal prices for them and a real relaxed answer. Every
//! bound is evaluated from `(λ, p)` by the formula, so it stays valid whatever the iterate, the
//! step size or the deadline.
//!
//! Then two cases (`cases`): an error-free answer puts every colour on an N-Queens board, whose
//! cheapest matching the one-colour branch and bound of stage 2 bounds (exactly where it
//! finishes); an answer with errors pays at least `L_μ + N − μ` for any penalty `μ ≤ N`, and
//! `N` per error plus the error-free bound with a queen dropped per error (`one_error`). The
//! bound is the plain one or, when larger, the smaller of the two cases'.
//!
//! On small boards (`proof::fits`) an exact A* search over board states, which knows that
//! pieces block each other (`proof`), raises the error-free case with the time left: when it
//! finishes, that case's bound is the least cost of an error-free answer.
//!
//! Elsewhere, where every colour's minimum is exact, a branch and bound on the cells two
//! colours' cheapest boards share (`branch`) raises the error-free case with the time left.

use super::board::{Board, DIRS, WALL};
pub use cases::Cases;
use hungarian::Hungarian;
pub use proof::{Proof, ProofStop};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cost of a cell a queen cannot reach, for the Hungarian method only (the certificate skips
/// such cells): far above any sum of reachable costs.
const UNREACHABLE: f64 = 1e9;

/// Why [`lower_bound`] stopped climbing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundStop {
    /// The bound met the relaxed answer: the relaxation is solved exactly.
    Exact,
    /// The step size fell below its floor (the bound stopped improving), or no ascent
    /// direction was left.
    Converged,
    /// The climb's step cap was reached.
    Steps,
    /// The deadline came first (the bound is the best one certified before it).
    Deadline,
}

/// A certified lower bound and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerBound {
    /// No legal answer scores below this (rounded down for floating point).
    pub value: f64,
    /// Score of the relaxed answer of the final assignment problem (walls-only distances plus
    /// `N` per pair, queens on distinct cells): the relaxation's optimum lies in
    /// `[value, relaxed]`. Infinite when the deadline came before that assignment.
    pub relaxed: f64,
    /// Subgradient steps, plus one for the final assignment problem when it was solved.
    pub steps: usize,
    /// Queens in the relaxation: all of them unless the deadline cut the distance tables short.
    pub queens: usize,
    /// Why the climb stopped.
    pub stop: BoundStop,
    /// The two cases' bounds (error-free answers, answers with errors), when they were
    /// computed: `value` is at least the smaller of the two.
    pub cases: Option<Cases>,
    /// The proof search with blocking, when it ran (small boards): `value` is at least the
    /// smaller of its bound on error-free answers and the bound on answers with errors.
    pub proof: Option<Proof>,
}

/// A certified lower bound on the score of every legal answer for `board`, computed until
/// `deadline` at the latest (any iterate is valid, so a cut run returns the best so far).
///
/// # Complexity
/// Distance tables `O(Q·M·N·log M)` for `Q` queens and `M` free cells, then `O(Q·M)` per
/// subgradient step until the step size falls below its floor, then one Hungarian solve
/// (`O(M³)` at worst, short paths from near-optimal prices); then the two cases: a few more
/// climbs and one branch and bound per colour (exponential at worst, cut by `deadline`), and
/// where every colour's minimum is exact and the proof search does not apply, a branch and
/// bound on contested cells with the time left (`branch`). On
/// contest boards the plain bound takes at most 0.3 s; the cases' searches use the rest of
/// the deadline where they do not finish (N ≳ 17).
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, lower_bound::lower_bound};
/// use std::time::{Duration, Instant};
/// let deadline = Instant::now() + Duration::from_secs(1);
/// // four queens of one colour on the top row of a 4 × 4 board: 6 pairs × 4 if nothing moves
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let bound = lower_bound(&board, deadline);
/// assert!(bound.value > 2.0 && bound.value <= bound.relaxed);
/// // a valid 4-queens board: nothing to pay
/// let board = Board::parse("4 1  0 1 0 0  0 0 0 1  1 0 0 0  0 0 1 0").unwrap();
/// assert_eq!(lower_bound(&board, deadline).value, 0.0);
/// ```
pub fn lower_bound(board: &Board, deadline: Instant) -> LowerBound {
    lower_bound_within(board, deadline, f64::INFINITY)
}

/// [`lower_bound`] knowing that some answer scores `incumbent` (`∞` for none): the proof
/// search on small boards stores no state that cannot lead to a better error-free answer, so
/// it finishes sooner. The bound stays valid whatever `incumbent` is (a search that runs out
/// of states below it has proven that no error-free answer costs less); a true score makes it
/// strongest.
pub fn lower_bound_within(board: &Board, deadline: Instant, incumbent: f64) -> LowerBound {
    lower_bound_reporting(board, deadline, incumbent, &Progress::new())
}

/// The best bound certified so far by a running [`lower_bound_reporting`], for whoever
/// cannot wait for its end (a signal handler, a watchdog): raised as the search goes, read
/// at any time. Every value raised is a bound on every legal answer.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bits of the best value, a non-negative `f64` (such floats order like their bits).
    best: AtomicU64,
}

impl Progress {
    /// Nothing certified yet (0, the trivial bound).
    pub const fn new() -> Progress {
        Progress {
            best: AtomicU64::new(0),
        }
    }

    /// Records the certified bound `value` (kept when above the best so far).
    fn raise(&self, value: f64) {
        if value.is_finite() && value > 0.0 {
            self.best.fetch_max(value.to_bits(), Ordering::SeqCst);
        }
    }

    /// The best bound certified so far, rounded down as [`LowerBound::value`] is.
    pub fn value(&self) -> f64 {
        certified(f64::from_bits(self.best.load(Ordering::SeqCst)))
    }
}

/// [`lower_bound_within`], raising `progress` with every better bound it certifies on the
/// way (the plain climb's steps, each case, the proof search's least open value), so that a
/// caller on another thread can print the best so far at any moment.
pub fn lower_bound_reporting(
    board: &Board,
    deadline: Instant,
    incumbent: f64,
    progress: &Progress,
) -> LowerBound {
    let problem = Problem::new(board, deadline);
    let mut result = LowerBound {
        value: 0.0,
        relaxed: f64::INFINITY,
        steps: 0,
        queens: problem.queens.len(),
        stop: BoundStop::Deadline,
        cases: None,
        proof: None,
    };
    if problem.queens.is_empty() {
        result.stop = BoundStop::Exact;
        return result;
    }
    // the plain climb (weights capped at N) bounds every answer at every step
    let climbed = joint::climb_reporting(&problem, problem.n as f64, deadline, Some(progress));
    result.steps = climbed.steps;
    result.stop = climbed.stop;
    let mut best = climbed.best;
    // the polish costs a few steps' worth (building the costs, the first potentials, the
    // paths): not started without the time for it
    if climbed.steps == 0 || Instant::now() + climbed.per_step * 4 >= deadline {
        return finish(result, best, progress);
    }
    best = best.max(polish(&problem, &climbed, &mut result, deadline));
    progress.raise(best);
    let plain = best;
    // the proof search, where it fits, makes better use of the time than the branching
    let branching = !proof::fits(board.n, board.colours);
    let cases = cases::two_cases(&problem, &board.walls(), best, branching, deadline);
    best = best.max(cases.free.min(cases.errors));
    progress.raise(best);
    if problem.queens.len() == board.queens().len() {
        // both cases' bounds need every queen in the relaxation; the plain bound holds for
        // answers with errors too
        let errors = cases.errors.max(plain);
        let combined = |proven: f64| best.max(proven.max(cases.free).min(errors));
        let mut report = |proven: f64| progress.raise(combined(proven));
        if let Some(proof) =
            proof::prove_reporting(board, &cases.prices, incumbent, deadline, &mut report)
        {
            best = combined(proof.value);
            result.proof = Some(proof);
        }
    }
    result.cases = Some(cases);
    finish(result, best, progress)
}

/// Lets the one-colour proofs of the bound (each colour's least N-Queens board, see
/// [`Cases`]) run on up to `threads` threads from now on (at least 1, at most the cores the
/// process may use): the same floors, reached sooner. The default is 1.
pub fn set_proof_threads(threads: usize) {
    super::stage::exact::set_proof_threads(threads);
}

/// How long [`lower_bound_watched`] waits past its deadline for the search to end before it
/// takes the best bound certified so far instead.
pub const WATCH_GRACE: Duration = Duration::from_millis(40);

/// [`lower_bound_reporting`] on a thread of its own (a worker, see
/// [`crate::solver::memory`]), waited for until `deadline` plus [`WATCH_GRACE`] whatever it
/// is doing: `None` when it had not ended then or panicked (the best bound certified so far
/// is `progress.value()`). Runs on the calling thread when no thread can start.
pub fn lower_bound_watched(
    board: &Board,
    deadline: Instant,
    incumbent: f64,
    progress: &'static Progress,
) -> Option<LowerBound> {
    let (tx, rx) = mpsc::sync_channel(1);
    let owned = board.clone();
    let spawned = std::thread::Builder::new()
        .name("bound".to_string())
        .stack_size(super::RUN_STACK)
        .spawn(move || {
            super::memory::mark_worker();
            let _ = tx.send(lower_bound_reporting(&owned, deadline, incumbent, progress));
        });
    if spawned.is_err() {
        // a panic here, as on the thread, leaves the best bound so far to `progress`
        let here = || lower_bound_reporting(board, deadline, incumbent, progress);
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(here)).ok();
    }
    let wait = (deadline + WATCH_GRACE).saturating_duration_since(Instant::now());
    rx.recv_timeout(wait).ok()
}

/// The assignment problem at the climb's best weights, warm-started from its best prices: the
/// optimal prices for those weights (its bound, returned, is at least as good) and a real
/// assignment (the relaxed answer, in `result`). `−∞` when the deadline cut it.
fn polish(
    problem: &Problem,
    climbed: &joint::Climbed,
    result: &mut LowerBound,
    deadline: Instant,
) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut cost = vec![0.0; problem.queens.len() * problem.cells.len()];
    problem.costs(&climbed.weights, &mut cost);
    let mut hungarian = Hungarian::new(problem.cells.len());
    hungarian.start_from(&climbed.prices);
    if let Some(assigned) = hungarian.solve(problem.queens.len(), &cost, deadline) {
        result.steps += 1;
        best = problem.certificate(&climbed.weights, &hungarian.prices(), &cost);
        let counts = problem.line_counts(&assigned, climbed.weights.len());
        result.relaxed = problem.relaxed_score(&assigned, &counts);
        if result.relaxed - best.max(climbed.best) <= 1e-9 {
            result.stop = BoundStop::Exact;
        }
    }
    best
}

/// `result` with the best certified bound `best` (also raised in `progress`), rounded down
/// by [`certified`].
fn finish(mut result: LowerBound, best: f64, progress: &Progress) -> LowerBound {
    progress.raise(best);
    result.value = certified(best);
    result
}

/// `best` rounded down so that floating-point error in the distances and sums cannot lift it
/// above a true score (0 for anything not above 0).
fn certified(best: f64) -> f64 {
    if best > 0.0 {
        (best * (1.0 - 1e-12) - 1e-9).max(0.0)
    } else {
        0.0
    }
}

/// Lines per colour on an `n × n` board: `n` rows, `n` columns, `2n − 1` diagonals and
/// `2n − 1` anti-diagonals.
fn line_count(n: usize) -> usize {
    6 * n - 2
}

/// The four lines through `(r, c)`: row, column, diagonal `r − c`, anti-diagonal `r + c`.
fn lines_of(n: usize, r: usize, c: usize) -> [usize; 4] {
    [r, n + c, 2 * n + (r + n - 1 - c), 4 * n - 1 + r + c]
}

/// The relaxation's data: which queens, which cells, and the walls-only distances.
struct Problem {
    n: usize,
    /// Colour of each queen in the relaxation.
    queens: Vec<usize>,
    /// The free (non-wall) cells.
    cells: Vec<usize>,
    /// The four lines of each free cell.
    cell_lines: Vec<[usize; 4]>,
    /// `dist[q * M + j]`: walls-only distance of queen `q` to free cell `j` (infinite if
    /// unreachable).
    dist: Vec<f64>,
}

impl Problem {
    /// Tables for the queens of `board`, those in an attacking pair first; queens whose table is
    /// not done halfway to `deadline` are left out (a relaxation of fewer queens is still a
    /// bound).
    fn new(board: &Board, deadline: Instant) -> Problem {
        let n = board.n;
        let cells: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] != WALL).collect();
        let cell_lines = cells.iter().map(|&c| lines_of(n, c / n, c % n)).collect();
        let mut index = vec![usize::MAX; n * n];
        for (j, &c) in cells.iter().enumerate() {
            index[c] = j;
        }
        let mut starts: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] > 0).collect();
        let attacked = attacked(board);
        // attacked queens first, colour by colour, so that a cut-short table keeps pairs
        starts.sort_by_key(|&c| (!attacked[c], board.cells[c]));
        let m = cells.len();
        let walls = board.walls();
        let mut search = Dijkstra::new(n);
        let (mut queens, mut dist) = (Vec::new(), Vec::new());
        // the tables may take half the time left, so that some steps follow a cut
        let now = Instant::now();
        let tables_by = now + deadline.saturating_duration_since(now) / 2;
        for &start in &starts {
            if Instant::now() >= tables_by {
                break;
            }
            search.run(start, &walls);
            queens.push(board.cells[start] as usize - 1);
            dist.extend(cells.iter().map(|&c| search.dist[c]));
        }
        debug_assert_eq!(dist.len(), queens.len() * m);
        Problem {
            n,
            queens,
            cells,
            cell_lines,
            dist,
        }
    }

    /// `cost[q * M + j] = d(q, j) + Λ_q(j)` for the weights ([`UNREACHABLE`] where `d` is
    /// infinite).
    fn costs(&self, weights: &[f64], cost: &mut [f64]) {
        let (m, lines) = (self.cells.len(), line_count(self.n));
        for (q, &colour) in self.queens.iter().enumerate() {
            let w = &weights[colour * lines..(colour + 1) * lines];
            for j in 0..m {
                let d = self.dist[q * m + j];
                cost[q * m + j] = if d.is_finite() {
                    let [a, b, c, e] = self.cell_lines[j];
                    d + w[a] + w[b] + w[c] + w[e]
                } else {
                    UNREACHABLE
                };
            }
        }
    }

    /// The certified bound of weights `weights` and cell prices `prices ≥ 0`:
    /// `Σ_q min_j (cost + p_j) − Σ p − Σ λ` over the cells each queen can reach.
    fn certificate(&self, weights: &[f64], prices: &[f64], cost: &[f64]) -> f64 {
        let m = self.cells.len();
        let mut total = -prices.iter().sum::<f64>() - weights.iter().sum::<f64>();
        for q in 0..self.queens.len() {
            let row = &cost[q * m..(q + 1) * m];
            let dist = &self.dist[q * m..(q + 1) * m];
            total += (0..m)
                .filter(|&j| dist[j].is_finite())
                .map(|j| row[j] + prices[j])
                .fold(f64::INFINITY, f64::min);
        }
        total
    }

    /// Queens of each (colour, line) when queen `q` stands on free cell `assigned[q]`, indexed
    /// like the weights (`total` of them).
    fn line_counts(&self, assigned: &[usize], total: usize) -> Vec<u32> {
        let lines = line_count(self.n);
        let mut counts = vec![0u32; total];
        for (q, &j) in assigned.iter().enumerate() {
            for line in self.cell_lines[j] {
                counts[self.queens[q] * lines + line] += 1;
            }
        }
        counts
    }

    /// The relaxation's score of an assignment: distances plus `N` per same-colour pair.
    fn relaxed_score(&self, assigned: &[usize], counts: &[u32]) -> f64 {
        let m = self.cells.len();
        let moves: f64 = assigned
            .iter()
            .enumerate()
            .map(|(q, &j)| self.dist[q * m + j])
            .sum();
        let pairs: u64 = counts
            .iter()
            .map(|&k| k as u64 * (k as u64).saturating_sub(1) / 2)
            .sum();
        moves + (pairs * self.n as u64) as f64
    }
}

/// `true` on the start cell of every queen that attacks a queen of its colour.
fn attacked(board: &Board) -> Vec<bool> {
    let n = board.n;
    let lines = line_count(n);
    let mut counts = vec![0u32; board.colours * lines];
    let queens: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] > 0).collect();
    let key = |c: usize| (board.cells[c] as usize - 1) * lines;
    for &c in &queens {
        for line in lines_of(n, c / n, c % n) {
            counts[key(c) + line] += 1;
        }
    }
    let mut out = vec![false; n * n];
    for &c in &queens {
        out[c] = lines_of(n, c / n, c % n)
            .iter()
            .any(|&l| counts[key(c) + l] > 1);
    }
    out
}

/// Dijkstra over queen moves blocked by walls only, a move of length `L` costing `√L`, in
/// `f64` (the distances enter a certified bound).
struct Dijkstra {
    n: usize,
    sqrt: Vec<f64>,
    dist: Vec<f64>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Dijkstra {
    fn new(n: usize) -> Dijkstra {
        Dijkstra {
            n,
            sqrt: (0..=n).map(|l| (l as f64).sqrt()).collect(),
            dist: vec![f64::INFINITY; n * n],
            heap: BinaryHeap::new(),
        }
    }

    /// Fills `self.dist` with the distances from `source`.
    fn run(&mut self, source: usize, walls: &[bool]) {
        let n = self.n as i64;
        self.dist.fill(f64::INFINITY);
        self.dist[source] = 0.0;
        // non-negative f64 order like their bit patterns
        self.heap.push(Reverse((0f64.to_bits(), source)));
        while let Some(Reverse((bits, cell))) = self.heap.pop() {
            let d = f64::from_bits(bits);
            if d > self.dist[cell] {
                continue;
            }
            let (r, c) = (cell as i64 / n, cell as i64 % n);
            for &(dr, dc) in &DIRS {
                let (mut rr, mut cc, mut len) = (r + dr as i64, c + dc as i64, 1);
                while (0..n).contains(&rr) && (0..n).contains(&cc) {
                    let next = (rr * n + cc) as usize;
                    if walls[next] {
                        break;
                    }
                    let nd = d + self.sqrt[len];
                    if nd < self.dist[next] {
                        self.dist[next] = nd;
                        self.heap.push(Reverse((nd.to_bits(), next)));
                    }
                    rr += dr as i64;
                    cc += dc as i64;
                    len += 1;
                }
            }
        }
    }
}

mod branch;
mod cases;
mod floors;
mod hungarian;
mod joint;
mod one_error;
mod pool;
pub mod proof;
#[cfg(test)]
mod tests;
