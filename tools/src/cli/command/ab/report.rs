//! What `tester ab` says: the live progress message, the report printed at the end and the
//! `verdict` object of `ab.json`.

use std::path::PathBuf;

use super::arms::Arm;
use super::current::sh_quote;
use super::folder::{Reading, Settings, MAX_PAIRS};
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

/// The report printed at the end (and by `--verdict`) of the A/B in `folders` (one, or the
/// shards' folders given to `--verdict`).
pub fn text(settings: &Settings, reading: &Reading, folders: &[PathBuf]) -> String {
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
         mean ln(B/A) {:.6} (sd {:.6}), each pair clipped to +-ln 1.25 as the test reads it: \
         ratio B/A {:.5}, 95% interval {interval}\n{}\
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
        score_ratio_line(reading),
        reading.walk.llr(),
        sprt.lower(),
        sprt.upper(),
        percent(sprt),
        sprt.mu1(),
        sprt.alpha,
        sprt.beta,
    );
    text.push_str(&verdict_line(settings, reading, folders));
    text
}

/// The ratio of the scores themselves (unclipped) over the pairs judged on both sides.
fn score_ratio_line(reading: &Reading) -> String {
    let judged = &reading.judged;
    if judged.n == 0 {
        return "ratio of the scores: none (no pair read was judged on both sides)\n".to_string();
    }
    let interval = ratio_interval(judged).map_or(String::new(), |(lo, hi)| {
        format!(", 95% interval {lo:.5} to {hi:.5}")
    });
    format!(
        "ratio of the scores B/A {:.5}{interval} (geometric mean, unclipped, of the {} pairs \
         judged on both sides)\n",
        judged.mean.exp(),
        judged.n
    )
}

/// `verdict: accepted (…)` and what it means.
fn verdict_line(settings: &Settings, reading: &Reading, folders: &[PathBuf]) -> String {
    let sprt = &settings.sprt;
    let delta = percent(sprt);
    if let Some(error) = &reading.error {
        return format!("verdict: none: {error}\n");
    }
    let n = reading.walk.stats.n;
    let sign = if reading.walk.by_sign_rule() {
        match reading.walk.verdict {
            Some(Verdict::Accepted) => format!(
                " [sign rule: B better by {delta}% or more on every one of the {n} pairs; \
                 by chance at most 2^-{n} of the time]"
            ),
            _ => format!(
                " [sign rule: B worse on every one of the {n} pairs; by chance at most 2^-{n} \
                 of the time]"
            ),
        }
    } else {
        String::new()
    };
    let line = verdict_words(settings, reading, folders);
    match line.strip_suffix('\n') {
        Some(text) => format!("{text}{sign}\n"),
        None => line,
    }
}

/// `path` as a shell word: as it is when it needs no quotes, else quoted.
fn shell_word(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain && !text.is_empty() {
        text.into_owned()
    } else {
        sh_quote(&text)
    }
}

/// How to go on with an inconclusive A/B of `folders`: the command with the folder and twice
/// the pairs (at most the seeds of a `--seeds` list, which may be used up).
fn go_on(settings: &Settings, folders: &[PathBuf]) -> String {
    let limit = settings.seeds.len_limit().min(MAX_PAIRS);
    if settings.max_pairs >= limit {
        return format!(
            "its {limit} seeds of --seeds are used up: a longer list in a new A/B goes on"
        );
    }
    let more = (settings.max_pairs * 2).min(limit);
    match folders {
        [one] => format!(
            "`tester ab --resume --out {} --max-pairs {more}` continues with the same pairs",
            shell_word(one)
        ),
        _ => {
            let all: Vec<String> = folders.iter().map(|f| shell_word(f)).collect();
            format!(
                "`tester ab --resume --out FOLDER --max-pairs {more}` on the host of each folder \
                 ({}) continues with the same pairs, then `tester ab --verdict {}`",
                all.join(", "),
                all.join(" ")
            )
        }
    }
}

/// The verdict's words, without the sign rule's note.
fn verdict_words(settings: &Settings, reading: &Reading, folders: &[PathBuf]) -> String {
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
            "verdict: inconclusive: no bound crossed in {} pairs ({})\n",
            reading.walk.stats.n,
            go_on(settings, folders)
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::cli::command::ab::folder::{read_pairs, Pair, SeedStream};
    use crate::cli::report::{SeedResult, Status};
    use crate::gen::{generate, Ranges};

    /// A judged result of `score` on `seed`'s case.
    fn result(seed: u64, score: f64) -> SeedResult {
        let case = generate(seed, &Ranges::default());
        let mut r = SeedResult::failed(seed, &case.input, None, Status::Ok, String::new());
        r.score = score;
        r
    }

    #[test]
    fn an_inconclusive_ab_says_how_to_go_on_with_its_folder() {
        let mut settings = Settings {
            sprt: Sprt {
                delta: 0.01,
                alpha: 0.05,
                beta: 0.05,
            },
            max_pairs: 15,
            seeds: SeedStream::Default,
            shard: None,
        };
        let one = [PathBuf::from("/r/ab 1")];
        assert_eq!(
            go_on(&settings, &one),
            "`tester ab --resume --out '/r/ab 1' --max-pairs 30` continues with the same pairs"
        );
        let shards = [PathBuf::from("h1/ab"), PathBuf::from("h2/ab")];
        assert!(go_on(&settings, &shards).contains("(h1/ab, h2/ab)"));
        assert!(go_on(&settings, &shards).ends_with("`tester ab --verdict h1/ab h2/ab`"));
        settings.seeds = SeedStream::List((1..=20).collect());
        assert!(go_on(&settings, &one).contains("--max-pairs 20`"));
        settings.max_pairs = 20;
        assert!(go_on(&settings, &one).starts_with("its 20 seeds of --seeds are used up"));
    }

    #[test]
    fn the_report_gives_the_ratio_of_the_scores_beside_the_clipped_one() {
        let settings = Settings {
            sprt: Sprt {
                delta: 0.01,
                alpha: 0.05,
                beta: 0.05,
            },
            max_pairs: 1000,
            seeds: SeedStream::Default,
            shard: None,
        };
        // B scores 5 where A scores 100 on every pair: the clip reads 0.8.
        let pairs: BTreeMap<usize, Pair> = (0..40)
            .map(|i| {
                let seed = 10_001 + i as u64;
                let (a, b) = (result(seed, 100.0), result(seed, 5.0));
                (
                    i,
                    Pair {
                        position: i,
                        seed,
                        a,
                        b,
                    },
                )
            })
            .collect();
        let reading = read_pairs(&settings, &pairs);
        let text = text(&settings, &reading, &[PathBuf::from("runs/ab")]);
        assert!(text.contains("ratio B/A 0.80000"), "{text}");
        assert!(text.contains("ratio of the scores B/A 0.05000"), "{text}");
        assert!(
            text.contains("of the 15 pairs judged on both sides"),
            "{text}"
        );
        assert!(text.contains("verdict: accepted"), "{text}");
        assert!(text.contains("[sign rule: B better by 1% or more on every one of the 15 pairs"));
    }
}
