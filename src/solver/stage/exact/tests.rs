//! Tests of the exact stage: brute force on tiny boards, listing, colour by colour.

use super::colours::{all_boards, disjoint, Mask};
use super::*;
use crate::solver::board::{Board, Queen};
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

/// Asserts that `board` is error-free (no two targets on one cell, none on a wall, no two
/// queens of a colour attacking) and costs what it claims on `dist` (`q * n² + cell`).
pub(super) fn assert_valid(board: &ExactBoard, queens: &[Queen], walls: &[bool], dist: &[f32]) {
    let nn = walls.len();
    let n = (1..=nn).find(|k| k * k == nn).expect("a square board");
    let colours = queens.iter().map(|q| q.colour + 1).max().unwrap_or(0);
    let mut cells = vec![0i8; nn];
    for (q, &c) in board.cells.iter().enumerate() {
        assert_eq!(cells[c], 0, "two targets on one cell");
        assert!(!walls[c], "a target on a wall");
        cells[c] = queens[q].colour as i8 + 1;
    }
    assert_eq!(errors(n, colours, &cells), 0);
    let cost: f64 = (0..queens.len())
        .map(|q| dist[q * nn + board.cells[q]] as f64)
        .sum();
    assert!(
        (cost - board.cost).abs() < 1e-3,
        "{cost} against {}",
        board.cost
    );
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
        fn go(group: &[usize], cells: &mut Vec<usize>, k: usize, dist: &[f32], nn: usize) -> f64 {
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

/// With `prove_one_colour`, the proof's board comes first and is the cheapest of all, even
/// when the search before it has no time (`exact_cap_one_colour` 0).
#[test]
fn the_proof_board_of_one_colour_comes_first() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let params = Params {
        exact_cap_one_colour: 0.0,
        prove_one_colour: 5.0,
        prove_threads: 2,
        ..Params::default()
    };
    for case in 0..6 {
        let n = rng.random_range(11..=12);
        let board = Board::random(n, 1, 0.08, &mut rng);
        let (queens, walls, dist) = walls_only_problem(&board);
        let members: Vec<usize> = (0..n).collect();
        let listed = all_boards(n, &walls, far()).unwrap();
        let least = (0..listed.masks.len())
            .map(|i| matching(&members, &listed.cells(i), &dist, n * n).0)
            .fold(f64::INFINITY, f64::min);
        let budget = Budget::new(10.0, Instant::now(), &params);
        let found = boards(&Problem::with_walls_only(&board), &budget, &params, 1);
        let Some(first) = found.first() else {
            assert_eq!(least, f64::INFINITY, "case {case}: no board found");
            continue;
        };
        assert!(
            (first.cost - least).abs() < 1e-3,
            "case {case}: {} vs {least}",
            first.cost
        );
        assert_valid(first, &queens, &walls, &dist);
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
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
            crate::solver::stage::exact::Keep::boards(5),
            far,
        );
        assert_eq!(found.len(), 2); // the two 4-queens boards
        assert!(found[0].cost <= found[1].cost);
    }
}
