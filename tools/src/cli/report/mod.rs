//! Per-seed results of a batch run, their JSON form, the results table and the summary.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::bests::Bests;
use super::quote::printable;
use crate::input::Input;
use crate::judge::judge;

mod bounds;
mod checks;
pub use bounds::{bound_fits, readable, set_bounds};
pub use checks::{MAX_THREADS, MAX_WALL_MS};

/// The `[DATA]` values of one seed, by key: numbers as JSON numbers, anything else a string
/// (read by `read_data` of `features.rs`). Defined here, beside the result that holds it, so
/// that this module needs nothing from `features`.
pub type Data = BTreeMap<String, Value>;

/// How a seed's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// A valid output, scored.
    Ok,
    /// The output broke a rule; the judge's message says which.
    Invalid,
    /// The solver ran past the time limit and was killed.
    Timeout,
    /// The solver exited with a non-zero code or died by a signal (its output is not scored).
    Crash,
    /// The solver wrote more than the output cap (see [`super::readcap::output_cap`]) and was
    /// stopped; its output is not scored.
    TooLong,
}

impl Status {
    /// The status as written in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Invalid => "invalid",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
            Status::TooLong => "too-long",
        }
    }

    /// Reads [`Status::as_str`] back.
    pub fn parse(text: &str) -> Option<Status> {
        [
            Status::Ok,
            Status::Invalid,
            Status::Timeout,
            Status::Crash,
            Status::TooLong,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// The result of one seed.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedResult {
    /// The seed.
    pub seed: u64,
    /// Board side.
    pub n: usize,
    /// Colours.
    pub c: usize,
    /// Wall probability, when known (it is not in the input text).
    pub p: Option<f64>,
    /// How the run ended.
    pub status: Status,
    /// Official score, `-1` unless `status` is ok.
    pub score: f64,
    /// Errors on the final board (on an invalid output: when the fatal happened; 0 for a
    /// timeout or crash, which are not judged).
    pub errors: u64,
    /// Moves played.
    pub moves: usize,
    /// Move penalty.
    pub penalty: f64,
    /// Wall time of the solver in milliseconds, when it was run.
    pub wall_ms: Option<u64>,
    /// CPU time (user + system) of the solver's processes in milliseconds, when it was run
    /// (see [`crate::cli::exec::RunOutcome::cpu`]); older files have none.
    pub cpu_ms: Option<u64>,
    /// How long the solver's threads waited for a CPU while ready to run, in milliseconds
    /// (see [`crate::cli::exec::RunOutcome::wait`]): what the machine denied it; older files
    /// and kernels that do not say have none.
    pub wait_ms: Option<u64>,
    /// The judge's message, or what went wrong with the process.
    pub message: Option<String>,
    /// The `[DATA] key = value` lines the solver printed on stderr (read by `features.rs`).
    pub data: Data,
    /// A certified lower bound on the seed's score, from the bounds file (see
    /// [`set_bounds`]); [`SeedResult::gap`] measures the score against it.
    pub bound: Option<f64>,
}

impl SeedResult {
    /// Takes the times `old` recorded (wall, CPU, run-queue wait) when a result is judged
    /// again from its saved output.
    pub fn keep_times(&mut self, old: Option<&SeedResult>) {
        self.wall_ms = old.and_then(|s| s.wall_ms);
        self.cpu_ms = old.and_then(|s| s.cpu_ms);
        self.wait_ms = old.and_then(|s| s.wait_ms);
    }

    /// Judges `output` for a solver that exited normally: status ok or invalid.
    pub fn judged(seed: u64, input: &Input, p: Option<f64>, output: &str) -> SeedResult {
        let verdict = judge(input, output);
        SeedResult {
            seed,
            n: input.n,
            c: input.c,
            p,
            status: if verdict.fatal.is_some() {
                Status::Invalid
            } else {
                Status::Ok
            },
            score: verdict.score,
            errors: verdict.errors,
            moves: verdict.moves,
            penalty: verdict.penalty,
            wall_ms: None,
            cpu_ms: None,
            wait_ms: None,
            message: verdict.error().map(str::to_string),
            data: Default::default(),
            bound: None,
        }
    }

    /// A run that was not judged (timeout or crash): score `-1`.
    pub fn failed(
        seed: u64,
        input: &Input,
        p: Option<f64>,
        status: Status,
        message: String,
    ) -> SeedResult {
        SeedResult {
            seed,
            n: input.n,
            c: input.c,
            p,
            status,
            score: -1.0,
            errors: 0,
            moves: 0,
            penalty: 0.0,
            wall_ms: None,
            cpu_ms: None,
            wait_ms: None,
            message: Some(message),
            data: Default::default(),
            bound: None,
        }
    }

    /// The JSON object of `results.json`.
    pub fn to_json(&self) -> Value {
        json!({
            "seed": self.seed,
            "N": self.n,
            "C": self.c,
            "P": self.p,
            "status": self.status.as_str(),
            "score": self.score,
            "errors": self.errors,
            "moves": self.moves,
            "penalty": self.penalty,
            "wall_ms": self.wall_ms,
            "cpu_ms": self.cpu_ms,
            "wait_ms": self.wait_ms,
            "message": self.message,
            "data": self.data,
            "bound": self.bound,
            "gap": self.gap(),
        })
    }

    /// Reads [`SeedResult::to_json`] back, refusing values `tester` never writes: an ok score
    /// that is negative or not finite, a failed seed's score other than -1, a negative or
    /// infinite penalty, times that are not whole milliseconds in range (see
    /// [`SeedResult::check`]).
    pub fn from_json(v: &Value) -> Result<SeedResult, String> {
        let result = SeedResult::from_json_unchecked(v)?;
        result.check()?;
        Ok(result)
    }

    fn from_json_unchecked(v: &Value) -> Result<SeedResult, String> {
        let num = |key: &str| {
            v.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("result without a numeric `{key}`"))
        };
        let int = |key: &str| {
            v.get(key)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("result without an integer `{key}`"))
        };
        // Absent or null in older files; anything else must be whole milliseconds.
        let ms = |key: &str| match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => x.as_u64().map(Some).ok_or_else(|| {
                format!("result with `{key}` {x}: not a whole number of milliseconds >= 0")
            }),
        };
        let status = v
            .get("status")
            .and_then(Value::as_str)
            .and_then(Status::parse)
            .ok_or("result without a valid `status`")?;
        Ok(SeedResult {
            seed: int("seed")?,
            n: int("N")? as usize,
            c: int("C")? as usize,
            p: v.get("P").and_then(Value::as_f64),
            status,
            score: num("score")?,
            errors: int("errors")?,
            moves: int("moves")? as usize,
            penalty: num("penalty")?,
            wall_ms: ms("wall_ms")?,
            cpu_ms: ms("cpu_ms")?,
            wait_ms: ms("wait_ms")?,
            message: v.get("message").and_then(Value::as_str).map(str::to_string),
            // Older files have no `data`.
            data: v
                .get("data")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            // Older files have no `bound`.
            bound: v.get("bound").and_then(Value::as_f64),
        })
    }

    /// The best score [`SeedResult::relative`] divides by: the lower of the file's best and
    /// this result's score (when ok), and whether this result is the lower one (it beat the
    /// file by more than a rounding, see [`crate::cli::bests::lower`], or the file has no score
    /// for the seed). `None` without a bests file, or when
    /// neither the file nor an ok result gives a score.
    pub fn best_used(&self, bests: Option<&Bests>) -> Option<(f64, bool)> {
        let file = bests?.score(self.seed);
        let own = (self.status == Status::Ok).then_some(self.score);
        match (file, own) {
            // Below the file's by more than a rounding: the same moves summed in another order
            // are no better.
            (Some(f), Some(o)) if crate::cli::bests::lower(o, f) => Some((o, true)),
            (Some(f), _) => Some((f, false)),
            (None, Some(o)) => Some((o, true)),
            (None, None) => None,
        }
    }

    /// `100 · best / score` against the best known score (the better of the file's and this
    /// one, see [`SeedResult::best_used`]), 0 for a failed run, `None` when there is no bests
    /// file.
    pub fn relative(&self, bests: Option<&Bests>) -> Option<f64> {
        bests?;
        if self.status != Status::Ok {
            return Some(0.0);
        }
        let best = self.best_used(bests).map_or(self.score, |(b, _)| b);
        Some(if self.score <= 0.0 {
            100.0
        } else {
            100.0 * best / self.score
        })
    }
}

/// The N bands of the summary.
pub const N_BANDS: [(usize, usize); 4] = [(8, 12), (13, 18), (19, 24), (25, 30)];

/// The N band of a board side, as `8-12`, or `N` itself outside the bands.
pub fn band_label(n: usize) -> String {
    N_BANDS
        .iter()
        .find(|(a, b)| (*a..=*b).contains(&n))
        .map_or_else(|| format!("{n}"), |(a, b)| format!("{a}-{b}"))
}

/// Aggregates of a group of results.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Seeds in the group.
    pub seeds: usize,
    /// Seeds with status ok.
    pub ok: usize,
    /// Mean score over the ok seeds (`None` if none).
    pub mean: Option<f64>,
    /// Mean relative score over all seeds, failed ones counting 0 (`None` without bests).
    pub relative: Option<f64>,
    /// Mean [`SeedResult::gap`] over the ok seeds that have a bound (`None` if none has).
    pub gap: Option<f64>,
}

impl Group {
    /// Aggregates `results`.
    pub fn of<'a>(
        results: impl IntoIterator<Item = &'a SeedResult>,
        bests: Option<&Bests>,
    ) -> Group {
        let (mut seeds, mut ok, mut sum, mut rel) = (0, 0, 0.0, 0.0);
        let (mut gaps, mut gap_sum) = (0, 0.0);
        for r in results {
            seeds += 1;
            if r.status == Status::Ok {
                ok += 1;
                sum += r.score;
            }
            rel += r.relative(bests).unwrap_or(0.0);
            if let Some(gap) = r.gap() {
                gaps += 1;
                gap_sum += gap;
            }
        }
        Group {
            seeds,
            ok,
            mean: (ok > 0).then(|| sum / ok as f64),
            relative: (bests.is_some() && seeds > 0).then(|| rel / seeds as f64),
            gap: (gaps > 0).then(|| gap_sum / gaps as f64),
        }
    }

    fn to_json(&self) -> Value {
        json!({"seeds": self.seeds, "ok": self.ok, "mean": self.mean, "relative": self.relative,
               "gap": self.gap})
    }
}

/// One line of the grouped summary: label, seeds, ok count, mean and relative score, mean gap
/// (in %).
fn group_row(s: &mut String, label: &str, g: &Group) {
    let _ = writeln!(
        s,
        "{:>8} {:>6} {:>4} {:>12} {:>9} {:>6}",
        label,
        g.seeds,
        g.ok,
        opt(g.mean, 3),
        opt(g.relative, 3),
        opt(g.gap.map(|g| 100.0 * g), 2)
    );
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The most characters of a failed seed's message the table shows.
const MESSAGE_MAX: usize = 1000;

/// The per-seed table (one line per seed), then the messages of failed seeds.
pub fn table(results: &[SeedResult], bests: Option<&Bests>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>6} {:>3} {:>2} {:>6} {:>8} {:>12} {:>6} {:>6} {:>10} {:>7} {:>7} {:>12} {:>7} {:>6}",
        "seed",
        "N",
        "C",
        "P",
        "status",
        "score",
        "errors",
        "moves",
        "penalty",
        "ms",
        "cpu ms",
        "best ",
        "rel",
        "gap%"
    );
    for r in results {
        // The best the relative score used, marked `*` when it is this run's own score.
        let best = r.best_used(bests).map_or_else(
            || "-".to_string(),
            |(b, own)| format!("{b:.3}{}", if own { "*" } else { " " }),
        );
        let _ = writeln!(
            s,
            "{:>6} {:>3} {:>2} {:>6} {:>8} {:>12.3} {:>6} {:>6} {:>10.3} {:>7} {:>7} {:>12} {:>7} {:>6}",
            r.seed,
            r.n,
            r.c,
            opt(r.p, 3),
            r.status.as_str(),
            r.score,
            r.errors,
            r.moves,
            r.penalty,
            r.wall_ms
                .map_or_else(|| "-".to_string(), |ms| ms.to_string()),
            r.cpu_ms
                .map_or_else(|| "-".to_string(), |ms| ms.to_string()),
            best,
            opt(r.relative(bests), 2),
            r.gap_cell(),
        );
    }
    if results.iter().any(|r| r.bound.is_some()) {
        let _ = writeln!(
            s,
            "gap% = 100 * (score - bound) / score against the bounds file's certified lower bound \
             (0: proven optimal; - : no bound or a failed run; ! : a bound above the score, \
             impossible, left out of every mean gap)"
        );
    }
    if bests.is_some() {
        let _ = writeln!(
            s,
            "best: the bests file's score, or this run's (marked *) where it is lower or the \
             file has none; rel = 100 * best / score"
        );
    }
    for r in results.iter().filter(|r| r.status != Status::Ok) {
        let _ = writeln!(
            s,
            "seed {} {}: {}",
            r.seed,
            r.status.as_str(),
            // Read back from results.json too: a file's text, escaped like any other.
            printable(r.message.as_deref().unwrap_or(""), MESSAGE_MAX)
        );
    }
    s
}

/// The summary: counts by status, mean score, relative score, and both grouped by C and by N
/// band.
pub fn summary(results: &[SeedResult], bests: Option<&Bests>) -> String {
    let mut s = String::new();
    let count = |st: Status| results.iter().filter(|r| r.status == st).count();
    let _ = writeln!(
        s,
        "seeds {}  ok {}  invalid {}  timeout {}  crash {}  too-long {}",
        results.len(),
        count(Status::Ok),
        count(Status::Invalid),
        count(Status::Timeout),
        count(Status::Crash),
        count(Status::TooLong)
    );
    let all = Group::of(results, bests);
    let _ = writeln!(s, "mean score (ok seeds): {}", opt(all.mean, 3));
    // fold from +0.0: an empty f64 `sum()` is -0.0, which would print as "-0.000".
    let ok_sum = results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .fold(0.0, |acc, r| acc + r.score);
    let _ = writeln!(s, "sum of scores (ok seeds): {ok_sum:.3}");
    match all.relative {
        Some(rel) => {
            let _ = writeln!(
                s,
                "relative score: {rel:.3}  (100 * mean of best/yours; failed seeds count 0)"
            );
        }
        None => {
            let _ = writeln!(s, "relative score: - (no bests file)");
        }
    }
    if let Some(gap) = all.gap {
        let with = results.iter().filter(|r| r.gap().is_some()).count();
        let _ = writeln!(
            s,
            "mean gap to the bound: {:.3} %  (over the {with} ok seeds with a bound{})",
            100.0 * gap,
            bounds::left_out(results)
        );
    }
    let _ = writeln!(
        s,
        "{:>8} {:>6} {:>4} {:>12} {:>9} {:>6}",
        "group", "seeds", "ok", "mean", "relative", "gap%"
    );
    let mut cs: Vec<usize> = results.iter().map(|r| r.c).collect();
    cs.sort_unstable();
    cs.dedup();
    for c in cs {
        let g = Group::of(results.iter().filter(|r| r.c == c), bests);
        group_row(&mut s, &format!("C={c}"), &g);
    }
    let mut bands: Vec<String> = Vec::new();
    for r in results {
        let label = band_label(r.n);
        if !bands.contains(&label) {
            bands.push(label);
        }
    }
    bands.sort_by_key(|b| b.split('-').next().and_then(|x| x.parse::<usize>().ok()));
    for band in bands {
        let g = Group::of(results.iter().filter(|r| band_label(r.n) == band), bests);
        group_row(&mut s, &format!("N={band}"), &g);
    }
    s
}

/// The summary as JSON (for `results.json` and `--json`).
pub fn summary_json(results: &[SeedResult], bests: Option<&Bests>) -> Value {
    let count = |st: Status| results.iter().filter(|r| r.status == st).count();
    let mut by_c = serde_json::Map::new();
    let mut cs: Vec<usize> = results.iter().map(|r| r.c).collect();
    cs.sort_unstable();
    cs.dedup();
    for c in cs {
        by_c.insert(
            c.to_string(),
            Group::of(results.iter().filter(|r| r.c == c), bests).to_json(),
        );
    }
    let mut by_n = serde_json::Map::new();
    for (a, b) in N_BANDS {
        let group: Vec<&SeedResult> = results.iter().filter(|r| (a..=b).contains(&r.n)).collect();
        if !group.is_empty() {
            by_n.insert(format!("{a}-{b}"), Group::of(group, bests).to_json());
        }
    }
    let all = Group::of(results, bests);
    json!({
        "seeds": results.len(),
        "ok": count(Status::Ok),
        "invalid": count(Status::Invalid),
        "timeout": count(Status::Timeout),
        "crash": count(Status::Crash),
        "too_long": count(Status::TooLong),
        "mean": all.mean,
        "relative": all.relative,
        "gap": all.gap,
        "by_c": by_c,
        "by_n": by_n,
    })
}

#[cfg(test)]
mod tests;
