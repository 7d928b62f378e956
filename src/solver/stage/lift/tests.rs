use super::*;
use crate::solver::board::Board;
use crate::solver::score::errors;
use crate::solver::stage::exact::colour_by_colour;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;

/// A random board of side `n` with `colours` colours, its problem (walls-only table) and an
/// error-free base board made colour by colour; `None` when the colours find no room.
fn case(n: usize, colours: usize, rng: &mut impl Rng) -> Option<(Problem, Vec<usize>)> {
    let board = Board::random(n, colours, 0.05, rng);
    let problem = Problem::with_walls_only(&board);
    let far = Instant::now() + Duration::from_secs(60);
    let base = colour_by_colour(
        n,
        &problem.walls,
        &problem.queens,
        problem.walls_only(),
        far,
    );
    let cells = base.into_iter().next()?.cells;
    Some((problem, cells))
}

/// Σ path cost of the queens of `colour` on `cells` (the matching's cost on `dist`).
fn colour_cost(problem: &Problem, cells: &[usize], colour: usize) -> f64 {
    let nn = problem.cells();
    (0..cells.len())
        .filter(|&q| problem.colour[q] == colour)
        .map(|q| f64::from(problem.walls_only()[q * nn + cells[q]]))
        .sum()
}

/// A lifted board keeps every other colour's cells, puts the lifted colours on free, distinct
/// cells off the walls, and leaves no error.
#[test]
fn a_lift_keeps_the_others_and_places_valid_colours() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(38);
    let mut made = 0;
    for case_no in 0..40 {
        let n = rng.random_range(8..=13);
        let colours = rng.random_range(1..=3);
        let Some((problem, base)) = case(n, colours, &mut rng) else {
            continue;
        };
        let lifted = lift_colours(colours, &[], 0.0, 0.5, &mut rng);
        let mv = LiftMove {
            colours: lifted.clone(),
            noise: rng.random_range(0.0..0.5),
            turn: case_no as u64,
        };
        let end = Instant::now() + Duration::from_secs(5);
        let Some(cells) = lift(&problem, problem.walls_only(), &base, &mv, end, &mut rng) else {
            continue;
        };
        let mut grid = vec![0i8; n * n];
        for (q, &cell) in cells.iter().enumerate() {
            assert!(!problem.walls[cell], "case {case_no}: a target on a wall");
            assert_eq!(grid[cell], 0, "case {case_no}: two targets on one cell");
            grid[cell] = problem.colour[q] as i8 + 1;
            if !lifted.contains(&problem.colour[q]) {
                assert_eq!(cell, base[q], "case {case_no}: a kept queen moved");
            }
        }
        assert_eq!(errors(n, colours, &grid), 0, "case {case_no}");
        made += 1;
    }
    assert!(made >= 20, "only {made} lifts in 40 cases");
}

/// Without noise and with time for the search to finish, a lifted colour never costs more
/// than it did on the base board (the base's own board of that colour is one of the boards
/// searched): a lift's best response is never worse.
#[test]
fn a_lift_without_noise_never_costs_more() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut checked = 0;
    for case_no in 0..30 {
        let n = rng.random_range(6..=10);
        let colours = rng.random_range(1..=3);
        let Some((problem, base)) = case(n, colours, &mut rng) else {
            continue;
        };
        let colour = rng.random_range(0..colours);
        let mv = LiftMove {
            colours: vec![colour],
            noise: 0.0,
            turn: case_no as u64,
        };
        let end = Instant::now() + Duration::from_secs(30);
        let cells = lift(&problem, problem.walls_only(), &base, &mv, end, &mut rng)
            .expect("the base's own board is still there");
        let (before, after) = (
            colour_cost(&problem, &base, colour),
            colour_cost(&problem, &cells, colour),
        );
        assert!(after <= before + 1e-3, "case {case_no}: {after} > {before}");
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} cases");
}

/// The colours to lift: one or two, distinct, in range; a base with errors mostly lifts a
/// colour that has them.
#[test]
fn lift_colours_are_distinct_and_prefer_faulty_ones() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (mut two, mut faulty_first) = (0, 0);
    for _ in 0..1000 {
        let lifted = lift_colours(5, &[3], 0.8, 0.3, &mut rng);
        assert!(!lifted.is_empty() && lifted.len() <= 2);
        assert!(lifted.iter().all(|&c| c < 5));
        if lifted.len() == 2 {
            assert_ne!(lifted[0], lifted[1]);
            two += 1;
        }
        faulty_first += usize::from(lifted[0] == 3);
    }
    assert!(
        (200..400).contains(&two),
        "{two} of 1000 lifted two colours"
    );
    assert!(
        faulty_first >= 750,
        "{faulty_first} of 1000 lifted the faulty colour"
    );
    assert_eq!(lift_colours(1, &[], 0.8, 1.0, &mut rng), vec![0]);
}

/// Price noise scales each cell by one factor for every queen, and keeps zero costs zero.
#[test]
fn noisy_rows_scale_cells_alike() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let nn = 16;
    let dist: Vec<f32> = (0..3 * nn).map(|i| (i % 7) as f32).collect();
    let rows = noisy_rows(&dist, nn, &[2, 0], 0.2, &mut rng);
    assert_eq!(rows.len(), 2 * nn);
    for cell in 0..nn {
        let (a, b) = (dist[2 * nn + cell], dist[cell]);
        if a > 0.0 && b > 0.0 {
            let (fa, fb) = (rows[cell] / a, rows[nn + cell] / b);
            assert!((fa - fb).abs() < 1e-5 && (0.8..=1.2).contains(&fa));
        }
        if a == 0.0 {
            assert_eq!(rows[cell], 0.0);
        }
    }
    assert_eq!(noisy_rows(&dist, nn, &[1], 0.0, &mut rng), dist[nn..2 * nn]);
}

/// Recombination takes one colour from the other board and names exactly the colours in its
/// way; lifting them makes a valid board again that keeps the rest of the first board.
#[test]
fn recombined_boards_are_valid_after_their_lift() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut made = 0;
    for case_no in 0..40 {
        let n = rng.random_range(8..=12);
        let colours = rng.random_range(2..=3);
        let Some((problem, a)) = case(n, colours, &mut rng) else {
            continue;
        };
        // another board: a noisy lift of every colour of the first
        let all = LiftMove {
            colours: (0..colours).collect(),
            noise: 1.0,
            turn: 0,
        };
        let end = Instant::now() + Duration::from_secs(5);
        let Some(b) = lift(&problem, problem.walls_only(), &a, &all, end, &mut rng) else {
            continue;
        };
        let colour = rng.random_range(0..colours);
        let (child, conflicts) = recombine(&problem, &a, &b, colour);
        let theirs: Vec<usize> = (0..a.len())
            .filter(|&q| problem.colour[q] == colour)
            .map(|q| b[q])
            .collect();
        for q in 0..a.len() {
            let c = problem.colour[q];
            assert_eq!(child[q], if c == colour { b[q] } else { a[q] });
        }
        for c in (0..colours).filter(|&c| c != colour) {
            let in_the_way = (0..a.len()).any(|q| problem.colour[q] == c && theirs.contains(&a[q]));
            assert_eq!(conflicts.contains(&c), in_the_way, "case {case_no}");
        }
        assert!(!conflicts.contains(&colour));
        let mv = LiftMove {
            colours: conflicts.clone(),
            noise: 0.1,
            turn: 0,
        };
        let Some(cells) = lift(&problem, problem.walls_only(), &child, &mv, end, &mut rng) else {
            continue;
        };
        let mut grid = vec![0i8; n * n];
        for (q, &cell) in cells.iter().enumerate() {
            assert_eq!(grid[cell], 0, "case {case_no}: two targets on one cell");
            grid[cell] = problem.colour[q] as i8 + 1;
            if !conflicts.contains(&problem.colour[q]) {
                assert_eq!(cell, child[q], "case {case_no}: a kept queen moved");
            }
        }
        assert_eq!(errors(n, colours, &grid), 0, "case {case_no}");
        made += 1;
    }
    assert!(made >= 10, "only {made} recombined boards");
}

/// Cheapest Σ √L from `from` to every cell through cells not `blocked`, by relaxing every ray
/// until nothing changes (slow and plain: the reference for [`around_stayers`]).
fn relaxed(n: usize, blocked: &[bool], from: usize) -> Vec<f32> {
    let mut d = vec![f32::INFINITY; n * n];
    d[from] = 0.0;
    let mut changed = true;
    while changed {
        changed = false;
        for cell in 0..n * n {
            if !d[cell].is_finite() {
                continue;
            }
            let (r, c) = ((cell / n) as i64, (cell % n) as i64);
            for (dr, dc) in crate::solver::board::DIRS {
                let (dr, dc) = (i64::from(dr), i64::from(dc));
                let (mut rr, mut cc, mut len) = (r + dr, c + dc, 1.0f32);
                while (0..n as i64).contains(&rr) && (0..n as i64).contains(&cc) {
                    let next = (rr * n as i64 + cc) as usize;
                    if blocked[next] {
                        break;
                    }
                    if d[cell] + len.sqrt() < d[next] - 1e-6 {
                        d[next] = d[cell] + len.sqrt();
                        changed = true;
                    }
                    (rr, cc, len) = (rr + dr, cc + dc, len + 1.0);
                }
            }
        }
    }
    d
}

/// The lifted colours' rows are routes around the walls and the other colours' queens that
/// stay (walls-only plus `WALLED_OFF` where they wall a cell off), blended by `share`; every
/// other row is the table's.
#[test]
fn lift_prices_go_around_the_other_colours_staying_queens() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut checked = 0;
    for _ in 0..30 {
        let n = rng.random_range(6..=10);
        let Some((problem, mut base)) = case(n, 3, &mut rng) else {
            continue;
        };
        // about half of the queens stay home (their start is free of the others' targets)
        for q in 0..base.len() {
            let start = problem.starts[q];
            if rng.random_bool(0.5) && !base.contains(&start) {
                base[q] = start;
            }
        }
        let nn = problem.cells();
        let table: Vec<f32> = problem.walls_only().iter().map(|d| d * 1.5).collect();
        let lifted = [rng.random_range(0..3)];
        let share = 0.75;
        let priced = around_stayers(&problem, &base, &lifted, &table, share);
        let mut blocked = problem.walls.clone();
        for (q, &cell) in base.iter().enumerate() {
            if cell == problem.starts[q] && problem.colour[q] != lifted[0] {
                blocked[cell] = true;
            }
        }
        for q in 0..base.len() {
            let row = q * nn..(q + 1) * nn;
            if problem.colour[q] != lifted[0] {
                assert_eq!(priced[row.clone()], table[row], "queen {q} is not lifted");
                continue;
            }
            let mut open = blocked.clone();
            open[problem.starts[q]] = false;
            let around = relaxed(n, &open, problem.starts[q]);
            for cell in 0..nn {
                let alone = problem.walls_only()[q * nn + cell];
                let want = if around[cell].is_finite() {
                    around[cell]
                } else {
                    alone + WALLED_OFF
                };
                let want = share * want + (1.0 - share) * table[q * nn + cell];
                let got = priced[q * nn + cell];
                assert!(
                    (got - want).abs() < 1e-3 || (got.is_infinite() && want.is_infinite()),
                    "queen {q} cell {cell}: {got} against {want}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} lifted queens checked");
}

/// A cell the table cannot reach stays out of reach at every share, the whole share
/// included (it was `0 · ∞`, a NaN, which made `QUEENATTACK_ENGINE_DUMP` refuse every lift).
#[test]
fn noisy_rows_keep_unreachable_cells_unreachable_at_any_noise() {
    // lift_noise may be up to 10: factors of 0 made 0 * inf = NaN on cells out of reach.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let nn = 16;
    let dist: Vec<f32> = (0..2 * nn)
        .map(|i| if i % 3 == 0 { f32::INFINITY } else { i as f32 })
        .collect();
    for noise in [1.0, 3.0, 10.0] {
        let rows = noisy_rows(&dist, nn, &[0, 1], noise, &mut rng);
        for (&got, &was) in rows.iter().zip(&dist) {
            assert!(!got.is_nan(), "noise {noise}: NaN");
            assert_eq!(got.is_infinite(), was.is_infinite(), "noise {noise}");
        }
    }
}

#[test]
fn lift_prices_keep_unreachable_cells_unreachable_and_are_never_nan() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let mut unreachable = 0;
    for _ in 0..20 {
        let n = rng.random_range(6..=10);
        let Some((problem, base)) = case(n, 3, &mut rng) else {
            continue;
        };
        // a table that cannot reach a tenth of the cells
        let table: Vec<f32> = problem
            .walls_only()
            .iter()
            .map(|&d| {
                if rng.random_bool(0.1) {
                    f32::INFINITY
                } else {
                    d
                }
            })
            .collect();
        for share in [0.0, 0.5, 1.0] {
            let priced = around_stayers(&problem, &base, &[0], &table, share);
            for (i, (&got, &was)) in priced.iter().zip(&table).enumerate() {
                assert!(!got.is_nan(), "share {share}, entry {i}: NaN");
                if was.is_infinite() {
                    assert!(got.is_infinite(), "share {share}, entry {i}: {got}");
                    unreachable += 1;
                }
            }
        }
    }
    assert!(
        unreachable >= 100,
        "only {unreachable} unreachable entries checked"
    );
}
