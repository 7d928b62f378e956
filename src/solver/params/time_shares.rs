//! The one check across parameters: every run's budget ends in time for the answer.

use super::{ParamError, Params};

/// Latest end of a run's budget, as a share of the time limit: the answer is due before 95 %
/// of it, and the rest of the process (writing the answer, exiting) needs a little.
pub const RUN_END_MAX: f64 = 0.93;

impl Params {
    /// The share of a `time_limit` (seconds) a run computes: `compute_share_short` up to
    /// `short_limit`, `compute_share_long` from `long_limit`, `compute_share` between.
    pub fn compute_share_for(&self, time_limit: f64) -> f64 {
        if time_limit >= self.long_limit {
            self.compute_share_long
        } else if time_limit > self.short_limit {
            self.compute_share
        } else {
            self.compute_share_short
        }
    }

    /// Where a run of `time_limit` seconds plans to end, as a share of it: its compute share
    /// and the polish and post-optimiser after it.
    pub fn run_end_share(&self, time_limit: f64) -> f64 {
        self.compute_share_for(time_limit) * (1.0 + self.polish_share + self.improve_share)
    }

    /// Checks that every compute share, with the polish and the post-optimiser that run past
    /// it (`compute_share × (1 + polish_share + improve_share)`), ends by [`RUN_END_MAX`] of
    /// the time limit. `--param compute_share_short=1` made `--time-limit 1` take 1.06 s. The
    /// other shares are shares of the compute budget or of the time left in it, so they
    /// cannot move a run's end.
    ///
    /// # Errors
    /// [`ParamError::EndsLate`] naming the first share that ends too late.
    ///
    /// # Examples
    /// ```
    /// use queenattack::solver::Params;
    /// let mut params = Params::default();
    /// assert!(params.check_time_shares().is_ok());
    /// params.apply("compute_share_short=1").unwrap(); // in its range 0..=1 ...
    /// assert!(params.check_time_shares().is_err()); // ... but past the limit
    /// ```
    pub fn check_time_shares(&self) -> Result<(), ParamError> {
        let after = 1.0 + self.polish_share + self.improve_share;
        for (name, share) in [
            ("compute_share_short", self.compute_share_short),
            ("compute_share", self.compute_share),
            ("compute_share_long", self.compute_share_long),
        ] {
            let end = share * after;
            if end > RUN_END_MAX {
                return Err(ParamError::EndsLate {
                    name,
                    end,
                    most: RUN_END_MAX / after,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_that_end_late_are_refused() {
        for (text, name) in [
            ("compute_share=0.9", "compute_share"),
            ("compute_share_long=0.95", "compute_share_long"),
        ] {
            let mut params = Params::default();
            params.apply(text).unwrap();
            match params.check_time_shares() {
                Err(ParamError::EndsLate { name: got, end, .. }) => {
                    assert_eq!(got, name);
                    assert!(end > RUN_END_MAX);
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        // a longer polish moves the end of the default shares too
        let mut params = Params::default();
        params.apply("polish_share=0.2").unwrap();
        assert!(params.check_time_shares().is_err());
        // and a shorter compute share makes room for it
        for text in [
            "compute_share_short=0.6",
            "compute_share=0.6",
            "compute_share_long=0.6",
        ] {
            params.apply(text).unwrap();
        }
        assert!(params.check_time_shares().is_ok());
    }
}
