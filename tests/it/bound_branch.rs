//! The branch and bound on contested cells (error-free case, three colours or more, where the
//! proof search does not apply) against the exact optimum of the relaxation it branches on,
//! found by brute force: every colour's cheapest matching (over every permutation, walls-only
//! distances by Floyd–Warshall) onto every N-Queens board, then every choice of pairwise
//! disjoint boards. The error-free bound is never above it, and where the branching reports
//! the relaxation solved it meets it.

use queenattack::solver::board::{Board, EMPTY, WALL};
use queenattack::solver::lower_bound::{lower_bound, LowerBound};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

use crate::common::cpu::{again, measure, thread_cpu, Measured};

/// Walls-only distances between all cells: one queen move along a line over free cells costs
/// `√L`, then Floyd–Warshall.
fn all_distances(board: &Board) -> Vec<Vec<f64>> {
    let n = board.n as i64;
    let nn = board.cells.len();
    let mut d = vec![vec![f64::INFINITY; nn]; nn];
    for (from, row) in d.iter_mut().enumerate() {
        row[from] = 0.0;
        if board.cells[from] == WALL {
            continue;
        }
        for dr in -1i64..=1 {
            for dc in -1i64..=1 {
                let (mut r, mut c, mut len) = (from as i64 / n, from as i64 % n, 0.0f64);
                loop {
                    (r, c, len) = (r + dr, c + dc, len + 1.0);
                    let to = (r * n + c) as usize;
                    if (dr, dc) == (0, 0)
                        || !(0..n).contains(&r)
                        || !(0..n).contains(&c)
                        || board.cells[to] == WALL
                    {
                        break;
                    }
                    row[to] = len.sqrt();
                }
            }
        }
    }
    for k in 0..nn {
        let through = d[k].clone();
        for row in d.iter_mut() {
            for (j, &kj) in through.iter().enumerate() {
                row[j] = row[j].min(row[k] + kj);
            }
        }
    }
    d
}

/// Every N-Queens board on the free cells (one queen per row and column, none sharing a
/// diagonal), as cell lists.
fn queens_boards(board: &Board) -> Vec<Vec<usize>> {
    fn extend(board: &Board, cells: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        let n = board.n;
        let row = cells.len();
        if row == n {
            out.push(cells.clone());
            return;
        }
        for c in 0..n {
            let ok = board.cells[row * n + c] != WALL
                && cells.iter().all(|&o| {
                    let (r0, c0) = ((o / n) as i64, (o % n) as i64);
                    let (r1, c1) = (row as i64, c as i64);
                    c0 != c1 && r0 - c0 != r1 - c1 && r0 + c0 != r1 + c1
                });
            if ok {
                cells.push(row * n + c);
                extend(board, cells, out);
                cells.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(board, &mut Vec::new(), &mut out);
    out
}

/// The least `Σ d(queen, cell)` over every matching of `queens` onto `cells` (permutations).
fn cheapest(d: &[Vec<f64>], queens: &[usize], cells: &mut [usize], k: usize) -> f64 {
    if k == cells.len() {
        return queens
            .iter()
            .zip(cells.iter())
            .map(|(&q, &c)| d[q][c])
            .sum();
    }
    let mut best = f64::INFINITY;
    for i in k..cells.len() {
        cells.swap(k, i);
        best = best.min(cheapest(d, queens, cells, k + 1));
        cells.swap(k, i);
    }
    best
}

/// The relaxation's optimum: each colour on its own N-Queens board, boards pairwise disjoint,
/// each colour paying its cheapest walls-only matching (`∞` if no disjoint choice exists).
fn relaxation_optimum(board: &Board) -> f64 {
    let d = all_distances(board);
    let boards = queens_boards(board);
    let masks: Vec<u64> = boards
        .iter()
        .map(|b| b.iter().fold(0, |m, &c| m | 1 << c))
        .collect();
    // costs[colour][b]
    let costs: Vec<Vec<f64>> = (1..=board.colours as i8)
        .map(|k| {
            let queens: Vec<usize> = (0..board.cells.len())
                .filter(|&c| board.cells[c] == k)
                .collect();
            boards
                .iter()
                .map(|b| cheapest(&d, &queens, &mut b.clone(), 0))
                .collect()
        })
        .collect();
    fn choose(costs: &[Vec<f64>], masks: &[u64], used: u64, sum: f64, best: &mut f64) {
        let Some((first, rest)) = costs.split_first() else {
            *best = best.min(sum);
            return;
        };
        for (b, &cost) in first.iter().enumerate() {
            if masks[b] & used == 0 && sum + cost < *best {
                choose(rest, masks, used | masks[b], sum + cost, best);
            }
        }
    }
    let mut best = f64::INFINITY;
    choose(&costs, &masks, 0, 0.0, &mut best);
    best
}

/// A board of side `n` with `n` queens of each of `colours` colours on random cells, a few
/// walls (probability `walls`).
fn crowded_board(n: usize, colours: usize, walls: f64, rng: &mut impl Rng) -> Board {
    let mut cells: Vec<i8> = (0..n * n)
        .map(|_| if rng.random_bool(walls) { WALL } else { EMPTY })
        .collect();
    let mut free: Vec<usize> = (0..n * n).filter(|&c| cells[c] == EMPTY).collect();
    free.shuffle(rng);
    for colour in 1..=colours {
        for _ in 0..n {
            cells[free.pop().expect("room for the queens")] = colour as i8;
        }
    }
    Board { n, colours, cells }
}

/// The 18 boards of the branching's test (seed 3702): three or four colours, where the proof
/// search does not apply and the branching does.
fn branching_boards() -> Vec<Board> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3702);
    (0..18)
        .map(|round| {
            let (n, colours) = match round % 3 {
                0 => (5, 4),
                1 => (7, 3),
                _ => (7, 4),
            };
            crowded_board(n, colours, rng.random_range(0.0..0.08), &mut rng)
        })
        .collect()
}

/// The CPU time a board's branching is given: solving took 1.15 s at most on these boards
/// (this test's build, 2026-11-28).
const BUDGET: Duration = Duration::from_secs(3);

/// How many boards of nine each test wants branched on, and solved.
const BRANCHED: usize = 4;
const SOLVED: usize = 4;

/// The bound of `board` within `limit` of wall time, and the CPU time it got.
fn bound_within(board: &Board, limit: Duration) -> (LowerBound, Duration) {
    let before = thread_cpu();
    let bound = lower_bound(board, Instant::now() + limit);
    (bound, thread_cpu() - before)
}

/// Checks one bound of `board` (`round` of [`branching_boards`]) against the relaxation's
/// `optimum`.
fn check_bound(round: usize, board: &Board, optimum: f64, bound: &LowerBound) {
    let cases = bound.cases.as_ref().expect("the cases have time");
    assert!(
        cases.free <= optimum + 1e-9,
        "round {round}: {board:?}: error-free bound {cases:?} above the relaxation's optimum \
         {optimum}"
    );
    if cases.solved {
        assert!(
            cases.free >= optimum - 1e-3,
            "round {round}: {board:?}: {cases:?} reported solved below {optimum}"
        );
    }
}

/// Checks the branching on `rounds` of [`branching_boards`] against the relaxation's optimum;
/// returns on how many boards it branched, on how many it solved the relaxation, and the runs
/// of the boards it did not solve. Both counts need CPU, the deadline is wall time: when one
/// falls short (3 boards solved at load 12 with 5 s, 3 branched at load 8), every board whose
/// run was starved by a busy machine is run again with a longer deadline until it got
/// [`BUDGET`] (`common::cpu::again`), and its new bound is checked and counted.
fn check_branching(rounds: std::ops::Range<usize>) -> (usize, usize, String) {
    let boards = branching_boards();
    let mut runs = Vec::new();
    for round in rounds {
        let board = &boards[round];
        let optimum = relaxation_optimum(board);
        let run = measure(BUDGET, |limit| bound_within(board, limit));
        check_bound(round, board, optimum, &run.out);
        runs.push((round, optimum, run));
    }
    let (branched, solved) = counts(&runs);
    if branched < BRANCHED || solved < SOLVED {
        runs = runs
            .into_iter()
            .map(|(round, optimum, run)| {
                if !run.starved(BUDGET) {
                    return (round, optimum, run);
                }
                let board = &boards[round];
                let run = again(run, BUDGET, |limit| bound_within(board, limit), |_| false);
                check_bound(round, board, optimum, &run.out);
                (round, optimum, run)
            })
            .collect();
    }
    let (branched, solved) = counts(&runs);
    let mut unsolved = String::new();
    for (round, _, run) in runs.iter().filter(|(.., run)| !is_solved(&run.out)) {
        unsolved.push_str(&format!("\nround {round}: {}", run.said()));
    }
    eprintln!("branched {branched}, solved {solved}");
    (branched, solved, unsolved)
}

/// Whether the branching solved the relaxation.
fn is_solved(bound: &LowerBound) -> bool {
    bound.cases.as_ref().is_some_and(|c| c.solved)
}

/// On how many boards of `runs` the branching ran, and on how many it solved the relaxation.
fn counts(runs: &[(usize, f64, Measured<LowerBound>)]) -> (usize, usize) {
    let branched = runs
        .iter()
        .filter(|(.., run)| run.out.cases.as_ref().is_some_and(|c| c.nodes > 0))
        .count();
    let solved = runs.iter().filter(|(.., run)| is_solved(&run.out)).count();
    (branched, solved)
}

// The 18 boards in two tests of nine that run side by side: together they took 13.0 s on a
// loaded machine (issue 49). The branching runs until the error-free bound meets the
// with-errors one or the relaxation is solved.
#[test]
#[ignore = "slow: 9.95 s of CPU alone, quiet (2026-11-28); CI runs it (cargo test --workspace -- --include-ignored)"]
fn the_branching_never_passes_the_relaxations_optimum_and_meets_it_when_solved() {
    let (branched, solved, unsolved) = check_branching(0..9);
    // not vacuous: the branching ran, and often to the relaxation's optimum
    assert!(
        branched >= BRANCHED,
        "the branching ran on only {branched} boards; unsolved:{unsolved}"
    );
    assert!(
        solved >= SOLVED,
        "only {solved} boards solved; unsolved:{unsolved}"
    );
}

#[test]
#[ignore = "slow: 9.96 s of CPU alone, quiet (2026-11-28); CI runs it (cargo test --workspace -- --include-ignored)"]
fn the_branching_never_passes_the_relaxations_optimum_on_nine_more_boards() {
    let (branched, solved, unsolved) = check_branching(9..18);
    assert!(
        branched >= BRANCHED,
        "the branching ran on only {branched} boards; unsolved:{unsolved}"
    );
    assert!(
        solved >= SOLVED,
        "only {solved} boards solved; unsolved:{unsolved}"
    );
}
