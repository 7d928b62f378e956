use super::*;
use rand::{Rng, SeedableRng};

/// The cheapest assignment of `q` rows to distinct columns, by trying every one.
fn brute(q: usize, m: usize, cost: &[f64], row: usize, used: &mut Vec<bool>) -> f64 {
    if row == q {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for j in 0..m {
        if !used[j] {
            used[j] = true;
            let rest = brute(q, m, cost, row + 1, used);
            best = best.min(cost[row * m + j] + rest);
            used[j] = false;
        }
    }
    best
}

#[test]
fn hungarian_is_optimal_and_its_prices_certify_it_after_every_change() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..40 {
        let m = rng.random_range(1..=7);
        let q = rng.random_range(1..=m);
        let mut cost: Vec<f64> = (0..q * m).map(|_| rng.random_range(0.0..10.0)).collect();
        let mut hungarian = Hungarian::new(m);
        // warm restarts after small and large changes, as the climb makes them
        for change in 0..6 {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            let assigned = hungarian.solve(q, &cost, deadline).expect("no deadline");
            let mut seen = assigned.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), q, "distinct columns");
            let got: f64 = (0..q).map(|i| cost[i * m + assigned[i]]).sum();
            let best = brute(q, m, &cost, 0, &mut vec![false; m]);
            assert!((got - best).abs() < 1e-9, "{got} vs {best}");
            // dual: Σ_i min_j (c_ij + p_j) − Σ p equals the optimum
            let p = hungarian.prices();
            let dual: f64 = (0..q)
                .map(|i| {
                    (0..m)
                        .map(|j| cost[i * m + j] + p[j])
                        .fold(f64::INFINITY, f64::min)
                })
                .sum::<f64>()
                - p.iter().sum::<f64>();
            assert!((dual - best).abs() < 1e-9, "dual {dual} vs {best}");
            let scale = if change % 2 == 0 { 0.1 } else { 5.0 };
            for c in cost.iter_mut() {
                *c = (*c + rng.random_range(-scale..scale)).max(0.0);
            }
        }
    }
}

#[test]
fn distances_are_cheapest_queen_routes_around_walls() {
    // 3 × 3, wall in the centre: corner to opposite corner is two moves of length 2
    let walls = [false, false, false, false, true, false, false, false, false];
    let mut search = Dijkstra::new(3);
    search.run(0, &walls);
    assert!((search.dist[8] - 2.0 * 2f64.sqrt()).abs() < 1e-12);
    assert_eq!(search.dist[2], 2f64.sqrt()); // one move of length 2 beats two of length 1
    assert_eq!(search.dist[4], f64::INFINITY);
}

#[test]
fn lines_of_a_cell_are_distinct_and_in_range() {
    for n in 1..=6 {
        for r in 0..n {
            for c in 0..n {
                let l = lines_of(n, r, c);
                assert!(l.iter().all(|&x| x < line_count(n)), "{n} {r} {c}");
                // two cells share a line id exactly when they attack each other
                for r2 in 0..n {
                    for c2 in 0..n {
                        let shared = lines_of(n, r2, c2).iter().filter(|x| l.contains(x)).count();
                        let attack = r == r2 || c == c2 || r + c2 == r2 + c || r + c == r2 + c2;
                        let same = (r, c) == (r2, c2);
                        assert_eq!(shared > 0, attack || same);
                        assert!(same || shared <= 1);
                    }
                }
            }
        }
    }
}

#[test]
fn argmin_finds_the_first_cheapest_reachable_cell() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for _ in 0..200 {
        let m = rng.random_range(1..=30);
        let dist: Vec<f64> = (0..m)
            .map(|j| match j {
                0 => 0.0, // every queen reaches its own start
                _ if rng.random_bool(0.3) => f64::INFINITY,
                _ => f64::from(rng.random_range(0..6u8)),
            })
            .collect();
        let extra: Vec<f64> = (0..m)
            .map(|_| f64::from(rng.random_range(0..6u8)))
            .collect();
        let (value, j) = joint::argmin(&dist, &extra);
        let sums: Vec<f64> = (0..m).map(|j| dist[j] + extra[j]).collect();
        let best = sums.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(value, best);
        assert_eq!(j, sums.iter().position(|&s| s == best).unwrap());
    }
}

#[test]
fn the_joint_climb_returns_the_certificate_of_its_best_point() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
    let far = Instant::now() + std::time::Duration::from_secs(30);
    let mut positive = 0;
    for _ in 0..30 {
        let n = rng.random_range(4..=8);
        // at most half the cells hold queens, so the walls (about 10 %) leave room for them
        let colours = rng.random_range(1..=n / 2);
        let board = Board::random(n, colours, 0.1, &mut rng);
        let problem = Problem::new(&board, far);
        let climbed = joint::climb(&problem, problem.n as f64, far);
        assert_ne!(climbed.stop, BoundStop::Deadline);
        assert!(climbed
            .weights
            .iter()
            .all(|&w| (0.0..=n as f64).contains(&w)));
        assert!(climbed.prices.iter().all(|&p| p >= 0.0));
        let mut cost = vec![0.0; problem.queens.len() * problem.cells.len()];
        problem.costs(&climbed.weights, &mut cost);
        let again = problem.certificate(&climbed.weights, &climbed.prices, &cost);
        assert!(
            (again - climbed.best).abs() < 1e-9,
            "{again} vs {}",
            climbed.best
        );
        positive += usize::from(climbed.best > 0.5);
    }
    assert!(
        positive >= 10,
        "only {positive} boards with pairs to pay for"
    );
}

#[test]
fn progress_keeps_the_best_certified_value() {
    let progress = Progress::new();
    assert_eq!(progress.value(), 0.0);
    for value in [3.0, f64::NAN, 2.0, f64::INFINITY, -1.0] {
        progress.raise(value);
    }
    // rounded down as every printed bound is
    assert_eq!(progress.value(), certified(3.0));
    assert!(progress.value() < 3.0 && progress.value() > 2.999_999);
}

#[test]
fn the_watched_bound_comes_by_its_deadline_and_matches_its_progress() {
    static PROGRESS: Progress = Progress::new();
    // N = 11, C = 2, colour 1 on row 0, colour 2 on row 1: the proof search's first
    // expansions are slow (one queen's children about 0.15 s), and it does not finish
    let mut text = String::from("11 2 ");
    for cell in 0..121 {
        text.push_str(match cell / 11 {
            0 => "1 ",
            1 => "2 ",
            _ => "0 ",
        });
    }
    let board = Board::parse(&text).unwrap();
    let started = Instant::now();
    let deadline = started + std::time::Duration::from_millis(400);
    let bound = lower_bound_watched(&board, deadline, f64::INFINITY, &PROGRESS);
    // the margin is for a loaded machine
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // a finished search raised its final value; a cut one left the best so far (the proof's
    // least open value may have moved down by float rounding since, far below the rounding
    // every printed bound gets)
    let value = bound.as_ref().map_or(PROGRESS.value(), |b| b.value);
    assert!(
        (PROGRESS.value() - value).abs() < 1e-9,
        "{} {value}",
        PROGRESS.value()
    );
    assert!(value > 40.0, "{value}");
}

/// Every N-Queens board of `problem` (one queen per row, column and diagonal, free cells
/// only), as sorted free-cell indices, by trying every column per row.
fn queens_boards(problem: &Problem, walls: &[bool]) -> Vec<Vec<usize>> {
    fn place(
        n: usize,
        walls: &[bool],
        row: usize,
        cols: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if row == n {
            out.push(cols.iter().enumerate().map(|(r, &c)| r * n + c).collect());
            return;
        }
        for c in 0..n {
            let clash = cols
                .iter()
                .enumerate()
                .any(|(r, &k)| k == c || row - r == c.abs_diff(k));
            if !clash && !walls[row * n + c] {
                cols.push(c);
                place(n, walls, row + 1, cols, out);
                cols.pop();
            }
        }
    }
    let mut out = Vec::new();
    place(problem.n, walls, 0, &mut Vec::new(), &mut out);
    out.iter()
        .map(|b| {
            let mut free: Vec<usize> = b
                .iter()
                .map(|c| problem.cells.binary_search(c).unwrap())
                .collect();
            free.sort_unstable();
            free
        })
        .collect()
}

#[test]
fn the_price_climb_reaches_the_dual_of_every_board_and_stays_below_disjoint_boards() {
    // the dual of "the colours' boards are disjoint" from the model of *every* board (the
    // pool's model is then the bound itself, up to the floors' slack of 10⁻⁴ a colour); the
    // climb, which sees only the boards it meets, should end on it, and never above the least
    // cost of disjoint boards (brute force). The supergradient climb before the pool ended up
    // to 0.004 below it here (4 of 36 boards more than 10⁻³), after 1–49 evaluations
    // against 1–15
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(70);
    let far = Instant::now() + std::time::Duration::from_secs(120);
    let mut compared = 0;
    for _ in 0..40 {
        let n = rng.random_range(5..=6);
        let board = Board::random(n, rng.random_range(2..=3), 0.08, &mut rng);
        let (problem, walls) = (Problem::new(&board, far), board.walls());
        let (m, colours) = (problem.cells.len(), problem.colours());
        let all = queens_boards(&problem, &walls);
        let mut pool = pool::Pool::new(colours);
        let mut costs = vec![Vec::new(); colours];
        for (c, of_colour) in costs.iter_mut().enumerate() {
            let members = problem.members(c);
            for b in &all {
                let mut cost = Vec::with_capacity(n * n);
                for &q in &members {
                    cost.extend(b.iter().map(|&j| problem.dist[q * m + j]));
                }
                let least = brute(n, n, &cost, 0, &mut vec![false; n]);
                if least.is_finite() {
                    pool.add(c, least, b, &vec![0.0; m]);
                    of_colour.push((least, b.clone()));
                }
            }
        }
        let disjoint = least_disjoint(&costs, 0, &mut vec![false; m]);
        if disjoint.is_infinite() {
            continue; // no disjoint boards: no error-free answer, the dual is unbounded
        }
        let (mut prices, mut radius) = (vec![0.0; m], 1.0);
        // at most 20 proposals per radius: each is a better point, but the gains may be tiny
        while radius > 1e-5 {
            for _ in 0..20 {
                match pool.propose(&prices, radius, far) {
                    Some(next) => prices = next,
                    None => break,
                }
            }
            radius /= 2.0;
        }
        let dual = pool.value(&prices).0;
        let free = joint::climb(&problem, 100.0 * n as f64, far);
        let climbed = floors::price_climb(&problem, &walls, &free.weights, &free.prices, &[], far);
        assert!(
            climbed.value <= disjoint + 1e-6,
            "{} above {disjoint}",
            climbed.value
        );
        assert!(
            climbed.value >= dual - 1e-3,
            "the climb's {} below the dual {dual} (n {n}, {colours} colours)",
            climbed.value
        );
        compared += 1;
    }
    assert!(
        compared >= 10,
        "only {compared} boards with error-free answers"
    );
}

/// The least total cost of one board per colour from `costs[c..]`, no cell used twice.
fn least_disjoint(costs: &[Vec<(f64, Vec<usize>)>], c: usize, used: &mut Vec<bool>) -> f64 {
    if c == costs.len() {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for (cost, cells) in &costs[c] {
        if cells.iter().all(|&j| !used[j]) {
            cells.iter().for_each(|&j| used[j] = true);
            best = best.min(cost + least_disjoint(costs, c + 1, used));
            cells.iter().for_each(|&j| used[j] = false);
        }
    }
    best
}
