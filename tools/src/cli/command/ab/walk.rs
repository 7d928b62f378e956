//! The sequential test of `tester ab`, read pair by pair in stream order: the GSPRT on the
//! mean ([`super::sprt`], fast near δ) and the sequential sign test ([`super::sign`], fast for
//! clear effects) side by side, the first to cross a bound deciding. α and β are split between
//! them ([`super::sprt::GSPRT_SHARE`] to the GSPRT, the rest to the sign test): a false accept of the pair
//! of tests is a false accept of one of them, so its rate is at most the sum of theirs.
//!
//! Simulated (tools/tests/it/ab_sprt.rs, 20 000 tests each, δ = 1 %, α = β = 5 %, per-pair
//! spread 3 %, pairs normal, Student-t with 3 degrees of freedom, a mixture with one pair in
//! ten five times as spread, or drawn from 40 measured pairs of one build against itself, 21
//! of them ties): see docs/tester.md ("tester ab") for the rates and pair counts measured.

use super::sign::SignTest;
use super::sprt::{Sprt, Stats, Verdict};

/// Which test gave the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The GSPRT on the mean.
    Gsprt,
    /// The sequential sign test.
    Sign,
}

/// The sequential test read pair by pair, in order.
#[derive(Clone, Debug)]
pub struct Walk {
    /// The test.
    pub sprt: Sprt,
    /// The most pairs it reads.
    pub max_pairs: usize,
    /// The pairs read so far.
    pub stats: Stats,
    /// The sign test over the same pairs.
    pub signs: SignTest,
    /// The verdict, once reached (then no pair is read any more).
    pub verdict: Option<Verdict>,
    /// The test that gave an accepted or rejected verdict.
    pub rule: Option<Rule>,
}

impl Walk {
    /// A test that has read no pair.
    pub fn new(sprt: Sprt, max_pairs: usize) -> Walk {
        Walk {
            sprt,
            max_pairs,
            stats: Stats::default(),
            signs: SignTest::default(),
            verdict: None,
            rule: None,
        }
    }

    /// Reads the next pair's statistic (ignored once the verdict is reached); returns the
    /// verdict if this pair reached it: the GSPRT's, else the sign test's, else inconclusive
    /// at `max_pairs`.
    pub fn push(&mut self, x: f64) -> Option<Verdict> {
        if self.verdict.is_some() {
            return None;
        }
        self.stats.push(x);
        self.signs.push(x, &self.sprt);
        let (n, mean) = (self.stats.n, self.stats.mean);
        let decided = match self.sprt.decide(&self.stats) {
            Some(v) => Some((v, Rule::Gsprt)),
            None => self
                .signs
                .decide(&self.sprt, n, mean)
                .map(|v| (v, Rule::Sign)),
        };
        if let Some((verdict, rule)) = decided {
            (self.verdict, self.rule) = (Some(verdict), Some(rule));
        } else if n >= self.max_pairs {
            self.verdict = Some(Verdict::Inconclusive);
        }
        self.verdict
    }

    /// Ends the walk inconclusive if it has no verdict (its pairs ran out).
    pub fn close(&mut self) {
        self.verdict.get_or_insert(Verdict::Inconclusive);
    }

    /// The GSPRT's LLR so far.
    pub fn llr(&self) -> f64 {
        self.sprt.llr(&self.stats)
    }

    /// The test of `xs` in order, stopped at its verdict.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::command::ab::sprt::{Sprt, Verdict};
    /// use tools::cli::command::ab::walk::{Rule, Walk};
    ///
    /// let sprt = Sprt { delta: 0.01, alpha: 0.05, beta: 0.05 };
    /// // B 2 % better on every seed, give or take 1 %: accepted at the minimum of 15 pairs.
    /// let xs: Vec<f64> = (0..40).map(|i| (0.98f64).ln() + if i % 2 == 0 { 0.01 } else { -0.01 }).collect();
    /// let walk = Walk::run(sprt, 1000, &xs);
    /// assert_eq!((walk.verdict, walk.stats.n), (Some(Verdict::Accepted), 15));
    /// // The same builds: rejected.
    /// let xs: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 0.01 } else { -0.01 }).collect();
    /// assert_eq!(Walk::run(sprt, 1000, &xs).verdict, Some(Verdict::Rejected));
    /// // B 30 % better on every seed but one tie and two losses: the sign test, at 17 pairs.
    /// let mut xs = vec![(0.7f64).ln(); 40];
    /// (xs[2], xs[5], xs[11]) = (0.0, 0.03, 0.1);
    /// let walk = Walk::run(sprt, 1000, &xs);
    /// assert_eq!((walk.verdict, walk.rule, walk.stats.n), (Some(Verdict::Accepted), Some(Rule::Sign), 17));
    /// ```
    pub fn run(sprt: Sprt, max_pairs: usize, xs: &[f64]) -> Walk {
        let mut walk = Walk::new(sprt, max_pairs);
        for &x in xs {
            if walk.push(x).is_some() {
                break;
            }
        }
        walk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command::ab::sprt::{CLIP, FAILURE, MIN_PAIRS};

    const SPRT: Sprt = Sprt::DEFAULT;

    #[test]
    fn identical_pairs_reject_at_the_minimum_and_never_before() {
        let mut walk = Walk::new(SPRT, 1000);
        for i in 1..MIN_PAIRS {
            assert_eq!(walk.push(0.0), None, "pair {i}");
        }
        assert_eq!(walk.push(0.0), Some(Verdict::Rejected));
        assert_eq!(walk.rule, Some(Rule::Gsprt));
        assert!(walk.llr().is_finite());
        // Nothing is read after the verdict.
        assert_eq!(walk.push(-1.0), None);
        assert_eq!(walk.stats.n, MIN_PAIRS);
    }

    #[test]
    fn max_pairs_is_inconclusive() {
        let xs: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 0.2 } else { -0.21 })
            .collect();
        let walk = Walk::run(SPRT, 20, &xs);
        assert_eq!(
            (walk.verdict, walk.stats.n, walk.rule),
            (Some(Verdict::Inconclusive), 20, None)
        );
        let mut short = Walk::run(SPRT, 1000, &xs[..16]);
        assert_eq!(short.verdict, None);
        short.close();
        assert_eq!(short.verdict, Some(Verdict::Inconclusive));
    }

    #[test]
    fn one_side_on_every_pair_decides_at_the_minimum() {
        // B crashed on every pair (x = ln 2): the LLR alone needed 205 pairs.
        let walk = Walk::run(SPRT, 1000, &[FAILURE; 300]);
        assert_eq!(
            (walk.verdict, walk.stats.n, walk.rule),
            (Some(Verdict::Rejected), MIN_PAIRS, Some(Rule::Sign))
        );
        // B more than 25 % better on every pair (x clipped to -ln 1.25): the LLR needed 64.
        let walk = Walk::run(SPRT, 1000, &[-CLIP; 300]);
        assert_eq!(
            (walk.verdict, walk.stats.n),
            (Some(Verdict::Accepted), MIN_PAIRS)
        );
        // A failed on every pair.
        let walk = Walk::run(SPRT, 1000, &[-FAILURE; 300]);
        assert_eq!(
            (walk.verdict, walk.stats.n),
            (Some(Verdict::Accepted), MIN_PAIRS)
        );
    }

    #[test]
    fn a_clear_win_with_a_tie_and_losses_is_accepted_within_20_pairs_in_any_order() {
        // B 10 % better on 17 pairs of 20, one tie and two losses (one of 5 %), wherever they
        // fall: the old unanimous-pairs rule broke on the first of them.
        let win = (0.9f64).ln();
        for tie in 0..20 {
            for first in 0..20 {
                for second in first + 1..20 {
                    if tie == first || tie == second {
                        continue;
                    }
                    let mut xs = vec![win; 20];
                    (xs[tie], xs[first], xs[second]) = (0.0, 0.01, 0.05);
                    let walk = Walk::run(SPRT, 1000, &xs);
                    assert_eq!(
                        walk.verdict,
                        Some(Verdict::Accepted),
                        "tie {tie}, losses {first} {second}: {walk:?}"
                    );
                }
            }
        }
    }
}
