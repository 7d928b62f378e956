//! Paired statistics for `tester compare`: the Wilcoxon signed-rank test and a bootstrap
//! interval of a mean.
//!
//! Both answer the question a contestant asks after a change: is the difference between two
//! runs on the same seeds real, or noise?

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::function::erf::erfc;

/// The result of a Wilcoxon signed-rank test on paired differences.
#[derive(Clone, Debug, PartialEq)]
pub struct SignedRank {
    /// Differences that are not zero (the pairs the test ranks).
    pub n: usize,
    /// Differences that are zero (ties of the pair: dropped, Wilcoxon's method).
    pub zeros: usize,
    /// Sum of the ranks of the positive differences.
    pub w_plus: f64,
    /// Sum of the ranks of the negative differences.
    pub w_minus: f64,
    /// The normal approximation's z (with the continuity correction); 0 when `n` is 0.
    pub z: f64,
    /// Two-sided p-value of the normal approximation; 1 when `n` is 0.
    pub p: f64,
}

/// The Wilcoxon signed-rank test of "the differences are symmetric about 0", two-sided.
///
/// Zero differences are dropped (Wilcoxon's zero method); equal absolute differences share the
/// mean of their ranks, and the variance is reduced for them:
/// `var = n(n+1)(2n+1)/24 − Σ(t³ − t)/48` over the groups of `t` tied values. The p-value is the
/// normal approximation with a continuity correction of ½ towards the mean (as R's
/// `wilcox.test(exact = FALSE, correct = TRUE)`); it is rough below about 10 pairs.
/// Infinite differences rank above every finite one; NaN differences (from scores that are not
/// numbers) are left out like zeros and counted in `zeros`, so no input can make it panic.
///
/// # Examples
///
/// ```
/// use tools::cli::stats::wilcoxon;
///
/// // Ranks of |d|: 1 (0.1), 2 (-0.2), 3 (0.3); W+ = 1 + 3 = 4, W- = 2.
/// let t = wilcoxon(&[0.1, -0.2, 0.3, 0.0]);
/// assert_eq!((t.n, t.zeros, t.w_plus, t.w_minus), (3, 1, 4.0, 2.0));
/// assert!(t.p > 0.5);
/// ```
///
/// # Complexity
///
/// `O(n log n)`.
pub fn wilcoxon(diffs: &[f64]) -> SignedRank {
    let mut nonzero: Vec<f64> = diffs
        .iter()
        .copied()
        .filter(|&d| d != 0.0 && !d.is_nan())
        .collect();
    let zeros = diffs.len() - nonzero.len();
    let n = nonzero.len();
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let (mut w_plus, mut w_minus, mut tie_term) = (0.0, 0.0, 0.0);
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        // Positions i..=j hold equal |d|: each gets the mean rank of (i+1)..=(j+1).
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &d in &nonzero[i..=j] {
            if d > 0.0 {
                w_plus += rank;
            } else {
                w_minus += rank;
            }
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    let (z, p) = if var > 0.0 {
        let d = w_plus - mean;
        let corrected = d - 0.5 * d.signum();
        // A |d| below ½ rounds to no evidence at all.
        let z = if d.abs() <= 0.5 {
            0.0
        } else {
            corrected / var.sqrt()
        };
        (z, erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0))
    } else {
        (0.0, 1.0)
    };
    SignedRank {
        n,
        zeros,
        w_plus,
        w_minus,
        z,
        p,
    }
}

/// Resamples drawn by [`bootstrap_mean`] in `tester compare`.
pub const RESAMPLES: usize = 10_000;

/// A percentile bootstrap interval of the mean of `values`: the `(1 − level)/2` and
/// `(1 + level)/2` quantiles of the means of `resamples` resamples drawn with replacement.
/// Deterministic for a given `seed`. `None` for no values.
///
/// # Examples
///
/// ```
/// use tools::cli::stats::bootstrap_mean;
///
/// let (lo, hi) = bootstrap_mean(&[0.9, 0.95, 1.0, 0.92, 0.97], 0.95, 2000, 1).unwrap();
/// assert!(0.9 <= lo && lo < hi && hi <= 1.0);
/// assert_eq!(bootstrap_mean(&[2.0], 0.95, 100, 1), Some((2.0, 2.0)));
/// ```
///
/// # Complexity
///
/// `O(resamples · n)`.
pub fn bootstrap_mean(
    values: &[f64],
    level: f64,
    resamples: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    if values.is_empty() || resamples == 0 {
        return None;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = values.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * resamples as f64).floor() as usize).min(resamples - 1)];
    Some((at((1.0 - level) / 2.0), at((1.0 + level) / 2.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_rank_by_hand() {
        // |d| sorted: 1, 2, 2, 4 (−), 5; ranks 1, 2.5, 2.5, 4, 5. W+ = 1 + 2.5 + 2.5 + 5 = 11,
        // W− = 4. n = 5, mean 7.5, var = 5·6·11/24 − (8 − 2)/48 = 13.75 − 0.125 = 13.625.
        // z = (11 − 7.5 − 0.5)/√13.625 = 0.81274; p = erfc(z/√2) = 0.41636.
        let t = wilcoxon(&[1.0, 2.0, -4.0, 2.0, 5.0, 0.0]);
        assert_eq!((t.n, t.zeros), (5, 1));
        assert_eq!((t.w_plus, t.w_minus), (11.0, 4.0));
        assert!((t.z - 0.812_743).abs() < 1e-5, "{t:?}");
        assert!((t.p - 0.416_36).abs() < 1e-4, "{t:?}");
        // Symmetric in sign.
        let m = wilcoxon(&[-1.0, -2.0, 4.0, -2.0, -5.0]);
        assert!((m.z + t.z).abs() < 1e-12 && (m.p - t.p).abs() < 1e-12);
    }

    #[test]
    fn signed_rank_edges() {
        let none = wilcoxon(&[0.0, 0.0]);
        assert_eq!((none.n, none.zeros, none.p), (0, 2, 1.0));
        assert_eq!(wilcoxon(&[]).p, 1.0);
        // All tied in |d|: var = 2·3·5/24 − (8−2)/48 = 1.125, one +, one −: no evidence.
        let tied = wilcoxon(&[1.0, -1.0]);
        assert_eq!((tied.w_plus, tied.w_minus, tied.p), (1.5, 1.5, 1.0));
        // NaN differences are dropped like zeros; infinite ones rank last.
        let odd = wilcoxon(&[f64::NAN, 1.0, -2.0]);
        assert_eq!(
            (odd.n, odd.zeros, odd.w_plus, odd.w_minus),
            (2, 1, 1.0, 2.0)
        );
        // Infinite differences rank last.
        let inf = wilcoxon(&[f64::INFINITY, -1.0, 0.5]);
        assert_eq!((inf.w_plus, inf.w_minus), (4.0, 2.0));
        // 20 pairs all one way: z = (210 − 105 − 0.5)/√717.5 = 3.9012, p ≈ 9.57e-5.
        let all: Vec<f64> = (1..=20).map(f64::from).collect();
        let t = wilcoxon(&all);
        assert!(
            (t.z - 3.901_2).abs() < 1e-3 && (t.p - 9.57e-5).abs() < 1e-6,
            "{t:?}"
        );
    }

    #[test]
    fn bootstrap_is_deterministic_and_covers_the_mean() {
        let values: Vec<f64> = (0..50).map(|i| 1.0 + f64::from(i % 7) / 10.0).collect();
        let mean = values.iter().sum::<f64>() / 50.0;
        let a = bootstrap_mean(&values, 0.95, 5000, 7).unwrap();
        assert_eq!(a, bootstrap_mean(&values, 0.95, 5000, 7).unwrap());
        assert!(a.0 < mean && mean < a.1, "{a:?} {mean}");
        assert_eq!(bootstrap_mean(&[], 0.95, 10, 1), None);
    }
}
