//! `tester compare --html`: one self-contained page (inline CSS and SVG, no script, no network)
//! with the per-seed table, the paired figures and the plots a contestant looks at:
//!
//! * score per seed, each run against `A` (log-log scatter with the diagonal);
//! * the ratio `X/A` against every numeric feature: N, C, P and the solver's numeric `[DATA]`
//!   keys (1 = no change);
//! * the relative score against the time limit, when the runs differ in it.
//!
//! The verdict and the seed table come first (with `--vis`, each seed linked to its page of
//! two answers side by side), the plots after them (drawn by [`super::plot`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::style::RGBColor;

use super::plot::{colour, span, svg, Plot, Series, SIZE};
use super::select::{feature_value, numeric_keys};
use super::text::{cell, header, summary};
use super::{label, Comparison, Row};
use crate::vis::escape_html;

/// The (A score, X score) points of seeds ok in both.
fn score_pairs(c: &Comparison, b: usize) -> Vec<(f64, f64)> {
    c.rows
        .iter()
        .filter_map(|r| Some((r.ok(0)?, r.ok(b)?)))
        .collect()
}

/// The (feature, X/A) points of seeds ok in both, for a numeric feature `key` (run X's value,
/// see [`feature_value`]).
fn ratio_points(c: &Comparison, b: usize, key: &str) -> Vec<(f64, f64)> {
    c.rows
        .iter()
        .filter_map(|r| {
            let x = feature_value(r, b, key)?;
            Some((x, Row::ratio(r.ok(0)?, r.ok(b)?)?))
        })
        .collect()
}

/// Data keys plotted at most (beyond N, C, P), so a solver printing hundreds of keys does not
/// bury the page.
const MAX_FEATURE_PLOTS: usize = 16;

/// The plots of the page, in order (title and SVG).
fn plots(c: &Comparison) -> Result<Vec<(String, String)>, String> {
    let k = c.runs.len();
    let mut out = Vec::new();
    for b in 1..k {
        let points = score_pairs(c, b);
        let (lo, hi) = span(points.iter().flat_map(|p| [p.0, p.1]), true).unwrap_or((1.0, 2.0));
        let title = format!(
            "score per seed: {b} against A (below the diagonal: {b} better)",
            b = label(b)
        );
        let (xd, yd) = (
            "A score (log)".to_string(),
            format!("{} score (log)", label(b)),
        );
        let plot = Plot {
            title: &title,
            x_desc: &xd,
            y_desc: &yd,
            log: true,
            whole: (false, false),
            series: vec![Series {
                name: format!("seeds (below the diagonal: {} better)", label(b)),
                colour: colour(b),
                points,
                line: false,
            }],
            reference: vec![(lo, lo), (hi, hi)],
        };
        out.extend(svg(&plot)?.map(|s| (title.clone(), s)));
    }
    for name in numeric_keys(c).iter().take(3 + MAX_FEATURE_PLOTS) {
        let series: Vec<Series> = (1..k)
            .map(|b| Series {
                name: format!("{}/A", label(b)),
                colour: colour(b),
                points: ratio_points(c, b, name),
                line: false,
            })
            .collect();
        let (lo, hi) = span(
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            false,
        )
        .unwrap_or((0.0, 1.0));
        let title = format!("score ratio against {name} (below 1: better than A)");
        let xd = match name.as_str() {
            "N" => "N (board side)".to_string(),
            "C" => "C (colours)".to_string(),
            "P" => "P (wall probability)".to_string(),
            _ => format!("{name} ([DATA] of the run)"),
        };
        let whole = series
            .iter()
            .all(|s| s.points.iter().all(|p| p.0.fract() == 0.0));
        let plot = Plot {
            title: &title,
            x_desc: &xd,
            y_desc: "score / A's score",
            log: false,
            whole: (whole, false),
            series,
            reference: vec![(lo, 1.0), (hi, 1.0)],
        };
        out.extend(svg(&plot)?.map(|s| (title.clone(), s)));
    }
    if let Some(plot) = time_limit_plot(c)? {
        out.push(plot);
    }
    Ok(out)
}

/// The relative score (best of the runs) of every seed against each run's time limit, with the
/// mean joined by a line; only when the runs differ in their time limit.
fn time_limit_plot(c: &Comparison) -> Result<Option<(String, String)>, String> {
    let limits: Vec<Option<f64>> = c.runs.iter().map(|r| r.time_limit).collect();
    let known: Vec<f64> = limits.iter().flatten().copied().collect();
    if known.len() < 2 || known.iter().all(|&t| t == known[0]) {
        return Ok(None);
    }
    let mut seeds = Series {
        name: "a seed of a run".to_string(),
        colour: RGBColor(120, 120, 120),
        points: Vec::new(),
        line: false,
    };
    let mut means = Series {
        name: "mean over the seeds".to_string(),
        colour: colour(0),
        points: Vec::new(),
        line: true,
    };
    for (i, limit) in limits.iter().enumerate() {
        let Some(t) = *limit else { continue };
        seeds.points.extend(
            c.rows
                .iter()
                .filter(|r| r.in_all())
                .filter_map(|r| Some((t, r.relative(i, false)?))),
        );
        if let Some(mean) = c.relative(i, false) {
            means.points.push((t, mean));
        }
    }
    means.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let title = "relative score against the time limit".to_string();
    let plot = Plot {
        title: &title,
        x_desc: "time limit (s)",
        y_desc: "100 * best of the runs / score",
        log: false,
        whole: (false, false),
        series: vec![seeds, means],
        reference: Vec::new(),
    };
    Ok(svg(&plot)?.map(|s| (title, s)))
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.2em;color:#222}\
h1{font-size:1.3em}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}\
.verdict{font-size:1.15em;margin:.3em 0}.verdict b.better{color:#1a7f37}\
.verdict b.worse{color:#c62828}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums}\
td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #eee}\
td.best{font-weight:bold;color:#1a7f37}td.fail{color:#c62828}\
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}\
figure{margin:0;border:1px solid #ddd}figure svg{display:block;width:100%;height:auto}";

/// The HTML table of the seeds; a seed with a side-by-side page (`links`, by seed and run
/// against `A`) links to it from its seed (the first run's page) and its ratio cells.
fn seed_table(c: &Comparison, links: &BTreeMap<(u64, usize), String>) -> String {
    let link = |seed: u64, b: usize, text: String| match links.get(&(seed, b)) {
        Some(href) => format!(
            "<a href=\"{}\" title=\"A and {} side by side\">{text}</a>",
            escape_html(href).replace('"', "&quot;"),
            label(b)
        ),
        None => text,
    };
    let k = c.runs.len();
    let mut s = String::from("<table id=\"seeds\"><thead><tr><th>seed</th><th>N</th><th>C</th>");
    for i in 0..k {
        let _ = write!(s, "<th>{}</th>", label(i));
    }
    for b in 1..k {
        let _ = write!(s, "<th>{}/A</th>", label(b));
    }
    if c.bests_file.is_some() {
        s.push_str("<th>file best</th>");
    }
    s.push_str("</tr></thead><tbody>\n");
    for row in c.worst_first() {
        let first = (1..k)
            .find(|&b| links.contains_key(&(row.seed, b)))
            .unwrap_or(1);
        let _ = write!(
            s,
            "<tr><td class=\"seed\">{}</td><td>{}</td><td>{}</td>",
            link(row.seed, first, row.seed.to_string()),
            row.n,
            row.c
        );
        for i in 0..k {
            let class = if row.is_best(i) {
                " class=\"best\""
            } else if row.results[i].is_some() && row.ok(i).is_none() {
                " class=\"fail\""
            } else {
                ""
            };
            let _ = write!(
                s,
                "<td{class}>{}</td>",
                escape_html(cell(row, i).trim_end())
            );
        }
        for b in 1..k {
            let ratio = row.ok(0).zip(row.ok(b)).and_then(|(a, x)| Row::ratio(a, x));
            let text = ratio.map_or("-".into(), |r| format!("{r:.4}"));
            let _ = write!(s, "<td>{}</td>", link(row.seed, b, text));
        }
        if c.bests_file.is_some() {
            let best = row.best_file.map_or("-".into(), |b| format!("{b:.3}"));
            let _ = write!(s, "<td>{best}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

/// The verdict of each run against `A`, first on the page: better, worse or no significant
/// difference, with the paired counts behind it.
fn verdicts(c: &Comparison) -> String {
    let mut s = String::from("<div id=\"verdict\">\n");
    for p in c.pairs.iter().filter(|p| p.a == 0) {
        let b = label(p.b);
        let (class, word) = match p.verdict() {
            Some(true) => ("better", format!("{b} is better than A")),
            Some(false) => ("worse", format!("{b} is worse than A")),
            None => ("", format!("no significant difference between {b} and A")),
        };
        let ratio = p.ratio.map_or(String::new(), |m| {
            format!(", {b}/A {m:.4} (geometric mean of the score ratios)")
        });
        let _ = writeln!(
            s,
            "<p class=\"verdict\"><b class=\"{class}\">{word}</b> (Wilcoxon p = {}; {b} better on \
             {}, worse on {}, equal on {} of {} paired seeds{ratio})</p>",
            super::text::p_text(p.test.p),
            p.wins,
            p.losses,
            p.ties,
            p.paired
        );
    }
    s.push_str("</div>\n");
    s
}

/// The whole page: the verdict, the runs, the seed table (linked to the side-by-side pages
/// of `links`), the summary, then the plots.
pub fn page(c: &Comparison, links: &BTreeMap<(u64, usize), String>) -> Result<String, String> {
    let labels: Vec<String> = (0..c.runs.len()).map(|i| label(i).to_string()).collect();
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>tester compare: {}</title><style>{STYLE}</style></head><body>\n\
         <h1>tester compare: {}</h1>\n{}<pre id=\"runs\">{}</pre>\n",
        labels.join(" vs "),
        labels.join(" vs "),
        verdicts(c),
        escape_html(&header(c))
    );
    s.push_str(
        "<h2>Seeds</h2>\n<p>Worst seed first (the highest ratio X/A; a run failing where A did \
         not first). Bold: best of the compared runs on the seed",
    );
    if let Some(path) = &c.bests_file {
        let _ = write!(
            s,
            "; + = better than {}",
            escape_html(&path.display().to_string())
        );
    }
    if !links.is_empty() {
        s.push_str("; a linked seed opens A and the other run side by side");
    }
    s.push_str(".</p>\n");
    s.push_str(&seed_table(c, links));
    s.push_str("<h2>Summary</h2>\n");
    let _ = writeln!(s, "<pre id=\"summary\">{}</pre>", escape_html(&summary(c)));
    s.push_str("<h2>Plots</h2>\n<div class=\"plots\">\n");
    for (title, plot) in plots(c)? {
        // Inline SVG in HTML needs no namespace: the page then names no URL at all. The plot
        // scales to its column (the viewBox keeps its proportions).
        let plot = plot
            .replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
            .replacen(
                &format!("width=\"{}\" height=\"{}\"", SIZE.0, SIZE.1),
                "",
                1,
            );
        let _ = writeln!(
            s,
            "<figure class=\"plot\" title=\"{}\">{plot}</figure>",
            escape_html(&title).replace('"', "&quot;")
        );
    }
    s.push_str("</div>\n</body></html>\n");
    Ok(s)
}
