//! What `tester ab` says: the live progress message, the report printed at the end and the
//! `verdict` object of `ab.json`.

use std::path::{Path, PathBuf};

use super::arms::Arm;
use super::folder::{Pair, Settings, MAX_PAIRS};
use super::reading::Reading;
use super::sign::SignTest;
use super::sprt::{Sprt, Verdict, FORMULA};
use super::walk::Rule;
use crate::cli::quote::shell_word;
use crate::cli::report::Status;

/// δ in percent, as typed (`1`, `0.5`).
fn percent(sprt: &Sprt) -> String {
    format!("{}", (sprt.delta * 100.0 * 1e9).round() / 1e9)
}

/// The first words of a pair's progress line: its real ratio of the scores (not the clipped
/// statistic), or the side that failed; and why it does not count, if it does not.
pub fn pair_line(pair: &Pair, limits: [f64; 2]) -> String {
    let head = format!("pair {} seed {}", pair.position + 1, pair.seed);
    let what = match (pair.a.status, pair.b.status) {
        (Status::Ok, Status::Ok) => match pair.log_ratio() {
            Some(r) => format!("B/A {:.4}", r.exp()),
            None => format!("A {} B {}", pair.a.score, pair.b.score),
        },
        (a, Status::Ok) => format!("A {}", a.as_str()),
        (Status::Ok, b) => format!("B {}", b.as_str()),
        (a, b) => format!("A {}, B {}", a.as_str(), b.as_str()),
    };
    match pair.unfair(limits) {
        Some(why) => format!("{head}: {what} (starved, not counted: {why})"),
        None => format!("{head}: {what}"),
    }
}

/// The progress message after a pair: the pairs counted (and starved), the LLR and its
/// bounds, the sign counts, the ratio of the scores and its interval.
pub fn progress_line(settings: &Settings, reading: &Reading) -> String {
    let (stats, sprt) = (&reading.walk.stats, &settings.sprt);
    let ratio = reading.ratio().map_or(String::new(), |(r, interval)| {
        let interval = interval.map_or(String::new(), |(lo, hi)| format!(" [{lo:.4}, {hi:.4}]"));
        format!(" B/A {r:.4}{interval}")
    });
    let starved = match reading.starved.len() {
        0 => String::new(),
        k => format!(" ({k} starved)"),
    };
    let signs = &reading.walk.signs;
    format!(
        "n {}{starved} LLR {:.2} bounds ({:.2}, {:.2}) signs {}:{} better, {}:{} worse{ratio}",
        stats.n,
        reading.walk.llr(),
        sprt.lower(),
        sprt.upper(),
        signs.better.plus,
        signs.better.minus,
        signs.worse.plus,
        signs.worse.minus,
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
    let starved = match reading.starved.len() {
        0 => String::new(),
        k => format!(", {k} starved and not counted"),
    };
    let mut text = format!(
        "pairs: {} counted of {} read (at most {}){starved}; failed: A {}, B {}, both {}{}\n{}\
         test statistic x = ln(B/A) per pair clipped to +-ln 1.25 (a failed side: +-ln 2): \
         mean {:.6}, sd {:.6}\n\
         LLR {:.4}, bounds {:.4} (rejected) and {:.4} (accepted); delta {}% (mu1 {:.6}), \
         alpha {}, beta {} (the GSPRT's share: {} of each)\n{}\
         GSPRT: {FORMULA}\n",
        stats.n,
        reading.read,
        settings.max_pairs.min(settings.seeds.len_limit()),
        f[0],
        f[1],
        f[2],
        if failed.is_empty() {
            String::new()
        } else {
            format!(" ({failed})")
        },
        ratio_line(reading),
        stats.mean,
        stats.sd(),
        reading.walk.llr(),
        sprt.lower(),
        sprt.upper(),
        percent(sprt),
        sprt.mu1(),
        sprt.alpha,
        sprt.beta,
        super::sprt::GSPRT_SHARE,
        sign_line(settings, reading),
    );
    text.push_str(&verdict_line(settings, reading, folders));
    text
}

/// The ratio of the scores (unclipped) over the counted pairs judged on both sides: the one
/// B/A that the progress line, this report and `tester compare` of the folder show.
fn ratio_line(reading: &Reading) -> String {
    let Some((ratio, interval)) = reading.ratio() else {
        return "B/A: none (no pair counted was judged on both sides)\n".to_string();
    };
    let interval = interval.map_or(String::new(), |(lo, hi)| {
        format!(", 95% interval {lo:.5} to {hi:.5}")
    });
    format!(
        "B/A {ratio:.5}{interval} (the ratio of the scores: geometric mean over the {} counted \
         pairs judged on both sides; interval by Student's t on ln(B/A))\n",
        reading.judged.n
    )
}

/// The sign test's counts and bounds.
fn sign_line(settings: &Settings, reading: &Reading) -> String {
    let (signs, sprt) = (&reading.walk.signs, &settings.sprt);
    let (accept, reject) = SignTest::bounds(sprt);
    format!(
        "sign test (ties left out): B better by {}% on {}, not on {} (LLR {:.4}, accepted at \
         {accept:.4}); B worse on {}, better on {} (LLR {:.4}, rejected at {reject:.4})\n",
        percent(sprt),
        signs.better.plus,
        signs.better.minus,
        signs.better.llr(),
        signs.worse.plus,
        signs.worse.minus,
        signs.worse.llr(),
    )
}

/// `verdict: accepted (…)` and what it means.
fn verdict_line(settings: &Settings, reading: &Reading, folders: &[PathBuf]) -> String {
    if let Some(error) = &reading.error {
        return format!("verdict: none: {error}\n");
    }
    if let Some(busy) = &reading.busy {
        let again = match folders {
            [one] => format!(
                "; `tester ab --resume --out {}` runs the starved pairs again",
                shell_word(one)
            ),
            _ => String::new(),
        };
        return format!("verdict: none: {busy}{again}\n");
    }
    let by = match reading.walk.rule {
        Some(Rule::Gsprt) => " [by the GSPRT on the mean]",
        Some(Rule::Sign) => " [by the sign test, the mean agreeing]",
        None => "",
    };
    let line = verdict_words(settings, reading, folders);
    match line.strip_suffix('\n') {
        Some(text) => format!("{text}{by}\n"),
        None => line,
    }
}

/// The warning of an A/B with a verdict whose starved pairs were left out; `None` when none
/// was (a busy A/B says it in its verdict line).
pub fn starved_warning(reading: &Reading, dir: &Path) -> Option<String> {
    if reading.starved.is_empty() || reading.busy.is_some() {
        return None;
    }
    let first: Vec<String> = reading
        .starved
        .iter()
        .take(5)
        .map(|(seed, why)| format!("seed {seed}: {why}"))
        .collect();
    Some(format!(
        "{} of the {} pairs read were starved and not counted ({}{}): the machine was busy; \
         `tester ab --resume --out {}` runs them again when the A/B has no verdict",
        reading.starved.len(),
        reading.read,
        first.join("; "),
        if reading.starved.len() > 5 {
            "; …"
        } else {
            ""
        },
        shell_word(dir)
    ))
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

/// How far B is from A, for a rejected B: `: B is 17.2x worse (B/A 17.1900), B failed on 2 of
/// the 15 pairs counted`, from the ratio of the scores over the pairs judged on both sides and
/// the failures; nothing when there is neither. A B better than the `sprt.delta` asked where
/// both answered was rejected for its failures, and is said so.
fn how_much(sprt: &Sprt, reading: &Reading) -> String {
    let delta = percent(sprt);
    let mut parts = Vec::new();
    if let Some((r, _)) = reading.ratio() {
        parts.push(if r >= 2.0 {
            format!("B is {r:.1}x worse (B/A {r:.4})")
        } else if r > 1.0 {
            format!("B is {:.2} % worse (B/A {r:.4})", 100.0 * (r - 1.0))
        } else if r < 1.0 && 1.0 - r < sprt.delta {
            format!(
                "B is {:.2} % better, less than the {delta}% asked (B/A {r:.4})",
                100.0 * (1.0 - r)
            )
        } else if r < 1.0 {
            format!(
                "B is {:.2} % better where both answered (B/A {r:.4})",
                100.0 * (1.0 - r)
            )
        } else {
            "B scores as A (B/A 1)".to_string()
        });
    }
    let failed = reading.failures[1] + reading.failures[2];
    if failed > 0 {
        parts.push(format!(
            "B failed on {failed} of the {} pairs counted",
            reading.walk.stats.n
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    }
}

/// The verdict's words, without the note of the test that gave it.
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
            "verdict: rejected: B is not better than A{} (a B better by {delta}% is rejected \
             at most {} of the time)\n",
            how_much(sprt, reading),
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
    use crate::cli::command::ab::folder::SeedStream;
    use crate::cli::command::ab::reading::{read_pairs, test_pair, test_settings};

    #[test]
    fn a_rejected_b_is_said_with_how_much_worse_it_is() {
        // Issue 69 item 11: B 17 times worse on every pair was only "not better than A".
        let settings = test_settings();
        let folder = [PathBuf::from("runs/ab")];
        let said = |a: f64, b: f64| {
            let pairs: BTreeMap<usize, Pair> = (0..40)
                .map(|i| (i, test_pair(i, [a, b], [1000, 1000])))
                .collect();
            text(
                &settings,
                &read_pairs(&settings, [10.0, 10.0], &pairs),
                &folder,
            )
        };
        let text = said(10.0, 172.0);
        assert!(
            text.contains(
                "verdict: rejected: B is not better than A: B is 17.2x worse (B/A 17.2000) (a B"
            ),
            "{text}"
        );
        assert!(said(100.0, 103.1).contains("A: B is 3.10 % worse (B/A 1.0310) ("));
        assert!(said(100.0, 100.0).contains("A: B scores as A (B/A 1) ("));
        assert!(said(100.0, 99.9).contains("A: B is 0.10 % better, less than the "));
    }

    #[test]
    fn a_b_rejected_for_its_failures_is_not_said_to_be_less_better_than_asked() {
        // B 20 % better on the pairs both answered, rejected because it failed the others:
        // "less than the 1% asked" was printed, which the ratio contradicts.
        let settings = test_settings();
        let pairs: BTreeMap<usize, Pair> = (0..40)
            .map(|i| {
                let mut pair = test_pair(i, [100.0, 80.0], [1000, 1000]);
                if i % 2 == 1 {
                    (pair.b.status, pair.b.score) = (Status::Timeout, -1.0);
                }
                (i, pair)
            })
            .collect();
        let reading = read_pairs(&settings, [10.0, 10.0], &pairs);
        let said = how_much(&settings.sprt, &reading);
        assert!(
            said.contains("B is 20.00 % better where both answered"),
            "{said}"
        );
        assert!(!said.contains("asked"), "{said}");
    }

    #[test]
    fn an_inconclusive_ab_says_how_to_go_on_with_its_folder() {
        let mut settings = Settings {
            max_pairs: 15,
            ..test_settings()
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
    fn the_progress_line_and_the_report_show_the_ratio_of_the_scores_never_the_clipped_one() {
        let settings = test_settings();
        // B scores 5 where A scores 100 on every pair (the clipped statistic reads 0.8), and
        // the pair of issue 64: 132.248 against 186.853, which was shown as "B/A 0.8000".
        let pair = |i: usize, a: f64, b: f64| test_pair(i, [a, b], [1000, 1000]);
        let line = pair_line(&pair(117, 186.853, 132.248), [10.0, 10.0]);
        assert_eq!(line, "pair 118 seed 10118: B/A 0.7078");
        let pairs: BTreeMap<usize, Pair> = (0..40).map(|i| (i, pair(i, 100.0, 5.0))).collect();
        let reading = read_pairs(&settings, [10.0, 10.0], &pairs);
        let progress = progress_line(&settings, &reading);
        assert!(progress.contains(" B/A 0.0500 ["), "{progress}");
        let text = text(&settings, &reading, &[PathBuf::from("runs/ab")]);
        assert!(text.contains("\nB/A 0.05000, 95% interval"), "{text}");
        assert!(
            text.contains("over the 15 counted pairs judged on both sides"),
            "{text}"
        );
        for shown in [&progress, &text] {
            assert!(!shown.contains("0.8000"), "{shown}");
        }
        assert!(text.contains("verdict: accepted"), "{text}");
        assert!(
            text.contains("[by the sign test, the mean agreeing]"),
            "{text}"
        );
    }
}
