//! The one-colour engine on its own, for benchmarks and tools: every board of every colour
//! and every colour floor of the bound comes from its branch and bound with beams (stage 2's
//! `exact/one_colour`).
//!
//! An [`Instance`] is one call of it: `n` queens of one colour, their costs of ending on each
//! cell, the cells they may not use. [`floor`] is the proof (the cheapest board's cost, or a
//! lower bound when the deadline cut it), [`boards`] the anytime search the solver places
//! colours with.
//!
//! # Capturing instances
//! With the environment variable `QUEENATTACK_ENGINE_DUMP` ([`DUMP_VAR`]) set to a folder
//! that exists, every call of the engine a run makes is written there as an instance file,
//! `<kind>-n<N>-<process>-<count>.engine` (at most [`DUMP_MAX_PER_KIND`] per kind and
//! process; a failed write is reported once on stderr). The kind says who called:
//! [`Kind::Plain`] (stage 2's one-colour search and proof; the bound's colour floors before
//! any price), [`Kind::Priced`] (the rounds of the colours chosen together; the bound's
//! colour floors at prices) or [`Kind::Taken`] (colour by colour and the lifts, where other
//! colours' cells are walls). For example
//!
//! ```text
//! mkdir /tmp/dump && QUEENATTACK_ENGINE_DUMP=/tmp/dump queenattack --bound --bound-time 5 < seed.in
//! ```
//!
//! # The file format
//! One header line, then the walls and the costs as bytes (132 kB at N = 32):
//!
//! ```text
//! queenattack-engine 1 n=<N> kind=<plain|priced|taken> layout=walls:u8[n*n],dist:f32le[n*n*n] source=<text>\n
//! <N² bytes: 1 on a wall or a cell another colour took, else 0>
//! <N³ little-endian f32: queen q's cost of ending on cell x at q·N² + x, inf where it cannot>
//! ```
//!
//! `benches/engine.rs` times the engine on the instances stored in `benches/engine/`
//! (docs/benchmarks.md, "The one-colour engine's benchmark").

use crate::solver::stage::exact::{self, Floor};
use std::time::Instant;

pub use crate::solver::stage::exact::{Instance, Kind, DUMP_MAX_PER_KIND, DUMP_VAR};

/// What [`floor`] proved.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineFloor {
    /// No board costs less (`∞`: there is no board the queens can all reach); the cheapest
    /// board's cost where `board` is given (up to the matching's integer scale: at most
    /// `n · 0.5·10⁻⁶` above it).
    pub bound: f64,
    /// The cheapest board (queen `q` on `board[q]`) where the proof finished.
    pub board: Option<Vec<usize>>,
    /// Nodes of the proof's capped searches (the beams of its first board left out), all
    /// threads together; counted modulo 2³².
    pub nodes: u64,
}

impl EngineFloor {
    /// Whether the proof finished: `bound` is the cheapest board's cost.
    pub fn is_exact(&self) -> bool {
        self.board.is_some()
    }
}

/// The engine's proof on `instance` until `deadline` on up to `threads` threads (at least
/// one, at most the cores this process may use): caps on the cost raised while every board
/// below each is searched, from the first board of its beams (what the bound's colour floors
/// and stage 2's proven board run).
///
/// # Panics
/// If the instance fails [`Instance::check`].
pub fn floor(instance: &Instance, deadline: Instant, threads: usize) -> EngineFloor {
    if let Err(e) = instance.check() {
        panic!("engine::floor: {e}");
    }
    let n = instance.n;
    let members: Vec<usize> = (0..n).collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = threads.clamp(1, cores);
    let (walls, dist) = (&instance.walls, &instance.dist);
    let (found, nodes) = exact::one_colour_floor_counted(
        n,
        walls,
        &members,
        dist,
        f64::NEG_INFINITY,
        deadline,
        threads,
    );
    match found {
        Floor::Exact(cost, cells) => {
            // the search gives the cells in the queens' order
            EngineFloor {
                bound: cost,
                board: Some(cells),
                nodes,
            }
        }
        Floor::AtLeast(bound) => EngineFloor {
            bound,
            board: None,
            nodes,
        },
    }
}

/// The best `keep` boards the engine's anytime search finds on `instance` until `deadline`
/// (beams of doubling width, then depth first; what the colours chosen together, colour by
/// colour and the lifts run), cheapest first, as (cost, cell of each queen). Empty when no
/// board was found in time or there is none.
///
/// # Panics
/// If the instance fails [`Instance::check`].
pub fn boards(instance: &Instance, keep: usize, deadline: Instant) -> Vec<(f64, Vec<usize>)> {
    if let Err(e) = instance.check() {
        panic!("engine::boards: {e}");
    }
    let n = instance.n;
    let members: Vec<usize> = (0..n).collect();
    let (walls, dist) = (&instance.walls, &instance.dist);
    exact::one_colour(n, walls, &members, dist, keep.max(1), deadline)
        .into_iter()
        .map(|board| (board.cost, board.cells))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A 6 × 6 board, one wall, costs `(q + x) mod 5` with queen 0 kept off cell 0.
    fn small() -> Instance {
        let n = 6;
        let nn = n * n;
        let mut walls = vec![false; nn];
        walls[14] = true;
        let mut dist: Vec<f32> = (0..n * nn)
            .map(|i| ((i / nn + i % nn) % 5) as f32)
            .collect();
        dist[0] = f32::INFINITY;
        Instance {
            n,
            walls,
            dist,
            kind: Kind::Plain,
            source: "a test".to_string(),
        }
    }

    #[test]
    fn the_proof_and_the_search_agree_on_a_small_board() {
        let instance = small();
        let far = Instant::now() + Duration::from_secs(60);
        let proven = floor(&instance, far, 2);
        let board = proven.board.clone().expect("a 6 × 6 proof finishes");
        assert!(instance.is_board(&board));
        assert!((instance.cost(&board) - proven.bound).abs() < 1e-4);
        assert!(proven.nodes > 0, "{proven:?}");
        let found = boards(&instance, 3, far);
        assert!(!found.is_empty() && found.len() <= 3);
        assert!(
            (found[0].0 - proven.bound).abs() < 1e-4,
            "{found:?} {proven:?}"
        );
        for (cost, cells) in &found {
            assert!(instance.is_board(cells));
            assert!((instance.cost(cells) - cost).abs() < 1e-4);
        }
    }

    #[test]
    fn a_deadline_already_past_still_gives_a_bound_below_every_board() {
        let instance = small();
        let proven = floor(&instance, Instant::now(), 1);
        let far = Instant::now() + Duration::from_secs(60);
        let best = boards(&instance, 1, far)[0].0;
        assert!(proven.bound <= best + 1e-6, "{proven:?} above {best}");
    }
}
