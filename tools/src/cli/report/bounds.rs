//! A seed's certified lower bound beside its score: the gap between them, and bounds that
//! cannot be lower bounds.
//!
//! A bound comes from a file (the bounds file, or the `bound` a `results.json` kept); a bound
//! above a judged score is impossible, whatever the file says: it is named in a warning,
//! marked `!` in the table and left out of every mean gap.

use super::{SeedResult, Status};
use crate::cli::bests::Bests;

/// Whether `bound` can be a lower bound of an answer scoring `score`: not above it, but for the
/// rounding of a printed bound (a relative 1e-9).
///
/// # Examples
///
/// ```
/// use tools::cli::report::bound_fits;
///
/// assert!(bound_fits(16.7067, 16.70674));
/// assert!(!bound_fits(100.0, 16.70674));
/// ```
pub fn bound_fits(bound: f64, score: f64) -> bool {
    bound <= score + 1e-9 * score.abs().max(1.0)
}

/// A number as people read it: plain while that is short (`16.7067`, `128`), else in
/// exponent form (`1e308`, not 309 digits).
///
/// # Examples
///
/// ```
/// use tools::cli::report::readable;
///
/// assert_eq!(readable(16.7067), "16.7067");
/// assert_eq!(readable(1e308), "1e308");
/// ```
pub fn readable(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 20 {
        plain
    } else {
        format!("{x:e}")
    }
}

impl SeedResult {
    /// The share of the score its lower bound does not certify, `(score − bound) / score`:
    /// 0 for a proven optimum, `None` for a failed run, a seed without a bound, or one whose
    /// bound is above its score (impossible, see [`SeedResult::bound_impossible`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::report::SeedResult;
    /// use tools::gen::{generate, Ranges};
    ///
    /// let input = generate(1, &Ranges::default()).input;
    /// let mut r = SeedResult::judged(1, &input, None, "0\n");
    /// assert_eq!(r.gap(), None);
    /// r.bound = Some(r.score * 0.75);
    /// assert!((r.gap().unwrap() - 0.25).abs() < 1e-12);
    /// r.bound = Some(r.score * 2.0);
    /// assert_eq!(r.gap(), None);
    /// ```
    pub fn gap(&self) -> Option<f64> {
        let bound = self.bound?;
        (self.status == Status::Ok && bound_fits(bound, self.score)).then(|| {
            if self.score > 0.0 {
                (self.score - bound) / self.score
            } else {
                0.0
            }
        })
    }

    /// Whether this ok result scores below its bound: the bound cannot be a lower bound.
    pub fn bound_impossible(&self) -> bool {
        self.status == Status::Ok && self.bound.is_some_and(|b| !bound_fits(b, self.score))
    }

    /// The `gap%` cell of the table: the gap in %, `-` without one, `!` for an impossible
    /// bound.
    pub(super) fn gap_cell(&self) -> String {
        match self.gap() {
            Some(gap) => format!("{:.2}", 100.0 * gap),
            None if self.bound_impossible() => "!".to_string(),
            None => "-".to_string(),
        }
    }
}

/// Sets each result's [`SeedResult::bound`] from the bounds file `bounds` (a seed the file
/// does not list keeps the bound it had, e.g. read from `results.json`), and checks every
/// result's bound against its score: returns a warning for each impossible one.
#[must_use = "the warnings name impossible bounds"]
pub fn set_bounds<'a>(
    results: impl IntoIterator<Item = &'a mut SeedResult>,
    bounds: Option<&Bests>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for r in results {
        if let Some(b) = bounds.and_then(|bounds| bounds.score(r.seed)) {
            r.bound = Some(b);
        }
        if r.bound_impossible() {
            warnings.push(format!(
                "seed {}: the bound {} is above the judged score {}: impossible for a lower \
                 bound, left out of the gaps (is the bounds file wrong?)",
                r.seed,
                readable(r.bound.unwrap_or_default()),
                readable(r.score)
            ));
        }
    }
    warnings
}

/// `; K impossible bound(s) left out` for the summary, or nothing.
pub(super) fn left_out(results: &[SeedResult]) -> String {
    match results.iter().filter(|r| r.bound_impossible()).count() {
        0 => String::new(),
        1 => "; 1 impossible bound left out".to_string(),
        k => format!("; {k} impossible bounds left out"),
    }
}
