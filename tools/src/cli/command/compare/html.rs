//! `tester compare --html`: one self-contained page (inline CSS and SVG, no script, no network)
//! with the per-seed table, the paired figures and the plots a contestant looks at:
//!
//! * score per seed, each run against `A` (log-log scatter with the diagonal);
//! * the ratio `X/A` against every numeric feature: N, C, P and the solver's numeric `[DATA]`
//!   keys (1 = no change);
//! * the relative score against the time limit, when the runs differ in it.
//!
//! The plots are drawn by `plotters` with its SVG backend (text as SVG `<text>`, so no font
//! file is needed).

use std::error::Error;
use std::fmt::Write as _;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use std::collections::BTreeMap;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::combinators::LogCoord;

use super::select::{feature_value, numeric_keys};
use super::text::{cell, header, summary};
use super::ticks::{tick_label, ticks, Ticked};
use super::{label, Comparison, Row};
use crate::vis::escape_html;

/// Pixel size of each plot.
const SIZE: (u32, u32) = (520, 380);

/// Colour of run `i` (`A` is the first).
fn colour(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
        RGBColor(23, 190, 207),
    ];
    PALETTE[i % PALETTE.len()]
}

/// One series of points of a plot.
struct Series {
    name: String,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
    /// Join the points with a line (in the order given).
    line: bool,
}

/// What a plot shows.
struct Plot<'a> {
    title: &'a str,
    x_desc: &'a str,
    y_desc: &'a str,
    /// Log scale on both axes.
    log: bool,
    /// Whether the values on each axis (x, y) are whole numbers (so are the ticks).
    whole: (bool, bool),
    series: Vec<Series>,
    /// A grey reference line (the diagonal, or ratio 1).
    reference: Vec<(f64, f64)>,
}

/// Low and high ends of the values, widened a little (and to a positive span). Finite for any
/// finite values: the padding is computed from halves (the difference of `±f64::MAX` does not
/// overflow) and the ends are kept finite.
fn span(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold(None, |acc: Option<(f64, f64)>, v| {
            Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        })?;
    let finite = |v: f64| v.clamp(f64::MIN, f64::MAX);
    Some(if log {
        (lo / 1.15, finite(hi * 1.15))
    } else {
        let width = (hi / 2.0 - lo / 2.0) * 0.16;
        let pad = width.max(0.05 * hi.abs().max(lo.abs()));
        // One value (all seeds equal, or all 0): a readable span around it, not ±1e-10.
        let pad = if lo - pad < lo && hi + pad > hi { pad } else { 1.0 };
        (finite(lo - pad), finite(hi + pad))
    })
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// What a log axis shows: a value beyond sits on the edge. plotters' log key points never end
/// on a range near 1e-308 (`compare --html` on scores of 1e-308 ran for minutes); real scores
/// and their ratios lie far inside.
const LOG_RANGE: (f64, f64) = (1e-6, 1e12);

/// What a linear axis shows: a value beyond sits on the edge. plotters computes its key points
/// from the axis width, which must stay finite and well above the rounding error of its ends
/// (`compare --html` on a `[DATA]` value of `f64::MAX` never ended); real features lie far
/// inside.
const LINEAR_RANGE: f64 = 1e300;

/// `p` moved into [`LOG_RANGE`] on both axes (NaN stays NaN and is left out of the span).
fn clamp_log(p: (f64, f64)) -> (f64, f64) {
    let c = |v: f64| v.clamp(LOG_RANGE.0, LOG_RANGE.1);
    (c(p.0), c(p.1))
}

/// `p` moved into `±`[`LINEAR_RANGE`] on both axes (NaN stays NaN).
fn clamp_linear(p: (f64, f64)) -> (f64, f64) {
    let c = |v: f64| v.clamp(-LINEAR_RANGE, LINEAR_RANGE);
    (c(p.0), c(p.1))
}

/// Draws `plot` as an SVG document; `None` when it has no point to show.
fn svg(plot: &Plot) -> Result<Option<String>, String> {
    let clamp = if plot.log { clamp_log } else { clamp_linear };
    let clamped = Plot {
        series: plot
            .series
            .iter()
            .map(|s| Series {
                name: s.name.clone(),
                colour: s.colour,
                points: s.points.iter().copied().map(clamp).collect(),
                line: s.line,
            })
            .collect(),
        reference: plot.reference.iter().copied().map(clamp).collect(),
        ..*plot
    };
    let plot = &clamped;
    let all = || plot.series.iter().flat_map(|s| s.points.iter());
    let (Some(x), Some(y)) = (
        span(
            all().map(|p| p.0).chain(plot.reference.iter().map(|p| p.0)),
            plot.log,
        ),
        span(
            all().map(|p| p.1).chain(plot.reference.iter().map(|p| p.1)),
            plot.log,
        ),
    ) else {
        return Ok(None);
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        let (xt, xd) = ticks(x.0, x.1, plot.log, plot.whole.0);
        let (yt, yd) = ticks(y.0, y.1, plot.log, plot.whole.1);
        let decimals = (xd, yd);
        let drawn = if plot.log {
            let axis = |r: (f64, f64), points| Ticked {
                inner: LogCoord::from((r.0..r.1).log_scale()),
                points,
            };
            draw(&root, plot, axis(x, xt), axis(y, yt), decimals)
        } else {
            let axis = |r: (f64, f64), points| Ticked {
                inner: RangedCoordf64::from(r.0..r.1),
                points,
            };
            draw(&root, plot, axis(x, xt), axis(y, yt), decimals)
        };
        drawn.map_err(|e| format!("cannot draw the plot `{}`: {e}", plot.title))?;
    }
    Ok(Some(out))
}

/// Draws the axes (labels with `decimals`, see [`tick_label`]), the reference line, the series
/// and the legend on `root`.
fn draw<X, Y>(
    root: &Area,
    plot: &Plot,
    x: X,
    y: Y,
    decimals: (Option<usize>, Option<usize>),
) -> Result<(), Box<dyn Error>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(plot.title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(56)
        .build_cartesian_2d(x, y)?;
    let (dx, dy) = decimals;
    chart
        .configure_mesh()
        .x_desc(plot.x_desc)
        .y_desc(plot.y_desc)
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(&|v| tick_label(*v, dx))
        .y_label_formatter(&|v| tick_label(*v, dy))
        .light_line_style(RGBColor(246, 246, 246))
        .draw()?;
    if !plot.reference.is_empty() {
        chart.draw_series(LineSeries::new(
            plot.reference.iter().copied(),
            RGBColor(150, 150, 150).stroke_width(1),
        ))?;
    }
    for s in &plot.series {
        if s.line {
            chart.draw_series(LineSeries::new(
                s.points.iter().copied(),
                s.colour.stroke_width(2),
            ))?;
        }
        let c = s.colour;
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(move |&p| Circle::new(p, 3, c.mix(0.75).filled())),
            )?
            .label(s.name.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
    }
    // One series needs no legend (the title names it); several get one where points are
    // rarest (low ratios sit low left, high relative scores high right).
    if plot.series.len() > 1 {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(RGBColor(200, 200, 200))
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

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
    for row in &c.rows {
        let first = (1..k).find(|&b| links.contains_key(&(row.seed, b))).unwrap_or(1);
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
        let ratio = p
            .mean_ratio
            .map_or(String::new(), |m| format!(", mean ratio {b}/A {m:.4}"));
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
    s.push_str("<h2>Seeds</h2>\n<p>Bold: best of the compared runs on the seed");
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Draws `points` on a linear and on a log plot in another thread; fails when that takes
    /// longer than a generous bound (the old axis padding never ended on `f64::MAX`).
    fn draws_in_time(points: Vec<(f64, f64)>) {
        let (send, receive) = mpsc::channel();
        let shown = format!("{points:?}");
        std::thread::spawn(move || {
            let drawn: Vec<bool> = [false, true]
                .into_iter()
                .map(|log| {
                    let plot = Plot {
                        title: "t",
                        x_desc: "x",
                        y_desc: "y",
                        log,
                        whole: (false, false),
                        series: vec![Series {
                            name: "s".into(),
                            colour: colour(1),
                            points: points.clone(),
                            line: true,
                        }],
                        reference: points.iter().map(|p| (p.0, 1.0)).collect(),
                    };
                    matches!(svg(&plot), Ok(Some(_)))
                })
                .collect();
            let _ = send.send(drawn);
        });
        let drawn = receive
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no plot after 30 s for {shown}"));
        assert!(drawn[0], "no linear plot for {shown}");
    }

    #[test]
    fn any_finite_values_are_drawn_in_bounded_time() {
        let (max, tiny) = (f64::MAX, f64::from_bits(1));
        let sets: [&[f64]; 9] = [
            &[max, 0.0],
            &[-max, max],
            &[-max],
            &[max, max],
            &[tiny, 0.0],
            &[tiny],
            &[0.0, 0.0],
            &[1e300, 1e300 * (1.0 + f64::EPSILON)],
            &[-max, tiny, 0.0, 1.0, max],
        ];
        for values in sets {
            draws_in_time(values.iter().map(|&v| (v, 1.0)).collect());
            draws_in_time(values.iter().map(|&v| (1.0, v)).collect());
        }
    }

    #[test]
    fn spans_stay_finite_and_wide() {
        for (values, log) in [
            (vec![f64::MAX, 0.0], false),
            (vec![-f64::MAX, f64::MAX], false),
            (vec![f64::MAX], true),
            (vec![5e-324], false),
        ] {
            let (lo, hi) = span(values.iter().copied(), log).unwrap();
            assert!(
                lo.is_finite() && hi.is_finite() && lo < hi,
                "{values:?}: {lo} {hi}"
            );
        }
        assert_eq!(tick_label(1e300, Some(2)), "1e300");
        assert_eq!(tick_label(12.5, Some(1)), "12.5");
        // All seeds at one value: a span of readable width around it.
        assert_eq!(span([0.0, 0.0].into_iter(), false), Some((-1.0, 1.0)));
    }
}
