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
//!   without them (52 better, 0 worse); at 10 s, 18 of those seeds: 0.924 (18 better).
//!
//! The searches stop at a deadline and return what they found (the best so far). They only
//! know error-free boards: on crowded boards where every colour cannot be a valid N-Queens
//! board on its own cells, they find nothing and the annealer is left alone.

mod colours;
mod one_colour;
mod potentials;
mod sequential;

use crate::solver::board::{by_colour, Queen};
use crate::solver::budget::Budget;
use crate::solver::params::Params;
use crate::solver::problem::Problem;
use colours::several_colours;
use one_colour::{one_colour, one_colour_floor, one_colour_turns};
pub(crate) use one_colour::{place_colour, place_colour_turned, Floor, TURNS};
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use std::collections::BinaryHeap;
use std::time::Instant;

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
    let end = if listing && lists_every_board(n, colours) {
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
            one_colour_turns(n, walls, &members[0], dist, keep.boards, end, seed)
        }
        _ if listing => best_boards(n, walls, queens, dist, keep, end),
        _ => colour_by_colour(n, walls, queens, dist, end),
    }
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
    one_colour_floor(n, walls, &members, dist, floor, deadline)
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

    /// Whether nothing was kept.
    fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

#[cfg(test)]
mod tests {
    use super::colours::{all_boards, disjoint, Mask};
    use super::*;
    use crate::solver::board::Board;
    use crate::solver::problem::walls_only_problem;
    use crate::solver::score::errors;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    /// Cells of a mask, ascending.
    fn mask_cells(mask: &Mask) -> Vec<usize> {
        (0..64 * mask.len())
            .filter(|&c| mask[c / 64] >> (c % 64) & 1 == 1)
            .collect()
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// Brute force: every assignment of distinct free cells to the queens is too many; instead
    /// every colour's N-Queens boards (listed without bounds) and every permutation of queens.
    fn brute_force(board: &Board, dist: &[f32]) -> Vec<f64> {
        let (n, nn) = (board.n, board.n * board.n);
        let walls = board.walls();
        let boards = all_boards(n, &walls, far()).unwrap().masks;
        let queens = board.queens();
        let members = by_colour(&queens);
        let perm_cost = |group: &[usize], cells: &[usize]| -> f64 {
            // all permutations (n ≤ 6)
            fn go(
                group: &[usize],
                cells: &mut Vec<usize>,
                k: usize,
                dist: &[f32],
                nn: usize,
            ) -> f64 {
                if k == cells.len() {
                    return group
                        .iter()
                        .zip(cells.iter())
                        .map(|(&q, &c)| dist[q * nn + c] as f64)
                        .sum();
                }
                let mut best = f64::INFINITY;
                for i in k..cells.len() {
                    cells.swap(k, i);
                    best = best.min(go(group, cells, k + 1, dist, nn));
                    cells.swap(k, i);
                }
                best
            }
            go(group, &mut cells.to_vec(), 0, dist, nn)
        };
        let mut totals = Vec::new();
        let mut stack: Vec<(usize, Mask, f64)> = vec![(0, [0; 4], 0.0)];
        while let Some((k, used, cost)) = stack.pop() {
            if k == board.colours {
                totals.push(cost);
                continue;
            }
            for b in &boards {
                if disjoint(b, &used) {
                    let c = perm_cost(&members[k], &mask_cells(b));
                    if c.is_finite() {
                        let union = std::array::from_fn(|i| used[i] | b[i]);
                        stack.push((k + 1, union, cost + c));
                    }
                }
            }
        }
        totals.sort_by(|a, b| a.total_cmp(b));
        totals
    }

    #[test]
    fn lists_every_n_queens_board() {
        let counts = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680];
        for (i, &count) in counts.iter().enumerate() {
            let n = i + 1;
            let boards = all_boards(n, &vec![false; n * n], far()).unwrap();
            assert_eq!(boards.masks.len(), count, "n = {n}");
            for (i, mask) in boards.masks.iter().enumerate() {
                assert_eq!(mask_cells(mask), boards.cells(i), "n = {n}");
            }
        }
    }

    #[test]
    fn lists_the_boards_avoiding_the_walls_in_order() {
        // the boards of an unwalled listing that avoid the walls, in the same order
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for case in 0..20 {
            let n = rng.random_range(6..=10);
            let walls: Vec<bool> = (0..n * n).map(|_| rng.random_bool(0.06)).collect();
            let open = all_boards(n, &vec![false; n * n], far()).unwrap();
            let expected: Vec<Vec<usize>> = (0..open.masks.len())
                .map(|i| open.cells(i))
                .filter(|cells| cells.iter().all(|&c| !walls[c]))
                .collect();
            let listed = all_boards(n, &walls, far()).unwrap();
            let got: Vec<Vec<usize>> = (0..listed.masks.len()).map(|i| listed.cells(i)).collect();
            assert_eq!(got, expected, "case {case}");
        }
    }

    #[test]
    fn matches_brute_force_on_tiny_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for case in 0..60 {
            let n = rng.random_range(4..=6);
            let colours = rng.random_range(1..=2);
            let board = Board::random(n, colours, 0.1, &mut rng);
            let (queens, _, dist) = walls_only_problem(&board);
            let found = best_boards(n, &board.walls(), &queens, &dist, Keep::boards(4), far());
            let expected = brute_force(&board, &dist);
            let want = expected.len().min(4);
            assert_eq!(found.len(), want, "case {case}: {board:?}");
            for (f, e) in found.iter().zip(&expected) {
                assert!((f.cost - e).abs() < 1e-3, "case {case}: {} vs {e}", f.cost);
                // the cells really are a valid board of that cost
                let mut cells = vec![0i8; n * n];
                for (q, &c) in f.cells.iter().enumerate() {
                    assert_eq!(cells[c], 0, "two targets on one cell");
                    assert!(!board.walls()[c]);
                    cells[c] = queens[q].colour as i8 + 1;
                }
                assert_eq!(errors(n, colours, &cells), 0);
                let cost: f64 = f
                    .cells
                    .iter()
                    .enumerate()
                    .map(|(q, &c)| dist[q * n * n + c] as f64)
                    .sum();
                assert!((cost - f.cost).abs() < 1e-3);
            }
        }
    }

    #[test]
    fn one_colour_matches_listing_every_board() {
        // bigger boards than the permutation brute force reaches: every N-Queens board listed
        // and matched, against the branch and bound with its Lagrangian bound
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for case in 0..12 {
            let n = rng.random_range(7..=9);
            let board = Board::random(n, 1, 0.08, &mut rng);
            let (queens, walls, dist) = walls_only_problem(&board);
            let members: Vec<usize> = (0..n).collect();
            let listed = all_boards(n, &walls, far()).unwrap();
            let mut expected: Vec<f64> = (0..listed.masks.len())
                .map(|i| matching(&members, &listed.cells(i), &dist, n * n).0)
                .filter(|c| c.is_finite())
                .collect();
            expected.sort_by(|a, b| a.total_cmp(b));
            let found = best_boards(n, &walls, &queens, &dist, Keep::boards(5), far());
            assert_eq!(found.len(), expected.len().min(5), "case {case}");
            for (f, e) in found.iter().zip(&expected) {
                assert!((f.cost - e).abs() < 1e-3, "case {case}: {} vs {e}", f.cost);
            }
        }
    }

    #[test]
    fn colour_by_colour_on_a_board_too_big_to_list() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let board = Board::random(15, 2, 0.05, &mut rng);
        let (queens, walls, dist) = walls_only_problem(&board);
        // a deadline, not a timing check: the search finds its first boards at once and
        // would otherwise prove every colour's best board, slow in a debug build
        let soon = || Instant::now() + Duration::from_secs(2);
        let found = colour_by_colour(15, &walls, &queens, &dist, soon());
        assert!(!found.is_empty());
        // best_boards takes the same road beyond 196 cells
        assert!(!best_boards(15, &walls, &queens, &dist, Keep::boards(5), soon()).is_empty());
        for b in &found {
            let mut cells = vec![0i8; 225];
            for (q, &c) in b.cells.iter().enumerate() {
                assert_eq!(cells[c], 0);
                cells[c] = queens[q].colour as i8 + 1;
            }
            assert_eq!(errors(15, 2, &cells), 0);
        }
        // beyond 32 columns it declines
        let big = Board::random(33, 2, 0.0, &mut rng);
        let dist = vec![1.0; 66 * 33 * 33];
        assert!(colour_by_colour(33, &big.walls(), &big.queens(), &dist, far()).is_empty());
    }

    #[test]
    fn finds_nothing_when_colours_cannot_all_be_valid() {
        // 4×4 has two 4-queens boards, sharing no cell: three colours cannot all be valid
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let board = Board::random(4, 3, 0.0, &mut rng);
        let (_, _, dist) = walls_only_problem(&board);
        assert!(best_boards(
            4,
            &board.walls(),
            &board.queens(),
            &dist,
            Keep::boards(3),
            far()
        )
        .is_empty());
        assert!(brute_force(&board, &dist).is_empty());
    }

    #[test]
    fn refuses_colours_without_n_queens() {
        let mut cells = vec![0i8; 16];
        cells[..3].fill(1); // three queens of colour 1 on a 4×4 board
        let board = Board {
            n: 4,
            colours: 1,
            cells,
        };
        let (queens, walls, dist) = walls_only_problem(&board);
        assert!(best_boards(4, &walls, &queens, &dist, Keep::boards(3), far()).is_empty());
    }

    /// From `exact_pieces_colours` colours on, boards are priced on the last table, else walls-only.
    #[test]
    fn crowded_boards_are_priced_with_the_pieces() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let budget = Budget::new(10.0, Instant::now(), &Params::default());
        for _ in 0..20 {
            let mut problem = Problem::with_walls_only(&Board::random(7, 1, 0.0, &mut rng));
            // a second table that disagrees with the first on which cells are cheap
            let noise = |d: &f32| d + rng.random_range(0..4) as f32;
            let pieces: Vec<f32> = problem.tables[0].iter().map(noise).collect();
            problem.tables.push(pieces);
            for (threshold, table) in [(1, 1), (2, 0)] {
                let params = Params {
                    exact_pieces_colours: threshold,
                    ..Params::default()
                };
                let found = boards(&problem, &budget, &params, 1);
                assert!(!found.is_empty());
                let on = |(q, &cell): (usize, &usize)| problem.tables[table][q * 49 + cell] as f64;
                for b in &found {
                    let cost: f64 = b.cells.iter().enumerate().map(on).sum();
                    assert!((cost - b.cost).abs() < 1e-3, "table {table}: {cost}");
                }
            }
        }
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn best_boards_example() {
        use crate::solver::{board::Board, paths::Paths, stage::exact::best_boards};
        // 4×4, one colour, all four queens on the first row
        let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
        let queens = board.queens();
        let mut paths = Paths::new(4, board.walls());
        let dist: Vec<f32> = queens
            .iter()
            .flat_map(|q| paths.row(q.start).to_vec())
            .collect();
        let far = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let found = best_boards(
            4,
            &board.walls(),
            &queens,
            &dist,
            super::Keep::boards(5),
            far,
        );
        assert_eq!(found.len(), 2); // the two 4-queens boards
        assert!(found[0].cost <= found[1].cost);
    }
}
