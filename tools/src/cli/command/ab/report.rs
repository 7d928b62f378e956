//! What `tester ab` says: the live progress message, the report printed at the end and the
//! `verdict` object of `ab.json`.

use super::arms::Arm;
use super::folder::{Reading, Settings};
use super::sprt::{Sprt, Stats, Verdict, FORMULA};

/// `exp` of the 95 % interval of the mean statistic: the interval of the ratio B/A.
fn ratio_interval(stats: &Stats) -> Option<(f64, f64)> {
    stats.interval95().map(|(lo, hi)| (lo.exp(), hi.exp()))
}

/// δ in percent, as typed (`1`, `0.5`).
fn percent(sprt: &Sprt) -> String {
    format!("{}", (sprt.delta * 100.0 * 1e9).round() / 1e9)
}

/// The progress message after a pair: the pairs read, LLR and bounds, the ratio and its
/// interval.
pub fn progress_line(settings: &Settings, reading: &Reading) -> String {
    let (stats, sprt) = (&reading.walk.stats, &settings.sprt);
    let interval =
        ratio_interval(stats).map_or(String::new(), |(lo, hi)| format!(" [{lo:.4}, {hi:.4}]"));
    format!(
        "n {} LLR {:.2} bounds ({:.2}, {:.2}) B/A {:.4}{interval}",
        stats.n,
        reading.walk.llr(),
        sprt.lower(),
        sprt.upper(),
        stats.mean.exp(),
    )
}

/// One line per arm: `A = base: revision HEAD (…), 1 s per seed: `command``.
pub fn arm_lines(arms: &[Arm; 2]) -> String {
    arms.iter()
        .map(|arm| {
            format!(
                "{} = {}: {}, {} s per seed: `{}`\n",
                arm.label,
                arm.folder(),
                arm.describe(),
                arm.time_limit,
                crate::cli::quote::printable(&arm.solver.describe(), 300)
            )
        })
        .collect()
}

/// The report printed at the end (and by `--verdict`).
pub fn text(settings: &Settings, reading: &Reading) -> String {
    let (stats, sprt) = (&reading.walk.stats, &settings.sprt);
    let f = &reading.failures;
    let mut failed = reading
        .failed
        .iter()
        .take(10)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if reading.failed.len() > 10 {
        failed.push_str(", …");
    }
    let interval = ratio_interval(stats).map_or("none below 2 pairs".to_string(), |(lo, hi)| {
        format!("{lo:.5} to {hi:.5}")
    });
    let mut text = format!(
        "pairs: {} (at most {}); failed: A {}, B {}, both {}{}\n\
         mean ln(B/A) {:.6} (sd {:.6}): ratio B/A {:.5}, 95% interval {interval}\n\
         LLR {:.4}, bounds {:.4} (rejected) and {:.4} (accepted); delta {}% (mu1 {:.6}), \
         alpha {}, beta {}\n\
         GSPRT: {FORMULA}\n",
        stats.n,
        settings.max_pairs.min(settings.seeds.len_limit()),
        f[0],
        f[1],
        f[2],
        if failed.is_empty() {
            String::new()
        } else {
            format!(" ({failed})")
        },
        stats.mean,
        stats.sd(),
        stats.mean.exp(),
        reading.walk.llr(),
        sprt.lower(),
        sprt.upper(),
        percent(sprt),
        sprt.mu1(),
        sprt.alpha,
        sprt.beta,
    );
    text.push_str(&verdict_line(settings, reading));
    text
}

/// `verdict: accepted (…)` and what it means.
fn verdict_line(settings: &Settings, reading: &Reading) -> String {
    let sprt = &settings.sprt;
    let delta = percent(sprt);
    match reading.walk.verdict {
        Some(Verdict::Accepted) => format!(
            "verdict: accepted: B is better than A by at least {delta}% (a B no better is \
             accepted at most {} of the time)\n",
            sprt.alpha
        ),
        Some(Verdict::Rejected) => format!(
            "verdict: rejected: B is not better than A (a B better by {delta}% is rejected at \
             most {} of the time)\n",
            sprt.beta
        ),
        Some(Verdict::Inconclusive) => format!(
            "verdict: inconclusive: no bound crossed in {} pairs (`tester ab --resume --out \
             DIR --max-pairs M` continues with the same pairs)\n",
            reading.walk.stats.n
        ),
        None => match reading.gap {
            Some(gap) => format!(
                "verdict: none yet (inconclusive so far): pair {} is not finished\n",
                gap + 1
            ),
            None => "verdict: none yet (inconclusive so far)\n".to_string(),
        },
    }
}
