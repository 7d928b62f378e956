//! The pair statistic of `tester ab` and the mean test that reads it: Wald's sequential
//! probability-ratio test with the variance estimated from the pairs (GSPRT). The sign test
//! beside it is `sign.rs`; `walk.rs` reads the pairs with both.
//!
//! One pair is one seed run by A and B with the same solver seed. Its statistic is
//! `x = ln(score_B / score_A)` (lower is better: `x < 0` means B scored lower), clipped to
//! `±`[`CLIP`] (`ln 1.25`), so that a few seeds where one side is far off cannot swamp the
//! test: the solver at 0.25 s against itself at 1 s gave two pairs at −0.69 and −0.39 among 60
//! (sd 0.104; clipped 0.054). Clipping keeps the mean of equal builds at 0 (their pairs are
//! symmetric), so α holds; it shrinks only effects beyond 25 % on a seed. A side that did not
//! give a judged answer (timeout, crash, invalid, too long) loses the pair by more than any
//! judged answer can: `x = +`[`FAILURE`] (`ln 2`, as if it had scored twice the other side)
//! when B failed, `−FAILURE` when A failed, `0` when both failed. Two equal scores give 0.
//! The clipped `x` is what the tests read; the ratio of the scores that `tester ab` prints is
//! the unclipped geometric mean ([`Stats`] of the unclipped `ln(B/A)`), named apart.
//!
//! The GSPRT: H0 `mean(x) = μ0 = 0` (B no better than A) against H1 `mean(x) = μ1 = ln(1 − δ)`
//! (B better by δ), the pairs taken as normal with their variance unknown: the generalized
//! likelihood ratio (fishtest's GSPRT) estimates the variance from the pairs under each
//! hypothesis. After `n` pairs `x_1 … x_n` with mean `x̄` and `s² = Σ(x − x̄)² / n`:
//!
//! ```text
//! LLR = n/2 · ln( Σ(x_i − μ0)² / Σ(x_i − μ1)² ) = n/2 · ln( (s² + (x̄ − μ0)²) / (s² + (x̄ − μ1)²) )
//! ```
//!
//! ([`VARIANCE_FLOOR`] is added to both variances, so identical pairs give a finite LLR). For
//! small differences it is the familiar `n · (μ1 − μ0) · (2·x̄ − μ0 − μ1) / (2·s²)`, with the
//! variance taken a little larger. It decides from [`MIN_PAIRS`] pairs on: `LLR >= ln((1 − β')
//! / α')` accepted, `LLR <= ln(β' / (1 − α'))` rejected, where `α' = `[`GSPRT_SHARE`]` · α` and
//! `β' = GSPRT_SHARE · β`: the rest of α and β is the sign test's, so that the two together
//! keep the error rates (see `walk.rs` for the rates simulated).
//!
//! It is fast for effects near δ and slow for effects far beyond both hypotheses: both explain
//! such pairs with a large variance (alone, a B that crashed on every pair needed 205 pairs, a
//! B better by more than 25 % on every pair 64). Those are the sign test's.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The formula as printed and recorded.
pub const FORMULA: &str = "LLR = n/2 * ln( sum (x - mu0)^2 / sum (x - mu1)^2 ), x = ln(score_B / \
score_A) per pair clipped to +-ln 1.25 (a failed side: -/+ ln 2), mu0 = 0, mu1 = ln(1 - delta)";

/// The value of a pair one side lost by failing: `ln 2` (a failure counts as a score twice
/// the other side's).
pub const FAILURE: f64 = std::f64::consts::LN_2;

/// The clip of a pair of two judged scores: `ln 1.25`.
pub const CLIP: f64 = 0.223_143_551_314_209_76;

/// The fewest pairs the test decides on: below it the variance estimate is too rough (at 10
/// the simulated false-accept rate of equal builds was 5.1 % at α = 5 %, at 15 4.8 %, the
/// GSPRT alone at its full α).
pub const MIN_PAIRS: usize = 15;

/// The share of α and β the GSPRT gets; the sign test gets the rest (`1 − GSPRT_SHARE`).
pub const GSPRT_SHARE: f64 = 0.8;

/// Added to both variances of the LLR (so that identical pairs give a finite LLR).
pub const VARIANCE_FLOOR: f64 = 1e-12;

/// The statistic of one pair: `ln(b / a)` clipped to `±CLIP`; `None` is a side that failed
/// (`±FAILURE` against it).
///
/// # Examples
///
/// ```
/// use tools::cli::command::ab::sprt::{pair_statistic, CLIP, FAILURE};
///
/// assert!((pair_statistic(Some(100.0), Some(99.0)) - (0.99f64).ln()).abs() < 1e-15);
/// assert_eq!(pair_statistic(Some(100.0), None), FAILURE);
/// assert_eq!(pair_statistic(None, Some(100.0)), -FAILURE);
/// assert_eq!(pair_statistic(None, None), 0.0);
/// assert_eq!(pair_statistic(Some(0.0), Some(0.0)), 0.0);
/// assert_eq!(pair_statistic(Some(1.0), Some(1000.0)), CLIP);
/// assert_eq!(pair_statistic(Some(0.0), Some(1.0)), CLIP);
/// assert!((CLIP - 1.25f64.ln()).abs() < 1e-16);
/// ```
pub fn pair_statistic(a: Option<f64>, b: Option<f64>) -> f64 {
    match (a, b) {
        (None, None) => 0.0,
        (Some(_), None) => FAILURE,
        (None, Some(_)) => -FAILURE,
        (Some(a), Some(b)) if a == b => 0.0,
        (Some(a), Some(b)) => (b / a).ln().clamp(-CLIP, CLIP),
    }
}

/// The running mean and variance of the pair statistics (Welford's method: one pass, no
/// cancellation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Pairs seen.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// `Σ(x − mean)²`.
    pub m2: f64,
}

impl Stats {
    /// The statistics of `xs`.
    pub fn of(xs: &[f64]) -> Stats {
        let mut stats = Stats::default();
        xs.iter().for_each(|&x| stats.push(x));
        stats
    }

    /// Adds one pair.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// `Σ(x − x̄)² / n`, the variance of the LLR (0 before the first pair).
    pub fn variance(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.m2 / self.n as f64
        }
    }

    /// The sample standard deviation `√(Σ(x − x̄)² / (n − 1))` (0 below two pairs).
    pub fn sd(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            (self.m2 / (self.n - 1) as f64).sqrt()
        }
    }

    /// The 95 % interval of the mean of `x`: `x̄ ± t(0.975, n − 1) · sd / √n` (Student's t);
    /// `None` below two pairs.
    pub fn interval95(&self) -> Option<(f64, f64)> {
        if self.n < 2 {
            return None;
        }
        let t = StudentsT::new(0.0, 1.0, (self.n - 1) as f64)
            .ok()?
            .inverse_cdf(0.975);
        let half = t * self.sd() / (self.n as f64).sqrt();
        Some((self.mean - half, self.mean + half))
    }

    /// The two-sided p-value of Student's t-test of "the mean is 0", the test that goes with
    /// [`Stats::interval95`] (the interval leaves out 0 exactly when p < 0.05); `None` below
    /// two pairs.
    pub fn t_test_p(&self) -> Option<f64> {
        if self.n < 2 {
            return None;
        }
        let se = self.sd() / (self.n as f64).sqrt();
        if se == 0.0 {
            return Some(if self.mean == 0.0 { 1.0 } else { 0.0 });
        }
        let t = StudentsT::new(0.0, 1.0, (self.n - 1) as f64).ok()?;
        Some((2.0 * t.cdf(-(self.mean / se).abs())).min(1.0))
    }
}

/// What the test says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// H1: B is better than A by at least δ (exit code 0).
    Accepted,
    /// H0: B is not better than A (exit code 1).
    Rejected,
    /// Neither bound was crossed (exit code 3).
    Inconclusive,
}

impl Verdict {
    /// `accepted`, `rejected`, `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// Reads [`Verdict::as_str`] back.
    pub fn parse(text: &str) -> Option<Verdict> {
        [Verdict::Accepted, Verdict::Rejected, Verdict::Inconclusive]
            .into_iter()
            .find(|v| v.as_str() == text)
    }

    /// The exit code of `tester ab`: 0, 1, 3.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Accepted => 0,
            Verdict::Rejected => 1,
            Verdict::Inconclusive => 3,
        }
    }
}

/// The test's settings: δ as a fraction (0.01 for `--delta 1`), α and β.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The improvement H1 names, as a fraction of A's score.
    pub delta: f64,
    /// The false-accept rate (B accepted while no better).
    pub alpha: f64,
    /// The false-reject rate (B rejected while better by δ).
    pub beta: f64,
}

impl Sprt {
    /// The test of `tester ab`'s defaults: δ = 1 %, α = β = 0.05.
    pub const DEFAULT: Sprt = Sprt {
        delta: 0.01,
        alpha: 0.05,
        beta: 0.05,
    };

    /// μ0 = 0: B scores as A does.
    pub const MU0: f64 = 0.0;

    /// μ1 = ln(1 − δ).
    pub fn mu1(&self) -> f64 {
        (1.0 - self.delta).ln()
    }

    /// The GSPRT's own α and β: [`GSPRT_SHARE`] of each.
    pub fn gsprt_rates(&self) -> (f64, f64) {
        (GSPRT_SHARE * self.alpha, GSPRT_SHARE * self.beta)
    }

    /// The lower bound `ln(β' / (1 − α'))` (α', β': [`Sprt::gsprt_rates`]): at or below it,
    /// rejected.
    pub fn lower(&self) -> f64 {
        let (alpha, beta) = self.gsprt_rates();
        (beta / (1.0 - alpha)).ln()
    }

    /// The upper bound `ln((1 − β') / α')`: at or above it, accepted.
    pub fn upper(&self) -> f64 {
        let (alpha, beta) = self.gsprt_rates();
        ((1.0 - beta) / alpha).ln()
    }

    /// `n/2 · ln((s² + (x̄ − μ0)² + F) / (s² + (x̄ − μ1)² + F))` with `s² = Σ(x − x̄)² / n`
    /// and `F` = [`VARIANCE_FLOOR`]; 0 before the first pair.
    pub fn llr(&self, stats: &Stats) -> f64 {
        if stats.n == 0 {
            return 0.0;
        }
        let var = stats.variance();
        let around = |mu: f64| var + (stats.mean - mu) * (stats.mean - mu) + VARIANCE_FLOOR;
        stats.n as f64 / 2.0 * (around(Self::MU0) / around(self.mu1())).ln()
    }

    /// The verdict after the pairs of `stats`, if a bound is crossed (never below
    /// [`MIN_PAIRS`]).
    pub fn decide(&self, stats: &Stats) -> Option<Verdict> {
        if stats.n < MIN_PAIRS {
            return None;
        }
        let llr = self.llr(stats);
        if llr >= self.upper() {
            Some(Verdict::Accepted)
        } else if llr <= self.lower() {
            Some(Verdict::Rejected)
        } else {
            None
        }
    }

    /// Checks the settings: 0 < δ < 1, and α, β each above 0 and at most 0.5 (an error rate
    /// above a coin's is no test) and not both 0.5 (α + β < 1: at α + β = 1 a coin toss
    /// keeps both rates without reading a pair).
    pub fn check(&self) -> Result<(), String> {
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(format!(
                "--delta {}: the improvement must lie strictly between 0 and 100 %",
                short(self.delta * 100.0)
            ));
        }
        let rate = |r: f64| r > 0.0 && r <= 0.5;
        if !(rate(self.alpha) && rate(self.beta)) {
            return Err(format!(
                "--alpha {} --beta {}: each must be above 0 and at most 0.5",
                short(self.alpha),
                short(self.beta)
            ));
        }
        if self.alpha + self.beta >= 1.0 {
            return Err(format!(
                "--alpha {} --beta {}: they add up to 1 or more, which a coin toss keeps without \
                 any pair: lower at least one",
                short(self.alpha),
                short(self.beta)
            ));
        }
        Ok(())
    }

    /// The fewest pairs whose LLR can reach both bounds: one pair adds at most
    /// `½ · ln((μ1² + F) / F)` (all pairs at `x = μ1`) and takes away at most as much (all at
    /// `x = 0`), `F` = [`VARIANCE_FLOOR`]; never below [`MIN_PAIRS`]. A δ so small that this
    /// exceeds the pairs allowed can never give a verdict.
    pub fn fewest_pairs(&self) -> f64 {
        (self.upper().max(-self.lower()) / self.largest_step())
            .ceil()
            .max(MIN_PAIRS as f64)
    }

    /// The most one pair moves the LLR: `½ · ln(1 + μ1² / F)`.
    fn largest_step(&self) -> f64 {
        0.5 * (self.mu1() * self.mu1() / VARIANCE_FLOOR).ln_1p()
    }

    /// Refuses a test that cannot decide within `pairs` pairs (fewer than [`MIN_PAIRS`], or a
    /// δ too small for the LLR to reach its bounds: see [`Sprt::fewest_pairs`]).
    pub fn check_pairs(&self, pairs: usize, what: &str) -> Result<(), String> {
        if pairs < MIN_PAIRS {
            return Err(format!(
                "{what}: {pairs} pairs, but the test decides from {MIN_PAIRS} pairs on: it could \
                 only say inconclusive"
            ));
        }
        let fewest = self.fewest_pairs();
        if fewest > pairs as f64 {
            return Err(format!(
                "--delta {}: the LLR moves at most {:.3e} a pair, so it needs {} pairs at least \
                 to reach its bounds, and {what} allows {pairs}: no verdict is possible; give a \
                 larger --delta",
                short(self.delta * 100.0),
                self.largest_step(),
                short(fewest)
            ));
        }
        Ok(())
    }
}

/// `x` for people: plain up to 12 characters (`0.5`, `1000`), else in scientific notation
/// (`1e308`, not its 309 digits), to 4 digits when longer (`4.778e20`).
pub fn short(x: f64) -> String {
    let plain = format!("{x}");
    let scientific = format!("{x:e}");
    if plain.len() <= 12 {
        plain
    } else if scientific.len() <= 12 {
        scientific
    } else {
        format!("{x:.3e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPRT: Sprt = Sprt::DEFAULT;

    #[test]
    fn the_llr_is_the_documented_formula() {
        let xs = [-0.02, 0.01, -0.015, 0.0, -0.03, 0.005];
        let n = xs.len() as f64;
        let mu1 = (0.99f64).ln();
        let around = |mu: f64| xs.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>();
        let expected = n / 2.0 * (around(0.0) / around(mu1)).ln();
        let got = SPRT.llr(&Stats::of(&xs));
        // (The floor of 1e-12 moves it by a few parts in a billion.)
        assert!(
            (got - expected).abs() < 1e-7 * expected.abs(),
            "{got} {expected}"
        );
        // Close to the quadratic form for differences this small.
        let mean = xs.iter().sum::<f64>() / n;
        let var = around(mean) / n;
        let quadratic = n * mu1 * (2.0 * mean - mu1) / (2.0 * var);
        assert!(
            (got - quadratic).abs() < 0.2 * quadratic.abs(),
            "{got} {quadratic}"
        );
    }

    #[test]
    fn bounds_of_alpha_and_beta() {
        // The GSPRT's share of 0.05 is 0.04: ln(0.96 / 0.04) = ln 24.
        assert!((SPRT.upper() - 24f64.ln()).abs() < 1e-12);
        assert!((SPRT.lower() + 24f64.ln()).abs() < 1e-12);
        let skew = Sprt {
            delta: 0.02,
            alpha: 0.01,
            beta: 0.1,
        };
        assert!((skew.upper() - (0.92f64 / 0.008).ln()).abs() < 1e-12);
        assert!((skew.lower() - (0.08f64 / 0.992).ln()).abs() < 1e-12);
    }

    #[test]
    fn the_interval_holds_the_mean() {
        let xs = [-0.02, 0.01, -0.015, 0.0, -0.03, 0.005];
        let stats = Stats::of(&xs);
        let (lo, hi) = stats.interval95().unwrap();
        assert!(lo < stats.mean && stats.mean < hi);
        // t(0.975, 5) = 2.5706.
        let half = 2.570_581_8 * stats.sd() / 6f64.sqrt();
        assert!(
            (hi - stats.mean - half).abs() < 1e-6,
            "{} {half}",
            hi - stats.mean
        );
        assert_eq!(Stats::of(&[1.0]).interval95(), None);
        // The t-test goes with the interval: p < 0.05 exactly when it leaves out 0.
        for shift in [-0.03, -0.0105, -0.01, 0.0, 0.005, 0.02] {
            let moved: Vec<f64> = xs.iter().map(|x| x - shift).collect();
            let s = Stats::of(&moved);
            let (lo, hi) = s.interval95().unwrap();
            assert_eq!(
                s.t_test_p().unwrap() < 0.05,
                lo > 0.0 || hi < 0.0,
                "{shift}"
            );
        }
        assert_eq!(Stats::of(&[0.0, 0.0]).t_test_p(), Some(1.0));
    }

    #[test]
    fn tests_that_can_never_decide_are_refused() {
        assert!(SPRT.check_pairs(15, "--max-pairs").is_ok());
        assert!(SPRT.check_pairs(14, "--max-pairs").is_err());
        let tiny = Sprt {
            delta: 1e-16,
            ..SPRT
        };
        assert!(tiny.check().is_ok());
        let why = tiny.check_pairs(1_000_000, "--max-pairs").unwrap_err();
        assert!(why.contains("no verdict is possible"), "{why}");
        // 1e-6 %: about 59 000 pairs at least.
        let small = Sprt {
            delta: 1e-8,
            ..SPRT
        };
        assert!(small.check_pairs(1000, "--max-pairs").is_err());
        assert!(small.check_pairs(100_000, "--max-pairs").is_ok());
        let coin = Sprt {
            alpha: 0.5,
            beta: 0.5,
            ..SPRT
        };
        assert!(coin.check().unwrap_err().contains("add up to 1 or more"));
        let huge = Sprt {
            delta: 1e306,
            ..SPRT
        };
        assert!(huge.check().unwrap_err().starts_with("--delta 1e308:"));
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(4.777_625_394_272_938e20), "4.778e20");
    }

    #[test]
    fn settings_are_checked() {
        assert!(SPRT.check().is_ok());
        let bad = |delta, alpha, beta| Sprt { delta, alpha, beta }.check().is_err();
        assert!(bad(0.0, 0.05, 0.05));
        assert!(bad(1.0, 0.05, 0.05));
        assert!(bad(0.01, 0.0, 0.05));
        assert!(bad(0.01, 0.6, 0.05));
        assert!(bad(0.01, 0.05, 0.0));
        assert!(bad(f64::NAN, 0.05, 0.05));
    }
}
