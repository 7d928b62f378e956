//! The SVG plots of `tester compare --html`, drawn by `plotters` with its SVG backend (text as
//! SVG `<text>`, so no font file is needed), with the ticks of [`super::ticks`].

use std::error::Error;

use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::ticks::{tick_label, ticks, Ticked};

/// Pixel size of each plot.
pub const SIZE: (u32, u32) = (520, 380);

/// Colour of run `i` (`A` is the first).
pub fn colour(i: usize) -> RGBColor {
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
pub struct Series {
    /// The name in the legend.
    pub name: String,
    /// Colour of its points (and line).
    pub colour: RGBColor,
    /// The (x, y) points.
    pub points: Vec<(f64, f64)>,
    /// Join the points with a line (in the order given).
    pub line: bool,
}

/// What a plot shows.
pub struct Plot<'a> {
    /// The caption.
    pub title: &'a str,
    /// What the x axis shows.
    pub x_desc: &'a str,
    /// What the y axis shows.
    pub y_desc: &'a str,
    /// Log scale on both axes.
    pub log: bool,
    /// Whether the values on each axis (x, y) are whole numbers (so are the ticks).
    pub whole: (bool, bool),
    /// The series drawn.
    pub series: Vec<Series>,
    /// A grey reference line (the diagonal, or ratio 1).
    pub reference: Vec<(f64, f64)>,
}

/// Low and high ends of the values, widened a little (and to a positive span). Finite for any
/// finite values: the padding is computed from halves (the difference of `±f64::MAX` does not
/// overflow) and the ends are kept finite.
pub fn span(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
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
        let pad = if lo - pad < lo && hi + pad > hi {
            pad
        } else {
            1.0
        };
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
pub fn svg(plot: &Plot) -> Result<Option<String>, String> {
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
