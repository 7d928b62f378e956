//! Tests of the whole completion: brute-force agreement, proofs, nightrider sizes.

use super::portfolio::luby;
use super::tail::{ColMap, Outcome, Tail};
use super::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Whether the 0-based `cols` (NONE = empty) can be completed, by plain backtracking.
fn brute_completable(cols: &[u32], nightrider: bool) -> bool {
    fn attacks(r1: usize, c1: usize, r2: usize, c2: usize, nr: bool) -> bool {
        let (dr, dc) = (r1.abs_diff(r2), c1.abs_diff(c2));
        dr == 0 || dc == 0 || dr == dc || (nr && (dr == 2 * dc || dc == 2 * dr))
    }
    fn go(row: usize, cols: &mut Vec<u32>, given: &[u32], nr: bool) -> bool {
        let n = given.len();
        if row == n {
            return true;
        }
        let ok = |cols: &Vec<u32>, c: usize| {
            (0..row).all(|r| !attacks(r, cols[r] as usize, row, c, nr))
                && (row + 1..n)
                    .filter(|&r| given[r] != NONE)
                    .all(|r| !attacks(r, given[r] as usize, row, c, nr))
        };
        let choices: Vec<usize> = if given[row] != NONE {
            vec![given[row] as usize]
        } else {
            (0..n).collect()
        };
        for c in choices {
            if ok(cols, c) {
                cols.push(c as u32);
                if go(row + 1, cols, given, nr) {
                    return true;
                }
                cols.pop();
            }
        }
        false
    }
    go(0, &mut Vec::new(), cols, nightrider)
}

fn placement(cols: &[u32]) -> Placement {
    Placement::Cols {
        n: cols.len(),
        cols: cols
            .iter()
            .map(|&c| if c == NONE { 0 } else { c + 1 })
            .collect(),
    }
}

/// Peaceful random queens on an `n`×`n` board: random cells are tried and kept when they fit.
fn random_peaceful(rng: &mut impl Rng, n: usize, nightrider: bool) -> Vec<u32> {
    let mut cols = vec![NONE; n];
    for _ in 0..rng.random_range(0..=n) {
        let (r, c) = (rng.random_range(0..n), rng.random_range(0..n) as u32);
        if cols[r] != NONE {
            continue;
        }
        cols[r] = c;
        if find_conflict(&placement(&cols), nightrider).is_some() {
            cols[r] = NONE;
        }
    }
    cols
}

/// Random peaceful partial placements of small boards: YES exactly when brute force
/// completes them, NO always proven, YES boards keep the given queens.
#[test]
fn agrees_with_brute_force_on_small_boards() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut seen = [0usize; 3];
    for case in 0..3000 {
        let nightrider = case % 3 == 0;
        let n = if nightrider {
            rng.random_range(1..=11)
        } else {
            rng.random_range(1..=9)
        };
        let cols = random_peaceful(&mut rng, n, nightrider);
        let opts = Options {
            nightrider,
            seed: case,
            ..Options::default()
        };
        let done = complete(&placement(&cols), &opts).unwrap();
        let expected = brute_completable(&cols, nightrider);
        match done.verdict {
            Verdict::Yes(full) => {
                assert!(expected, "{cols:?} nr={nightrider}");
                for (r, &c) in cols.iter().enumerate() {
                    assert!(c == NONE || full[r] == c + 1);
                }
                seen[0] += 1;
            }
            Verdict::Proven(p) => {
                assert!(!expected, "{cols:?} nr={nightrider}: false proof {p}");
                seen[1] += 1;
            }
            Verdict::NotFound => panic!("small board not decided: {cols:?}"),
        }
        seen[2] += 1;
    }
    // Both answers occur often enough for the comparison to mean something.
    assert!(seen[0] > 300 && seen[1] > 300, "{seen:?}");
}

#[test]
fn nightrider_shortcut_agrees_with_the_search() {
    // The search itself (no shortcut) finds nothing for N = 2..9 and a board for 10..=14.
    for n in 2..=14 {
        let board = Board::new(vec![NONE; n], true);
        let mut map = ColMap::new(n);
        let mut tail = Tail::build(
            &board,
            board.free_rows.clone(),
            board.free_cols.clone(),
            &mut map,
        );
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(n as u64);
        let far = clock::Deadline::new(Instant::now() + Duration::from_secs(3600));
        let out = tail.search(&mut rng, u64::MAX, far, &mut 0);
        if n <= 9 {
            assert_eq!(out, Outcome::Exhausted, "n = {n}");
        } else {
            assert!(matches!(out, Outcome::Found(_)), "n = {n}");
        }
    }
}

#[test]
fn luby_sequence() {
    let v: Vec<u64> = (1..=15).map(luby).collect();
    assert_eq!(v, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
}

#[test]
fn attacking_input_is_an_error() {
    let p = Placement::Pairs {
        n: 6,
        queens: vec![(0, 0), (2, 1)],
    };
    assert!(complete(&p, &Options::default()).is_ok());
    let opts = Options {
        nightrider: true,
        ..Options::default()
    };
    let c = complete(&p, &opts).unwrap_err();
    assert_eq!((c.first, c.second), ((0, 0), (2, 1)));
}

#[test]
fn large_random_compositions_complete() {
    for (n, k, seed) in [(20_000, 1_000, 1), (20_000, 15_000, 2), (3_000, 2_990, 3)] {
        let queens =
            crate::composition::random_composition(n, k, false, seed, Duration::from_secs(600))
                .unwrap();
        let p = Placement::Pairs {
            n,
            queens: queens.clone(),
        };
        let done = complete(&p, &Options::default()).unwrap();
        let Verdict::Yes(cols) = done.verdict else {
            panic!("n={n} k={k}: {:?}", done.verdict)
        };
        for (r, c) in queens {
            assert_eq!(cols[r as usize], c + 1);
        }
    }
}

/// The whole-board search branching on columns too: Found exactly when brute force
/// completes the placement, and every board found keeps the given queens and verifies.
#[test]
fn column_branching_search_agrees_with_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut seen = [0usize; 2];
    for case in 0..1500 {
        let nightrider = case % 2 == 0;
        let n = rng.random_range(1..=11);
        let cols = random_peaceful(&mut rng, n, nightrider);
        let mut board = Board::new(cols.clone(), nightrider);
        let mut map = ColMap::new(n);
        let mut tail = Tail::build(
            &board,
            board.free_rows.clone(),
            board.free_cols.clone(),
            &mut map,
        );
        tail.branch_on_columns(true);
        let far = clock::Deadline::new(Instant::now() + Duration::from_secs(3600));
        let out = tail.search(&mut rng, u64::MAX, far, &mut 0);
        let expected = brute_completable(&cols, nightrider);
        match out {
            Outcome::Found(assign) => {
                assert!(expected, "{cols:?} nr={nightrider}");
                for (i, &j) in assign.iter().enumerate() {
                    board.place(tail.rows[i] as usize, tail.cols[j as usize]);
                }
                let full = placement(&board.col);
                assert_eq!(find_conflict(&full, nightrider), None, "{cols:?}");
                for (r, &c) in cols.iter().enumerate() {
                    assert!(c == NONE || board.col[r] == c);
                }
                seen[0] += 1;
            }
            Outcome::Exhausted => {
                assert!(!expected, "{cols:?} nr={nightrider}");
                seen[1] += 1;
            }
            Outcome::Aborted => panic!("no limit, yet aborted"),
        }
    }
    assert!(seen[0] > 200 && seen[1] > 200, "{seen:?}");
}
