use super::plan::insertion_times;
use super::*;
use crate::solver::board::{EMPTY, WALL};
use crate::solver::params::Params;
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
    let after = improve(&board, moves, None, &Params::default());
    assert!(after.iter().all(|m| m.from != 0), "{after:?}");
    assert_eq!(score(&board, &after), 1.0, "{after:?}");
}

#[test]
fn drops_a_queen_that_comes_back_home() {
    let board = Board::parse("3 2  1 0 0  0 2 0  0 0 0").unwrap();
    let moves = vec![Move { from: 0, to: 1 }, Move { from: 1, to: 0 }];
    assert!(improve(&board, moves, None, &Params::default()).is_empty());
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
    let after = improve(&board, moves, None, &Params::default());
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
    let after = improve(&board, moves, None, &Params::default());
    let o = replay(&board, &after).unwrap();
    assert_eq!(o.errors, 0);
    assert!(o.score <= 1.0 + 1e-9, "{after:?}"); // (0,0) → (0,1) alone is conflict-free
    assert!(o.score < before);
}

#[test]
fn swaps_the_final_cells_of_two_queens() {
    // 5×5, one colour, A = (0,0) and B = (0,2) share a row. The answer sends B to (2,0)
    // and A round to (1,3) (cost √2 + 1 + √2); the other way round costs √2 + 1.
    let board = Board::parse("5 1  1 0 1 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 0 0").unwrap();
    let moves = vec![
        Move { from: 2, to: 10 },
        Move { from: 0, to: 6 },
        Move { from: 6, to: 8 },
    ];
    let before = score(&board, &moves);
    let mut state = Improver::new(&board, moves, before, Breadth::of(&Params::default()));
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
pub(super) fn random_case(rng: &mut Xoshiro256PlusPlus) -> (Board, Vec<Move>) {
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
        let after = improve(&board, moves, None, &Params::default());
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
    assert_eq!(
        improve(&board, moves.clone(), None, &Params::default()),
        moves
    );
}

#[test]
fn insertion_times_stay_in_the_window() {
    let t = insertion_times(3, 20, 40, 6);
    assert!(t.iter().all(|&x| (3..=20).contains(&x)));
    assert!(t.contains(&3) && t.contains(&20));
    assert_eq!(insertion_times(5, 5, NONE, 6), vec![5]);
}

#[test]
fn every_cell_of_a_cheaper_route_is_in_the_way() {
    // Random walks through the walls from s end on g at some cost: every cell they stand on
    // or cross must count as in the way of a route from s to g that costs a little more,
    // else a joint re-plan that such a cell's queen makes possible would be skipped.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    for _ in 0..300 {
        let n = rng.random_range(2..=12);
        let cells: Vec<i8> = (0..n * n)
            .map(|_| if rng.random_bool(0.2) { WALL } else { EMPTY })
            .collect();
        let board = Board {
            n,
            colours: 1,
            cells: cells.clone(),
        };
        let Some(s) = (0..n * n).find(|&c| cells[c] == EMPTY) else {
            continue;
        };
        let (mut at, mut route, mut cost) = (s, vec![s], 0.0);
        let mut walk = cells.clone();
        walk[s] = 1;
        for _ in 0..rng.random_range(1..6) {
            let to = rng.random_range(0..n * n);
            if check_move(n, &walk, Move { from: at, to }).is_err() {
                continue;
            }
            walk.swap(at, to);
            cost += length(n, at, to).sqrt();
            route.extend(line_cells(n, at, to));
            at = to;
        }
        let mut improver = Improver::new(&board, Vec::new(), 0.0, Breadth::of(&Params::default()));
        for &x in &route {
            assert!(
                improver.in_the_way(&[x], (s, at), cost + 1e-6),
                "n {n}: cell {x} of the route {route:?} (cost {cost})"
            );
        }
    }
}
