//! The ranges a [`SeedResult`] read back must keep: what the judge and a run can give.

use super::{SeedResult, Status};

/// The longest wall time a result may hold (ms): twice the largest time limit, a day
/// ([`crate::cli::args::MAX_SECS`]).
pub const MAX_WALL_MS: u64 = 2 * 1000 * crate::cli::args::MAX_SECS as u64;

/// The most threads a result's CPU and run-queue times may stand for: as many as a run's
/// wait is followed over.
pub const MAX_THREADS: u64 = crate::cli::runqueue::MAX_TASKS as u64;

impl SeedResult {
    /// Whether the numbers are ones the judge and the run can give: an ok score finite and >=
    /// 0, any other status -1, the penalty finite and >= 0, a wall time of at most
    /// [`MAX_WALL_MS`], CPU and run-queue times of at most [`MAX_THREADS`] times the wall time
    /// (and a second). The message names the seed.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::report::{SeedResult, Status};
    /// use tools::input::Input;
    ///
    /// let input = Input::new(1, 1, vec![1]).unwrap();
    /// let mut r = SeedResult::judged(4, &input, None, "0\n");
    /// assert!(r.check().is_ok());
    /// r.score = -5.0;
    /// assert!(r.check().unwrap_err().contains("seed 4"));
    /// ```
    pub fn check(&self) -> Result<(), String> {
        let seed = self.seed;
        let ok = self.status == Status::Ok;
        if ok && !(self.score.is_finite() && self.score >= 0.0) {
            return Err(format!(
                "seed {seed}: status ok with score {}: a score is a number >= 0",
                self.score
            ));
        }
        if !ok && self.score != -1.0 {
            return Err(format!(
                "seed {seed}: status {} with score {}: a seed that is not ok scores -1",
                self.status.as_str(),
                self.score
            ));
        }
        if !(self.penalty.is_finite() && self.penalty >= 0.0) {
            return Err(format!(
                "seed {seed}: penalty {}: a penalty is a number >= 0",
                self.penalty
            ));
        }
        self.check_times()
    }

    /// The time checks of [`SeedResult::check`].
    fn check_times(&self) -> Result<(), String> {
        let seed = self.seed;
        if let Some(wall) = self.wall_ms.filter(|&w| w > MAX_WALL_MS) {
            return Err(format!(
                "seed {seed}: wall_ms {wall}: a run is stopped at its time limit (a day at most)"
            ));
        }
        let most = MAX_THREADS.saturating_mul(self.wall_ms.unwrap_or(MAX_WALL_MS) + 1000);
        for (key, value) in [("cpu_ms", self.cpu_ms), ("wait_ms", self.wait_ms)] {
            if let Some(ms) = value.filter(|&ms| ms > most) {
                return Err(format!(
                    "seed {seed}: {key} {ms} with wall_ms {}: more than {MAX_THREADS} threads \
                     could use in that time",
                    self.wall_ms
                        .map_or("unknown".to_string(), |w| w.to_string())
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A result of `tester run` as `results.json` holds it, with `key` set to `value`.
    fn read_with(key: &str, value: serde_json::Value) -> Result<SeedResult, String> {
        let mut v = json!({
            "seed": 3, "N": 8, "C": 2, "P": 0.1, "status": "ok", "score": 12.0, "errors": 0,
            "moves": 0, "penalty": 0.0, "wall_ms": 1000, "cpu_ms": 990, "wait_ms": 4
        });
        v[key] = value;
        SeedResult::from_json(&v)
    }

    #[test]
    fn times_that_no_run_gives_are_refused() {
        assert!(read_with("cpu_ms", json!(990)).is_ok());
        // Absent or null (older files): no time.
        assert_eq!(read_with("wait_ms", json!(null)).unwrap().wait_ms, None);
        for (key, value, said) in [
            ("cpu_ms", json!(-5), "`cpu_ms` -5: not a whole number"),
            ("wall_ms", json!(-1), "`wall_ms` -1: not a whole number"),
            ("wait_ms", json!(0.5), "`wait_ms` 0.5: not a whole number"),
            (
                "wall_ms",
                json!(1e12 as u64),
                "wall_ms 1000000000000: a run is stopped",
            ),
            ("cpu_ms", json!(1u64 << 40), "more than 4096 threads"),
            (
                "wait_ms",
                json!(9_000_000),
                "wait_ms 9000000 with wall_ms 1000",
            ),
        ] {
            let e = read_with(key, value).unwrap_err();
            assert!(e.contains(said), "{key}: {e}");
        }
    }
}
