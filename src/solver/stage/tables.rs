//! Stage 1, distance tables under the deadline: the tables the target search needs, built
//! only when the whole pipeline can fit in the time.
//!
//! The walls-only rows of the queens' start cells, a second table that also knows the pieces
//! of the initial board, and later the rows of the target cells each take one Dijkstra per
//! queen: at `N = 128, C = 10` (1 280 queens, 16 384 cells) that is 2–4 ms a row, several
//! seconds a table. [`distance_tables`] times the first rows and leaves out what does not fit:
//! first the second table, then the whole pipeline (the orchestrator then goes on with the
//! first answer's greedy descent, [`super::first::descent_only`]).

use crate::solver::budget::Budget;
use crate::solver::params::Params;
use crate::solver::paths::{self, Paths};
use crate::solver::problem::Problem;
use std::time::{Duration, Instant};

/// What stage 1 could build.
#[derive(Debug)]
pub(crate) enum Tables {
    /// Distance tables (`queen * N² + cell`): walls-only first, then the one with the pieces
    /// if it fit. The rows of the start cells are in the cache.
    Ready(Vec<Vec<f32>>),
    /// The rows would take more than `paths_share` of the time left (projected from the first
    /// `probe_rows`).
    TooSlow {
        /// Projected time of one table.
        per_table: Duration,
    },
    /// The deadline came while the rows were built.
    OutOfTime,
}

/// Builds the walls-only rows of every start cell into `paths` and the distance tables from
/// them, before the end of the compute budget (the rows may take [`Budget::paths_room`]).
pub(crate) fn distance_tables(
    problem: &Problem,
    paths: &mut Paths,
    budget: &Budget,
    params: &Params,
) -> Tables {
    let (board, starts) = (&problem.board, &problem.starts[..]);
    let nn = board.n * board.n;
    let nq = starts.len();
    let end = budget.end();
    let began = Instant::now();
    let room = budget.paths_room(began);
    let mut tables_fit = 3;
    let mut probing = nq * nn > params.big_board;
    // grows row by row: N = 128, C = 100 would ask for 840 MB that the probe then refuses
    let mut walls_only = Vec::new();
    for (q, &s) in starts.iter().enumerate() {
        if Instant::now() >= end {
            return Tables::OutOfTime;
        }
        if probing && q >= params.probe_rows && began.elapsed() >= room.mul_f64(params.probe_share)
        {
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
    let blend = Blend {
        share: params.pieces_share as f32,
        cut_off: params.pieces_cut_off as f32,
    };
    match blend_with_pieces(board, starts, &walls_only, blend, end) {
        Some(with_pieces) => Tables::Ready(vec![walls_only, with_pieces]),
        None => Tables::Ready(vec![walls_only]),
    }
}

/// How the second table blends the distances on the initial board into the walls-only ones.
#[derive(Clone, Copy)]
struct Blend {
    /// Weight of the distance on the initial board.
    share: f32,
    /// Cells the pieces cut off count this many times their walls-only distance.
    cut_off: f32,
}

/// `share` × (distance on the initial board, all other pieces in the way) + the rest ×
/// walls-only distance, per queen; cells the pieces cut off count `cut_off` × walls-only.
/// `None` when `end` comes first.
fn blend_with_pieces(
    board: &crate::solver::board::Board,
    starts: &[usize],
    walls_only: &[f32],
    Blend { share, cut_off }: Blend,
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
            let b = if b.is_finite() { b } else { w * cut_off };
            out[q * nn + cell] = (1.0 - share) * w + share * b;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::Board;

    fn problem() -> Problem {
        Problem::new(&Board::parse_official("4 1  1 1 1 1  0 0 0 0  0 -1 0 0  0 0 0 0").unwrap())
    }

    #[test]
    fn both_tables_when_there_is_time() {
        let problem = problem();
        let starts = &problem.starts;
        let mut paths = Paths::new(4, problem.walls.clone());
        let budget = Budget::new(3600.0, Instant::now(), &Params::default());
        let tables = distance_tables(&problem, &mut paths, &budget, &Params::default());
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
        let problem = problem();
        let mut paths = Paths::new(4, problem.walls.clone());
        let budget = Budget::new(1e-9, Instant::now(), &Params::default());
        let tables = distance_tables(&problem, &mut paths, &budget, &Params::default());
        assert!(matches!(tables, Tables::OutOfTime));
    }
}
