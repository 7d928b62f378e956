//! One completion run on one thread: the stages of [`complete`](super::complete) taken in
//! turn on a board, with their restarts (Luby limits) and the time each has had, until one
//! finds a board, a proof, or the deadline passes.

use super::anneal::{self, Anneal};
use super::board::{Board, NONE};
use super::clock::Deadline;
use super::matching;
use super::small::{self, Small};
use super::tail::{ColMap, Outcome, Tail};
use super::verdict::{Proof, Stats, Verdict};
use super::weighted::Weighted;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

/// Free rows up to which the exhaustive search runs on its own (no greedy stage).
const DIRECT_ROWS: usize = 24;
/// The same for nightriders, whose greedy stage does poorly on small boards.
const DIRECT_ROWS_NIGHTRIDER: usize = 100;
/// Node limit of the exhaustive search's restarts, per free row, times the Luby sequence.
const LUBY_BASE: u64 = 64;
/// The same for nightriders (with column branching): shorter restarts. Measured 2026-11-23
/// on the 13 random compositions (N = 54..138, 39–82 free rows) that 64 left unsolved in
/// 10 s, `--time-limit 5`, seeds 1 and 2, load 6–10: 64 solved 1 of 26 runs, 8 solved 7,
/// 2 solved 7.
const LUBY_BASE_NIGHTRIDER: u64 = 8;
/// Random columns a row tries in the greedy stage before it is left to repair.
const GREEDY_ATTEMPTS: u32 = 64;
/// Free rows up to which the cheap matching proofs are computed (dense matrix).
const PROOF_ROWS: usize = 2048;
/// Largest tail the heuristic stage grows to before it restarts.
const TAIL_MAX: usize = 2048;
/// Swap partners tried per attacked row and round of the swap repair.
const REPAIR_TRIES: u32 = 64;
/// Rounds without fewer attacking pairs before the swap repair gives up.
const REPAIR_STALE: u32 = 50;
/// Smallest tail handed to the search.
const TAIL_MIN: usize = 48;
/// Free rows from which nightrider boards also get the annealing stage (fewer: the
/// exhaustive search is quick and settles NO too).
const ANNEAL_MIN_ROWS: usize = 16;
/// Node limit of the small-board search's restarts, per row, times the Luby sequence.
/// Measured on empty nightrider boards of 44..64 rows (3 seeds, 2026-11-23): 10, 100 and 1000
/// gave about the same times (mean ≈ 1 s, a few runs over 5 s).
const SMALL_NODES_PER_ROW: u64 = 100;
/// Nightrider boards of at most 64 columns from this size on run the annealing stage in turn
/// with the bitboard search: each has heavy tails there (measured at 45..64 rows: the search
/// alone took over 5 s on 1 run in 6, over 10 s on N = 62 seed 1; annealing at temperature
/// 0.55 solved N = 60 within 0.13 s in 3 of 5 runs), and restarts of either cut them.
const SMALL_ANNEAL_FROM: usize = 40;
/// Time of the weighted stage per unit of time of the others, on nightrider compositions.
/// Measured 2026-11-23 on the 150 inputs of the `--hard` set (10 s wall, 2 jobs, load 3–5,
/// one run each): the weighted stage alone 147 YES, in plain turns with the others 134,
/// 3 : 1 144 (its 3 misses alone were small boards with few given queens, which the
/// annealing and the bitboard search handle).
const WEIGHTED_SHARE: u32 = 3;
/// Weighted min-conflicts steps per free row, times the Luby sequence, per turn (a fresh
/// start each turn). Measured 2026-11-23 with the stage alone on the 28 `--hard` inputs main
/// left unsolved (10 s wall, load 3–5, one run each): 512 → 21 YES, 2048 → 25 and 27 (two
/// runs), 8192 → 18.
const WEIGHTED_STEPS_PER_ROW: u64 = 2048;
/// Annealing steps per free row, times the Luby sequence, per turn of the portfolio.
const ANNEAL_STEPS_PER_ROW: u64 = 512;

/// Runs the stages on `board` with its own randomness until `deadline`; returns the board
/// too, filled in on YES.
pub(super) fn solve_with(
    board: Board,
    seed: u64,
    deadline: Deadline<'_>,
    stats: &mut Stats,
) -> (Verdict, Board) {
    let n = board.n;
    let mut run = Run {
        board,
        rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        map: ColMap::new(n),
        deadline,
        stats,
        whole: None,
        whole_rounds: 0,
        whole_nodes: 0,
        anneal: None,
        anneal_rounds: 0,
        weighted: None,
        weighted_rounds: 0,
        weighted_time: Duration::ZERO,
        other_time: Duration::ZERO,
    };
    let verdict = run.solve();
    (verdict, run.board)
}

/// The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, … (`i` from 1): restart lengths that waste at
/// most a log factor against the best fixed length and grow without bound, so that a
/// complete search eventually runs.
pub(crate) fn luby(i: u64) -> u64 {
    let mut i = i;
    loop {
        // Smallest k with 2^k − 1 >= i.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// One completion run: board, randomness, budget.
struct Run<'a> {
    board: Board,
    rng: Xoshiro256PlusPlus,
    map: ColMap,
    deadline: Deadline<'a>,
    stats: &'a mut Stats,
    /// The search over all free rows (given queens only), kept between its restarts.
    whole: Option<Tail>,
    /// Restarts of `whole` so far (index into the Luby sequence).
    whole_rounds: u64,
    /// Placements tried by `whole` so far.
    whole_nodes: u64,
    /// The annealing stage (nightriders), kept between its turns.
    anneal: Option<Anneal>,
    /// Turns of `anneal` so far (index into the Luby sequence).
    anneal_rounds: u64,
    /// The weighted min-conflicts stage (nightrider compositions); `Some(None)` when it does
    /// not apply.
    weighted: Option<Option<Weighted>>,
    /// Turns of `weighted` so far (index into the Luby sequence).
    weighted_rounds: u64,
    /// Time spent in `weighted`, and in the other stages of the loop it shares.
    weighted_time: Duration,
    other_time: Duration,
}

impl Run<'_> {
    /// Returns `Yes(vec![])` with the board filled in `self.board.col`, or a NO.
    fn solve(&mut self) -> Verdict {
        let m = self.board.free_rows.len();
        if m == 0 {
            return Verdict::Yes(Vec::new());
        }
        let t0 = Instant::now();
        let proof = self.cheap_proofs();
        self.stats.proof_time = t0.elapsed();
        if let Some(p) = proof {
            return Verdict::Proven(p);
        }
        let direct = if self.board.lines.fams == 6 {
            DIRECT_ROWS_NIGHTRIDER
        } else {
            DIRECT_ROWS
        };
        let nightrider = self.board.lines.fams == 6;
        let anneal = nightrider && m >= ANNEAL_MIN_ROWS;
        if anneal && m == self.board.n {
            if let Some(cols) = anneal::modular(m) {
                for (r, c) in cols.into_iter().enumerate() {
                    self.board.place(r, c);
                }
                return Verdict::Yes(Vec::new());
            }
        }
        if nightrider && self.board.n <= small::MAX_N {
            return self.small_rounds();
        }
        // Every stage stops at the deadline, the first pass too: the time limit is a budget.
        loop {
            if self.deadline.passed() {
                return Verdict::NotFound;
            }
            if anneal && m < self.board.n && self.weighted_turn() {
                if let Some(v) = self.weighted_round() {
                    return v;
                }
                continue;
            }
            let turn = Instant::now();
            if anneal {
                if let Some(v) = self.anneal_round() {
                    return v;
                }
            }
            // Portfolio: few rows — only the complete search; up to TAIL_MAX rows — heuristic
            // restarts and complete-search restarts in turn; more — heuristic only.
            if m > direct && !self.deadline.passed() {
                if let Some(v) = self.heuristic_pass() {
                    return v;
                }
            }
            if m <= TAIL_MAX && !self.deadline.passed() {
                if let Some(v) = self.whole_round() {
                    return v;
                }
            }
            self.other_time += turn.elapsed();
        }
    }

    /// A free row or column without a free cell, or no perfect matching. Skipped when every
    /// free row and column keeps at least half its cells free (each given queen closes at most
    /// one cell per line family in a free row or column), since then Hall's condition holds,
    /// and when the dense matrix would be too large.
    fn cheap_proofs(&mut self) -> Option<Proof> {
        let b = &self.board;
        let m = b.free_rows.len();
        let given = b.n - m;
        if 2 * b.lines.fams * given <= m || m > PROOF_ROWS {
            return None;
        }
        // Built on the given queens only, so it doubles as the whole-board search's matrix.
        let mut map = ColMap::new(b.n);
        let tail = Tail::build(b, b.free_rows.clone(), b.free_cols.clone(), &mut map);
        let proof = if let Some(i) = tail.row_counts().iter().position(|&c| c == 0) {
            Some(Proof::EmptyRow {
                row: tail.rows[i] as usize,
            })
        } else if let Some(j) = tail.col_counts().iter().position(|&c| c == 0) {
            Some(Proof::EmptyColumn {
                col: tail.cols[j] as usize,
            })
        } else {
            let matched = matching::maximum_matching(m, m, tail.bits(), tail.words());
            (matched < m).then_some(Proof::NoPerfectMatching {
                free_rows: m,
                matched,
            })
        };
        self.whole = Some(tail);
        proof
    }

    /// One restart of the search over all free rows, with the next Luby node limit; a run
    /// that explores every branch within its limit proves NO.
    fn whole_round(&mut self) -> Option<Verdict> {
        if self.whole.is_none() {
            self.board.clear_placed();
            let b = &self.board;
            // Its own column map: the heuristic's tails use `self.map` meanwhile.
            let mut map = ColMap::new(b.n);
            self.whole = Some(Tail::build(
                b,
                b.free_rows.clone(),
                b.free_cols.clone(),
                &mut map,
            ));
        }
        let mut tail = self.whole.take().unwrap();
        tail.branch_on_columns(self.board.lines.fams == 6);
        let m = tail.len();
        self.whole_rounds += 1;
        let base = if self.board.lines.fams == 6 {
            LUBY_BASE_NIGHTRIDER
        } else {
            LUBY_BASE
        };
        let limit = (base * m as u64).saturating_mul(luby(self.whole_rounds));
        self.stats.tail_searches += 1;
        self.stats.max_tail = self.stats.max_tail.max(m);
        let mut nodes = 0;
        let out = tail.search(&mut self.rng, limit, self.deadline, &mut nodes);
        self.stats.nodes += nodes;
        self.whole_nodes += nodes;
        let verdict = match out {
            Outcome::Found(assign) => {
                self.board.clear_placed();
                self.apply(&tail, &assign);
                Some(Verdict::Yes(Vec::new()))
            }
            Outcome::Exhausted => Some(Verdict::Proven(Proof::Exhaustive {
                free_rows: m,
                nodes: self.whole_nodes,
            })),
            Outcome::Aborted => None,
        };
        self.whole = Some(tail);
        verdict
    }

    /// Boards of at most 64 columns (nightriders): the bitboard search, restarted with Luby
    /// node limits, in turn with the annealing stage from [`SMALL_ANNEAL_FROM`] rows, until
    /// one finds a board, the search exhausts the tree (NO, proven) or the deadline passes.
    fn small_rounds(&mut self) -> Verdict {
        let search = Small::new(&self.board.col, true);
        let n = self.board.n as u64;
        let m = self.board.free_rows.len();
        let mut total = 0;
        for round in 1.. {
            if self.deadline.passed() {
                break;
            }
            let limit = (SMALL_NODES_PER_ROW * n).saturating_mul(luby(round));
            let turn = Instant::now();
            self.stats.tail_searches += 1;
            let mut nodes = 0;
            let out = search.search(&mut self.rng, limit, self.deadline, &mut nodes);
            self.stats.nodes += nodes;
            total += nodes;
            match out {
                Outcome::Found(cols) => {
                    for i in 0..m {
                        let r = self.board.free_rows[i] as usize;
                        self.board.place(r, cols[r]);
                    }
                    return Verdict::Yes(Vec::new());
                }
                Outcome::Exhausted => {
                    return Verdict::Proven(Proof::Exhaustive {
                        free_rows: m,
                        nodes: total,
                    })
                }
                Outcome::Aborted => self.other_time += turn.elapsed(),
            }
            while m < n as usize && m >= ANNEAL_MIN_ROWS && self.weighted_turn() {
                if let Some(v) = self.weighted_round() {
                    return v;
                }
            }
            let turn = Instant::now();
            if n as usize >= SMALL_ANNEAL_FROM && m >= ANNEAL_MIN_ROWS {
                if let Some(v) = self.anneal_round() {
                    return v;
                }
            }
            self.other_time += turn.elapsed();
        }
        Verdict::NotFound
    }

    /// Whether the weighted stage runs next: while it applies and has had less than
    /// [`WEIGHTED_SHARE`] times the time of the other stages.
    fn weighted_turn(&self) -> bool {
        !matches!(self.weighted, Some(None))
            && !self.deadline.passed()
            && self.weighted_time < self.other_time * WEIGHTED_SHARE
    }

    /// One turn of the weighted min-conflicts stage (a fresh start with the next Luby step
    /// limit); `None` also when the stage does not apply.
    fn weighted_round(&mut self) -> Option<Verdict> {
        if self.weighted.is_none() {
            self.board.clear_placed();
            self.weighted = Some(Weighted::new(&self.board));
        }
        let w = self.weighted.as_mut().unwrap().as_mut()?;
        self.weighted_rounds += 1;
        let steps =
            (WEIGHTED_STEPS_PER_ROW * w.len() as u64).saturating_mul(luby(self.weighted_rounds));
        let t = Instant::now();
        w.restart(&mut self.rng);
        let found = w.run(&mut self.rng, steps, self.deadline);
        self.weighted_time += t.elapsed();
        if found {
            self.board.clear_placed();
            w.apply(&mut self.board);
            return Some(Verdict::Yes(Vec::new()));
        }
        None
    }

    /// One turn of the annealing stage with the next Luby step limit.
    fn anneal_round(&mut self) -> Option<Verdict> {
        let mut a = match self.anneal.take() {
            Some(a) => a,
            None => Anneal::new(&self.board, &mut self.rng),
        };
        self.anneal_rounds += 1;
        let m = self.board.free_rows.len() as u64;
        let steps = (ANNEAL_STEPS_PER_ROW * m).saturating_mul(luby(self.anneal_rounds));
        let verdict = if a.run(&mut self.rng, steps, self.deadline) {
            self.board.clear_placed();
            a.apply(&mut self.board);
            Some(Verdict::Yes(Vec::new()))
        } else {
            None
        };
        self.anneal = Some(a);
        verdict
    }

    fn apply(&mut self, tail: &Tail, assign: &[u32]) {
        for (i, &j) in assign.iter().enumerate() {
            self.board
                .place(tail.rows[i] as usize, tail.cols[j as usize]);
        }
    }

    /// One heuristic restart: greedy placement, swap repair, then tail searches on growing
    /// sets of rows. `Some(Yes)` when it completes the board, `None` otherwise (also when the
    /// deadline passes).
    fn heuristic_pass(&mut self) -> Option<Verdict> {
        let m = self.board.free_rows.len();
        self.stats.restarts += 1;
        self.board.clear_placed();
        let mut pool = self.board.free_cols.clone();
        let left = self
            .board
            .greedy(&mut self.rng, &mut pool, GREEDY_ATTEMPTS, self.deadline)?;
        if self.deadline.passed() {
            return None;
        }
        // Few rows left: the tail search places them best. Many (or every other restart):
        // swap repair first, which moves queens anywhere on the board.
        let mut left = if left.len() > TAIL_MAX / 4 || self.stats.restarts % 2 == 0 {
            self.board.swap_repair(
                &mut self.rng,
                &mut pool,
                left,
                REPAIR_TRIES,
                REPAIR_STALE,
                self.deadline,
            )
        } else {
            left
        };
        if left.is_empty() {
            return Some(Verdict::Yes(Vec::new()));
        }
        let cap = TAIL_MAX.min(m / 2).max(left.len());
        let mut size = (2 * left.len()).max(TAIL_MIN).min(cap);
        loop {
            // Free random placed rows until the tail has `size` rows.
            while left.len() < size {
                let r = self.board.free_rows[rand::Rng::random_range(&mut self.rng, 0..m)];
                if self.board.col[r as usize] != NONE {
                    pool.push(self.board.unplace(r as usize));
                    left.push(r);
                }
            }
            let mut tail = Tail::build(&self.board, left.clone(), pool.clone(), &mut self.map);
            let limit = 32 * size as u64 + 2000;
            let mut nodes = 0;
            self.stats.tail_searches += 1;
            self.stats.max_tail = self.stats.max_tail.max(size);
            let out = tail.search(&mut self.rng, limit, self.deadline, &mut nodes);
            self.stats.nodes += nodes;
            if let Outcome::Found(assign) = out {
                self.apply(&tail, &assign);
                tail.release(&mut self.map);
                return Some(Verdict::Yes(Vec::new()));
            }
            tail.release(&mut self.map);
            if self.deadline.passed() || size >= cap {
                return None;
            }
            size = (2 * size).min(cap);
            left.shuffle(&mut self.rng);
        }
    }
}
