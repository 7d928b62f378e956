//! The best answer so far, for a process told to stop before its time limit (Ctrl-C, SIGTERM,
//! a closed terminal): the orchestrator [`offer`](Checkpoint::offer)s every answer it completes
//! (the first answer, the best routed board before the post-optimiser, the end of each run),
//! and whoever writes the answer, the process at its
//! end or its signal handler, does it through [`write_once`](Checkpoint::write_once), so one
//! answer is written, never two.

use super::answer::Solution;
use super::board::Move;
use std::sync::{Mutex, MutexGuard};

/// The best legal answer offered so far, and whether an answer has been written.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, checkpoint::Checkpoint, solve, Options};
/// static CHECKPOINT: Checkpoint = Checkpoint::new();
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// let options = Options { time_limit: 0.3, checkpoint: Some(&CHECKPOINT), ..Options::default() };
/// let solution = solve(&board, options, std::time::Instant::now());
/// // the run offered its answers; the first writer gets the best, the second nothing
/// let best = CHECKPOINT.write_once(|best| best.map(|(moves, score)| (moves.len(), score)));
/// assert_eq!(best, Some(Some((solution.moves.len(), solution.outcome.score))));
/// assert_eq!(CHECKPOINT.write_once(|_| ()), None);
/// ```
#[derive(Debug)]
pub struct Checkpoint {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    moves: Option<Vec<Move>>,
    score: f64,
    written: bool,
}

impl Checkpoint {
    /// An empty checkpoint (usable as a `static`).
    pub const fn new() -> Checkpoint {
        Checkpoint {
            state: Mutex::new(State {
                moves: None,
                score: f64::INFINITY,
                written: false,
            }),
        }
    }

    /// A panic elsewhere must not keep the answer from being written.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `solution` if it scores below every answer offered before.
    ///
    /// # Complexity
    /// `O(moves)` when kept (a copy), `O(1)` otherwise.
    pub fn offer(&self, solution: &Solution) {
        let mut state = self.lock();
        if solution.outcome.score < state.score {
            state.score = solution.outcome.score;
            state.moves = Some(solution.moves.clone());
        }
    }

    /// Calls `write` with the best answer offered and its score (`None` if none was) unless
    /// an answer was written already; `None` then. Holds the lock meanwhile, so a second
    /// writer waits and then gets `None`.
    pub fn write_once<R>(&self, write: impl FnOnce(Option<(&[Move], f64)>) -> R) -> Option<R> {
        let mut state = self.lock();
        if state.written {
            return None;
        }
        state.written = true;
        let score = state.score;
        Some(write(state.moves.as_deref().map(|m| (m, score))))
    }
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint::new()
    }
}
