//! A progress line on standard error for batch runs.
//!
//! On a terminal it redraws one line in place; otherwise (logs, CI) it prints a line at most
//! every 10 seconds, so a long run shows it is alive without flooding the log.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Progress of a batch of `total` items.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: usize,
    failed: usize,
    start: Instant,
    last: Option<Instant>,
    terminal: bool,
}

impl Progress {
    /// Starts counting.
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            failed: 0,
            start: Instant::now(),
            last: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Counts one finished item and shows the progress.
    pub fn tick(&mut self, failed: bool, what: &str) {
        self.done += 1;
        self.failed += usize::from(failed);
        let now = Instant::now();
        let due = self.last.is_none_or(|t| now - t >= Duration::from_secs(10));
        if !self.terminal && !due && self.done < self.total {
            return;
        }
        self.last = Some(now);
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = elapsed / self.done as f64 * (self.total - self.done) as f64;
        let width = 30;
        let filled = width * self.done / self.total.max(1);
        let bar = format!("{}{}", "#".repeat(filled), "-".repeat(width - filled));
        let line = format!(
            "[{bar}] {}/{} failed {} elapsed {elapsed:.0}s eta {eta:.0}s  {what}",
            self.done, self.total, self.failed
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r\x1b[K{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    /// Ends the progress line.
    pub fn finish(&self) {
        if self.terminal && self.done > 0 {
            eprintln!();
        }
    }
}
