//! The sequential sign test of `tester ab`: the fast road for clear effects.
//!
//! The GSPRT ([`super::sprt`]) weighs how far each pair lies from μ0 and μ1, so pairs far
//! beyond both (B 25 % better, or crashing, on every seed) move it slowly: both hypotheses
//! explain them with a large variance. The sign test counts only which side of a line each
//! pair falls on, which is what a clear effect shows at once.
//!
//! Two one-sided binomial SPRTs read the same pairs `x = ln(B/A)` (clipped, see
//! [`super::sprt`]):
//!
//! * **for accepting**, a pair is a *plus* when `x < μ1` (B better by more than δ on that
//!   seed) and a *minus* when `x > μ1`; a pair with `x = 0` (a tie) or `x = μ1` counts for
//!   neither. When A and B are equal, the pairs lie symmetric about 0, so among the pairs that
//!   are not ties a plus has probability at most ½ (`μ1 < 0`).
//! * **for rejecting**, a plus is `x > 0` (B worse), a minus `x < 0`, ties for neither. When B
//!   is better by δ, the pairs lie symmetric about `μ1 < 0`, so a plus has probability at
//!   most ½ among the others.
//!
//! Each test's log likelihood ratio of "a plus has probability [`P1`]" against "½" is
//! `k · ln(2·P1) + m · ln(2·(1 − P1))` after `k` plus and `m` minus. Under "½" (or below) the
//! ratio is a nonnegative (super)martingale of mean 1, so by Ville's inequality it ever
//! reaches `1/r` with probability at most `r`, however long it runs and wherever it stops:
//! the accepting test stops at `ln(1/α_s)`, the rejecting one at `ln(1/β_s)`, with
//! `α_s = (1 − `[`GSPRT_SHARE`]`) · α` and `β_s` likewise. The union with the GSPRT keeps
//! the error rates: a false accept of either is at most `α' + α_s = α`.
//!
//! A sign says nothing about how far a pair lies, so a B a little better on most seeds and
//! far worse on a few (or failing on some) could show plus after plus while its mean is no
//! better. So the sign test decides only where the mean agrees and the side it favours never
//! failed: accepted needs `x̄ <= μ1` and no pair where B failed; rejected needs `x̄ >= 0` and no
//! pair where A failed. These conditions only ever withhold a verdict, so the bounds above
//! still hold. It decides, like the GSPRT, from [`MIN_PAIRS`] pairs on.
//!
//! With α = β = 0.05 (`α_s = 0.01`, bound `ln 100 = 4.61`) and `P1 = 0.8` (a plus adds
//! `ln 1.6 = 0.47`, a minus takes `ln 2.5 = 0.92`), B better by δ on every pair is accepted at
//! 15 pairs (10 would do but for the minimum); with one minus also at 15, with two at 16, with
//! three at 19, with four at 22 (ties left out, as many as there are).

use super::sprt::{Sprt, Verdict, FAILURE, GSPRT_SHARE, MIN_PAIRS};

/// The chance of a plus under the alternative: a clear effect shows on about four seeds in
/// five (ties left out).
pub const P1: f64 = 0.8;

/// Plus and minus pairs of one of the two one-sided tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signs {
    /// Pairs on the side the test looks for.
    pub plus: usize,
    /// Pairs on the other side (ties are neither).
    pub minus: usize,
}

impl Signs {
    /// Counts a pair: `Some(true)` a plus, `Some(false)` a minus, `None` neither.
    fn push(&mut self, sign: Option<bool>) {
        match sign {
            Some(true) => self.plus += 1,
            Some(false) => self.minus += 1,
            None => {}
        }
    }

    /// `plus · ln(2·P1) + minus · ln(2·(1 − P1))`.
    pub fn llr(&self) -> f64 {
        self.plus as f64 * (2.0 * P1).ln() + self.minus as f64 * (2.0 * (1.0 - P1)).ln()
    }
}

/// The sign of `x` against `line`: plus on the `below` side, none when equal or a tie
/// (`x = 0`).
fn sign(x: f64, line: f64, below: bool) -> Option<bool> {
    if x == line || x == 0.0 {
        None
    } else {
        Some((x < line) == below)
    }
}

/// The two one-sided sign tests over the pairs read so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SignTest {
    /// The accepting test: plus where B is better by more than δ.
    pub better: Signs,
    /// The rejecting test: plus where B is worse.
    pub worse: Signs,
    /// Whether A failed on some pair (`x = −ln 2`), and whether B did (`x = +ln 2`).
    pub failed: [bool; 2],
}

impl SignTest {
    /// Counts the pair `x` of the test `sprt`.
    pub fn push(&mut self, x: f64, sprt: &Sprt) {
        self.better.push(sign(x, sprt.mu1(), true));
        self.worse.push(sign(x, 0.0, false));
        self.failed[0] |= x <= -FAILURE;
        self.failed[1] |= x >= FAILURE;
    }

    /// The bound of the accepting test, `ln(1/α_s)`, and of the rejecting one, `ln(1/β_s)`.
    pub fn bounds(sprt: &Sprt) -> (f64, f64) {
        let share = 1.0 - GSPRT_SHARE;
        (
            (1.0 / (share * sprt.alpha)).ln(),
            (1.0 / (share * sprt.beta)).ln(),
        )
    }

    /// The verdict after `n` pairs of mean `mean`, if a bound is crossed where the mean agrees
    /// and the favoured side never failed (never below [`MIN_PAIRS`]).
    pub fn decide(&self, sprt: &Sprt, n: usize, mean: f64) -> Option<Verdict> {
        if n < MIN_PAIRS {
            return None;
        }
        let (accept, reject) = Self::bounds(sprt);
        if self.better.llr() >= accept && mean <= sprt.mu1() && !self.failed[1] {
            Some(Verdict::Accepted)
        } else if self.worse.llr() >= reject && mean >= 0.0 && !self.failed[0] {
            Some(Verdict::Rejected)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPRT: Sprt = Sprt::DEFAULT;

    fn read(xs: &[f64]) -> SignTest {
        let mut test = SignTest::default();
        xs.iter().for_each(|&x| test.push(x, &SPRT));
        test
    }

    #[test]
    fn signs_leave_ties_out() {
        let test = read(&[-0.1, -0.005, 0.0, 0.02, SPRT.mu1()]);
        // Better by δ: only -0.1; -0.005 and 0.02 are minus; the tie and μ1 itself neither.
        assert_eq!(test.better, Signs { plus: 1, minus: 2 });
        // Worse: 0.02 plus; -0.1, -0.005 and μ1 minus; the tie neither.
        assert_eq!(test.worse, Signs { plus: 1, minus: 3 });
        assert_eq!(test.failed, [false, false]);
        assert_eq!(read(&[FAILURE, -FAILURE]).failed, [true, true]);
    }

    #[test]
    fn the_documented_counts_decide() {
        let (accept, reject) = SignTest::bounds(&SPRT);
        assert!((accept - 100f64.ln()).abs() < 1e-12 && (reject - accept).abs() < 1e-12);
        let mean = -0.1;
        let llr = |plus, minus| Signs { plus, minus }.llr();
        // 10 plus: accepted; then 12 plus and one minus, 14 and two, 16 and three, 18 and four.
        assert!(llr(10, 0) >= accept && llr(9, 0) < accept);
        assert!(llr(12, 1) >= accept && llr(11, 1) < accept);
        assert!(llr(14, 2) >= accept && llr(13, 2) < accept);
        assert!(llr(16, 3) >= accept && llr(15, 3) < accept);
        assert!(llr(18, 4) >= accept && llr(17, 4) < accept);
        // Two minus and a tie among the first pairs: accepted at pair 17 (14 plus), never at
        // pair 9 however many plus (the minimum).
        let mut xs = vec![-0.1; 30];
        (xs[3], xs[9], xs[12]) = (0.02, 0.05, 0.0);
        let mut test = SignTest::default();
        let first = (1..=30).find(|&n| {
            test.push(xs[n - 1], &SPRT);
            test.decide(&SPRT, n, mean).is_some()
        });
        assert_eq!(first, Some(17));
        assert_eq!(test.decide(&SPRT, 17, mean), Some(Verdict::Accepted));
        assert_eq!(read(&[-0.1; 10]).decide(&SPRT, 10, mean), None);
    }

    #[test]
    fn the_mean_and_failures_can_withhold_a_verdict() {
        // B better by 5 % on 19 pairs, crashed on one: the signs say accepted, the crash
        // withholds it.
        let mut xs = vec![(0.95f64).ln(); 20];
        xs[7] = FAILURE;
        let test = read(&xs);
        assert!(test.better.llr() >= SignTest::bounds(&SPRT).0);
        assert_eq!(test.decide(&SPRT, 20, -0.01), None);
        // No failure, but a mean short of μ1: withheld too.
        xs[7] = 0.2;
        let test = read(&xs);
        assert_eq!(test.decide(&SPRT, 20, -0.005), None);
        assert_eq!(test.decide(&SPRT, 20, -0.04), Some(Verdict::Accepted));
        // B crashed on every pair: rejected; A crashed on one: withheld.
        let test = read(&[FAILURE; 15]);
        assert_eq!(test.decide(&SPRT, 15, FAILURE), Some(Verdict::Rejected));
        assert_eq!(test.decide(&SPRT, 14, FAILURE), None);
        let mut xs = vec![FAILURE; 16];
        xs[0] = -FAILURE;
        assert_eq!(read(&xs).decide(&SPRT, 16, 0.6), None);
    }
}
