//! The QueenAttack solver: a ground floor that every stage reads, the stages above it, and
//! the orchestrator [`solve`] on top.
//!
//! Ground floor (no import from a stage):
//! * [`board`]: the input board and the queen move; [`input`]: when the board has arrived
//!   on stdin; [`score`]: the solver's own referee (the answer is replayed before it is
//!   printed); [`checkpoint`]: the best answer so far, for a process stopped by a signal;
//!   [`output`]: stdout and stderr written without allocating; [`memory`]: how many runs fit,
//!   and the allocator that answers when memory runs out;
//! * `problem`: the one `Problem` (board, walls, starts, colours, distance tables);
//! * `answer`: the one answer type, [`Solution`]; `params`: every tuning constant
//!   ([`Params`]); `budget`: every time share (`Budget`); `paths`: cheapest queen routes.
//!
//! Stages (`stage/`, numbered as in docs/solver.md; a stage imports only the floor and the
//! stages below it):
//! * the first answer and the lower bound (`stage/first`: a greedy descent, legal at once);
//! 1. distance tables (`stage/tables.rs`);
//! 2. exact target boards on small boards (`stage/exact`);
//! 3. annealed target boards (`stage/anneal`), run, ranked and pooled by `stage/candidates`;
//! 4. assignment of queens to target cells (`stage/assign.rs`);
//! 5. routing on the real board (`stage/route`);
//! 6. reordering (`stage/reorder.rs`);
//! 7. the post-optimiser (`stage/improve`, on several boards `improve/multistart.rs`).
//!
//! The orchestrator (`solve.rs`) runs them as phases under one `Budget`; `threads.rs` runs
//! several independent runs of it side by side (`--threads`). Beside it, also
//! above the stages, [`lower_bound`]: the certified lower bound on any answer's score
//! (`--bound`), whose error-free case runs stage 2's one-colour search as a proof.

mod answer;
pub mod board;
mod budget;
pub mod checkpoint;
pub mod engine;
pub mod input;
pub mod lower_bound;
pub mod memory;
pub mod output;
mod params;
mod paths;
mod problem;
pub mod score;
mod solve;
mod stage;
mod threads;

pub use answer::{RunStats, Solution, Stop};
pub use params::{ParamError, ParamLine, Params, RUN_END_MAX};
pub use solve::{solve, solve_with_stats};
pub use stage::improve::improve;
pub use threads::{solve_threads, ANSWER_SHARE, MAX_THREADS, RUN_STACK};

/// Solver settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Wall-clock budget in seconds for the whole run, output included.
    pub time_limit: f64,
    /// Seed of the random generator (same seed, same machine speed → same answer).
    pub seed: u64,
    /// Progress on stderr.
    pub verbose: bool,
    /// The tuning parameters.
    pub params: Params,
    /// Where the run offers every answer it completes, for a signal handler that must write
    /// the best so far (`queenattack` on Ctrl-C); `None`: nowhere.
    pub checkpoint: Option<&'static checkpoint::Checkpoint>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time_limit: 10.0,
            seed: 1,
            verbose: false,
            params: Params::default(),
            checkpoint: None,
        }
    }
}
