//! One colour: branch and bound over the N-Queens boards that avoid the walls, row by row.
//!
//! Every cell carries a reduced cost (its cheapest path cost from a queen less that queen's
//! weight, plus the weights of its column and diagonals: [`super::potentials`]), so that the
//! weights' constant plus `Σ_{chosen} reduced` bounds the matching cost of every board
//! through a node. Each row's free cells are tried cheapest
//! first, and every child looks ahead: each row still to fill must keep a cell that no queen
//! placed so far attacks (forward checking), and the cheapest such cell of every remaining row
//! is added to the bound. Complete boards are matched exactly (Hungarian method).
//!
//! The boards of [`one_colour`] and [`place_colour`] come first from beam searches over the
//! same bounds ([`beam`]), then from the depth-first search with the time left; the proof of
//! [`one_colour_floor`] is depth first alone, filling the most constrained row or column
//! first with the open rows and columns reduced jointly ([`proof`]).

mod ascent;
mod beam;
mod lines;
mod proof;
mod split;
#[cfg(test)]
mod tests;
mod turns;

use super::instance::dump;
use super::{bits, matching, potentials, Best, ExactBoard, CLOCK_EVERY};
use ahash::AHashSet;
pub(crate) use split::{proof_threads, set_proof_threads};
use split::{Shared, SPLIT_AFTER};
use std::sync::Arc;
use std::time::Instant;
use turns::turned;
pub(crate) use turns::{one_colour_turns, TURNS};

/// The best `keep` boards of one colour (see [`super::best_boards`]).
///
/// # Panics
/// If `n > 32` (the search keeps columns in a `u32`).
pub(crate) fn one_colour(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
) -> Vec<ExactBoard> {
    dump(n, walls, members, dist, "one_colour");
    turned(n, walls, members, dist, keep, deadline, 0).0
}

/// The cheapest board [`one_colour`] finds for the queens `members` (rows of `dist`, a queen's
/// cost of ending on each cell) on the cells `taken` leaves free, until `deadline`: the large
/// move of the lift search (`crate::solver::stage::lift`). `None` beyond
/// [`super::MAX_N_ONE_COLOUR`], when a colour does not have `n` queens, or when no board was
/// found in time.
pub(crate) fn place_colour(
    n: usize,
    taken: &[bool],
    members: &[usize],
    dist: &[f32],
    deadline: Instant,
) -> Option<ExactBoard> {
    place_colour_turned(n, taken, members, dist, deadline, 0)
}

/// [`place_colour`] on the board turned by [`orientation`] `turn` (the cells it returns
/// are the board's own): the one-colour lifts draw it, so that their searches rank the
/// partial boards row by row in another direction.
pub(crate) fn place_colour_turned(
    n: usize,
    taken: &[bool],
    members: &[usize],
    dist: &[f32],
    deadline: Instant,
    turn: u64,
) -> Option<ExactBoard> {
    if n == 0 || n > super::MAX_N_ONE_COLOUR || members.len() != n {
        return None;
    }
    dump(n, taken, members, dist, "place_colour");
    turned(n, taken, members, dist, 1, deadline, turn)
        .0
        .into_iter()
        .next()
}

/// What a search of one colour's boards below rising caps proved (see
/// [`one_colour_floor`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Floor {
    /// The cheapest board's cost and its cells (one per queen, in the queens' order): every
    /// board below the last cap was searched.
    Exact(f64, Vec<usize>),
    /// No board costs less than this (`∞`: there is no board the queens can all reach).
    AtLeast(f64),
}

/// How far above the proven floor the first cap of [`one_colour_floor`] lies, as a share of
/// the floor (at least [`FIRST_STEP_MIN`]); after each cap searched in full, [`next_step`]
/// picks the next step.
///
/// Measured with `--bound` on the 43 seeds of 1–100 with N 13–22 (mean bound / 10 s score,
/// one niced run each, the machine shared): share 0.05: 0.8398, 0.01: 0.8422, 0.002: 0.8469,
/// 0.0005: 0.8485 (with the minimum 0.01, which decides for floors below 20); minimum 0.002
/// with share 0.0005: 0.8472. On all 100 seeds 0.01 and 0.0005 both gave 0.846: within the
/// noise of searches cut by the clock on a shared machine.
const FIRST_STEP_SHARE: f64 = 0.0005;
/// See [`FIRST_STEP_SHARE`].
const FIRST_STEP_MIN: f64 = 0.01;
/// The last cap of [`one_colour_floor`] lies this far above the first board's cost: the
/// search below it finds that board or a cheaper one, and so ends the proof.
const UPPER_MARGIN: f64 = 1e-6;

/// Share of the time left that [`next_step`] aims the next capped search at: a search after
/// one that took more than half the time left cannot finish, so the last one should take
/// nearly all of it, less a margin for the fit's error. `--bound`, one run each (2026-11-26,
/// machine shared), shares 0.7 / 0.85 / 0.9 / 0.95: seed 90 28.81 / 28.85 / 28.86 / 28.86,
/// 3 25.30 / 25.33 / 25.28 / 25.35, 2 199.54 / 199.56 / 199.55 / 199.57, 9 104.07 / 104.15 /
/// 104.19 / 104.19, 10 106.19 / 106.33 / 106.36 / 106.39. `--bound-time 10`, shares 0.3 /
/// 0.5 / 0.7 / 0.85 / 0.9 / 0.95: seed 10 108.60 / 109.01 / 109.10 / 109.14 / 109.17 /
/// 109.23; 3 25.78 / 25.88 / 25.88 / 25.78 / – / 25.88; 17 153.16 / 153.40 / 153.40 /
/// 153.31 / – / 153.34; 9 (0.85–0.95) 106.25 / 106.61 / 106.34. Differences of a few
/// hundredths are the noise of searches cut by the clock.
const NEXT_CAP_SHARE: f64 = 0.95;
/// How many times longer than the last capped search [`next_step`] aims the next one
/// while the time left holds two more: the first cap above the cheapest board then lies
/// at most one such step above it (a search aimed at all the time left overshoots: seed
/// 3023, N = 22, took 33 s at cap 26.99 after 2.2 s at 24.92, the cheapest board 25.63).
const NEXT_CAP_GROWTH: f64 = 4.0;
/// Capped searches shorter than this (seconds) are too quick to time: [`next_step`] doubles.
const NEXT_CAP_TIMED: f64 = 0.002;
/// With less time than this left (seconds), [`next_step`] doubles: a fitted cap that
/// overshoots leaves nothing for a smaller one. At the default 0.9 s of `--bound` the fit
/// lowered seed 49 (N 16) from 17.8565 (doubling, 3 runs) to 17.65–17.80 (3 runs); with 1 s
/// the default bound is the doubling one again (seed 49: 17.8565, 3 runs; seeds 1–100: none
/// below `testcases/bound_1-100.tsv`), so the 0.9 s columns of [`NEXT_CAP_SHARE`] describe
/// the fit before this rule; the 10 s gains stay (seed 10: 108.1868 doubling, 109.2286
/// fitted; docs/benchmarks.md, 2026-11-26, 08:00–08:04 UTC).
const NEXT_CAP_FIT_LEFT: f64 = 1.0;

/// A proven lower bound on the cost of every board of one colour, raised until `deadline`:
/// the branch and bound of [`one_colour`] with a cap (boards at or above it are pruned, like
/// the threshold of a full keep list), raised while each capped search finishes without a
/// board below its cap (then no board costs less than the cap). A capped search that finds a
/// board below its cap has found the cheapest board. Starts from the Lagrangian bound of
/// the search's potentials (and `floor`, a bound the caller already holds). Capped searches
/// after one that took [`split::SPLIT_AFTER`] are split over `threads` threads ([`split`]).
///
/// # Panics
/// If `n > 32` (the search keeps columns in a `u32`).
pub(super) fn one_colour_floor(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    floor: f64,
    deadline: Instant,
    threads: usize,
) -> Floor {
    one_colour_floor_counted(n, walls, members, dist, floor, deadline, threads).0
}

/// [`one_colour_floor`] with the nodes of its capped searches (the beams of its first board
/// left out; counted in a `u32`, so modulo 2³²).
pub(crate) fn one_colour_floor_counted(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    floor: f64,
    deadline: Instant,
    threads: usize,
) -> (Floor, u64) {
    dump(n, walls, members, dist, "one_colour_floor");
    let Some(mut search) = OneColour::new(n, walls, members, dist, 1, deadline) else {
        return (Floor::AtLeast(f64::INFINITY), 0);
    };
    let mut floor = floor.max(search.root);
    // a board first (beams, [`OneColour::first_board`]): its cost caps the last search
    let upper = search.first_board(deadline);
    let beams = search.nodes;
    let mut step = (floor.abs() * FIRST_STEP_SHARE).max(FIRST_STEP_MIN);
    let mut last = None;
    let found = loop {
        // a cap just below the first board's cost saves little: that cost, at once
        let cap = if floor + 1.5 * step >= upper {
            upper + UPPER_MARGIN
        } else {
            floor + step
        };
        let started = Instant::now();
        // threads only for searches long enough to pay for them
        let threads = match last {
            Some((_, took)) if took >= SPLIT_AFTER => threads,
            _ => 1,
        };
        if !search.run_split(cap, threads) {
            break Floor::AtLeast(floor);
        }
        if search.best.threshold() < cap {
            let (cost, cells) = std::mem::replace(&mut search.best, Best::new(1))
                .into_sorted()
                .swap_remove(0);
            break Floor::Exact(cost, cells);
        }
        if cap == f64::INFINITY {
            break Floor::AtLeast(cap); // no board of finite cost
        }
        // every board through the search's tree, which holds them all, costs at least the cap
        // (less the pruning's 10⁻⁹)
        floor = cap - 1e-9;
        let now = Instant::now();
        let took = now.duration_since(started).as_secs_f64();
        let left = deadline.saturating_duration_since(now).as_secs_f64();
        step = next_step(step, last, (cap, took), left);
        last = Some((cap, took));
    };
    (found, u64::from(search.nodes.wrapping_sub(beams)))
}

/// The step from the cap `done.0` just searched in full (in `done.1` seconds, with `left`
/// seconds to go) to the next cap; `step` is the last step, `last` the cap searched before
/// and its time. A capped search's time grows about exponentially with its cap (seed 10,
/// N = 21: about ×10 per 0.3 above the floor), so plain doubling often starts a search that
/// cannot finish and wastes most of the time left. Fitted on the last two searches, the next
/// cap is the one expected to take [`NEXT_CAP_GROWTH`] times the last search, or
/// [`NEXT_CAP_SHARE`] of the time left when the search after it would not fit, kept between
/// a quarter and four times the last step. Doubling while the searches are too quick to time
/// ([`NEXT_CAP_TIMED`]), with little time left ([`NEXT_CAP_FIT_LEFT`]) or where the fit makes
/// no sense. Any step keeps the floor sound: only caps
/// searched in full raise it.
fn next_step(step: f64, last: Option<(f64, f64)>, done: (f64, f64), left: f64) -> f64 {
    let Some((cap0, took0)) = last else {
        return step * 2.0;
    };
    let (cap1, took1) = done;
    if took0 < NEXT_CAP_TIMED || took1 <= took0 || cap1 <= cap0 || left < NEXT_CAP_FIT_LEFT {
        return step * 2.0;
    }
    let rate = (took1 / took0).ln() / (cap1 - cap0);
    // a search this many times the last one, unless the one after it would not fit: then
    // the time left
    let mut aim = took1 * NEXT_CAP_GROWTH;
    if aim * (1.0 + NEXT_CAP_GROWTH) > left * NEXT_CAP_SHARE {
        aim = left * NEXT_CAP_SHARE;
    }
    let ahead = (aim / took1).ln() / rate;
    if ahead.is_nan() {
        return step * 2.0;
    }
    ahead.clamp(step / 4.0, step * 4.0)
}

/// Columns attacked in the current row by the queens placed so far: straight down, and
/// along the two diagonals (shifted one column per row).
#[derive(Clone, Copy, Default)]
struct Attacks {
    cols: u32,
    left: u32,
    right: u32,
}

impl Attacks {
    /// Attacked columns `k` rows below the current one.
    fn at(self, k: usize) -> u32 {
        self.cols | self.left.checked_shl(k as u32).unwrap_or(0) | self.right >> k.min(31)
    }

    /// The attacks on the next row once a queen stands at column `c` of this one.
    fn place(self, c: u32) -> Attacks {
        let bit = 1u32 << c;
        Attacks {
            cols: self.cols | bit,
            left: (self.left | bit) << 1,
            right: (self.right | bit) >> 1,
        }
    }
}

struct OneColour<'a> {
    n: usize,
    /// Boards at or above this cost are pruned (`∞`: only the keep list's threshold prunes).
    cap: f64,
    /// The bound at the root: `Σ u` less the weights' offset.
    root: f64,
    /// The look-ahead sum of the root (`None`: some row has no cell at all).
    root_ahead: Option<f64>,
    members: &'a [usize],
    dist: &'a [f32],
    /// Free cells of each row as (column, reduced cost), cheapest first.
    order: Vec<Vec<(u32, f64)>>,
    best: Best<Vec<usize>>,
    /// The cell chosen in each row so far.
    cells: Vec<usize>,
    /// The boards offered to `best` (row-major cells): the beams and the depth-first
    /// search meet the same boards.
    offered: AHashSet<Vec<usize>>,
    nodes: u32,
    /// Every cell's reduced cost (∞ on walls and cells no queen reaches), row-major: built
    /// from `order` by the proof's search ([`proof`]) only, as is `prefix`.
    reduced: Vec<f64>,
    /// `prefix[r][i]`: the columns of the first `i` cells of `order[r]`.
    prefix: Vec<Vec<u32>>,
    deadline: Instant,
    out_of_time: bool,
    /// The cheapest board any thread of a split search has found ([`split`]): with a keep
    /// list of one, boards at or above it cannot enter here either.
    shared: Option<Arc<Shared>>,
    /// Where the proof's search stops going deeper and hands its nodes to the threads
    /// ([`split`]; `usize::MAX`: it never does).
    split_depth: usize,
    /// The nodes handed over at `split_depth`.
    subtrees: Vec<split::Subtree>,
    /// The root's line weights ([`potentials::Potentials::lines`]): where the proof's
    /// ascent starts.
    lines: Vec<f64>,
    /// The proof's tables of its node bound ([`ascent`]), built by the proof only.
    ascent_tables: Option<Arc<ascent::AscentTables>>,
    /// The node bound's work space (taken by the node that uses it).
    ascent: Option<Box<ascent::Ascent>>,
    /// A node's cell bounds while it chooses its line ([`proof`]).
    scratch: Vec<[f64; 32]>,
}

impl<'a> OneColour<'a> {
    /// The search's tables: potentials (their ascent takes at most half the time to
    /// `deadline`), reduced costs, each row's cells cheapest first. `None` when some row has
    /// no cell a queen can reach (there is no board).
    fn new(
        n: usize,
        walls: &[bool],
        members: &'a [usize],
        dist: &'a [f32],
        keep: usize,
        deadline: Instant,
    ) -> Option<OneColour<'a>> {
        assert!(n <= 32, "one-colour search needs n ≤ 32");
        let nn = n * n;
        // the bound's ascent may take half the time: a search cut short with no time left to
        // reach a board finds nothing (N = 30, C = 6 at 1 s: 6 ms per colour)
        let now = Instant::now();
        let ascent_end = now + deadline.saturating_duration_since(now) / 2;
        let potentials = potentials::queen_potentials(n, walls, members, dist, ascent_end);
        if potentials.bound == f64::INFINITY {
            return None;
        }
        let u = &potentials.queens;
        let reduced: Vec<f64> = (0..nn)
            .map(|c| {
                let weight = potentials.cells[c];
                members
                    .iter()
                    .zip(u)
                    .map(|(&q, ui)| dist[q * nn + c] as f64 + weight - ui)
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        // free cells of each row, cheapest first (unreachable cells left out)
        let order: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|r| {
                let mut row: Vec<(u32, f64)> = (0..n)
                    .filter(|&c| !walls[r * n + c] && reduced[r * n + c].is_finite())
                    .map(|c| (c as u32, reduced[r * n + c]))
                    .collect();
                row.sort_by(|a, b| a.1.total_cmp(&b.1));
                row
            })
            .collect();
        let mut search = OneColour {
            n,
            cap: f64::INFINITY,
            root: u.iter().sum::<f64>() - potentials.offset,
            root_ahead: None,
            members,
            dist,
            order,
            best: Best::new(keep),
            cells: Vec::with_capacity(n),
            offered: AHashSet::new(),
            nodes: 0,
            reduced: Vec::new(),
            prefix: Vec::new(),
            deadline,
            out_of_time: false,
            shared: None,
            split_depth: usize::MAX,
            subtrees: Vec::new(),
            lines: potentials.lines,
            ascent_tables: None,
            ascent: None,
            scratch: Vec::new(),
        };
        let ahead = search.look_ahead(0, Attacks::default())?;
        search.root_ahead = Some(ahead);
        search.root += ahead;
        Some(search)
    }

    /// Searches every board below `cap` (and the keep list's threshold); `false` when the
    /// deadline cut it.
    fn run(&mut self, cap: f64) -> bool {
        self.cap = cap;
        if let Some(ahead) = self.root_ahead {
            self.dfs(0, Attacks::default(), self.root - ahead, ahead);
        }
        !self.out_of_time
    }

    /// Costs at or above this cannot enter.
    fn threshold(&self) -> f64 {
        let shared = self.shared.as_ref().map_or(f64::INFINITY, |s| s.get());
        self.best.threshold().min(self.cap).min(shared)
    }

    /// Σ over rows `row..n` of the cheapest cell that `attacks` leaves free; `None` when some
    /// row has none left.
    fn look_ahead(&self, row: usize, attacks: Attacks) -> Option<f64> {
        let mut sum = 0.0;
        for (k, cells) in self.order[row..].iter().enumerate() {
            let blocked = attacks.at(k);
            sum += cells.iter().find(|(c, _)| blocked >> c & 1 == 0)?.1;
        }
        Some(sum)
    }

    /// `bound`: Σ u plus the reduced costs of the cells chosen so far; `ahead`: the look-ahead
    /// sum of rows `row..n` under `attacks`.
    fn dfs(&mut self, row: usize, attacks: Attacks, bound: f64, ahead: f64) {
        self.nodes += 1;
        if self.nodes % CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
            self.out_of_time = true;
        }
        if self.out_of_time {
            return;
        }
        if row == self.n {
            self.leaf();
            return;
        }
        let blocked = attacks.at(0);
        // the rows below this one cost at least their look-ahead without this row's cell
        let below = ahead
            - self.order[row]
                .iter()
                .find(|(c, _)| blocked >> c & 1 == 0)
                .map_or(0.0, |x| x.1);
        for i in 0..self.order[row].len() {
            let (c, cost) = self.order[row][i];
            if blocked >> c & 1 == 1 {
                continue;
            }
            let b = bound + cost;
            // cheapest first: once the static part fails, every later cell fails too
            if b + below >= self.threshold() - 1e-9 {
                break;
            }
            let next = attacks.place(c);
            let Some(rest) = self.look_ahead(row + 1, next) else {
                continue;
            };
            if b + rest >= self.threshold() - 1e-9 {
                continue;
            }
            self.cells.push(row * self.n + c as usize);
            self.dfs(row + 1, next, b, rest);
            self.cells.pop();
        }
    }

    /// A complete board: a cheap queen-side bound first, then the exact matching.
    fn leaf(&mut self) {
        let nn = self.n * self.n;
        let threshold = self.threshold();
        let queen_side: f64 = self
            .members
            .iter()
            .map(|&q| {
                self.cells
                    .iter()
                    .map(|&c| self.dist[q * nn + c] as f64)
                    .fold(f64::INFINITY, f64::min)
            })
            .sum();
        if queen_side >= threshold - 1e-9 {
            return;
        }
        let (cost, assigned) = matching(self.members, &self.cells, self.dist, nn);
        if cost < threshold && self.offered.insert(self.cells.clone()) {
            self.best.offer(cost, assigned);
            if let Some(shared) = &self.shared {
                shared.lower(cost);
            }
        }
    }
}
