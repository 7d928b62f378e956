//! The certified lower bound (`queenattack --bound`, `solver::lower_bound`): on tiny boards it
//! is never above the relaxation's exact optimum nor above the best score of short legal move
//! sequences (both by brute force, the moves played by the judge of the `tools` package); on
//! the official inputs it is never above the score of the solver's own answer.

use queenattack::solver::board::{Board, DIRS, WALL};
use queenattack::solver::lower_bound::lower_bound;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::time::{Duration, Instant};
use tools::input::Input;
use tools::output::Move;
use tools::replay::Replay;

use crate::common;
use crate::common::cpu::{thread_cpu, with_cpu};

/// Floating-point slack of the comparisons (the bound is rounded down by far more than this).
const EPS: f64 = 1e-9;

fn far() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

/// Walls-only distances from `from` (`Σ √L` over queen moves that cross no wall), by relaxing
/// every move until nothing changes (Bellman–Ford: independent of the bound's Dijkstra).
fn distances(board: &Board, from: usize) -> Vec<f64> {
    let n = board.n as i64;
    let mut dist = vec![f64::INFINITY; board.cells.len()];
    dist[from] = 0.0;
    let mut changed = true;
    while changed {
        changed = false;
        for cell in 0..board.cells.len() {
            if !dist[cell].is_finite() {
                continue;
            }
            for (dr, dc) in DIRS.map(|(dr, dc)| (i64::from(dr), i64::from(dc))) {
                let (mut r, mut c) = (cell as i64 / n + dr, cell as i64 % n + dc);
                let mut len = 1.0f64;
                while (0..n).contains(&r) && (0..n).contains(&c) {
                    let to = (r * n + c) as usize;
                    if board.cells[to] == WALL {
                        break;
                    }
                    if dist[cell] + len.sqrt() < dist[to] - 1e-12 {
                        dist[to] = dist[cell] + len.sqrt();
                        changed = true;
                    }
                    r += dr;
                    c += dc;
                    len += 1.0;
                }
            }
        }
    }
    dist
}

/// The relaxation's exact optimum: every queen on a distinct free cell, walls-only distance
/// plus `N` per same-colour pair sharing a row, column or diagonal; all injective assignments
/// (branch and bound on the running cost).
fn relaxation_optimum(board: &Board) -> f64 {
    let n = board.n;
    let queens: Vec<(usize, usize)> = (0..n * n)
        .filter(|&c| board.cells[c] > 0)
        .map(|c| (c, board.cells[c] as usize - 1))
        .collect();
    let dist: Vec<Vec<f64>> = queens.iter().map(|&(s, _)| distances(board, s)).collect();
    let mut placed: Vec<(usize, usize)> = Vec::new(); // (cell, colour)
    let mut best = f64::INFINITY;
    place(board, &queens, &dist, &mut placed, 0.0, &mut best);
    best
}

fn attack(n: usize, a: usize, b: usize) -> bool {
    let (ra, ca, rb, cb) = (a / n, a % n, b / n, b % n);
    ra == rb || ca == cb || ra + cb == rb + ca || ra + ca == rb + cb
}

fn place(
    board: &Board,
    queens: &[(usize, usize)],
    dist: &[Vec<f64>],
    placed: &mut Vec<(usize, usize)>,
    cost: f64,
    best: &mut f64,
) {
    if cost >= *best {
        return;
    }
    let q = placed.len();
    if q == queens.len() {
        *best = cost;
        return;
    }
    let colour = queens[q].1;
    for cell in 0..board.cells.len() {
        if !dist[q][cell].is_finite() || placed.iter().any(|&(c, _)| c == cell) {
            continue;
        }
        let pairs = placed
            .iter()
            .filter(|&&(c, k)| k == colour && attack(board.n, c, cell))
            .count();
        let step = dist[q][cell] + (pairs * board.n) as f64;
        placed.push((cell, colour));
        place(board, queens, dist, placed, cost + step, best);
        placed.pop();
    }
}

/// The best score the judge gives to any legal sequence of at most `depth` moves.
fn best_within(replay: &Replay, depth: usize) -> f64 {
    let mut best = replay.score();
    if depth == 0 {
        return best;
    }
    let n = replay.n() as i32;
    for from in 0..n * n {
        for to in 0..n * n {
            let mv = Move {
                r1: from / n,
                c1: from % n,
                r2: to / n,
                c2: to % n,
            };
            if replay.check(mv, &mv.to_string()).is_ok() {
                let mut next = replay.clone();
                next.apply(mv).expect("checked");
                best = best.min(best_within(&next, depth - 1));
            }
        }
    }
    best
}

/// A tiny board: side `n`, walls with probability 0.2, then `queens` queens of random colours
/// on random free cells (any count per colour: the bound does not need `N` per colour).
fn tiny_board(rng: &mut impl Rng, n: usize, colours: usize, queens: usize) -> Board {
    let mut cells: Vec<i8> = (0..n * n)
        .map(|_| if rng.random_bool(0.2) { WALL } else { 0 })
        .collect();
    let mut free: Vec<usize> = (0..n * n).filter(|&c| cells[c] == 0).collect();
    for _ in 0..queens.min(free.len()) {
        let cell = free.swap_remove(rng.random_range(0..free.len()));
        cells[cell] = rng.random_range(1..=colours) as i8;
    }
    Board { n, colours, cells }
}

fn judge_input(board: &Board) -> Input {
    Input::new(board.n, board.colours, board.cells.clone()).expect("a board the judge reads")
}

#[test]
fn never_above_the_exact_optimum_of_the_relaxation() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(23);
    let mut positive = 0;
    for round in 0..150 {
        let n = rng.random_range(2..=5);
        let queens = rng.random_range(1..=if n == 5 { 4 } else { 5 });
        let colours = rng.random_range(1..=2);
        let board = tiny_board(&mut rng, n, colours, queens);
        let bound = lower_bound(&board, far());
        let optimum = relaxation_optimum(&board);
        assert!(
            bound.value <= optimum + EPS,
            "round {round}: {board:?}: bound {} above the optimum {optimum}",
            bound.value
        );
        // the best relaxed answer the climb saw is a real assignment: never below the optimum
        assert!(
            bound.relaxed >= optimum - EPS,
            "round {round}: {bound:?} {optimum}"
        );
        positive += usize::from(bound.value > 0.5);
    }
    // not a vacuous check: many of these boards have a pair to pay for
    assert!(
        positive >= 30,
        "only {positive} boards with a bound above 0.5"
    );
}

#[test]
fn never_above_the_best_of_three_legal_moves() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(150);
    let mut tight = 0;
    for round in 0..60 {
        let n = rng.random_range(2..=4);
        let (colours, queens) = (rng.random_range(1..=2), rng.random_range(2..=5));
        let board = tiny_board(&mut rng, n, colours, queens);
        let bound = lower_bound(&board, far()).value;
        let best = best_within(&Replay::new(&judge_input(&board)), 3);
        assert!(
            bound <= best + EPS,
            "round {round}: {board:?}: bound {bound} above a legal score {best}"
        );
        tight += usize::from((best - bound).abs() < 1e-6);
    }
    assert!(
        tight >= 10,
        "the bound met the best short answer on only {tight} boards"
    );
}

#[test]
fn never_above_the_best_of_two_legal_moves_on_five_by_five() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    for round in 0..25 {
        let (colours, queens) = (rng.random_range(1..=3), rng.random_range(3..=8));
        let board = tiny_board(&mut rng, 5, colours, queens);
        let bound = lower_bound(&board, far()).value;
        let best = best_within(&Replay::new(&judge_input(&board)), 2);
        assert!(
            bound <= best + EPS,
            "round {round}: {board:?}: {bound} > {best}"
        );
    }
}

#[test]
fn a_deadline_in_the_past_gives_a_valid_bound_at_once() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testcases/2.in"))
            .expect("testcases/2.in exists");
    let board = Board::parse_official(&text).expect("official input");
    let started = Instant::now();
    let bound = lower_bound(&board, started);
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(bound.value, 0.0);
}

#[test]
#[ignore = "slow: 12 s at load 7; CI runs it (cargo test --workspace -- --include-ignored)"]
fn the_bound_is_below_the_solvers_answer_on_every_testcase() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testcases");
    let exe = env!("CARGO_BIN_EXE_queenattack");
    for seed in 1..=10 {
        let text = std::fs::read_to_string(dir.join(format!("{seed}.in"))).expect("testcase");
        let input = Input::parse(&text).expect("official input parses");
        let out = common::run_with_input(exe, &["--bound"], text.as_bytes());
        assert!(out.status.success(), "seed {seed}: {out:?}");
        let stdout = String::from_utf8(out.stdout).expect("ASCII");
        let bound: f64 = stdout
            .split_whitespace()
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("seed {seed}: no number on stdout: {stdout:?}"));
        let answer = common::run_with_input(exe, &["--time-limit", "0.6"], text.as_bytes());
        let verdict = tools::judge::judge(&input, &String::from_utf8_lossy(&answer.stdout));
        assert_eq!(verdict.error(), None, "seed {seed}");
        assert!(
            bound > 0.0,
            "seed {seed}: every official board has pairs to pay for"
        );
        assert!(
            bound <= verdict.score,
            "seed {seed}: bound {bound} above the score {} of a legal answer",
            verdict.score
        );
    }
}

#[test]
fn the_deadline_is_kept_on_the_largest_boards() {
    // N = 128, C = 100: the tables alone would take minutes, and a step with few open rows
    // must still look at the clock (without that check this test ran 8.3 s).
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(128);
    let board = Board::random(128, 100, 0.1, &mut rng);
    let started = Instant::now();
    let bound = lower_bound(&board, started + Duration::from_millis(900));
    // generous slack for a loaded machine; the bug above overshot by seconds
    assert!(
        started.elapsed() < Duration::from_millis(1900),
        "{:?}",
        started.elapsed()
    );
    assert!(bound.queens < 128 * 100, "{bound:?}");
}

#[test]
fn the_climb_passes_the_assignment_climbs_converged_bound_on_seed_2() {
    // The climb that solved an assignment problem per step converged to 198.35 on seed 2
    // (N = 30, C = 6) after 10–15 s of CPU; the joint climb of weights and prices ends above
    // it in about 0.2 s of CPU (this test's build, 2026-11-28: 197.93 at 0.15 s, 198.98 at
    // 0.2 s, 199.36 at 1 s). The claim is about CPU, the deadline wall time: a run starved by
    // a busy machine below the claim (it failed at load 5-9 with 2 s) is run again with a
    // longer deadline until it got 1 s of CPU (`common::cpu::with_cpu`).
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testcases/2.in"))
            .expect("testcases/2.in exists");
    let board = Board::parse_official(&text).expect("official input");
    let climb = |limit| {
        let before = thread_cpu();
        let bound = lower_bound(&board, Instant::now() + limit);
        (bound, thread_cpu() - before)
    };
    let run = with_cpu(Duration::from_secs(1), climb, |b| b.value > 198.5);
    let bound = &run.out;
    assert!(bound.value > 198.5, "{} {bound:?}", run.said());
    assert!(bound.value <= bound.relaxed, "{bound:?}");
}

/// The relaxation's exact optimum another way, for boards with few colours: every colour
/// takes a set of as many free cells as it has queens (every such set, pairwise disjoint
/// between colours) and pays its cheapest matching (every permutation) plus `N` per pair of
/// its cells sharing a line; and the same optimum over the final cells with at least one
/// same-colour pair only (`∞` when there is none).
fn optimum_with_and_without_pairs(board: &Board) -> (f64, f64) {
    let n = board.n;
    let free: Vec<usize> = (0..n * n).filter(|&c| board.cells[c] != WALL).collect();
    let colours: Vec<Vec<usize>> = (1..=board.colours as i8)
        .map(|k| (0..n * n).filter(|&c| board.cells[c] == k).collect())
        .collect();
    // per colour: (cell mask, cost, pairs) of every set of its size
    let options: Vec<Vec<(u64, f64, usize)>> = colours
        .iter()
        .map(|starts| {
            let dist: Vec<Vec<f64>> = starts.iter().map(|&s| distances(board, s)).collect();
            let mut out = Vec::new();
            subsets(&free, starts.len(), 0, &mut Vec::new(), &mut |cells| {
                let pairs = (0..cells.len())
                    .flat_map(|i| (i + 1..cells.len()).map(move |j| (i, j)))
                    .filter(|&(i, j)| attack(n, cells[i], cells[j]))
                    .count();
                let moves = cheapest_matching(&dist, &mut cells.to_vec(), 0);
                let mask = cells.iter().fold(0u64, |m, &c| m | 1 << c);
                out.push((mask, moves + (pairs * n) as f64, pairs));
            });
            out
        })
        .collect();
    // best[0]: any final cells; best[1]: with at least one pair
    fn combine(
        options: &[Vec<(u64, f64, usize)>],
        used: u64,
        at: (f64, usize),
        best: &mut [f64; 2],
    ) {
        let (cost, pairs) = at;
        let Some((first, rest)) = options.split_first() else {
            best[0] = best[0].min(cost);
            if pairs > 0 {
                best[1] = best[1].min(cost);
            }
            return;
        };
        for &(mask, c, p) in first {
            if mask & used == 0 && cost + c < best[0].max(best[1]) {
                combine(rest, used | mask, (cost + c, pairs + p), best);
            }
        }
    }
    let mut best = [f64::INFINITY; 2];
    combine(&options, 0, (0.0, 0), &mut best);
    (best[0], best[1])
}

/// Calls `visit` with every `k`-subset of `items[from..]` added to `chosen`.
fn subsets(
    items: &[usize],
    k: usize,
    from: usize,
    chosen: &mut Vec<usize>,
    visit: &mut impl FnMut(&[usize]),
) {
    if chosen.len() == k {
        visit(chosen);
        return;
    }
    for i in from..items.len() {
        chosen.push(items[i]);
        subsets(items, k, i + 1, chosen, visit);
        chosen.pop();
    }
}

/// The cheapest matching of queens `0..` (rows of `dist`) to `cells`, over every permutation.
fn cheapest_matching(dist: &[Vec<f64>], cells: &mut [usize], k: usize) -> f64 {
    if k == cells.len() {
        return (0..k).map(|i| dist[i][cells[i]]).sum();
    }
    let mut best = f64::INFINITY;
    for i in k..cells.len() {
        cells.swap(k, i);
        best = best.min(cheapest_matching(dist, cells, k + 1));
        cells.swap(k, i);
    }
    best
}

/// A board of side `n` with exactly `n` queens of each of `colours` colours (as the contest
/// draws them) on random free cells, walls with probability `walls` (fewer when the queens
/// would not fit; `n · colours ≤ n²`).
fn full_board(rng: &mut impl Rng, n: usize, colours: usize, walls: f64) -> Board {
    loop {
        let mut cells: Vec<i8> = (0..n * n)
            .map(|_| if rng.random_bool(walls) { WALL } else { 0 })
            .collect();
        let mut free: Vec<usize> = (0..n * n).filter(|&c| cells[c] == 0).collect();
        if free.len() < n * colours {
            continue;
        }
        for colour in 1..=colours {
            for _ in 0..n {
                let cell = free.swap_remove(rng.random_range(0..free.len()));
                cells[cell] = colour as i8;
            }
        }
        return Board { n, colours, cells };
    }
}

#[test]
#[ignore = "slow: 20 s at load 2 since the bound searches board states on small boards; CI runs it (cargo test --workspace -- --include-ignored)"]
fn never_above_the_relaxation_optimum_with_n_queens_of_every_colour() {
    // the two cases (error-free answers: each colour an N-Queens board; answers with errors)
    // apply when every colour has N queens: the bound is still at most the relaxation's
    // optimum, by brute force over every injective assignment
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(2311);
    let (mut tight, mut no_board) = (0, 0);
    for round in 0..60 {
        let n = rng.random_range(2..=5);
        let colours = match n {
            5 => 1,
            2 | 4 => rng.random_range(1..=2),
            _ => rng.random_range(1..=3),
        };
        let board = full_board(&mut rng, n, colours, 0.15);
        let bound = lower_bound(&board, far());
        let (optimum, with_pairs) = optimum_with_and_without_pairs(&board);
        assert!(
            bound.value <= optimum + EPS,
            "round {round}: {board:?}: bound {bound:?} above the optimum {optimum}"
        );
        let cases = bound.cases.as_ref().expect("the cases have time");
        assert!(
            bound.value >= cases.free.min(cases.errors) - 1e-6,
            "{bound:?}"
        );
        assert!(
            cases.errors <= with_pairs + EPS,
            "round {round}: {board:?}: with errors {} above {with_pairs}",
            cases.errors
        );
        tight += usize::from(bound.value >= optimum - 1e-3);
        no_board += usize::from(cases.free == f64::INFINITY);
    }
    // not vacuous: boards with no N-Queens board at all (N = 2, 3, or walled) were bounded by
    // their with-errors case alone
    assert!(
        no_board >= 10,
        "only {no_board} boards without an error-free answer"
    );
    // and on many boards the bound is the optimum itself
    assert!(
        tight >= 25,
        "the bound met the optimum on only {tight} boards"
    );
}

#[test]
fn the_with_errors_case_never_passes_the_cheapest_final_cells_with_a_pair() {
    // the with-errors case (the penalty's climbs, and one queen dropped per error) bounds
    // every answer with a pair: at most the relaxation's optimum over final cells with one,
    // by brute force; 0.1 s a bound keeps the proof search short
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(2312);
    let mut bounded = 0;
    for round in 0..20 {
        let n = rng.random_range(3..=5);
        let colours = if n == 5 { 1 } else { rng.random_range(1..=2) };
        let board = full_board(&mut rng, n, colours, 0.1);
        let bound = lower_bound(&board, Instant::now() + Duration::from_millis(100));
        let (_, with_pairs) = optimum_with_and_without_pairs(&board);
        let Some(cases) = bound.cases.as_ref() else {
            continue; // cut before the cases: nothing to check
        };
        assert!(
            cases.errors <= with_pairs + EPS,
            "round {round}: {board:?}: with errors {} above {with_pairs}",
            cases.errors
        );
        bounded += usize::from(cases.errors > 0.5);
    }
    assert!(bounded >= 10, "only {bounded} with-errors bounds above 0.5");
}

#[test]
fn dropping_a_queen_lifts_the_with_errors_case_of_seed_27() {
    // N = 26, one colour whose queens start on few columns: the penalty's climbs gave 39.2542
    // (below the error-free case's 39.6131, so the bound stopped there); with one queen
    // dropped per error the column assignment alone gives 26 + 24.58
    let bound = lower_bound(&seed_board(27), Instant::now() + Duration::from_secs(2));
    let cases = bound.cases.expect("the cases have time");
    assert!(cases.errors >= 50.5, "{}", cases.errors);
}

/// The official case of `seed` (`tester gen --seed S`).
fn seed_board(seed: u64) -> Board {
    let text = tools::gen::generate(seed, &tools::gen::Ranges::default())
        .input
        .to_string();
    Board::parse_official(&text).expect("a generated board parses")
}

#[test]
fn meets_the_best_known_score_on_small_one_colour_seeds() {
    // (seed, N, best known score: testcases/bests.json). The plain relaxation gave 6.37,
    // 13.29, 12.64 on the first three: the cheapest N-Queens board, matched on walls-only
    // distances, is what these answers pay. Seed 33 (N 11, 13.928203) meets it too, but its
    // proof search with blocking alone took 4.3 s of a release build (about 10 s of the test
    // profile, issue 49): seed 92 keeps an N = 11 board, where the proof runs, and the N = 15
    // seeds 39 and 74 (0.1 s each) took its place.
    for (seed, n, best) in [
        (22, 9, 7.732050807568877),
        (92, 11, 15.156232045040214),
        (94, 13, 14.120955864630133),
        (39, 15, 15.610365985079726),
        (74, 15, 16.66024921497113),
    ] {
        let board = seed_board(seed);
        assert_eq!((board.n, board.colours), (n, 1), "seed {seed}");
        let bound = lower_bound(&board, far()).value;
        assert!(
            bound <= best,
            "seed {seed}: bound {bound} above a legal score {best}"
        );
        assert!(
            bound >= best - 1e-3,
            "seed {seed}: bound {bound} far below {best}"
        );
    }
}

#[test]
fn small_seeds_with_several_colours_gain_and_stay_below_the_scores() {
    // (seed, the plain relaxation's bound, the 10 s score of docs/benchmarks.md, rounded to
    // 3 decimals)
    for (seed, plain, score) in [
        (1, 13.4899, 16.707),
        (28, 19.2812, 26.535),
        (60, 46.2059, 65.423),
        (89, 37.0726, 57.828),
    ] {
        let board = seed_board(seed);
        // 1.5 s: since answers with errors are bounded by dropping queens (2026-11-27), the
        // branching on contested cells has more to gain and uses all of a long deadline
        // (seed 60: 30 s, 56.30 against 54.29 at 1 s)
        let bound = lower_bound(&board, Instant::now() + Duration::from_millis(1500)).value;
        assert!(
            bound <= score + 5e-4,
            "seed {seed}: bound {bound} above the score {score}"
        );
        assert!(
            bound > plain + 1.0,
            "seed {seed}: bound {bound}, plain {plain}"
        );
    }
}

#[test]
#[ignore = "slow: about 60 s; CI runs it (cargo test --workspace -- --include-ignored)"]
fn never_above_the_ten_second_scores_on_seeds_1_to_100() {
    // testcases/bound_1-100.tsv holds per seed the best known score (full precision) and the
    // 10 s score of docs/benchmarks.md (3 decimals); the bound within --bound's 0.9 s stays
    // at most both
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testcases/bound_1-100.tsv");
    let text = std::fs::read_to_string(path).expect("the table exists");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let column = |name: &str| header.iter().position(|&h| h == name).expect(name);
    let (seed_at, best_at, score_at) = (column("seed"), column("best"), column("score_10s"));
    let mut seeds = 0;
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let seed: u64 = fields[seed_at].parse().expect("a seed");
        let best: f64 = fields[best_at].parse().expect("a score");
        let score: f64 = fields[score_at].parse().expect("a score");
        let limit = best.min(score + 5e-4);
        let bound = lower_bound(
            &seed_board(seed),
            Instant::now() + Duration::from_millis(900),
        );
        assert!(bound.value <= limit, "seed {seed}: {bound:?} above {limit}");
        seeds += 1;
    }
    assert_eq!(seeds, 100);
}
