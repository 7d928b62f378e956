//! Progress of a batch run on standard error.
//!
//! On a terminal it is an `indicatif` bar redrawn in place; otherwise (logs, CI) a plain line at
//! most every 10 seconds and one at the end, so a long run shows it is alive without flooding
//! the log.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a log (not a terminal) gets a progress line.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Progress of a batch of `total` items.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    total: usize,
    done: usize,
    failed: usize,
    start: Instant,
    last_line: Option<Instant>,
    terminal: bool,
    /// No time left is estimated: the batch may stop long before its `total` (an A/B stops at
    /// its verdict), so `total` is only the most it runs.
    open_ended: bool,
}

impl Progress {
    /// Starts counting.
    pub fn new(total: usize) -> Progress {
        Progress::with(total, false)
    }

    /// Starts counting a batch that may stop before `total` items (an A/B, which stops at its
    /// verdict): no bar and no time left, only the count, `at most` `total`.
    pub fn open_ended(total: usize) -> Progress {
        Progress::with(total, true)
    }

    fn with(total: usize, open_ended: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal {
            let bar = ProgressBar::with_draw_target(
                Some(total as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            let style = ProgressStyle::with_template(if open_ended {
                "{pos} done (at most {len}) failed {prefix} elapsed {elapsed}  {msg}"
            } else {
                "[{bar:30}] {pos}/{len} failed {prefix} elapsed {elapsed} eta {eta}  {msg}"
            })
            .expect("the template is valid")
            .progress_chars("#>-");
            bar.set_style(style);
            bar.set_prefix("0");
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            total,
            done: 0,
            failed: 0,
            start: Instant::now(),
            last_line: None,
            terminal,
            open_ended,
        }
    }

    /// Counts one finished item and shows the progress.
    pub fn tick(&mut self, failed: bool, what: &str) {
        self.done += 1;
        self.failed += usize::from(failed);
        if self.terminal {
            self.bar.set_prefix(self.failed.to_string());
            self.bar.set_message(what.to_string());
            self.bar.inc(1);
            return;
        }
        let now = Instant::now();
        let due = self.last_line.is_none_or(|t| now - t >= LOG_EVERY);
        if due || self.done == self.total {
            self.last_line = Some(now);
            let elapsed = self.start.elapsed().as_secs_f64();
            let (done, total) = (self.done, self.total);
            // An open-ended count has no time left to tell.
            let (head, eta) = if self.open_ended {
                (format!("{done} done (at most {total})"), String::new())
            } else {
                let left = total.saturating_sub(done) as f64;
                let eta = format!(" eta {:.0}s", elapsed / done as f64 * left);
                (format!("{done}/{total}"), eta)
            };
            // A closed stderr (`| head`) must not stop the run: the write error is ignored.
            crate::diag!(
                "{head} failed {} elapsed {elapsed:.0}s{eta}  {what}",
                self.failed
            );
        }
    }

    /// Says `line` on stderr, above the bar on a terminal (which is drawn again below it).
    pub fn note(&self, line: &str) {
        if self.terminal {
            self.bar.suspend(|| crate::diag!("{line}"));
        } else {
            crate::diag!("{line}");
        }
    }

    /// Ends the progress display (the bar stays on screen as it is).
    pub fn finish(&self) {
        if self.terminal {
            self.bar.abandon();
        }
    }
}
