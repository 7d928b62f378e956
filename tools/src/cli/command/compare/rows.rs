//! One seed across the compared runs ([`Row`]) and one run paired with the baseline over the
//! seeds ([`Pair`]): the figures `tester compare` prints and draws.

use crate::cli::command::ab::sprt::Stats;
use crate::cli::report::{SeedResult, Status};
use crate::cli::stats::{wilcoxon, wilcoxon_shift, Shift, SignedRank};

/// Labels of the runs, in order.
pub const LABELS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Two scores this close are a tie (the judge is deterministic, so equal outputs are equal).
const TIE: f64 = 1e-9;

/// One seed across the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The seed.
    pub seed: u64,
    /// Board side.
    pub n: usize,
    /// Colours.
    pub c: usize,
    /// The result of each run (`None`: the run has no result for the seed).
    pub results: Vec<Option<SeedResult>>,
    /// The best ok score among the runs.
    pub best_runs: Option<f64>,
    /// The bests file's score of the seed.
    pub best_file: Option<f64>,
}

impl Row {
    /// Run `i`'s score if its status is ok.
    pub fn ok(&self, i: usize) -> Option<f64> {
        self.results[i]
            .as_ref()
            .filter(|r| r.status == Status::Ok)
            .map(|r| r.score)
    }

    /// Whether every run has a result for the seed.
    pub fn in_all(&self) -> bool {
        self.results.iter().all(Option::is_some)
    }

    /// Whether run `i` has the best score of the runs on this seed (ties: all of them).
    pub fn is_best(&self, i: usize) -> bool {
        matches!((self.ok(i), self.best_runs), (Some(s), Some(b)) if s - b <= TIE)
    }

    /// Whether run `i` beats the bests file on this seed (strictly lower).
    pub fn beats_file(&self, i: usize) -> bool {
        matches!((self.ok(i), self.best_file), (Some(s), Some(b)) if s < b - TIE)
    }

    /// The contest's relative score of run `i`: `100 · best / score`, the best over the runs
    /// (and over the bests file too with `with_file`); 0 for a failed run, 100 for a score of
    /// 0, `None` when the run has no result.
    pub fn relative(&self, i: usize, with_file: bool) -> Option<f64> {
        let result = self.results[i].as_ref()?;
        if result.status != Status::Ok {
            return Some(0.0);
        }
        let file = if with_file { self.best_file } else { None };
        let best = [self.best_runs, file]
            .into_iter()
            .flatten()
            .fold(result.score, f64::min);
        Some(if result.score <= 0.0 {
            100.0
        } else {
            100.0 * best / result.score
        })
    }

    /// How badly run `b` did on this seed against `A` (larger is worse): the ratio `b/A`;
    /// `b` failing where `A` did not counts worst, a seed one of them lacks (or both failed)
    /// least.
    pub fn loss(&self, b: usize) -> f64 {
        match (self.ok(0), self.ok(b)) {
            (Some(a), Some(x)) => Row::ratio(a, x).unwrap_or(f64::MAX),
            (Some(_), None) if self.results[b].is_some() => f64::INFINITY,
            _ => f64::NEG_INFINITY,
        }
    }

    /// The largest [`Row::loss`] of any run against `A`, over runs `1..runs`.
    pub fn worst_loss(&self, runs: usize) -> f64 {
        (1..runs)
            .map(|b| self.loss(b))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// `ratio = b / a` of two ok scores, 1 for 0/0, `None` for x/0.
    pub fn ratio(a: f64, b: f64) -> Option<f64> {
        if a > 0.0 {
            Some(b / a)
        } else {
            (b <= 0.0).then_some(1.0)
        }
    }
}

/// Run `b` against the baseline run `a` over some seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// Index of the baseline run.
    pub a: usize,
    /// Index of the other run.
    pub b: usize,
    /// Seeds ok in both runs.
    pub paired: usize,
    /// Seeds where `b` scored lower (better) than `a`.
    pub wins: usize,
    /// Seeds where `b` scored higher (worse).
    pub losses: usize,
    /// Seeds where both scored the same.
    pub ties: usize,
    /// The ratio of the scores `b/a`: the geometric mean of `score_b / score_a` over the
    /// paired seeds with both scores above 0 (or equal), as `tester ab` reports it.
    pub ratio: Option<f64>,
    /// The 95 % interval of `ratio` (Student's t on the mean of `ln(score_b / score_a)`).
    pub ratio_interval: Option<(f64, f64)>,
    /// The two-sided p-value of Student's t-test of that mean against 0: the test the
    /// interval goes with (it leaves out 1 exactly when p < 0.05).
    pub ratio_p: Option<f64>,
    /// The Wilcoxon signed-rank test of `ln(score_b / score_a)`.
    pub test: SignedRank,
    /// The shift of `ln(score_b / score_a)` that test reads as the centre, with the shifts it
    /// does not reject (its 95 % interval, on the log scale).
    pub shift: Option<Shift>,
    /// Seeds left out of the paired figures, with the reason (`A timeout`, `missing in B`,
    /// `A scored 0`).
    pub excluded: Vec<(u64, String)>,
}

impl Pair {
    /// Pairs run `b` with run `a` over `rows`.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>, a: usize, b: usize) -> Pair {
        let (mut wins, mut losses, mut ties) = (0, 0, 0);
        let (mut diffs, mut logs, mut excluded) = (Vec::new(), Stats::default(), Vec::new());
        for row in rows {
            let (sa, sb) = match (row.ok(a), row.ok(b)) {
                (Some(sa), Some(sb)) => (sa, sb),
                _ => {
                    excluded.push((row.seed, exclusion(row, &[a, b])));
                    continue;
                }
            };
            if (sa - sb).abs() <= TIE {
                ties += 1;
                diffs.push(0.0);
            } else {
                if sb < sa {
                    wins += 1;
                } else {
                    losses += 1;
                }
                // ln of the quotient, not a difference of logs: equal ratios (90/100 and
                // 180/200) must stay equal to rank as ties.
                diffs.push((sb / sa).ln());
            }
            match Row::ratio(sa, sb).filter(|&r| r > 0.0) {
                Some(r) => logs.push(if (sa - sb).abs() <= TIE { 0.0 } else { r.ln() }),
                None => excluded.push((
                    row.seed,
                    format!(
                        "{} scored 0 (left out of the ratio only)",
                        label(if sa > 0.0 { b } else { a })
                    ),
                )),
            }
        }
        let interval = logs.interval95();
        Pair {
            a,
            b,
            paired: diffs.len(),
            wins,
            losses,
            ties,
            ratio: (logs.n > 0).then(|| logs.mean.exp()),
            ratio_interval: interval.map(|(lo, hi)| (lo.exp(), hi.exp())),
            ratio_p: logs.t_test_p(),
            test: wilcoxon(&diffs),
            shift: wilcoxon_shift(&diffs),
            excluded,
        }
    }

    /// Whether `b` is significantly better (`Some(true)`) or worse (`Some(false)`) than `a` at
    /// the 5 % level; `None` when the test finds no significant difference.
    pub fn verdict(&self) -> Option<bool> {
        (self.test.p < 0.05).then_some(self.test.w_minus > self.test.w_plus)
    }
}

/// Why a seed is not paired: the first of `runs` that is missing it or failed on it.
fn exclusion(row: &Row, runs: &[usize]) -> String {
    for &i in runs {
        match &row.results[i] {
            None => return format!("missing in {}", label(i)),
            Some(r) if r.status != Status::Ok => {
                return format!("{} {}", label(i), r.status.as_str())
            }
            Some(_) => {}
        }
    }
    String::new()
}

/// The label of run `i` (`A`, `B`, …).
pub fn label(i: usize) -> char {
    LABELS.as_bytes()[i] as char
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(seed: u64, status: Status, score: f64) -> SeedResult {
        SeedResult {
            seed,
            n: 8,
            c: 1,
            p: None,
            status,
            score,
            errors: 0,
            moves: 0,
            penalty: 0.0,
            wall_ms: None,
            cpu_ms: None,
            wait_ms: None,
            message: None,
            data: Default::default(),
            bound: None,
        }
    }

    fn row(seed: u64, results: Vec<Option<SeedResult>>, best_file: Option<f64>) -> Row {
        let mut row = Row {
            seed,
            n: 8,
            c: 1,
            results,
            best_runs: None,
            best_file,
        };
        row.best_runs = (0..row.results.len())
            .filter_map(|i| row.ok(i))
            .reduce(f64::min);
        row
    }

    #[test]
    fn zero_scores_and_failures() {
        assert_eq!(Row::ratio(0.0, 0.0), Some(1.0));
        assert_eq!(Row::ratio(0.0, 5.0), None);
        assert_eq!(Row::ratio(4.0, 2.0), Some(0.5));
        let zero = row(
            1,
            vec![
                Some(result(1, Status::Ok, 0.0)),
                Some(result(1, Status::Ok, 3.0)),
            ],
            Some(1.0),
        );
        // A score of 0 is 100 (nothing can beat it); 3 against the best 0 is 0 %.
        assert_eq!(zero.relative(0, true), Some(100.0));
        assert_eq!(zero.relative(1, false), Some(0.0));
        let failed = row(
            2,
            vec![
                Some(result(2, Status::Crash, -1.0)),
                Some(result(2, Status::Ok, 4.0)),
            ],
            Some(2.0),
        );
        assert_eq!(failed.relative(0, false), Some(0.0));
        assert_eq!(failed.relative(1, false), Some(100.0));
        assert_eq!(failed.relative(1, true), Some(50.0));
        assert!(failed.is_best(1) && !failed.is_best(0) && !failed.beats_file(1));
        let missing = row(3, vec![Some(result(3, Status::Ok, 4.0)), None], None);
        assert_eq!(missing.relative(1, false), None);
        assert!(!missing.in_all());
        let pair = Pair::of([&zero, &failed, &missing], 0, 1);
        // Seed 1 is paired (a loss, ln(3/0) = +inf) but has no ratio.
        assert_eq!(
            (pair.paired, pair.wins, pair.losses, pair.ties),
            (1, 0, 1, 0)
        );
        assert_eq!(pair.ratio, None);
        let why: Vec<&str> = pair.excluded.iter().map(|(_, w)| w.as_str()).collect();
        assert_eq!(
            why,
            [
                "A scored 0 (left out of the ratio only)",
                "A crash",
                "missing in B"
            ]
        );
    }
}
