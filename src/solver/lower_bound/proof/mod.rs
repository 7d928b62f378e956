//! Proofs with blocking: an exact A* search over board states for small boards
//! (`docs/solver.md`, "Proofs with blocking").
//!
//! A state is each colour's set of occupied cells (queens of one colour are interchangeable);
//! a step is one legal queen move (no jumping over pieces or walls) of length `L`, costing
//! `√L`. The goal states are the error-free ones: every colour on an N-Queens board. With cell
//! prices `p ≥ 0` (the relaxation's best), the heuristic of a state is
//! `h = max(0, Σ_c E_c(p) − Σ_j p_j, Σ_c E_c(0))`, where `E_c` is the cheapest matching of colour `c`'s queens
//! to the cells of any N-Queens board with costs `d(x, j) + p_j`, `d` the walls-only distance
//! (`heuristic`). Admissible: from the state to an error-free answer with boards `S_c`
//! (disjoint), the queens of `c` pay at least their matching to `S_c` with costs `d`, which is
//! at least `E_c − Σ_{j ∈ S_c} p_j`, and `Σ_c Σ_{j ∈ S_c} p_j ≤ Σ_j p_j`. Consistent: a move of
//! length `L` changes one queen's walls-only distance to any cell by at most `√L` (the move
//! is itself a walls-only route), so it changes one colour's `E_c` by at most `√L`, and `h` by
//! at most as much. So A* closes states for good, the first goal it pops is an error-free
//! answer of least cost, and at any moment the least `g + h` still open is a lower bound on
//! every error-free answer.
//!
//! Answers with errors are not goals here: the caller takes the smaller of this bound and
//! the relaxation's bound for answers with errors.

mod heuristic;
#[cfg(test)]
mod tests;

use super::super::board::{Board, DIRS};
use ahash::AHashMap;
use heuristic::{cells_of, Heuristic};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Most colours the search handles (a state is one 128-bit mask per colour).
pub const MAX_COLOURS: usize = 2;
/// Most cells (a colour's set of cells is a `u128`).
const MAX_CELLS: usize = 128;
/// Most states stored (about 100 bytes each with the open list); beyond, the search stops
/// with the bound it has.
pub const MAX_STATES: usize = 4_000_000;

/// Why the proof search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofStop {
    /// It popped an error-free state: `value` is the least cost of an error-free answer.
    Optimum,
    /// Nothing was left to search: no error-free answer costs less than the incumbent (or
    /// none exists at all without one).
    Exhausted,
    /// The deadline came first (`value` is the least open `g + h`).
    Deadline,
    /// [`MAX_STATES`] states were stored (`value` is the least open `g + h`).
    States,
}

/// What the proof search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// No error-free answer scores below this (`∞` when none exists).
    pub value: f64,
    /// Why it stopped: `value` is the error-free optimum for [`ProofStop::Optimum`].
    pub stop: ProofStop,
    /// States stored (reached).
    pub states: usize,
    /// States expanded (closed).
    pub expanded: usize,
}

/// `true` when the proof search can run on a board of side `n` with `colours` colours.
pub fn fits(n: usize, colours: usize) -> bool {
    n * n <= MAX_CELLS && (1..=MAX_COLOURS).contains(&colours)
}

/// One colour mask per colour (unused colours 0).
type State = [u128; MAX_COLOURS];
/// Each colour's `E_c`, with the prices and without them.
type Values = [[f64; MAX_COLOURS]; 2];

/// Where a new state comes from: its parent's values, and the move of one queen of `colour`
/// (whose cells were `mask`) from `from` to `to`.
#[derive(Clone, Copy)]
struct Parent {
    values: Values,
    colour: usize,
    mask: u128,
    from: usize,
    to: usize,
}

/// The A* search's tables.
struct Search {
    colours: usize,
    /// The priced heuristic, then the unpriced one (`h` is the larger of the two).
    heuristics: [Heuristic; 2],
    /// `rays[(cell * 8 + dir)]`: the free cells from `cell` in direction `dir`, nearest first,
    /// up to the first wall.
    rays: Vec<Vec<u8>>,
    /// `√L` for every length `L ≤ n`.
    sqrt: Vec<f64>,
    /// Index of every stored state.
    index: AHashMap<State, u32>,
    /// Per stored state: the state, the least cost found, each colour's `E_c`, closed or not.
    states: Vec<State>,
    cost: Vec<f64>,
    h: Vec<Values>,
    closed: Vec<bool>,
    /// Open entries: `(f, −g)` as ordered bits, and the state's index.
    open: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// States with a larger `g + h` are not stored: the incumbent plus [`CUT_MARGIN`].
    cut: f64,
    /// `Σ_j p_j`, taken off the priced `Σ_c E_c`.
    price_total: f64,
    /// When the search stops, even within an expansion (one may take milliseconds).
    deadline: Instant,
}

/// Above the incumbent, so that a goal whose cost equals the incumbent's score (summed in
/// another order) is still found.
const CUT_MARGIN: f64 = 1e-6;

/// The least cost of an error-free answer for `board` (exact when the search finishes), or a
/// lower bound on it when `deadline` or [`MAX_STATES`] comes first, with cell prices `prices`
/// in the heuristic (one per cell, each finite and `≥ 0`, else none are used; the stronger the
/// relaxation's bound at these prices, the fewer states). `incumbent`: a score some answer
/// reaches (`∞` for none); states whose `g + h` exceeds it are not stored, and a search
/// that runs out of states proves every error-free answer costs at least the incumbent.
/// `None` when the board is out of the search's reach ([`fits`]), a colour does not have
/// exactly `N` queens, or the tables were not ready by the deadline.
///
/// # Complexity
/// Exponential at worst: every state within the optimum's cost of the start may be expanded,
/// each `O(C·N·8·N)` moves, each new colour set matched against the N-Queens boards (`O(B·N)`
/// bounds and a few `O(N³)` matchings, remembered).
pub fn prove(board: &Board, prices: &[f64], incumbent: f64, deadline: Instant) -> Option<Proof> {
    prove_reporting(board, prices, incumbent, deadline, &mut |_| ())
}

/// [`prove`], calling `report` now and then with a lower bound on every error-free answer
/// certified so far (the least open `g + h`, at most the incumbent), for a caller that must
/// be able to print the best so far at any moment.
pub fn prove_reporting(
    board: &Board,
    prices: &[f64],
    incumbent: f64,
    deadline: Instant,
    report: &mut dyn FnMut(f64),
) -> Option<Proof> {
    let (n, colours) = (board.n, board.colours);
    let mut counts = vec![0; colours];
    for &v in board.cells.iter().filter(|&&v| v > 0) {
        counts[v as usize - 1] += 1;
    }
    // an error-free answer needs exactly N queens of every colour (the official rule)
    if !fits(n, colours) || counts.iter().any(|&k| k != n) {
        return None;
    }
    let walls = board.walls();
    let usable = prices.len() == n * n && prices.iter().all(|p| p.is_finite() && *p >= 0.0);
    let zeros = vec![0.0; n * n];
    let prices = if usable { prices } else { &zeros };
    let heuristics = [
        Heuristic::new(n, &walls, prices, deadline)?,
        Heuristic::new(n, &walls, &zeros, deadline)?,
    ];
    let mut search = Search::new(board, &walls, heuristics);
    search.cut = incumbent + CUT_MARGIN;
    search.price_total = prices.iter().sum();
    search.deadline = deadline;
    let mut start = [0u128; MAX_COLOURS];
    for (cell, &v) in board.cells.iter().enumerate() {
        if v > 0 {
            start[v as usize - 1] |= 1u128 << cell;
        }
    }
    search.offer(start, 0.0, None, f64::INFINITY);
    Some(search.run(incumbent, deadline, report))
}

impl Search {
    fn new(board: &Board, walls: &[bool], heuristics: [Heuristic; 2]) -> Search {
        let n = board.n;
        let mut rays = Vec::with_capacity(n * n * 8);
        for cell in 0..n * n {
            let (r, c) = ((cell / n) as i64, (cell % n) as i64);
            for &(dr, dc) in &DIRS {
                let mut ray = Vec::new();
                let (mut rr, mut cc) = (r + i64::from(dr), c + i64::from(dc));
                while (0..n as i64).contains(&rr) && (0..n as i64).contains(&cc) {
                    let next = (rr * n as i64 + cc) as usize;
                    if walls[next] {
                        break;
                    }
                    ray.push(next as u8);
                    rr += i64::from(dr);
                    cc += i64::from(dc);
                }
                rays.push(ray);
            }
        }
        Search {
            colours: board.colours,
            heuristics,
            rays,
            sqrt: (0..=n).map(|l| (l as f64).sqrt()).collect(),
            index: AHashMap::new(),
            states: Vec::new(),
            cost: Vec::new(),
            h: Vec::new(),
            closed: Vec::new(),
            open: BinaryHeap::new(),
            cut: f64::INFINITY,
            price_total: 0.0,
            deadline: Instant::now(),
        }
    }

    /// Records that `state` is reached at cost `g`; `known`: the parent it was reached from
    /// by one move (the other colours' `E_c` are the parent's). A new state is dropped when
    /// `g + h` exceeds the cut, and not stored yet when it exceeds `limit` (its `g + h` is
    /// returned: the parent stays open for it); a stored one is opened again only when `g` is
    /// lower than before.
    fn offer(&mut self, state: State, g: f64, known: Option<Parent>, limit: f64) -> Option<f64> {
        let at = match self.index.get(&state) {
            Some(&at) => {
                let at = at as usize;
                if self.closed[at] || self.cost[at] <= g {
                    return None;
                }
                self.cost[at] = g;
                at
            }
            None => {
                let mut h = [[0.0; MAX_COLOURS]; 2];
                for (which, values) in h.iter_mut().enumerate() {
                    for (c, value) in values.iter_mut().enumerate().take(self.colours) {
                        *value = match known {
                            Some(parent) if parent.colour != c => parent.values[which][c],
                            Some(p) => self.heuristics[which]
                                .value_after_move(state[c], p.mask, p.from, p.to),
                            None => self.heuristics[which].value(state[c]),
                        };
                    }
                }
                let f = g + self.h_of(&h);
                if f > self.cut {
                    return None;
                }
                if f > limit {
                    return Some(f);
                }
                let at = self.states.len();
                self.index.insert(state, at as u32);
                self.states.push(state);
                self.cost.push(g);
                self.h.push(h);
                self.closed.push(false);
                at
            }
        };
        let f = g + self.h_of(&self.h[at]);
        if f <= self.cut {
            self.push(f, g, at);
        }
        None
    }

    /// Opens state `at` with value `f` and cost `g`.
    fn push(&mut self, f: f64, g: f64, at: usize) {
        // non-negative floats order like their bits; ties go to the deeper state
        let key = (f.to_bits(), u64::MAX - g.to_bits(), at as u32);
        self.open.push(Reverse(key));
    }

    /// The heuristic from the colours' `E_c`: `max(0, Σ_c E_c(p) − Σ p, Σ_c E_c(0))` (the
    /// largest of consistent heuristics is consistent).
    fn h_of(&self, e: &Values) -> f64 {
        let priced = e[0][..self.colours].iter().sum::<f64>() - self.price_total;
        let plain = e[1][..self.colours].iter().sum::<f64>();
        priced.max(plain).max(0.0)
    }

    /// A* until a goal, an empty open list, the deadline or the state cap; `report` gets the
    /// least open value before every pop (a few nanoseconds against an expansion's
    /// microseconds to milliseconds).
    fn run(&mut self, incumbent: f64, deadline: Instant, report: &mut dyn FnMut(f64)) -> Proof {
        let mut expanded = 0;
        let stop = loop {
            // between expansions the open list bounds every error-free answer (stale entries
            // only lower its least value)
            report(self.open_bound().min(incumbent));
            if self.states.len() >= MAX_STATES {
                break ProofStop::States;
            }
            // the clock before every pop: an expansion that meets new colour sets matches them
            // against every N-Queens board (up to milliseconds), a clock read costs tens of
            // nanoseconds (a read every 64 expansions let seed 42 overrun 0.9 s by 80 ms)
            if Instant::now() >= deadline {
                break ProofStop::Deadline;
            }
            let Some(&Reverse((f, minus_g, at))) = self.open.peek() else {
                break ProofStop::Exhausted;
            };
            let at = at as usize;
            let state = self.states[at];
            // closed, or opened again since with a lower cost
            if self.closed[at] || u64::MAX - minus_g != self.cost[at].to_bits() {
                self.open.pop();
                continue;
            }
            if (0..self.colours).all(|c| self.heuristics[1].is_board(state[c])) {
                break ProofStop::Optimum;
            }
            self.open.pop();
            expanded += 1;
            self.expand(at, f64::from_bits(f));
        };
        let value = match stop {
            ProofStop::Optimum => {
                let Reverse((_, _, at)) = self.open.peek().expect("the goal");
                self.cost[*at as usize]
            }
            ProofStop::Exhausted => incumbent,
            ProofStop::Deadline | ProofStop::States => self.open_bound().min(incumbent),
        };
        report(value);
        Proof {
            value,
            stop,
            states: self.states.len(),
            expanded,
        }
    }

    /// The least `g + h` on the open list (`∞` when it is empty): every error-free answer
    /// passes through an open state, and `h` is consistent.
    fn open_bound(&self) -> f64 {
        self.open
            .peek()
            .map_or(f64::INFINITY, |Reverse((f, _, _))| f64::from_bits(*f))
    }

    /// Offers every state one legal queen move away from state `at`, storing those whose
    /// `g + h` is at most `limit` (partial expansion: most children of a state are never
    /// needed). The state is closed when every child was offered, else opened again with the
    /// least `g + h` of the children left out (still a lower bound through it).
    fn expand(&mut self, at: usize, limit: f64) {
        let (state, g, h) = (self.states[at], self.cost[at], self.h[at]);
        let mut left_out = f64::INFINITY;
        let occupied = state.iter().fold(0u128, |m, &s| m | s);
        for c in 0..self.colours {
            for from in cells_of(state[c]) {
                for dir in 0..8 {
                    for k in 0..self.rays[from * 8 + dir].len() {
                        let to = self.rays[from * 8 + dir][k] as usize;
                        if occupied >> to & 1 == 1 {
                            break;
                        }
                        // the clock before every child: a new colour set is matched against
                        // every N-Queens board (up to 16 ms at N = 11), and a check per
                        // queen let one queen's children run 0.2 s past the deadline
                        if Instant::now() >= self.deadline {
                            // cut: the state stays open with the value it was popped with
                            // (no child left out is below it), so the open list still
                            // bounds every answer
                            self.push(limit, g, at);
                            return;
                        }
                        let mut next = state;
                        next[c] ^= 1u128 << from | 1u128 << to;
                        let child = g + self.sqrt[k + 1];
                        let parent = Parent {
                            values: h,
                            colour: c,
                            mask: state[c],
                            from,
                            to,
                        };
                        if let Some(f) = self.offer(next, child, Some(parent), limit) {
                            left_out = left_out.min(f);
                        }
                    }
                }
            }
        }
        if left_out.is_finite() {
            self.push(left_out, g, at);
        } else {
            self.closed[at] = true;
        }
    }
}
