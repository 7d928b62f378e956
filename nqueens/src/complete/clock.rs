//! When a stage stops: at the run's wall-clock deadline, or as soon as another thread of the
//! same run has its answer (see [`super::Options::threads`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A wall-clock deadline, optionally cut short by a flag another thread raises.
///
/// # Examples
/// ```
/// use nqueens::complete::clock::Deadline;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::time::{Duration, Instant};
/// let stop = AtomicBool::new(false);
/// let d = Deadline::shared(Instant::now() + Duration::from_secs(60), &stop);
/// assert!(!d.passed());
/// stop.store(true, Ordering::Relaxed);
/// assert!(d.passed());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Deadline<'a> {
    at: Instant,
    stop: Option<&'a AtomicBool>,
}

impl<'a> Deadline<'a> {
    /// Stops at `at` only.
    pub fn new(at: Instant) -> Self {
        Deadline { at, stop: None }
    }

    /// Stops at `at` or once `stop` is set.
    pub fn shared(at: Instant, stop: &'a AtomicBool) -> Self {
        Deadline {
            at,
            stop: Some(stop),
        }
    }

    /// True once the deadline has passed or the stop flag is set.
    #[inline]
    pub fn passed(&self) -> bool {
        Instant::now() > self.at || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}
