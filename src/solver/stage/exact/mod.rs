//! Stage 2, exact target boards for small boards: every colour an N-Queens solution that avoids the
//! walls, chosen to minimise the estimate (Σ path cost of the matched queens) on the walls-only
//! distance table, or on crowded boards on the table that also knows the pieces.
//!
//! The annealer of [`super::anneal`] (stage 3) settles in one basin per run; on small boards the whole
//! space of error-free target boards is small enough to search exactly (and with one colour a
//! search cut short still gives good boards):
//!
//! * **one colour** ([`best_boards`] with `C = 1`, N ≤ 32): a row-by-row depth-first search
//!   over the N-Queens boards avoiding the walls, with branch and bound on a Lagrangian lower
//!   bound of the matching cost (queen potentials and column/diagonal weights,
//!   `potentials`) and forward checking of the rows still open; complete boards are matched
//!   exactly (Hungarian method) and the best `keep` are kept. Beam searches over the same
//!   bounds come first (`one_colour::beam`): on big boards the search is cut short by its
//!   deadline, and the beams' boards are far better than a cut depth-first search's;
//! * **several colours** for N ≤ 14: every N-Queens board avoiding the walls is listed (a
//!   cell mask each), every colour is matched to every board (for N ≥ 12 only to the cheapest
//!   few hundred by a lower bound), a clique search on the disjointness of the boards proves
//!   quickly when no error-free board exists, and a depth-first search over the colours picks
//!   pairwise disjoint boards, bounded by the cheapest board of each colour still to choose.
//!
//! * **several colours** on bigger boards (N ≤ 32, `sequential`): one colour after another,
//!   each the one-colour search on the cells left by the colours before it, once per rotation
//!   of the colour order. Not exact, but at 1 s on the 52 seeds of 1–100 with C ≥ 2 and
//!   N ≥ 15 (side by side, one run each) its boards took the score to 0.874 of the build
//!   without them (52 better, 0 worse); at 10 s, 18 of those seeds: 0.924 (18 better);
//! * **colours chosen together** on those boards with [`TOGETHER_COLOURS`] colours or more
//!   (`together`): cell prices for "one piece per cell" push the colours' one-colour
//!   searches off each other's cells, and a master picks one of the boards found per colour,
//!   pairwise disjoint, of least total cost.
//!
//! The searches stop at a deadline and return what they found (the best so far). They only
//! know error-free boards: on crowded boards where every colour cannot be a valid N-Queens
//! board on its own cells, they find nothing and the annealer is left alone.

mod assignment;
mod colours;
mod instance;
mod one_colour;
mod potentials;
mod sequential;
mod together;

use crate::solver::board::{by_colour, Queen};
use crate::solver::budget::Budget;
use crate::solver::params::Params;
use crate::solver::problem::Problem;
use colours::several_colours;
pub(crate) use instance::as_kind;
pub use instance::{Instance, Kind, DUMP_MAX_PER_KIND, DUMP_VAR};
use one_colour::proof_threads;
pub(crate) use one_colour::{one_colour, one_colour_floor_counted};
use one_colour::{one_colour_floor, one_colour_turns};
pub(crate) use one_colour::{place_colour, place_colour_turned, set_proof_threads, Floor, TURNS};
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

/// Integer scale of path costs for the Hungarian method (as in [`super::assign`]).
const SCALE: f64 = 1e6;
/// Largest side searched with one colour, and by `sequential` (columns are kept in a
/// `u32`). The search finishes within its share of a 1 s budget up to N ≈ 15; beyond, cut
/// short, its best boards so far still beat the annealer's: 1 s, one colour, main against
/// this search (one run each, side by side): N = 14, 21 seeds, geometric mean 0.976 (12
/// better, 0 worse); N = 15–16, 30 seeds (N 13–16), 0.975; N = 17–18, 15 seeds, 0.965;
/// N = 19–30, 24 seeds, 0.942 (20 better, 4 worse).
pub const MAX_N_ONE_COLOUR: usize = 32;
/// Largest number of cells for several colours (one 256-bit mask per board): N ≤ 14. N = 15
/// (2.28 million boards unwalled) at 10 s, 9 seeds: 4 better, 3 worse, sum 703.0 → 706.4.
pub const MAX_CELLS_COLOURS: usize = 196;
/// Nodes of the search between two looks at the clock.
const CLOCK_EVERY: u32 = 1024;

/// One exact target board.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ExactBoard {
    /// Target cell of every queen (indexed like the queen list), matched per colour.
    pub(crate) cells: Vec<usize>,
    /// Σ path cost of the matching (on the distance table the search priced with).
    pub(crate) cost: f64,
}

/// How much an exact search keeps: its best `boards`, and with several colours the listed
/// N-Queens boards each colour may take (every one up to `options_all`, beyond only the
/// `options_per_colour` cheapest by a bound).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keep {
    pub(crate) boards: usize,
    pub(crate) options_all: usize,
    pub(crate) options_per_colour: usize,
}

impl Keep {
    /// The best `boards` boards, with the default option counts of [`Params`].
    #[cfg(test)]
    pub(crate) fn boards(boards: usize) -> Keep {
        let params = Params::default();
        Keep {
            boards,
            options_all: params.exact_options_all,
            options_per_colour: params.exact_options_per_colour,
        }
    }
}

/// Minimum-cost matching of `members` (queen indices) to `cells` by `dist[q * nn + cell]`:
/// the total cost (∞ if some queen cannot reach its cell) and the cell of each member.
fn matching(members: &[usize], cells: &[usize], dist: &[f32], nn: usize) -> (f64, Vec<usize>) {
    let k = members.len();
    let weights = Matrix::from_fn(k, k, |(i, j)| {
        let d = dist[members[i] * nn + cells[j]];
        if d.is_finite() {
            (d as f64 * SCALE).round() as i64
        } else {
            1 << 50
        }
    });
    let (_, columns) = kuhn_munkres_min(&weights);
    let mut cost = 0.0;
    let assigned: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, &j)| {
            cost += dist[members[i] * nn + cells[j]] as f64;
            cells[j]
        })
        .collect();
    (cost, assigned)
}

/// Stage 2 on `problem`: the best error-free boards on the walls-only table (from
/// `exact_pieces_colours` colours on, the table with the pieces), cheapest first
/// (as many as `exact_keep`, `exact_keep_big` beyond `exact_small_cells` cells), until
/// [`Budget::exact_end`]; at N = 14 with several colours the boards are listed only from a
/// compute budget of `exact_n14_budget` on, else made colour by colour. With one colour the
/// board is searched in every orientation, the first drawn from `seed`.
pub(crate) fn boards(
    problem: &Problem,
    budget: &Budget,
    params: &Params,
    seed: u64,
) -> Vec<ExactBoard> {
    let (n, colours) = (problem.n, problem.colours);
    let listing = !(n == 14 && colours > 1 && !budget.lists_n14());
    let listed = listing && lists_every_board(n, colours);
    let end = if listed {
        budget.exact_end_listing()
    } else {
        budget.exact_end(colours == 1, Instant::now())
    };
    let keep = Keep {
        boards: if n * n <= params.exact_small_cells {
            params.exact_keep
        } else {
            params.exact_keep_big
        },
        options_all: params.exact_options_all,
        options_per_colour: params.exact_options_per_colour,
    };
    let (walls, queens) = (&problem.walls, &problem.queens);
    // on crowded boards many cheapest cells are reachable only through walls-only lines the
    // pieces block: boards priced with the pieces route better there
    let dist = match problem.tables.last() {
        Some(pieces) if colours >= params.exact_pieces_colours => pieces.as_slice(),
        _ => problem.walls_only(),
    };
    match full_colours(queens, n) {
        Some(members) if members.len() == 1 && n <= MAX_N_ONE_COLOUR && keep.boards > 0 => {
            let mut found = one_colour_turns(n, walls, &members[0], dist, keep.boards, end, seed);
            let proven = proven_board(n, walls, (&members[0], queens.len()), dist, budget, params);
            if let Some(proven) = proven {
                found.insert(0, proven);
            }
            found
        }
        Some(members) if together_applies(n, colours, listed, budget) => {
            together::together(n, walls, &members, dist, keep.boards, end)
        }
        _ if listing => best_boards(n, walls, queens, dist, keep, end),
        _ => colour_by_colour(n, walls, queens, dist, end),
    }
}

/// With `prove_one_colour` seconds: the cheapest board of one colour (`members` of the
/// `queens` queens) by the proof of [`proven_floor`] on `prove_threads` threads (at most one
/// per core), when that proof finishes within its seconds and four fifths of the time left.
fn proven_board(
    n: usize,
    walls: &[bool],
    (members, queens): (&[usize], usize),
    dist: &[f32],
    budget: &Budget,
    params: &Params,
) -> Option<ExactBoard> {
    if params.prove_one_colour <= 0.0 {
        return None;
    }
    let now = Instant::now();
    let end = (now + Duration::from_secs_f64(params.prove_one_colour))
        .min(now + budget.end().saturating_duration_since(now).mul_f64(0.8));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = params.prove_threads.min(cores);
    match one_colour_floor(n, walls, members, dist, f64::NEG_INFINITY, end, threads) {
        Floor::Exact(cost, found) => {
            let mut cells = vec![0; queens];
            for (&q, cell) in members.iter().zip(found) {
                cells[q] = cell;
            }
            Some(ExactBoard { cells, cost })
        }
        Floor::AtLeast(_) => None,
    }
}

/// Least colours whose boards are chosen together ([`together`]) where not every N-Queens
/// board is listed, instead of one colour after another. At 10 s on the 33 seeds of 1–100
/// with C ≥ 4 and N ≥ 14 (one run each, side by side), together against `d33ae9b`: C = 4
/// 1.003 (11 seeds), C = 5 0.990 (12), C = 6 0.992 (10), mean per-seed ratio.
const TOGETHER_COLOURS: usize = 5;
/// Least compute budget (s) for choosing the colours together: at 1 s the rounds' searches
/// get too little time each (N = 30, C = 6: about 10 ms at 3 s already cost 10 % of the
/// colours' own boards, see `together::ROUNDS`); the 1 s run stays as it was.
const TOGETHER_BUDGET: f64 = 1.5;

/// Whether the exact boards of `colours` colours on an `n × n` board are chosen together
/// (not when every board is `listed`, and only from [`TOGETHER_BUDGET`] on).
fn together_applies(n: usize, colours: usize, listed: bool, budget: &Budget) -> bool {
    colours >= TOGETHER_COLOURS
        && !listed
        && n <= MAX_N_ONE_COLOUR
        && budget.compute().as_secs_f64() >= TOGETHER_BUDGET
}

/// The best (lowest estimate) error-free target boards, at most `keep`, best first; empty
/// when the board is too big for an exact search, when a colour does not have exactly `n`
/// queens, or when no error-free board exists. Stops at `deadline` with the best found so far.
///
/// `dist[q * n² + cell]`: walls-only path cost from queen `q`'s start to `cell`.
pub(crate) fn best_boards(
    n: usize,
    walls: &[bool],
    queens: &[Queen],
    dist: &[f32],
    keep: Keep,
    deadline: Instant,
) -> Vec<ExactBoard> {
    let Some(members) = full_colours(queens, n).filter(|_| keep.boards > 0) else {
        return Vec::new();
    };
    let colours = members.len();
    if colours == 1 && n <= MAX_N_ONE_COLOUR {
        one_colour(n, walls, &members[0], dist, keep.boards, deadline)
    } else if lists_every_board(n, colours) {
        several_colours(n, walls, &members, dist, keep, deadline)
    } else if colours > 1 && n <= MAX_N_ONE_COLOUR {
        sequential::sequential(n, walls, &members, dist, deadline)
    } else {
        Vec::new()
    }
}

/// A proven lower bound on the least cost of matching `n` queens of one colour to the cells
/// of an N-Queens board that avoids `walls`, over every such board, raised until `deadline`
/// (see [`Floor`]; `Floor::AtLeast(f64::NEG_INFINITY)` beyond [`MAX_N_ONE_COLOUR`]).
/// `dist[q * n² + cell]` is queen `q`'s cost of ending on `cell` (`∞` if it cannot), for
/// `q < n`; `floor` is a bound the caller already holds. An exact cost is exact up to the
/// matching's integer scale (at most `n · 0.5·10⁻⁶` above the least cost).
///
/// # Panics
/// If `dist` is not `n` rows of `n²` costs.
///
/// # Complexity
/// The branch and bound's, once per cap: exponential at worst; on contest boards it finds the
/// exact cost in milliseconds up to N ≈ 15 (`docs/solver.md`, "Two cases").
pub(crate) fn proven_floor(
    n: usize,
    walls: &[bool],
    dist: &[f32],
    floor: f64,
    deadline: Instant,
) -> Floor {
    assert_eq!(dist.len(), n * n * n, "n rows of n² costs");
    if n == 0 || n > MAX_N_ONE_COLOUR {
        return Floor::AtLeast(f64::NEG_INFINITY);
    }
    let members: Vec<usize> = (0..n).collect();
    one_colour_floor(n, walls, &members, dist, floor, deadline, proof_threads())
}

/// Whether [`best_boards`] lists every N-Queens board (several colours, at most
/// [`MAX_CELLS_COLOURS`] cells).
fn lists_every_board(n: usize, colours: usize) -> bool {
    colours > 1 && n * n <= MAX_CELLS_COLOURS
}

/// Error-free boards of several colours made one colour after another (`sequential`),
/// cheapest first: what [`best_boards`] gives on boards too big to list every N-Queens board,
/// here for any board of N ≤ [`MAX_N_ONE_COLOUR`] (empty otherwise, and when a colour does not
/// have exactly `n` queens). Stops at `deadline`.
pub(crate) fn colour_by_colour(
    n: usize,
    walls: &[bool],
    queens: &[Queen],
    dist: &[f32],
    deadline: Instant,
) -> Vec<ExactBoard> {
    match full_colours(queens, n) {
        Some(members) if n <= MAX_N_ONE_COLOUR => {
            sequential::sequential(n, walls, &members, dist, deadline)
        }
        _ => Vec::new(),
    }
}

/// The queens of each colour, when there is at least one colour and each has exactly `n`
/// queens (what every search here needs).
fn full_colours(queens: &[Queen], n: usize) -> Option<Vec<Vec<usize>>> {
    let members = by_colour(queens);
    (!members.is_empty() && members.iter().all(|m| m.len() == n)).then_some(members)
}

/// The best `keep` of a stream of scored boards (a max-heap on cost, so the worst is on top).
struct Best<T> {
    keep: usize,
    heap: BinaryHeap<Scored<T>>,
}

struct Scored<T>(f64, T);

impl<T> PartialEq for Scored<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl<T> Eq for Scored<T> {}
impl<T> PartialOrd for Scored<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Scored<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl<T> Best<T> {
    fn new(keep: usize) -> Best<T> {
        Best {
            keep,
            heap: BinaryHeap::new(),
        }
    }

    /// Costs at or above this cannot enter.
    fn threshold(&self) -> f64 {
        if self.heap.len() < self.keep {
            f64::INFINITY
        } else {
            self.heap.peek().map_or(f64::INFINITY, |s| s.0)
        }
    }

    fn offer(&mut self, cost: f64, item: T) {
        if cost < self.threshold() {
            self.heap.push(Scored(cost, item));
            if self.heap.len() > self.keep {
                self.heap.pop();
            }
        }
    }

    /// Best first.
    fn into_sorted(self) -> Vec<(f64, T)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|Scored(c, t)| (c, t))
            .collect()
    }
}

/// For every cell, the path cost of the nearest of the queens `members`: a lower bound on
/// what a target there costs.
fn nearest_queen(members: &[usize], dist: &[f32], nn: usize) -> Vec<f64> {
    (0..nn)
        .map(|c| {
            members
                .iter()
                .map(|&q| dist[q * nn + c] as f64)
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

/// The set bits of a mask, lowest first (see [`bits`]).
struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

/// The bits of `mask`, lowest first.
fn bits(mask: u32) -> Bits {
    Bits(mask)
}

#[cfg(test)]
mod tests;
