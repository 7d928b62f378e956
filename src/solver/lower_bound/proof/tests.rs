//! The proof search against an independent brute force over full board states.

use super::*;
use crate::solver::board::{Board, DIRS, EMPTY};
use crate::solver::score::errors;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::time::Duration;

/// Least score over every legal move sequence, by Dijkstra over full boards (a queen's colour
/// at every cell), written without the search's tables: `(least score of any answer, least
/// cost of an error-free answer)`. Stops once the cost of the boards popped reaches the least
/// error-free cost (every later board costs more, and error-free answers score their cost).
fn brute_force(board: &Board) -> Option<(f64, f64)> {
    let n = board.n as i64;
    let mut best: HashMap<Vec<i8>, f64> = HashMap::new();
    best.insert(board.cells.clone(), 0.0);
    let (mut any, mut free) = (f64::INFINITY, f64::INFINITY);
    // boards by index, popped cheapest first (non-negative floats order like their bits)
    let mut heap = std::collections::BinaryHeap::new();
    heap.push(std::cmp::Reverse((0u64, 0usize)));
    let mut boards = vec![board.cells.clone()];
    while let Some(std::cmp::Reverse((bits, at))) = heap.pop() {
        let g = f64::from_bits(bits);
        let cells = boards[at].clone();
        if g > best[&cells] {
            continue;
        }
        if boards.len() > BRUTE_BOARDS {
            return None;
        }
        let e = errors(board.n, board.colours, &cells);
        any = any.min(g + (e * board.n) as f64);
        if e == 0 {
            free = free.min(g);
        }
        for from in 0..cells.len() {
            if cells[from] <= 0 {
                continue;
            }
            for &(dr, dc) in &DIRS {
                let (mut r, mut c) = (from as i64 / n, from as i64 % n);
                for len in 1.. {
                    (r, c) = (r + i64::from(dr), c + i64::from(dc));
                    if !(0..n).contains(&r) || !(0..n).contains(&c) {
                        break;
                    }
                    let to = (r * n + c) as usize;
                    if cells[to] != EMPTY {
                        break;
                    }
                    let mut next = cells.clone();
                    next[to] = next[from];
                    next[from] = EMPTY;
                    let cost = g + (len as f64).sqrt();
                    if best.get(&next).is_none_or(|&b| cost < b) {
                        best.insert(next.clone(), cost);
                        boards.push(next);
                        heap.push(std::cmp::Reverse((cost.to_bits(), boards.len() - 1)));
                    }
                }
            }
        }
        if free.is_finite() && g >= free {
            break;
        }
    }
    Some((any, free))
}

/// Boards the brute force may store before it gives up (a few hundred MB at most; two
/// colours on 4 × 4 have at most C(16, 4)·C(12, 4) = 900 900).
const BRUTE_BOARDS: usize = 1_000_000;

fn far() -> Instant {
    Instant::now() + Duration::from_secs(120)
}

#[test]
#[ignore = "slow: about 25 s at load 4-6; CI runs it (cargo test --workspace -- --include-ignored)"]
fn the_proof_finds_the_error_free_optimum_of_brute_force_on_small_boards() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(37);
    let (mut optima, mut two) = (0, 0);
    for round in 0..60 {
        // one colour on 3 × 3 to 5 × 5, two colours on 4 × 4 (every state fits the brute force)
        let (n, colours) = match round % 4 {
            0 => (4, 2),
            _ => (rng.random_range(3..=5), 1),
        };
        // two colours without walls: error-free answers exist more often
        let walls = if colours == 2 { 0.0 } else { 0.2 };
        let board = Board::random(n, colours, rng.random_range(0.0..=walls), &mut rng);
        let Some((any, free)) = brute_force(&board) else {
            continue; // too many boards for the brute force
        };
        // any prices ≥ 0 keep the heuristic admissible: random ones on every other board
        let prices: Vec<f64> = match round % 2 {
            0 => Vec::new(),
            _ => (0..n * n).map(|_| rng.random_range(0.0..1.5)).collect(),
        };
        let proof = prove(&board, &prices, f64::INFINITY, far()).expect("fits");
        match proof.stop {
            ProofStop::Optimum => {
                optima += 1;
                two += usize::from(colours == 2);
                assert!(
                    (proof.value - free).abs() < 1e-9,
                    "{board:?}: {proof:?} vs {free}"
                );
            }
            ProofStop::Exhausted => assert_eq!(free, f64::INFINITY, "{board:?}"),
            stop => panic!("{board:?}: stopped by {stop:?}"),
        }
        // the whole bound, errors included, never exceeds the least score of any answer
        let bound = super::super::lower_bound(&board, far());
        assert!(
            bound.value <= any + 1e-9,
            "{board:?}: {bound:?} above {any}"
        );
        if free <= any + 1e-9 && bound.proof.is_some() {
            // the optimum is error-free: the bound proves it unless errors are cheaper to
            // bound than to rule out
            let errors = bound.cases.as_ref().map_or(0.0, |c| c.errors);
            assert!(
                bound.value >= free.min(errors) - 1e-6,
                "{board:?}: {bound:?}"
            );
        }
    }
    assert!(
        optima >= 20,
        "only {optima} boards with an error-free answer"
    );
    assert!(two >= 8, "only {two} boards of two colours compared");
}

#[test]
fn the_incumbent_only_prunes() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(38);
    for _ in 0..30 {
        let board = Board::random(5, 1, 0.1, &mut rng);
        let plain = prove(&board, &[], f64::INFINITY, far()).expect("fits");
        if plain.stop != ProofStop::Optimum {
            continue;
        }
        // at the optimum: found (or proven at least it); above: found; below: at least it
        let at = prove(&board, &[], plain.value, far()).expect("fits");
        assert!((at.value - plain.value).abs() < 1e-9, "{at:?} vs {plain:?}");
        let above = prove(&board, &[], plain.value + 1.0, far()).expect("fits");
        assert_eq!(above.stop, ProofStop::Optimum);
        assert!((above.value - plain.value).abs() < 1e-9);
        let below = prove(&board, &[], plain.value - 0.5, far()).expect("fits");
        assert_eq!(below.stop, ProofStop::Exhausted);
        assert!(below.value <= plain.value);
    }
}

#[test]
fn a_cut_search_still_bounds_the_optimum() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(39);
    for _ in 0..10 {
        let board = Board::random(5, 2, 0.0, &mut rng);
        let done = prove(&board, &[], f64::INFINITY, far()).expect("fits");
        // a deadline in the past: only the start is open
        let cut = prove(&board, &[], f64::INFINITY, Instant::now()).map_or(0.0, |p| p.value);
        assert!(cut <= done.value + 1e-9, "{cut} vs {done:?}");
    }
}

#[test]
fn boards_out_of_reach_are_refused() {
    assert!(fits(11, 2));
    assert!(!fits(12, 1));
    assert!(!fits(8, 3));
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(40);
    let board = Board::random(12, 1, 0.0, &mut rng);
    assert_eq!(prove(&board, &[], f64::INFINITY, far()), None);
    // three queens of one colour on 4 × 4: no N-Queens board to aim for
    let board = Board::parse("4 1  1 1 1 0  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
    assert_eq!(prove(&board, &[], f64::INFINITY, far()), None);
}
