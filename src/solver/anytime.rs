//! Stage 1 under the deadline: the distance tables the target search needs, built only when
//! the whole pipeline can fit in the time.
//!
//! The walls-only rows of the queens' start cells, a second table that also knows the pieces
//! of the initial board, and later the rows of the target cells each take one Dijkstra per
//! queen: at `N = 128, C = 10` (1 280 queens, 16 384 cells) that is 2–4 ms a row, several
//! seconds a table. [`distance_tables`] times the first rows and leaves out what does not fit:
//! first the second table, then the whole pipeline (the orchestrator then spends its time on
//! [`super::quick::descend`]).
//!
//! The first answer ([`first_answer`]) comes before all that, and when the pipeline is skipped
//! the descent goes on from it until the deadline ([`descent_only`]).

use super::board::Board;
use super::paths::{self, Paths};
use super::{quick, solution, Solution, Stop};
use std::time::{Duration, Instant};

/// Rows built before the time of the rest is projected from them: at least this many, and
/// for at least `PROBE_SHARE` of the room, so that one stall of a loaded machine does not
/// decide alone.
const PROBE_ROWS: usize = 16;
const PROBE_SHARE: f64 = 0.05;
/// Boards with more queens × cells than this are big: their tables may not fit in the time,
/// so the first rows are timed. Every contest board is far below (at most 180 × 900), and
/// timing them misled: on a loaded machine a stall of a few ms during the first rows of
/// seed 2 (N = 30, C = 6) at 1 s projected tables too slow, and two of six runs printed the
/// greedy answer (1160 instead of ~700).
pub const BIG_BOARD: usize = 1_000_000;
/// The rows the pipeline needs (start rows, the pieces table, the target rows) may take this
/// share of the compute time left; anneal and routing need the rest, and when they do not
/// finish, the descent's first answer stands. Before: N = 80, C = 10 at 5 s spent 4.1 s in
/// the start rows and the pieces table and then 1.5 s in one routing, ending at 5.75 s with
/// the empty answer. With the pipeline forced (5 s, load average 8, after the descent):
/// N = 64 routed one board, 3 838 against the descent's 4 909 (tables projected at 1.4 s
/// each); N = 80 (2.4 s each) routed nothing in time (the descent's 6 066 stood); N = 128
/// ran out of time in the rows with 14 615 against 12 300–13 200 when the descent had the time.
const PATHS_SHARE: f64 = 0.9;

/// Most of the compute budget the first answer ([`quick::descend`]) may take; it usually ends
/// sooner, at a local optimum. On big boards ([`BIG_BOARD`]) the pipeline may not fit in the
/// time and this answer is the fallback: at N = 64, C = 10 it took 0.7 s on a loaded machine
/// and scored 4 929, where the pipeline's one routed board at 5 s scored 10 536. On smaller
/// boards (every contest board: at most 180 × 900) the pipeline wins and the descent is a
/// safety net: it took 4–40 ms at N = 21–30, C = 4–6 (loaded machine). Seeds 1–20 at 1 s, six
/// runs each interleaved with the build before it (load average 7–10): with a cap of 2 % the
/// mean was 161.1 against 157.3; with 0.5 %, 158.4 against 160.4 (the old build's 224.4 with
/// one empty answer, 8 430 on seed 2, counted).
const FIRST_SHARE: f64 = 0.005;
const FIRST_SHARE_BIG: f64 = 0.25;

/// The first answer: [`quick::descend`] for at most `FIRST_SHARE` of `budget` from
/// `started` (`FIRST_SHARE_BIG` on big boards); the empty answer if that were ever illegal.
pub fn first_answer(board: &Board, started: Instant, budget: Duration) -> Solution {
    let share = if board.queens().len() * board.n * board.n > BIG_BOARD {
        FIRST_SHARE_BIG
    } else {
        FIRST_SHARE
    };
    let moves = quick::descend(board, started + budget.mul_f64(share));
    solution(board, moves, Stop::Budget)
        .or_else(|| solution(board, Vec::new(), Stop::Budget))
        .expect("no moves are legal")
}

/// The descent from where `first` left the board, until `end`; `first` if that is not better.
pub fn descent_only(board: &Board, first: Solution, end: Instant) -> Solution {
    let moves = quick::descend_after(board, first.moves.clone(), end);
    match solution(board, moves, Stop::Budget) {
        Some(s) if s.outcome.score < first.outcome.score => s,
        _ => first,
    }
}

/// What stage 1 could build.
#[derive(Debug)]
pub enum Tables {
    /// Distance tables (`queen * N² + cell`): walls-only first, then the one with the pieces
    /// if it fit. The rows of the start cells are in the cache.
    Ready(Vec<Vec<f32>>),
    /// The rows would take more than `PATHS_SHARE` of the time left (projected from the first
    /// `PROBE_ROWS`).
    TooSlow {
        /// Projected time of one table.
        per_table: Duration,
    },
    /// The deadline came while the rows were built.
    OutOfTime,
}

/// Builds the walls-only rows of every start cell into `paths` and the distance tables from
/// them, before `end` (the end of the compute budget). `pieces_share` is the weight of the
/// initial-board distances in the second table.
pub fn distance_tables(
    board: &Board,
    paths: &mut Paths,
    starts: &[usize],
    end: Instant,
    pieces_share: f32,
) -> Tables {
    let nn = board.n * board.n;
    let nq = starts.len();
    let began = Instant::now();
    let room = end.saturating_duration_since(began).mul_f64(PATHS_SHARE);
    let mut tables_fit = 3;
    let mut probing = nq * nn > BIG_BOARD;
    // grows row by row: N = 128, C = 100 would ask for 840 MB that the probe then refuses
    let mut walls_only = Vec::new();
    for (q, &s) in starts.iter().enumerate() {
        if Instant::now() >= end {
            return Tables::OutOfTime;
        }
        if probing && q >= PROBE_ROWS && began.elapsed() >= room.mul_f64(PROBE_SHARE) {
            probing = false;
            // start rows, the pieces table and the target rows cost about the same
            let per_table = began.elapsed().mul_f64(nq as f64 / q as f64);
            tables_fit = (1..=3).rev().find(|&k| per_table * k <= room).unwrap_or(0);
            if tables_fit < 2 {
                return Tables::TooSlow { per_table };
            }
        }
        walls_only.extend_from_slice(paths.row(s));
    }
    if tables_fit < 3 {
        return Tables::Ready(vec![walls_only]);
    }
    match blend_with_pieces(board, starts, &walls_only, pieces_share, end) {
        Some(with_pieces) => Tables::Ready(vec![walls_only, with_pieces]),
        None => Tables::Ready(vec![walls_only]),
    }
}

/// `share` × (distance on the initial board, all other pieces in the way) + the rest ×
/// walls-only distance, per queen; cells the pieces cut off count 1.5 × walls-only. `None` when
/// `end` comes first.
fn blend_with_pieces(
    board: &Board,
    starts: &[usize],
    walls_only: &[f32],
    share: f32,
    end: Instant,
) -> Option<Vec<f32>> {
    let n = board.n;
    let nn = n * n;
    let occupied: Vec<bool> = board.cells.iter().map(|&v| v != 0).collect();
    let mut search = paths::Search::new(n);
    let mut row = vec![0f32; nn];
    let mut out = walls_only.to_vec();
    for (q, &s) in starts.iter().enumerate() {
        if Instant::now() >= end {
            return None;
        }
        search.run(s, |c| occupied[c] && c != s, None);
        search.copy_dist(&mut row);
        for (cell, &b) in row.iter().enumerate() {
            let w = walls_only[q * nn + cell];
            let b = if b.is_finite() { b } else { w * 1.5 };
            out[q * nn + cell] = (1.0 - share) * w + share * b;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> Board {
        Board::parse_official("4 1  1 1 1 1  0 0 0 0  0 -1 0 0  0 0 0 0").unwrap()
    }

    #[test]
    fn both_tables_when_there_is_time() {
        let board = board();
        let starts: Vec<usize> = board.queens().iter().map(|q| q.start).collect();
        let mut paths = Paths::new(4, board.walls());
        let far = Instant::now() + Duration::from_secs(3600);
        let tables = distance_tables(&board, &mut paths, &starts, far, 0.5);
        let Tables::Ready(tables) = tables else {
            panic!("{tables:?}");
        };
        assert_eq!(tables.len(), 2);
        // walls-only: queen 0 from (0,0) to (3,3) is one diagonal move of length 3
        assert!((tables[0][15] - 3f32.sqrt()).abs() < 1e-6);
        // the pieces table is never below the walls-only one
        assert!(tables[1].iter().zip(&tables[0]).all(|(b, w)| b >= w));
        assert!(starts.iter().all(|&s| paths.get(s).is_some()));
    }

    #[test]
    fn nothing_after_the_deadline() {
        let board = board();
        let starts: Vec<usize> = board.queens().iter().map(|q| q.start).collect();
        let mut paths = Paths::new(4, board.walls());
        let tables = distance_tables(&board, &mut paths, &starts, Instant::now(), 0.5);
        assert!(matches!(tables, Tables::OutOfTime));
    }
}
