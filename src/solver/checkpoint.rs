//! The best answer so far, for a process that must answer before its runs end (Ctrl-C,
//! SIGTERM, a closed terminal, the deadline of `--threads`, an allocation that failed): the
//! orchestrator [`offer`](Checkpoint::offer)s every answer it completes (the first answer,
//! the end of each run), and while a run's [`RunScope`] is open every stage offers each
//! better answer it keeps at once through [`keep`] (a routed board that beats the pool, a
//! better order, each gain of the post-optimiser), and whoever writes
//! stdout — the process at its end, its signal handler, its last resort when memory runs
//! out — does it through [`write_once`](Checkpoint::write_once), so one answer is written,
//! never two.
//!
//! Nothing is allocated while the lock is held (answers are copied before it is taken and
//! kept behind an `Arc`), so the allocator's last resort, which takes the lock, can never
//! wait for itself.

use super::answer::{Solution, Stop};
use super::board::{Board, Move};
use std::cell::Cell;
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

impl State {
    /// Whether an answer scoring `score` beats the best kept (or none is kept).
    fn beaten_by(&self, score: f64) -> bool {
        self.best.as_ref().is_none_or(|b| score < b.outcome.score)
    }
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

    /// Whether an answer scoring `score` would be kept (it beats every answer offered so far).
    pub fn would_keep(&self, score: f64) -> bool {
        self.lock().beaten_by(score)
    }

    /// Keeps `solution` if it scores below every answer offered before.
    ///
    /// # Complexity
    /// `O(moves)` when kept (a copy), `O(1)` otherwise.
    pub fn offer(&self, solution: &Solution) {
        let score = solution.outcome.score;
        if !self.would_keep(score) {
            return;
        }
        // copied before the lock is taken again: nothing allocates while it is held
        let copy = Arc::new(solution.clone());
        let replaced = {
            let mut state = self.lock();
            if state.beaten_by(score) {
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

thread_local! {
    /// The checkpoint of the run on this thread, while its [`RunScope`] is open. A run never
    /// leaves its thread (`--threads` gives each run one), so the stages need not carry it.
    static RUN: Cell<Option<&'static Checkpoint>> = const { Cell::new(None) };
}

/// While alive, the answers this thread's stages [`keep`] are offered to its checkpoint; the
/// scope open before it comes back when it drops (a long run's two runs nest nothing, but a
/// test may).
#[derive(Debug)]
pub struct RunScope {
    previous: Option<&'static Checkpoint>,
}

impl RunScope {
    /// Opens the scope of a run that offers to `checkpoint` (`None`: offers go nowhere).
    pub fn enter(checkpoint: Option<&'static Checkpoint>) -> RunScope {
        RunScope {
            previous: RUN.with(|run| run.replace(checkpoint)),
        }
    }
}

impl Drop for RunScope {
    fn drop(&mut self) {
        RUN.with(|run| run.set(self.previous));
    }
}

/// Offers the answer `moves` of `board`, which the caller scored `score`, to the checkpoint of
/// the run on this thread (see [`RunScope`]) when it beats that checkpoint's best; the
/// checkpoint replays it first, so an illegal list is never kept. A stage calls this for each
/// better answer it keeps, so that a signal or a deadline writes the best the process holds,
/// not the last answer a phase handed on.
///
/// # Complexity
/// `O(1)` when nothing is kept or there is no checkpoint; else a replay and a copy, `O(moves)`
/// plus the board.
pub fn keep(board: &Board, moves: &[Move], score: f64) {
    let Some(checkpoint) = RUN.with(Cell::get) else {
        return;
    };
    if !checkpoint.would_keep(score) {
        return;
    }
    if let Some(solution) = Solution::of(board, moves.to_vec(), Stop::Budget) {
        checkpoint.offer(&solution);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `keep` reaches the checkpoint of the open scope only, and never keeps an illegal list
    /// whatever score its caller claims.
    #[test]
    fn keep_offers_to_the_open_scope_only() {
        static CHECKPOINT: Checkpoint = Checkpoint::new();
        let board = board();
        CHECKPOINT.start(&board);
        let better = vec![Move { from: 0, to: 12 }];
        let score = Solution::of(&board, better.clone(), Stop::Budget)
            .unwrap()
            .outcome
            .score;
        keep(&board, &better, score); // no scope open: goes nowhere
        assert!(CHECKPOINT.best().unwrap().moves.is_empty());
        {
            let _scope = RunScope::enter(Some(&CHECKPOINT));
            // a queen jumping over another: illegal, however good its claimed score
            keep(&board, &[Move { from: 0, to: 2 }], 0.0);
            assert!(CHECKPOINT.best().unwrap().moves.is_empty());
            keep(&board, &better, score);
            assert_eq!(CHECKPOINT.best().unwrap().moves, better);
        }
        let other = vec![Move { from: 3, to: 15 }];
        keep(&board, &other, 0.0); // the scope closed
        assert_eq!(CHECKPOINT.best().unwrap().moves, better);
    }
}
