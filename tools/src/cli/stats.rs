//! Paired statistics for `tester compare`: the Wilcoxon signed-rank test and the interval of
//! the shifts it does not reject (its Hodges–Lehmann-like estimate with a 95 % interval).
//!
//! Both answer the question a contestant asks after a change: is the difference between two
//! runs on the same seeds real, or noise?

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

/// The shift of paired differences the signed-rank test reads as their centre, with the
/// shifts it does not reject at the 5 % level: the same test (on `d − θ`) read backwards, so
/// its interval leaves out 0 exactly when the test on `d` itself is significant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shift {
    /// Where the test's `z` changes sign: the centre of the differences (a Hodges–Lehmann
    /// estimate, with the test's handling of ties and zeros).
    pub estimate: f64,
    /// The lowest shift not rejected, `None` when none below the differences is rejected (too
    /// few of them).
    pub low: Option<f64>,
    /// The highest shift not rejected, likewise.
    pub high: Option<f64>,
}

/// `wilcoxon(d − θ)`.
fn shifted(diffs: &[f64], theta: f64) -> SignedRank {
    let moved: Vec<f64> = diffs.iter().map(|d| d - theta).collect();
    wilcoxon(&moved)
}

/// Bisects between `out` (a shift the test rejects) and `inside` (one it does not) to where
/// the test stops rejecting; returns the last point found not rejected.
fn boundary(diffs: &[f64], mut out: f64, mut inside: f64) -> f64 {
    for _ in 0..100 {
        let mid = 0.5 * (out + inside);
        if mid == out || mid == inside {
            break;
        }
        if shifted(diffs, mid).p < 0.05 {
            out = mid;
        } else {
            inside = mid;
        }
    }
    inside
}

/// The [`Shift`] of `diffs` for the test of [`wilcoxon`], or `None` when no difference is a
/// finite number other than 0 (nothing to locate) or the centre itself is rejected (a test
/// too rough to read backwards).
///
/// # Examples
///
/// ```
/// use tools::cli::stats::{wilcoxon, wilcoxon_shift};
///
/// let d: Vec<f64> = (1..=20).map(|i| 0.1 + 0.01 * f64::from(i % 7) - 0.03).collect();
/// let shift = wilcoxon_shift(&d).unwrap();
/// assert!(wilcoxon(&d).p < 0.05 && shift.low.unwrap() > 0.0);
/// assert!(shift.low.unwrap() < shift.estimate && shift.estimate < shift.high.unwrap());
/// ```
pub fn wilcoxon_shift(diffs: &[f64]) -> Option<Shift> {
    let finite: Vec<f64> = diffs.iter().copied().filter(|d| d.is_finite()).collect();
    let lowest = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lowest.is_finite() && highest.is_finite()) || (lowest == 0.0 && highest == 0.0) {
        return None;
    }
    let margin = (highest - lowest).max(lowest.abs()).max(highest.abs()) + 1.0;
    let (below, above) = (lowest - margin, highest + margin);
    // z falls as the shift grows: find where it turns negative.
    let (mut left, mut right) = (below, above);
    for _ in 0..100 {
        let mid = 0.5 * (left + right);
        if mid == left || mid == right {
            break;
        }
        if shifted(diffs, mid).z >= 0.0 {
            left = mid;
        } else {
            right = mid;
        }
    }
    let estimate = 0.5 * (left + right);
    if shifted(diffs, estimate).p < 0.05 {
        return None;
    }
    // 0 is bracketed on its own side, so that it lies inside exactly when the test on the
    // differences themselves is not significant.
    let zero_in = wilcoxon(diffs).p >= 0.05;
    let side = |far: f64| {
        let zero_here = (far < estimate && 0.0 < estimate) || (far > estimate && 0.0 > estimate);
        let (out, inside) = match (zero_here, zero_in) {
            (true, false) => (0.0, estimate),
            (true, true) => (far, 0.0),
            (false, _) => (far, estimate),
        };
        (shifted(diffs, out).p < 0.05).then(|| boundary(diffs, out, inside))
    };
    Some(Shift {
        estimate,
        low: side(below),
        high: side(above),
    })
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
    fn the_shift_interval_leaves_out_0_exactly_when_the_test_is_significant() {
        // Streams with ties, zeros and one outlier, shifted from clearly below to clearly above
        // 0: the interval holds 0 exactly when p >= 0.05, at every shift.
        let base = [
            0.0, 0.0, 0.0, 0.01, -0.02, 0.03, 0.03, -0.01, 0.05, 0.02, 0.0, 0.9, -0.04, 0.02, 0.01,
            0.01,
        ];
        for step in -40..=40 {
            let d: Vec<f64> = base.iter().map(|x| x + f64::from(step) * 0.002).collect();
            let p = wilcoxon(&d).p;
            let s = wilcoxon_shift(&d).unwrap();
            let holds = s.low.is_none_or(|l| l <= 0.0) && s.high.is_none_or(|h| h >= 0.0);
            assert_eq!(holds, p >= 0.05, "step {step}: p {p}, {s:?}");
            assert!(
                s.low.is_none_or(|l| l <= s.estimate) && s.high.is_none_or(|h| h >= s.estimate)
            );
        }
        // Three differences: no shift is rejected below or above (the test cannot reach 5 %).
        let s = wilcoxon_shift(&[0.1, 0.2, 0.3]).unwrap();
        assert_eq!((s.low, s.high), (None, None));
        assert!((s.estimate - 0.2).abs() < 1e-9, "{s:?}");
        assert_eq!(wilcoxon_shift(&[0.0, 0.0]), None);
        assert_eq!(wilcoxon_shift(&[f64::INFINITY]), None);
    }
}
