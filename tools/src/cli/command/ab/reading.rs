//! The finished pairs of an A/B read in stream order by the test ([`Walk`]), with the pairs
//! that cannot count left out: a pair where an arm was starved or the arms' CPU was uneven
//! ([`crate::cli::cpu::unfair_pair`]) says more about the machine than about the solvers.
//! When most pairs read are starved, or the counted pairs' arms got unequal CPU on average in
//! the direction of the verdict, there is no verdict: exit [`BUSY_EXIT`]. The record's
//! reading and its `ab.json` (whose `verdict` object is this module's) are written here too.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::folder::{Pair, Record, Settings, AB_JSON};
use super::sign::SignTest;
use super::sprt::{Sprt, Stats, Verdict, MIN_PAIRS};
use super::walk::{Rule, Walk};
use crate::cli::cpu::{share_ratio, EVEN_SHARE, STARVED_SHARE};
use crate::cli::report::{SeedResult, Status};

/// The exit code of an A/B that gives no verdict because the machine was too busy (most pairs
/// starved) or the arms did not get the same CPU.
pub const BUSY_EXIT: i32 = 4;

/// How far the counted pairs' mean CPU share of one arm may exceed the other's before a
/// verdict favouring that arm is withheld: 3 %. (Per pair, [`EVEN_SHARE`] leaves up to 10 %;
/// an arm niced or in a smaller cgroup gets less on every pair, which only the mean shows.)
pub const CPU_BIAS: f64 = 0.03;

/// The verdict part of `ab.json` and of the printed report: the test read in stream order up
/// to its verdict or to the first pair not finished.
#[derive(Clone, Debug)]
pub struct Reading {
    /// The test after the pairs it counted.
    pub walk: Walk,
    /// The pairs read: counted or not.
    pub read: usize,
    /// The pairs read that do not count, in order: seed and why (`10523: A got 31 % of a
    /// core while ready to run`).
    pub starved: Vec<(u64, String)>,
    /// Failed sides among the pairs counted: A only, B only, both.
    pub failures: [usize; 3],
    /// The seeds and statuses of those failures (`10823 B timeout`), in order.
    pub failed: Vec<String>,
    /// The position of the first pair not finished where the reading stopped early.
    pub gap: Option<usize>,
    /// The unclipped `ln(score_B / score_A)` of the pairs counted that both sides had judged:
    /// the ratio of the scores B/A is `exp` of its mean (the test's own statistic is clipped).
    pub judged: Stats,
    /// The geometric mean of B's CPU share over A's over the counted pairs where both were
    /// judged and ready to run at least `BUSY_READY_SHARE` of their time, and how many pairs
    /// that is.
    pub cpu_ratio: Option<(f64, usize)>,
    /// Why there is no verdict, as an error: both arms failed on every pair counted, from
    /// [`MIN_PAIRS`] on (then the walk's verdict is dropped: nothing was compared).
    pub error: Option<String>,
    /// Why there is no verdict from these pairs: the machine was too busy, or the arms got
    /// unequal CPU (then the walk's verdict, if any, is withheld; exit [`BUSY_EXIT`]).
    pub busy: Option<String>,
}

impl Reading {
    /// The exit code: [`BUSY_EXIT`] when busy, the verdict's, else 3 (no verdict yet).
    pub fn exit_code(&self) -> i32 {
        if self.busy.is_some() {
            BUSY_EXIT
        } else {
            self.walk.verdict.map_or(3, Verdict::exit_code)
        }
    }

    /// Whether the session is done: a verdict, the machine too busy, or the error of a test
    /// with nothing compared.
    pub fn decided(&self) -> bool {
        self.walk.verdict.is_some() || self.error.is_some() || self.busy.is_some()
    }

    /// The ratio of the scores B/A over the counted pairs judged on both sides, with its 95 %
    /// interval (Student's t on the mean of `ln(B/A)`, unclipped).
    pub fn ratio(&self) -> Option<(f64, Option<(f64, f64)>)> {
        let judged = &self.judged;
        (judged.n > 0).then(|| {
            let interval = judged.interval95().map(|(lo, hi)| (lo.exp(), hi.exp()));
            (judged.mean.exp(), interval)
        })
    }
}

/// `10523: A got 31 % of a core, 10611: …` for the first starved pairs.
fn starved_list(starved: &[(u64, String)]) -> String {
    let mut parts: Vec<String> = starved
        .iter()
        .take(5)
        .map(|(seed, why)| format!("seed {seed}: {why}"))
        .collect();
    if starved.len() > 5 {
        parts.push("…".to_string());
    }
    parts.join("; ")
}

/// The sentence of an A/B whose pairs read are mostly starved.
fn too_busy(starved: &[(u64, String)], read: usize) -> String {
    format!(
        "the machine was too busy: {} of {read} pairs starved (an arm got less than {:.0} % of a \
         core while ready to run, or less than {:.0} % of the other arm's share: {}); starved \
         pairs are not counted, and with more than half of them starved there is no verdict. \
         Run it on a quieter machine or with fewer --jobs",
        starved.len(),
        100.0 * STARVED_SHARE,
        100.0 * EVEN_SHARE,
        starved_list(starved)
    )
}

/// Withholds a verdict that favours the arm which got more CPU on the counted pairs' mean
/// (beyond [`CPU_BIAS`]); the sentence why.
fn cpu_bias(verdict: Option<Verdict>, ratio: Option<(f64, usize)>) -> Option<String> {
    let (ratio, n) = ratio?;
    let (favoured, more) = match verdict? {
        Verdict::Accepted if ratio > 1.0 + CPU_BIAS => ('B', ratio - 1.0),
        Verdict::Rejected if ratio < 1.0 / (1.0 + CPU_BIAS) => ('A', 1.0 / ratio - 1.0),
        _ => return None,
    };
    Some(format!(
        "the arms did not get the same CPU: {favoured} got {:.1} % more of a core than the \
         other arm on average over {n} counted pairs, and the verdict favoured {favoured}, so \
         it is withheld (an arm niced, in a smaller cgroup, or pinned to a busier core?); give \
         both arms the same CPU and run it again",
        100.0 * more
    ))
}

/// The error of an A/B whose both arms failed on every one of the `n` pairs counted.
fn both_failed(n: usize, pairs: &BTreeMap<usize, Pair>) -> String {
    let first = pairs.get(&0).map_or(String::new(), |p| {
        let why = |r: &SeedResult| {
            format!(
                "{} ({})",
                r.status.as_str(),
                crate::cli::quote::printable(r.message.as_deref().unwrap_or("-"), 120)
            )
        };
        format!(
            " (pair 1, seed {}: A {}, B {})",
            p.seed,
            why(&p.a),
            why(&p.b)
        )
    });
    format!(
        "both arms failed on every one of the {n} pairs read{first}: nothing was compared, so \
         there is no verdict; see SEED.err in base/ and new/"
    )
}

/// Counts a counted pair's failed side, if one failed.
fn count_failure(reading: &mut Reading, pair: &Pair) {
    let (a_ok, b_ok) = (pair.a.status == Status::Ok, pair.b.status == Status::Ok);
    let side = match (a_ok, b_ok) {
        (true, true) => None,
        (false, true) => Some((0, format!("A {}", pair.a.status.as_str()))),
        (true, false) => Some((1, format!("B {}", pair.b.status.as_str()))),
        (false, false) => Some((2, "both failed".to_string())),
    };
    if let Some((i, what)) = side {
        reading.failures[i] += 1;
        reading.failed.push(format!("{} {what}", pair.seed));
    }
}

/// Reads the finished `pairs` in stream order with the test of `settings`; `limits` are the
/// arms' time limits (seconds), which say which runs are judged on their CPU.
pub fn read_pairs(settings: &Settings, limits: [f64; 2], pairs: &BTreeMap<usize, Pair>) -> Reading {
    let count = settings.max_pairs.min(settings.seeds.len_limit());
    let mut reading = Reading {
        walk: Walk::new(settings.sprt, count),
        read: 0,
        starved: Vec::new(),
        failures: [0; 3],
        failed: Vec::new(),
        gap: None,
        judged: Stats::default(),
        cpu_ratio: None,
        error: None,
        busy: None,
    };
    let mut counted: Vec<&Pair> = Vec::new();
    for position in 0..count {
        let Some(pair) = pairs.get(&position) else {
            reading.gap = Some(position);
            break;
        };
        reading.read += 1;
        if let Some(why) = pair.unfair(limits) {
            reading.starved.push((pair.seed, why));
            if reading.read >= MIN_PAIRS && 2 * reading.starved.len() > reading.read {
                break;
            }
            continue;
        }
        counted.push(pair);
        if let Some(r) = pair.log_ratio() {
            reading.judged.push(r);
        }
        count_failure(&mut reading, pair);
        if reading.walk.push(pair.x()).is_some() {
            break;
        }
    }
    let all_read = reading.gap.is_none() && reading.read == count;
    let mostly_starved = 2 * reading.starved.len() > reading.read;
    if mostly_starved && (reading.read >= MIN_PAIRS || all_read) {
        reading.busy = Some(too_busy(&reading.starved, reading.read));
    } else if all_read {
        reading.walk.close();
    }
    reading.cpu_ratio = share_ratio(counted.iter().map(|p| (&p.a, &p.b)), limits);
    if reading.busy.is_none() {
        reading.busy = cpu_bias(reading.walk.verdict, reading.cpu_ratio);
    }
    let n = reading.walk.stats.n;
    if n >= MIN_PAIRS && reading.failures[2] == n {
        reading.walk.verdict = None;
        reading.error = Some(both_failed(n, pairs));
    }
    if reading.busy.is_some() {
        reading.walk.verdict = None;
    }
    reading
}

/// The record read by the test, and as `ab.json` (here, beside the `verdict` object it holds).
impl Record {
    /// The test read over the record's pairs ([`read_pairs`]).
    pub fn reading(&self) -> Reading {
        read_pairs(&self.settings, self.limits(), &self.pairs)
    }

    /// The `ab.json` document; `interrupted` while pairs are still to run.
    pub fn document(&self, interrupted: bool) -> Value {
        let reading = self.reading();
        let limits = self.limits();
        json!({
            "started": self.started,
            "settings": self.settings.to_json(),
            "arms": { "A": self.arms[0].to_json(), "B": self.arms[1].to_json() },
            "pairs": self.pairs.values().map(|p| p.to_json(limits)).collect::<Vec<_>>(),
            "verdict": verdict_json(&self.settings, &reading),
            "jobs": self.jobs,
            "interrupted": interrupted,
        })
    }

    /// Writes `DIR/ab.json` atomically.
    pub fn save(&self, dir: &Path, interrupted: bool) -> Result<(), String> {
        let path = dir.join(AB_JSON);
        let text = serde_json::to_string_pretty(&self.document(interrupted))
            .expect("JSON values always serialise");
        crate::cli::replace::replace_file(&path, (text + "\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// The `verdict` object of `ab.json`: the verdict (null while the test has none), the pairs
/// read, counted and starved, the ratio of the scores and its 95 % interval, the clipped
/// statistic's mean and sd, the GSPRT's LLR and bounds, the sign test's counts and bounds, the
/// failures, the CPU shares, and why no verdict was given (`error`, `busy`).
pub fn verdict_json(settings: &Settings, reading: &Reading) -> Value {
    let (stats, sprt) = (&reading.walk.stats, &settings.sprt);
    let ratio = reading.ratio();
    let interval = ratio.and_then(|r| r.1);
    let signs = &reading.walk.signs;
    let (accept, reject) = SignTest::bounds(sprt);
    let sign_json =
        |s: &super::sign::Signs| json!({"plus": s.plus, "minus": s.minus, "llr": s.llr()});
    json!({
        "verdict": reading.walk.verdict.map(Verdict::as_str),
        "pairs": stats.n,
        "read": reading.read,
        "starved_pairs": reading.starved.len(),
        "starved": reading.starved.iter().map(|(seed, why)| json!({"seed": seed, "why": why}))
            .collect::<Vec<_>>(),
        "ratio": ratio.map(|r| r.0),
        "ratio_low": interval.map(|i| i.0),
        "ratio_high": interval.map(|i| i.1),
        "judged_pairs": reading.judged.n,
        "mean": stats.mean,
        "sd": stats.sd(),
        "llr": reading.walk.llr(),
        "lower": sprt.lower(),
        "upper": sprt.upper(),
        "mu0": Sprt::MU0,
        "mu1": sprt.mu1(),
        "sign": { "better": sign_json(&signs.better), "worse": sign_json(&signs.worse),
                  "accept_at": accept, "reject_at": reject },
        "test": reading.walk.rule.map(|r| match r { Rule::Gsprt => "gsprt", Rule::Sign => "sign" }),
        "failures": { "a": reading.failures[0], "b": reading.failures[1],
                      "both": reading.failures[2] },
        "missing_pair": reading.gap.filter(|_| reading.walk.verdict.is_none()).map(|p| p + 1),
        "cpu_share_ratio": reading.cpu_ratio.map(|r| r.0),
        "error": reading.error,
        "busy": reading.busy,
        "formula": super::sprt::FORMULA,
    })
}

/// The default test over the default stream, 1000 pairs at most, for the tests.
#[cfg(test)]
pub(crate) const fn test_settings() -> Settings {
    Settings {
        sprt: Sprt::DEFAULT,
        max_pairs: 1000,
        seeds: super::folder::SeedStream::Default,
        shard: None,
    }
}

/// A pair at `position` (seed 10 001 + position) of the scores `scores` (A's, B's) and the
/// CPU times `cpu` (ms) over 1000 ms of wall time each (ready to run all of it: the rest was
/// waiting for a CPU), for the tests.
#[cfg(test)]
pub(crate) fn test_pair(position: usize, scores: [f64; 2], cpu: [u64; 2]) -> Pair {
    use crate::gen::{generate, Ranges};
    let seed = 10_001 + position as u64;
    let case = generate(seed, &Ranges::default());
    let side = |i: usize| {
        let mut r = SeedResult::failed(seed, &case.input, None, Status::Ok, String::new());
        (r.score, r.wall_ms, r.cpu_ms) = (scores[i], Some(1000), Some(cpu[i]));
        r.wait_ms = Some(1000u64.saturating_sub(cpu[i]));
        r
    };
    Pair {
        position,
        seed,
        a: side(0),
        b: side(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: Settings = test_settings();

    /// Pairs where B scores 80 against A's 100, with the CPU of `cpu(position)`.
    fn pairs(count: usize, cpu: impl Fn(usize) -> [u64; 2]) -> BTreeMap<usize, Pair> {
        (0..count)
            .map(|i| (i, test_pair(i, [100.0, 80.0], cpu(i))))
            .collect()
    }

    #[test]
    fn starved_pairs_are_left_out_and_named() {
        // Pairs 3, 5 and 8: A under half a core, B at 85 % of A's share, A at 40 %.
        let cpu = |i| match i {
            3 => [300, 990],
            5 => [1000, 850],
            8 => [400, 400],
            _ => [990, 1000],
        };
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(40, cpu));
        assert_eq!(reading.walk.verdict, Some(Verdict::Accepted));
        assert_eq!((reading.read, reading.walk.stats.n), (18, 15));
        let why: Vec<&str> = reading.starved.iter().map(|(_, w)| w.as_str()).collect();
        assert_eq!(
            why,
            [
                "A got 30 % of a core while ready to run",
                "A got 100 % of a core while ready to run, B 85 %",
                "A got 40 % of a core while ready to run"
            ]
        );
        assert_eq!((reading.busy.as_deref(), reading.exit_code()), (None, 0));
        // Runs that ended before half their limit are not judged: at a 10 s limit all count.
        let reading = read_pairs(&SETTINGS, [10.0, 10.0], &pairs(40, cpu));
        assert_eq!((reading.read, reading.starved.len()), (15, 0));
    }

    #[test]
    fn an_arm_that_hangs_on_some_seeds_loses_those_pairs() {
        // Issue 69 item 1: B 20 % better where it answers, asleep until killed at the limit on
        // every third seed (no CPU used, none waited for). Those are B's losses, never starved
        // pairs: B is not accepted (it was, at 15 counted pairs, when they were starved).
        let pairs: BTreeMap<usize, Pair> = (0..60)
            .map(|i| {
                let mut pair = test_pair(i, [100.0, 80.0], [990, 990]);
                if i % 3 == 0 {
                    (pair.b.status, pair.b.score) = (Status::Timeout, -1.0);
                    (pair.b.cpu_ms, pair.b.wait_ms) = (Some(0), Some(1));
                }
                (i, pair)
            })
            .collect();
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs);
        assert_eq!(reading.starved, []);
        assert_eq!((reading.read, reading.failures), (60, [0, 20, 0]));
        assert_ne!(reading.walk.verdict, Some(Verdict::Accepted));
        assert_ne!(reading.exit_code(), 0);
    }

    #[test]
    fn mostly_starved_pairs_give_no_verdict() {
        // Every other pair starved, then all of them: at 15 read, 8 starved.
        let cpu = |i: usize| if i % 2 == 0 { [200, 990] } else { [990, 990] };
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(40, cpu));
        assert_eq!((reading.read, reading.starved.len()), (15, 8));
        let busy = reading.busy.as_deref().unwrap();
        assert!(
            busy.starts_with("the machine was too busy: 8 of 15 pairs starved"),
            "{busy}"
        );
        assert_eq!(
            (reading.walk.verdict, reading.exit_code()),
            (None, BUSY_EXIT)
        );
        assert!(reading.decided());
        // Fewer than 15 read: not yet, unless the stream ends there.
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(10, cpu));
        assert_eq!((reading.busy.is_none(), reading.exit_code()), (true, 3));
        let short = Settings {
            max_pairs: 10,
            ..SETTINGS
        };
        let six = |i: usize| if i < 6 { [200, 990] } else { [990, 990] };
        let reading = read_pairs(&short, [1.0, 1.0], &pairs(10, six));
        assert_eq!(reading.exit_code(), BUSY_EXIT);
    }

    #[test]
    fn a_verdict_for_the_arm_that_got_more_cpu_is_withheld() {
        // B better, and B 5 % more CPU than A on every pair (within the 90 % of each pair).
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(40, |_| [950, 1000]));
        assert_eq!(reading.walk.verdict, None);
        let busy = reading.busy.as_deref().unwrap();
        assert!(
            busy.starts_with("the arms did not get the same CPU: B got 5.3 % more"),
            "{busy}"
        );
        assert_eq!(reading.exit_code(), BUSY_EXIT);
        // The same pairs with A getting more: accepted all the same (B won with less).
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(40, |_| [1000, 950]));
        assert_eq!(
            (reading.walk.verdict, reading.busy.is_none()),
            (Some(Verdict::Accepted), true)
        );
        // Within 3 %: accepted.
        let reading = read_pairs(&SETTINGS, [1.0, 1.0], &pairs(40, |_| [980, 1000]));
        assert_eq!(reading.walk.verdict, Some(Verdict::Accepted));
    }
}
