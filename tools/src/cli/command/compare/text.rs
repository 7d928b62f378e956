//! The text and JSON forms of a [`Comparison`].

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{label, Comparison, Group, Pair, Row};
use crate::cli::features::LABEL_MAX;
use crate::cli::folder::RunFolder;
use crate::cli::quote::printable;
use crate::cli::report::SeedResult;

/// A p-value: four decimals, or two significant digits below 0.001.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

/// One line about a run: folder, command, limit, date, comment.
pub fn describe(run: &RunFolder) -> String {
    let mut s = run.dir.display().to_string();
    if let Some(cmd) = &run.command {
        let _ = write!(s, ": `{cmd}`");
    }
    if let Some(t) = run.time_limit {
        let _ = write!(s, ", limit {t} s");
    }
    if let Some(when) = &run.when {
        let _ = write!(s, ", {when}");
    }
    if let Some(commit) = &run.git_commit {
        let _ = write!(
            s,
            ", commit {}",
            commit.chars().take(10).collect::<String>()
        );
    }
    if run.interrupted {
        s.push_str(", INTERRUPTED (only the seeds it finished)");
    }
    if let Some(c) = &run.comment {
        let _ = write!(s, " — {c}");
    }
    // Every part but the fixed words comes from a file or a command line.
    printable(&s, DESCRIBE_MAX)
}

/// The most characters [`describe`] prints about one run.
const DESCRIBE_MAX: usize = 400;

/// A table cell: the score with its markers, the status of a failed seed, `-` when missing.
pub fn cell(row: &Row, i: usize) -> String {
    match &row.results[i] {
        None => "-".to_string(),
        Some(r) if row.ok(i).is_some() => {
            let mut marks = String::new();
            if row.is_best(i) {
                marks.push('*');
            }
            if row.beats_file(i) {
                marks.push('+');
            }
            format!("{:.3}{marks:<2}", r.score)
        }
        Some(r) => format!("{}  ", r.status.as_str()),
    }
}

/// The per-seed table with its legend.
pub fn seed_table(c: &Comparison) -> String {
    let k = c.runs.len();
    let file = c.bests_file.is_some();
    let mut s = String::new();
    let _ = write!(s, "{:>6} {:>3} {:>2}", "seed", "N", "C");
    for i in 0..k {
        let _ = write!(s, " {:>14}", format!("{}  ", label(i)));
    }
    for b in 1..k {
        let _ = write!(s, " {:>8}", format!("{}/A", label(b)));
    }
    if file {
        let _ = write!(s, " {:>12}", "file best");
    }
    s.push('\n');
    for row in c.worst_first() {
        let _ = write!(s, "{:>6} {:>3} {:>2}", row.seed, row.n, row.c);
        for i in 0..k {
            let _ = write!(s, " {:>14}", cell(row, i));
        }
        for b in 1..k {
            let ratio = match (row.ok(0), row.ok(b)) {
                (Some(a), Some(sb)) => Row::ratio(a, sb),
                _ => None,
            };
            let _ = write!(s, " {:>8}", opt(ratio, 4));
        }
        if file {
            let _ = write!(s, " {:>12}", opt(row.best_file, 3));
        }
        s.push('\n');
    }
    let _ = write!(
        s,
        "worst seed first (the highest ratio X/A; a run failing where A did not first); * = \
         best of the compared runs on the seed"
    );
    if let Some(path) = &c.bests_file {
        let _ = write!(s, "; + = better than {}", path.display());
    }
    s.push('\n');
    s
}

/// The Wilcoxon test's own B/A (its centre of the log ratios) and the interval of the shifts
/// it does not reject, as a line; empty when it has none.
fn shift_text(p: &Pair, b: char, a: char) -> String {
    let Some(shift) = p.shift else {
        return String::new();
    };
    let end =
        |x: Option<f64>, none: &str| x.map_or(none.to_string(), |x| format!("{:.4}", x.exp()));
    format!(
        "  its {b}/{a} {:.4} (Hodges-Lehmann: the centre of ln({b}/{a}) it reads), 95% interval {} \
         to {} (the ratios it does not reject at 5%)\n",
        shift.estimate.exp(),
        end(shift.low, "0"),
        end(shift.high, "inf")
    )
}

/// The lines about one pair: wins, losses, ties, the ratio and the tests.
pub fn pair_lines(p: &Pair) -> String {
    let (a, b) = (label(p.a), label(p.b));
    let mut s = format!(
        "{b} vs {a}: {b} better on {}, worse on {}, equal on {} of {} paired seeds\n",
        p.wins, p.losses, p.ties, p.paired
    );
    if let Some(ratio) = p.ratio {
        let interval = match (p.ratio_interval, p.ratio_p) {
            (Some((lo, hi)), Some(pv)) => format!(
                ", 95% interval {lo:.4} to {hi:.4} (Student's t on ln({b}/{a}): p = {})",
                p_text(pv)
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "  {b}/{a} {ratio:.4}{interval}: the ratio of the scores (geometric mean), {} 1 = {b} \
             scores {} on average",
            if ratio < 1.0 { "below" } else { "above" },
            if ratio < 1.0 {
                "lower (better)"
            } else {
                "higher (worse)"
            }
        );
    }
    let t = &p.test;
    if t.n == 0 {
        s.push_str("  Wilcoxon signed-rank: no seed differs, nothing to test\n");
    } else {
        let _ = write!(
            s,
            "  Wilcoxon signed-rank on ln({b}/{a}): W+ = {}, W- = {} over {} unequal seeds, \
             z = {:.3}, p = {} (two-sided, normal approximation{})\n{}",
            t.w_plus,
            t.w_minus,
            t.n,
            t.z,
            p_text(t.p),
            if t.n < 10 {
                "; rough below 10 seeds"
            } else {
                ""
            },
            shift_text(p, b, a)
        );
    }
    let _ = writeln!(
        s,
        "  => {}",
        match p.verdict() {
            Some(true) => format!("{b} is better than {a} (significant at the 5% level)"),
            Some(false) => format!("{b} is worse than {a} (significant at the 5% level)"),
            None => "no significant difference at the 5% level (could be noise; more seeds \
                     would tell)"
                .to_string(),
        }
    );
    if !p.excluded.is_empty() {
        let list: Vec<String> = p
            .excluded
            .iter()
            .map(|(seed, why)| format!("{seed} ({why})"))
            .collect();
        let _ = writeln!(s, "  excluded seeds: {}", list.join(", "));
    }
    s
}

fn group_table(c: &Comparison) -> String {
    let k = c.runs.len();
    let mut s = String::new();
    let _ = write!(s, "{:>8} {:>5}", "group", "seeds");
    for i in 0..k {
        let _ = write!(s, " {:>8}", format!("{} rel", label(i)));
    }
    for b in 1..k {
        let _ = write!(
            s,
            " {:>10} {:>8} {:>7}",
            format!("{} vs A", label(b)),
            format!("{}/A", label(b)),
            "p"
        );
    }
    s.push('\n');
    for g in &c.groups {
        // `--group-by` labels hold the runs' [DATA] values: escaped like any file's text.
        let label = printable(&g.label, LABEL_MAX);
        let _ = write!(s, "{label:>8} {:>5}", g.seeds);
        for rel in &g.relative {
            let _ = write!(s, " {:>8}", opt(*rel, 3));
        }
        for p in &g.pairs {
            let wlt = format!("{}-{}-{}", p.wins, p.losses, p.ties);
            let pv = if p.test.n > 0 {
                p_text(p.test.p)
            } else {
                "-".into()
            };
            let _ = write!(s, " {wlt:>10} {:>8} {pv:>7}", opt(p.ratio, 4));
        }
        s.push('\n');
    }
    s.push_str("(rel: 100 * best of the compared runs / score; vs A: wins-losses-ties)\n");
    s
}

/// The whole text report: the runs, the per-seed table, then [`summary`].
pub fn report(c: &Comparison) -> String {
    let mut s = header(c);
    s.push('\n');
    s.push_str(&seed_table(c));
    s.push('\n');
    s.push_str(&summary(c));
    s
}

/// One line per run: its label and [`describe`].
pub fn header(c: &Comparison) -> String {
    let mut s = String::new();
    for (i, run) in c.runs.iter().enumerate() {
        let _ = writeln!(s, "{} = {}", label(i), describe(run));
    }
    if let Some(filter) = &c.filter {
        let _ = writeln!(
            s,
            "filter `{filter}`: only the seeds that pass are compared"
        );
    }
    for note in &c.notes {
        let _ = writeln!(s, "{}", printable(note, NOTE_MAX));
    }
    s
}

/// The most characters of a note about the runs (their folders are quoted in it).
const NOTE_MAX: usize = 1200;

/// Everything after the per-seed table: seed counts, relative scores, the pairs, the groups.
pub fn summary(c: &Comparison) -> String {
    let k = c.runs.len();
    let mut s = String::new();
    let common = c.common();
    let _ = writeln!(
        s,
        "seeds: {} in all, {common} in every run{}",
        c.rows.len(),
        if common < c.rows.len() {
            " (the others are left out of the relative scores and the paired figures)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "relative score (100 * best / yours, failed seeds 0, over the {common} seeds in every run):"
    );
    let rel_line = |with_file: bool| {
        (0..k)
            .map(|i| format!("{} {}", label(i), opt(c.relative(i, with_file), 3)))
            .collect::<Vec<_>>()
            .join("   ")
    };
    let _ = writeln!(
        s,
        "  best = best of the compared runs:   {}",
        rel_line(false)
    );
    match (&c.bests_file, &c.bests_note) {
        (Some(path), _) => {
            let _ = writeln!(s, "  best = also {}: {}", path.display(), rel_line(true));
        }
        (None, Some(note)) => {
            let _ = writeln!(s, "  ({note})");
        }
        (None, None) => {}
    }
    if (0..k).any(|i| c.gap(i).is_some()) {
        let gaps = (0..k)
            .map(|i| {
                let g = c.gap(i);
                let text = g.map_or("-".to_string(), |(g, n)| {
                    format!("{:.3} % ({n} seeds)", 100.0 * g)
                });
                format!("{} {text}", label(i))
            })
            .collect::<Vec<_>>()
            .join("   ");
        let _ = writeln!(
            s,
            "mean gap to the bound (100 * (score - bound) / score): {gaps}"
        );
    }
    s.push('\n');
    for p in &c.pairs {
        s.push_str(&pair_lines(p));
    }
    s.push('\n');
    s.push_str(&group_table(c));
    s
}

fn result_json(r: &Option<SeedResult>) -> Value {
    match r {
        None => Value::Null,
        Some(r) => json!({"status": r.status.as_str(), "score": r.score}),
    }
}

fn pair_json(p: &Pair) -> Value {
    json!({
        "a": label(p.a).to_string(),
        "b": label(p.b).to_string(),
        "paired": p.paired,
        "wins": p.wins,
        "losses": p.losses,
        "ties": p.ties,
        "ratio": p.ratio,
        "ratio_interval_95": p.ratio_interval.map(|(lo, hi)| [lo, hi]),
        "ratio_t_test_p": p.ratio_p,
        "wilcoxon": {
            "n": p.test.n, "zeros": p.test.zeros, "w_plus": p.test.w_plus,
            "w_minus": p.test.w_minus, "z": p.test.z, "p": p.test.p,
            "ratio": p.shift.map(|s| s.estimate.exp()),
            "ratio_interval_95": p.shift.map(|s| [s.low.map(f64::exp), s.high.map(f64::exp)]),
        },
        "verdict": match p.verdict() {
            Some(true) => "better",
            Some(false) => "worse",
            None => "no significant difference",
        },
        "excluded": p.excluded.iter().map(|(seed, why)| json!({"seed": seed, "why": why}))
            .collect::<Vec<_>>(),
    })
}

fn group_json(g: &Group) -> Value {
    json!({
        "group": g.label,
        "seeds": g.seeds,
        "relative": g.relative,
        "pairs": g.pairs.iter().map(pair_json).collect::<Vec<_>>(),
    })
}

/// The comparison as one JSON object (`--json`).
pub fn json(c: &Comparison) -> Value {
    let k = c.runs.len();
    json!({
        "runs": c.runs.iter().enumerate().map(|(i, r)| json!({
            "label": label(i).to_string(),
            "dir": r.dir.display().to_string(),
            "command": r.command,
            "time_limit": r.time_limit,
            "when": r.when,
            "comment": r.comment,
            "interrupted": r.interrupted,
            "git_commit": r.git_commit,
            "starved_seeds": c.starved[i],
        })).collect::<Vec<_>>(),
        "notes": c.notes,
        "bests_file": c.bests_file.as_ref().map(|p| p.display().to_string()),
        "bests_note": c.bests_note,
        "filter": c.filter,
        "seeds": c.rows.iter().map(|row| json!({
            "seed": row.seed, "N": row.n, "C": row.c,
            "results": row.results.iter().map(result_json).collect::<Vec<_>>(),
            "best_runs": row.best_runs,
            "best_file": row.best_file,
        })).collect::<Vec<_>>(),
        "common_seeds": c.common(),
        "relative": {
            "best_of_runs": (0..k).map(|i| c.relative(i, false)).collect::<Vec<_>>(),
            "with_bests_file": c.bests_file.as_ref()
                .map(|_| (0..k).map(|i| c.relative(i, true)).collect::<Vec<_>>()),
        },
        "gap": (0..k).map(|i| c.gap(i).map(|(g, _)| g)).collect::<Vec<_>>(),
        "pairs": c.pairs.iter().map(pair_json).collect::<Vec<_>>(),
        "groups": c.groups.iter().map(group_json).collect::<Vec<_>>(),
    })
}
