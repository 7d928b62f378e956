//! The one-colour search in the four orientations of the board.
//!
//! The beams and the bounds of [`OneColour`] go row by row, so the same board searched
//! bottom to top or column by column ranks its partial boards differently and ends on
//! another board. Walls-only tables of the one-colour seeds with N ≥ 24 of 1–100, 3 s runs
//! (one orientation a run, each with the whole exact stage, 2026-11-27): the cheapest board
//! of the four against rows top to bottom alone, seed 3 28.65 / 30.57, 18 32.48 / 34.25, 29
//! 32.85 / 34.13, 100 27.22 / 27.56, 4 32.11 / 32.16, the same on 27, 70 and 90 (where rows
//! top to bottom are best); no orientation is best on every seed.

use super::beam::{FIRST_WIDTH, MAX_WIDTH, NEXT_BEAM_ROOM};
use super::{ExactBoard, OneColour};
use ahash::AHashSet;
use std::time::{Duration, Instant};

/// How many orientations of the board [`one_colour_turns`] searches (see [`orientation`]).
pub(crate) const TURNS: u64 = 4;

/// The board turned by an [`orientation`]: where each cell went, and the walls and costs
/// there.
struct Turned {
    to: Vec<usize>,
    walls: Vec<bool>,
    dist: Vec<f32>,
}

impl Turned {
    fn new(n: usize, walls: &[bool], dist: &[f32], turn: u64) -> Turned {
        let nn = n * n;
        let to = orientation(n, turn);
        let (mut turned_walls, mut turned_dist) = (vec![true; nn], vec![f32::INFINITY; dist.len()]);
        for (x, &y) in to.iter().enumerate() {
            turned_walls[y] = walls[x];
            for q in 0..dist.len() / nn {
                turned_dist[q * nn + y] = dist[q * nn + x];
            }
        }
        Turned {
            to,
            walls: turned_walls,
            dist: turned_dist,
        }
    }

    /// The boards kept by `search` (on this orientation), turned back, as the cell of each
    /// of `queens` queens.
    fn boards_back(&self, search: OneColour<'_>, queens: usize) -> Vec<ExactBoard> {
        let mut back = vec![0; self.to.len()];
        for (x, &y) in self.to.iter().enumerate() {
            back[y] = x;
        }
        let members = search.members;
        search
            .best
            .into_sorted()
            .into_iter()
            .map(|(cost, assigned)| {
                let mut cells = vec![0; queens];
                for (&q, cell) in members.iter().zip(assigned) {
                    cells[q] = back[cell];
                }
                ExactBoard { cells, cost }
            })
            .collect()
    }
}

/// Where each cell goes in orientation `turn` (mod [`TURNS`]; 0: as it is, 1: rows upside
/// down, 2: transposed, 3: transposed and upside down). The walls and the N-Queens rules
/// turn with the board, so a board of one orientation is a board of the other.
fn orientation(n: usize, turn: u64) -> Vec<usize> {
    (0..n * n)
        .map(|x| {
            let (r, c) = (x / n, x % n);
            let (r, c) = match turn % TURNS {
                0 => (r, c),
                1 => (n - 1 - r, c),
                2 => (c, r),
                _ => (n - 1 - c, r),
            };
            r * n + c
        })
        .collect()
}

/// The search of [`super::one_colour`] on the board turned by [`orientation`] `turn`, its
/// boards turned back; whether it finished (then its first board is the cheapest).
pub(super) fn turned(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
    turn: u64,
) -> (Vec<ExactBoard>, bool) {
    let table = Turned::new(n, walls, dist, turn);
    let Some(mut search) = OneColour::new(n, &table.walls, members, &table.dist, keep, deadline)
    else {
        return (Vec::new(), true); // some row has no cell a queen can reach
    };
    // a search cut by the deadline keeps what it found
    let finished = search.anytime();
    (table.boards_back(search, dist.len() / (n * n)), finished)
}

/// The best `keep` boards of [`super::one_colour`]'s search in all [`TURNS`] orientations,
/// `first` (mod [`TURNS`]) first, until `deadline`: beams of the same width in every
/// orientation still racing, the width doubled after each round; while the next round
/// would not fit in [`NEXT_BEAM_ROOM`] times its time, the orientation with the dearest
/// best board drops out. The last one left goes on alone as [`OneColour::anytime`] does
/// (wider beams, then the depth-first search, which finishes on small boards), its
/// depth-first search capped at the cheapest board of every orientation.
pub(crate) fn one_colour_turns(
    n: usize,
    walls: &[bool],
    members: &[usize],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
    first: u64,
) -> Vec<ExactBoard> {
    super::dump(n, walls, members, dist, "one_colour_turns");
    let tables: Vec<Turned> = (0..TURNS)
        .map(|k| Turned::new(n, walls, dist, first + k))
        .collect();
    // the potentials' ascents share half of the time, as one search's would
    let now = Instant::now();
    let ascent = deadline.saturating_duration_since(now) / TURNS as u32;
    let mut searches = Vec::new();
    for table in &tables {
        let end = Instant::now() + ascent;
        let Some(mut search) = OneColour::new(n, &table.walls, members, &table.dist, keep, end)
        else {
            return Vec::new(); // some row has no cell a queen can reach, in any orientation
        };
        search.deadline = deadline;
        searches.push(search);
    }
    race(&mut searches);
    let mut found: Vec<ExactBoard> = Vec::new();
    let mut seen = AHashSet::new();
    for (table, search) in tables.iter().zip(searches) {
        for board in table.boards_back(search, dist.len() / (n * n)) {
            let mut cells = board.cells.clone();
            cells.sort_unstable();
            if seen.insert(cells) {
                found.push(board);
            }
        }
    }
    found.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    found.truncate(keep);
    found
}

/// The race of [`one_colour_turns`] over `searches` (all with the same deadline).
fn race(searches: &mut [OneColour<'_>]) {
    let mut racing: Vec<usize> = (0..searches.len()).collect();
    let mut width = FIRST_WIDTH;
    while width <= MAX_WIDTH && !racing.is_empty() {
        let started = Instant::now();
        for &i in &racing {
            if !searches[i].beam(width) {
                return; // the deadline
            }
        }
        let each = started.elapsed() / racing.len() as u32;
        let deadline = searches[racing[0]].deadline;
        let left = deadline.saturating_duration_since(Instant::now());
        while racing.len() > 1 && round_time(each, racing.len()) > left {
            let worst = (0..racing.len())
                .max_by(|&a, &b| {
                    cheapest(&searches[racing[a]]).total_cmp(&cheapest(&searches[racing[b]]))
                })
                .expect("two racing");
            racing.remove(worst);
        }
        if round_time(each, racing.len()) > left {
            break;
        }
        width *= 2;
    }
    // the depth-first search prunes from the cheapest board of every orientation: on small
    // boards it then finishes sooner
    let cheapest_of_all = searches.iter().map(cheapest).fold(f64::INFINITY, f64::min);
    if let Some(&last) = racing.first() {
        searches[last].run_most_constrained(cheapest_of_all);
    }
}

/// Room the next round of `racing` orientations needs after one of `each` per orientation.
fn round_time(each: Duration, racing: usize) -> Duration {
    each * NEXT_BEAM_ROOM * racing as u32
}

/// The cost of the cheapest board `search` kept (`∞`: none).
fn cheapest(search: &OneColour<'_>) -> f64 {
    search
        .best
        .heap
        .iter()
        .map(|scored| scored.0)
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{brute_minimum, is_board, random_case};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The lines (row, column, diagonal, anti-diagonal) of a cell, as numbers.
    fn lines(n: usize, x: usize) -> [usize; 4] {
        let (r, c) = (x / n, x % n);
        [r, n + c, 2 * n + r + c, 4 * n + r + n - c]
    }

    #[test]
    fn every_orientation_moves_cells_one_to_one_and_keeps_shared_lines() {
        for n in [1, 2, 5, 8] {
            for turn in 0..TURNS {
                let to = orientation(n, turn);
                let mut hit = vec![false; n * n];
                to.iter().for_each(|&y| hit[y] = true);
                assert!(hit.iter().all(|&h| h), "n {n} turn {turn}: not one to one");
                for a in 0..n * n {
                    for b in 0..a {
                        let shared = |x: usize, y: usize| {
                            lines(n, x).iter().zip(lines(n, y)).any(|(l, m)| *l == m)
                        };
                        assert_eq!(shared(a, b), shared(to[a], to[b]), "n {n} turn {turn}");
                    }
                }
            }
        }
        assert_eq!(orientation(3, 2)[1], 3, "transposed: (0, 1) goes to (1, 0)");
    }

    /// With time enough, the race of the orientations ends at the brute-force minimum; its
    /// boards, turned back, are true boards of the board as given, priced as given.
    #[test]
    fn the_race_finds_the_brute_force_minimum_and_true_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(51);
        let far = || Instant::now() + Duration::from_secs(3600);
        let members: Vec<usize> = (0..7).collect();
        let mut found = 0;
        for case in 0..50 {
            let n = rng.random_range(4..=7);
            let (walls, dist) = random_case(n, &mut rng);
            let want = brute_minimum(n, &walls, &dist);
            let boards = one_colour_turns(n, &walls, &members[..n], &dist, 3, far(), case);
            let Some(best) = boards.first() else {
                assert_eq!(want, f64::INFINITY, "case {case}: missed a board");
                continue;
            };
            assert!(
                (best.cost - want).abs() < 1e-4,
                "case {case}: {} vs {want}",
                best.cost
            );
            for board in &boards {
                assert!(is_board(n, &walls, &board.cells), "case {case}");
                let priced: f64 = (0..n)
                    .map(|q| f64::from(dist[q * n * n + board.cells[q]]))
                    .sum();
                assert!((priced - board.cost).abs() < 1e-4, "case {case}");
            }
            let turned = turned(n, &walls, &members[..n], &dist, 1, far(), case).0;
            assert!(
                (turned[0].cost - want).abs() < 1e-4,
                "case {case}: turn {case}"
            );
            assert!(is_board(n, &walls, &turned[0].cells), "case {case}");
            found += 1;
        }
        assert!(found >= 25, "only {found} cases had a board");
    }

    /// On a board too big to finish, a short race still gives true boards, cheapest first.
    #[test]
    fn a_short_race_gives_true_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(52);
        let n = 20;
        let (walls, dist) = random_case(n, &mut rng);
        let members: Vec<usize> = (0..n).collect();
        let end = Instant::now() + Duration::from_millis(200);
        let boards = one_colour_turns(n, &walls, &members, &dist, 5, end, 3);
        assert!(!boards.is_empty(), "no board in 200 ms");
        for pair in boards.windows(2) {
            assert!(pair[0].cost <= pair[1].cost);
        }
        assert!(boards.iter().all(|b| is_board(n, &walls, &b.cells)));
    }
}
