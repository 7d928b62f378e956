//! The best answer so far, for a process that must answer before its runs end (Ctrl-C,
//! SIGTERM, a closed terminal, the deadline of `--threads`, an allocation that failed): the
//! orchestrator [`offer`](Checkpoint::offer)s every answer it completes (the first answer,
//! the best routed board before the post-optimiser, the end of each run), and whoever writes
//! stdout — the process at its end, its signal handler, its last resort when memory runs
//! out — does it through [`write_once`](Checkpoint::write_once), so one answer is written,
//! never two.
//!
//! Nothing is allocated while the lock is held (answers are copied before it is taken and
//! kept behind an `Arc`), so the allocator's last resort, which takes the lock, can never
//! wait for itself.

use super::answer::{Solution, Stop};
use super::board::Board;
use std::sync::{Arc, Mutex, MutexGuard};

/// The best legal answer offered so far, and whether (and with which exit code) stdout was
/// written.
///
/// # Examples
/// ```
/// use queenattack::solver::{board::Board, checkpoint::Checkpoint, solve, Options};
/// static CHECKPOINT: Checkpoint = Checkpoint::new();
/// let board = Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap();
/// CHECKPOINT.start(&board);
/// let options = Options { time_limit: 0.3, checkpoint: Some(&CHECKPOINT), ..Options::default() };
/// let solution = solve(&board, options, std::time::Instant::now());
/// // the run offered its answers; the first writer gets the best, the second nothing
/// let best = CHECKPOINT.write_once(|best, _| (best.map(|s| (s.moves.len(), s.outcome.score)), 0));
/// assert_eq!(best, Some(Some((solution.moves.len(), solution.outcome.score))));
/// assert_eq!(CHECKPOINT.write_once(|_, _| ((), 0)), None);
/// assert_eq!(CHECKPOINT.exit_code(), Some(0));
/// ```
#[derive(Debug)]
pub struct Checkpoint {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The board's side (0 before [`Checkpoint::start`]).
    n: usize,
    best: Option<Arc<Solution>>,
    /// The exit code the process ends with, once stdout is written.
    exit_code: Option<u8>,
}

impl Checkpoint {
    /// An empty checkpoint (usable as a `static`).
    pub const fn new() -> Checkpoint {
        Checkpoint {
            state: Mutex::new(State {
                n: 0,
                best: None,
                exit_code: None,
            }),
        }
    }

    /// A panic elsewhere must not keep the answer from being written.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the board: its side, and the empty answer (always legal) as the best so far, so
    /// that a stop before any run's first answer writes it with its true score.
    pub fn start(&self, board: &Board) {
        let empty = Solution::of(board, Vec::new(), Stop::Budget).map(Arc::new);
        let mut state = self.lock();
        state.n = board.n;
        if state.best.is_none() {
            state.best = empty;
        }
    }

    /// Keeps `solution` if it scores below every answer offered before.
    ///
    /// # Complexity
    /// `O(moves)` when kept (a copy), `O(1)` otherwise.
    pub fn offer(&self, solution: &Solution) {
        let score = solution.outcome.score;
        let beats = |state: &State| state.best.as_ref().is_none_or(|b| score < b.outcome.score);
        if !beats(&self.lock()) {
            return;
        }
        // copied before the lock is taken again: nothing allocates while it is held
        let copy = Arc::new(solution.clone());
        let replaced = {
            let mut state = self.lock();
            if beats(&state) {
                state.best.replace(copy)
            } else {
                Some(copy)
            }
        };
        drop(replaced); // freed outside the lock too
    }

    /// The best answer offered so far (the empty answer after [`start`](Checkpoint::start)
    /// when nothing better was).
    pub fn best(&self) -> Option<Arc<Solution>> {
        self.lock().best.clone()
    }

    /// Calls `write` with the best answer offered (`None` if none was) and the board's side
    /// unless stdout was written already; `None` then. `write` returns its result and the
    /// exit code the process will end with. Holds the lock meanwhile, so a second writer waits
    /// and then gets `None`; so `write` must not allocate (the allocator's last resort writes
    /// through here).
    pub fn write_once<R>(
        &self,
        write: impl FnOnce(Option<&Solution>, usize) -> (R, u8),
    ) -> Option<R> {
        let mut state = self.lock();
        if state.exit_code.is_some() {
            return None;
        }
        let (result, code) = write(state.best.as_deref(), state.n);
        state.exit_code = Some(code);
        Some(result)
    }

    /// The exit code chosen by the writer of stdout, once it has written (`None` before).
    pub fn exit_code(&self) -> Option<u8> {
        self.lock().exit_code
    }
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::board::Move;

    fn board() -> Board {
        Board::parse("4 1  1 1 1 1  0 0 0 0  0 0 0 0  0 0 0 0").unwrap()
    }

    #[test]
    fn the_empty_answer_is_the_first_best_with_its_true_score() {
        let checkpoint = Checkpoint::new();
        checkpoint.start(&board());
        let best = checkpoint.best().expect("the empty answer");
        assert!(best.moves.is_empty());
        // six attacking pairs on the top row, N = 4 each
        assert_eq!(best.outcome.score, 24.0);
    }

    #[test]
    fn only_a_better_answer_is_kept() {
        let checkpoint = Checkpoint::new();
        checkpoint.start(&board());
        // one queen down a column: two pairs fewer on the top row, one more on a diagonal
        let moves = vec![Move { from: 0, to: 12 }];
        let better = Solution::of(&board(), moves, Stop::Budget).unwrap();
        checkpoint.offer(&better);
        let worse = Solution::of(&board(), vec![], Stop::Budget).unwrap();
        checkpoint.offer(&worse);
        let best = checkpoint.best().unwrap();
        assert_eq!(best.moves.len(), 1);
        assert_eq!(best.outcome.score, better.outcome.score);
    }
}
