//! Axis ticks of the `tester compare --html` plots: round values (1, 2, 2.5 or 5 times a power
//! of ten on a linear axis; 1, 2, 5 or each digit times a power of ten on a log axis), several
//! per axis, each label with just the digits its step needs. plotters' own choice gave one
//! label ("100") on a log axis spanning 30 to 300, "1 1 1 1 1" on a whole-number axis
//! spanning 0.95 to 1.05, and rounding noise such as −1.29e-26 beside ±1e-10.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// An axis `inner` (linear or log) that puts its ticks at `points` (from [`ticks`]) instead
/// of plotters' own.
pub struct Ticked<R> {
    /// The axis that maps values to pixels.
    pub inner: R,
    /// Where the ticks and grid lines go.
    pub points: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.points.clone()
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

/// Labels wanted on an axis at least (a log axis over less than a decade takes every digit).
const MIN_TICKS: usize = 4;
/// Labels on an axis at most (a log axis over many decades keeps every k-th power of ten).
const MAX_TICKS: usize = 12;

/// The ticks of an axis from `lo` to `hi` and the decimals their labels need (`None`: each
/// label its own, as on a log axis). `whole`: the values are whole numbers, so are the ticks
/// (steps of 1, 2, 5, 10, …).
pub fn ticks(lo: f64, hi: f64, log: bool, whole: bool) -> (Vec<f64>, Option<usize>) {
    if log && lo > 0.0 {
        let points = log_ticks(lo, hi);
        if !points.is_empty() {
            return (points, None);
        }
    }
    let points = linear_ticks(lo, hi, whole);
    if points.is_empty() {
        return (vec![lo, hi], None);
    }
    let decimals = points.iter().map(|&v| decimals_of(v)).max().unwrap_or(0);
    (points, Some(decimals))
}

/// Decimals that show `v` (a round tick value) exactly, at most 6.
fn decimals_of(v: f64) -> usize {
    (0..=6)
        .find(|&d| {
            let scale = 10f64.powi(d as i32);
            ((v * scale).round() - v * scale).abs() <= 1e-9 * (v * scale).abs()
        })
        .unwrap_or(6)
}

/// Round values from `lo` to `hi`, about six of them.
fn linear_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
    let raw = (hi - lo) / 6.0;
    if !(raw.is_finite() && raw > 0.0) {
        return Vec::new();
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let factors: &[f64] = if whole {
        &[1.0, 2.0, 5.0, 10.0]
    } else {
        &[1.0, 2.0, 2.5, 5.0, 10.0]
    };
    let mut step = factors
        .iter()
        .map(|f| f * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude);
    if whole {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil();
    let mut out = Vec::new();
    for i in 0..=MAX_TICKS * 2 {
        let v = (first + i as f64) * step;
        if v > hi || !v.is_finite() {
            break;
        }
        // A tick at rounding noise from 0 is 0, not −1.29e-26.
        out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
    }
    out
}

/// Round values from `lo` to `hi` on a log axis: 1, 2 and 5 times the powers of ten, every
/// digit when that gives too few, only (every k-th) power of ten when too many.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |digits: &[f64], every: i32| -> Vec<f64> {
        (first..=last)
            .filter(|e| e.rem_euclid(every) == 0)
            .flat_map(|e| digits.iter().map(move |d| d * 10f64.powi(e)))
            .filter(|&v| v >= lo && v <= hi)
            .collect()
    };
    let mut points = within(&[1.0, 2.0, 5.0], 1);
    if points.len() < MIN_TICKS {
        points = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 1);
    }
    let mut every = 1;
    while points.len() > MAX_TICKS {
        points = within(&[1.0], every);
        every += 1;
    }
    points
}

/// The label of tick `v` with `decimals` decimals; scientific beyond what fits (a label of
/// 1e300 is not 301 characters wide, one of 1e-7 not 0.0000001).
pub fn tick_label(v: f64, decimals: Option<usize>) -> String {
    let decimals = decimals.unwrap_or_else(|| decimals_of(v));
    if v != 0.0 && !(1e-3..1e7).contains(&v.abs()) {
        let text = format!("{v:.1e}");
        text.replace(".0e", "e")
    } else if v == 0.0 && decimals > 3 {
        "0".into()
    } else {
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lo: f64, hi: f64, log: bool, whole: bool) -> Vec<String> {
        let (points, decimals) = ticks(lo, hi, log, whole);
        points.iter().map(|&v| tick_label(v, decimals)).collect()
    }

    #[test]
    fn a_log_axis_over_one_decade_has_several_labels() {
        assert_eq!(
            labels(30.0, 300.0, true, false),
            ["30", "40", "50", "60", "70", "80", "90", "100", "200", "300"]
        );
        assert_eq!(
            labels(20.0, 600.0, true, false),
            ["20", "50", "100", "200", "500"]
        );
        let wide = labels(1e-6, 1e12, true, false);
        assert!(
            wide.len() >= MIN_TICKS && wide.len() <= MAX_TICKS,
            "{wide:?}"
        );
    }

    #[test]
    fn linear_labels_are_distinct_and_free_of_rounding_noise() {
        assert_eq!(
            labels(0.95, 1.05, false, false),
            ["0.96", "0.98", "1.00", "1.02", "1.04"]
        );
        // Whole numbers over a narrow span: one label, not five "1".
        assert_eq!(labels(0.95, 1.05, false, true), ["1"]);
        assert_eq!(
            labels(-1.0, 1.0, false, false),
            ["-1.0", "-0.5", "0.0", "0.5", "1.0"]
        );
        assert_eq!(
            labels(8.0, 30.0, false, true),
            ["10", "15", "20", "25", "30"]
        );
        assert_eq!(
            labels(-1e-10, 1e-10, false, false),
            ["-1e-10", "-5e-11", "0", "5e-11", "1e-10"]
        );
        for lo in [-1e-10, -3.3e-7, -0.1] {
            let l = labels(lo, -lo, false, false);
            let distinct: std::collections::HashSet<&String> = l.iter().collect();
            assert_eq!(distinct.len(), l.len(), "{l:?}");
            assert!(l.iter().all(|s| !s.contains("e-2")), "{l:?}");
        }
    }
}
