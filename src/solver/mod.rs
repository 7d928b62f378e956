//! The QueenAttack solver pipeline, one module per stage:
//!
//! 1. [`paths`]: walls-only cheapest routes (`√L` per straight move of length `L`);
//! 2. [`targets`]: annealed target boards (errors × N + path cost);
//! 3. [`assign`]: per-colour Hungarian matching of queens to target cells;
//! 4. [`route`]: playing the moves on the real board (free moves, detours, clearing the way);
//! 5. [`reorder`]: local search over the routing order and the assignment.
//!
//! [`board`] reads the input and [`score`] is the solver's own referee: the answer is replayed
//! before it is printed, and the empty answer (always legal) replaces anything wrong.

pub mod assign;
pub mod board;
pub mod paths;
pub mod reorder;
pub mod route;
pub mod score;
pub mod targets;

use ahash::AHashSet;
use board::{Board, Move};
use paths::Paths;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use reorder::{evaluate, improve, Routed};
use score::{replay, Outcome};
use std::time::{Duration, Instant};
use targets::{anneal, Problem, Schedule, Zobrist};

/// Solver settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Wall-clock budget in seconds for the whole run, output included.
    pub time_limit: f64,
    /// Seed of the random generator (same seed, same machine speed → same answer).
    pub seed: u64,
    /// Progress on stderr.
    pub verbose: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time_limit: 10.0,
            seed: 1,
            verbose: false,
        }
    }
}

/// The answer: legal moves and their score.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The moves to print.
    pub moves: Vec<Move>,
    /// Their score under the contest rules.
    pub outcome: Outcome,
}

/// Share of the time limit spent computing; the rest covers output and process start/exit.
const COMPUTE_SHARE: f64 = 0.85;
/// Share of the compute time spent making candidate target boards (the rest: reordering).
const BOARD_SHARE: f64 = 0.5;

/// Solves `board` within `options.time_limit` seconds counted from `started`.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, solve, Options};
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let options = Options { time_limit: 0.5, ..Options::default() };
/// let solution = solve(&board, options, std::time::Instant::now());
/// assert_eq!(solution.outcome.errors, 0);
/// ```
pub fn solve(board: &Board, options: Options, started: Instant) -> Solution {
    let log = |msg: String| {
        if options.verbose {
            eprintln!("[{:6.3}s] {msg}", started.elapsed().as_secs_f64());
        }
    };
    let budget = Duration::from_secs_f64((options.time_limit * COMPUTE_SHARE).max(0.0));
    let end = started + budget;
    let n = board.n;
    let nn = n * n;
    let queens = board.queens();
    let nq = queens.len();
    let walls = board.walls();
    let starts: Vec<usize> = queens.iter().map(|q| q.start).collect();
    let colour: Vec<usize> = queens.iter().map(|q| q.colour).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    let empty = Solution {
        moves: Vec::new(),
        outcome: replay(board, &[]).expect("no moves are legal"),
    };
    log(format!(
        "N={n} C={} queens={nq}, start score {:.3}",
        board.colours, empty.outcome.score
    ));

    // Stage 1: walls-only distances from every queen's start.
    let mut paths = Paths::new(n, walls.clone());
    let mut dist = vec![0f32; nq * nn];
    for (q, &s) in starts.iter().enumerate() {
        if Instant::now() >= end {
            log("out of time in paths".into());
            return empty;
        }
        dist[q * nn..(q + 1) * nn].copy_from_slice(paths.row(s));
    }
    log("paths done".into());

    // Stages 2-4: candidate target boards, matched and routed; keep the best.
    let problem = Problem {
        n,
        colours: board.colours,
        queens: &queens,
        walls: &walls,
        dist: &dist,
    };
    let zobrist = Zobrist::new(nn, board.colours, &mut rng);
    let mut seen = AHashSet::new();
    let boards_end = started + budget.mul_f64(BOARD_SHARE);
    let mut best: Option<Routed> = None;
    let mut runs = 0;
    let base_order: Vec<usize> = (0..nq).collect();
    while Instant::now() < boards_end || best.is_none() {
        if Instant::now() >= end {
            break;
        }
        runs += 1;
        let env = |k: &str, d: f64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
        let schedule = Schedule {
            error_weight: n as f64,
            error_weight_start: env("QA_W0", 1.0) * n as f64,
            iterations: ((env("QA_IT", 4000.0) as u64) * nq as u64).max(100_000),
            t0: env("QA_T0", 3.0),
            t1: env("QA_T1", 0.05),
        };
        let t_anneal = Instant::now();
        let mut found = anneal(problem, &starts, schedule, &mut rng, Some(end));
        assign::assign(&queens, &mut found.cells, |q, cell| dist[q * nn + cell]);
        // Refinement: the queens that stay are obstacles for all others; re-anneal from the
        // board found with distances that know it.
        let rounds = env("QA_REFINE", 1.0) as usize;
        let mut refined = vec![0f32; nq * nn];
        let mut search = paths::Search::new(n);
        for _ in 0..rounds {
            let mut blocked = walls.clone();
            for (q, &t) in found.cells.iter().enumerate() {
                if t == starts[q] {
                    blocked[t] = true;
                }
            }
            for (q, &s) in starts.iter().enumerate() {
                search.run(s, |c| blocked[c] && c != s, None);
                search.copy_dist(&mut refined[q * nn..(q + 1) * nn]);
            }
            let problem2 = Problem { dist: &refined, ..problem };
            let schedule2 = Schedule {
                error_weight_start: n as f64,
                t0: env("QA_RT0", 1.0),
                iterations: schedule.iterations / 2,
                ..schedule
            };
            let before = found.move_cost;
            let cells = found.cells.clone();
            // cells unreachable with the new obstacles: keep the old board
            if cells.iter().enumerate().any(|(q, &t)| !refined[q * nn + t].is_finite()) {
                break;
            }
            found = anneal(problem2, &cells, schedule2, &mut rng, Some(end));
            assign::assign(&queens, &mut found.cells, |q, cell| refined[q * nn + cell]);
            log(format!("refine: walls-only cost {before:.3} → refined cost {:.3}, errors {}", found.move_cost, found.errors));
        }
        let anneal_secs = t_anneal.elapsed().as_secs_f64();
        if !seen.insert(zobrist.hash(&queens, &found.cells)) {
            continue;
        }
        for &t in &found.cells {
            paths.ensure(t);
        }
        let home = |cell: usize| paths.get(cell).expect("target rows are built");
        let mut order = base_order.clone();
        order.sort_by(|&a, &b| {
            dist[a * nn + found.cells[a]].total_cmp(&dist[b * nn + found.cells[b]])
        });
        let t_route = Instant::now();
        let routed = evaluate(board, &walls, &starts, found.cells.clone(), order, &home);
        log(format!(
            "board {runs}: errors {} path cost {:.3} → routed score {:.3} (anneal {:.3}s, route {:.3}s)",
            found.errors, found.move_cost, routed.score, anneal_secs, t_route.elapsed().as_secs_f64()
        ));
        if best.as_ref().is_none_or(|b| routed.score < b.score) {
            best = Some(routed);
        }
        let _ = rng.random::<u64>();
    }
    let Some(best) = best else {
        return empty;
    };
    log(format!(
        "{runs} boards, best routed score {:.3}",
        best.score
    ));

    // Stage 5: reorder until the end.
    let home = |cell: usize| paths.get(cell).expect("target rows are built");
    let (best, sims) = improve(board, &walls, &starts, &colour, best, &home, &mut rng, end);
    log(format!(
        "reordering: {sims} simulations, score {:.3}",
        best.score
    ));

    match replay(board, &best.moves) {
        Ok(outcome) if outcome.score <= empty.outcome.score => Solution {
            moves: best.moves,
            outcome,
        },
        Ok(_) => empty,
        Err(e) => {
            eprintln!("queenattack: internal error, falling back to no moves: {e}");
            empty
        }
    }
}
