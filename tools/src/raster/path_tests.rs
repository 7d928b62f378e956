//! The merged path drawing against the drawing it replaced (one polyline through every cell the
//! queen stood on, 3b6cbf1): the same picture except within two strokes' width of the cells
//! where the path turns, whose corners are now round like the page's, and the side pixels of
//! diagonals, which the old drawing put one pixel left or right by the direction of travel.
//! (The old polyline also dropped parts of long self-crossing paths, drawn thin without their
//! shadow: the walks here are short enough for it to draw them whole.)

use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{Circle, Polyline, PrimitiveStyle, PrimitiveStyleBuilder};

use super::colours::{queen_ink, INK, SHADOW};
use super::{paint_board, paint_path, Canvas, Geometry, Trail, BG};

/// The drawing before the merge, kept as the reference: a polyline through all the cells, then
/// a dot on every cell between the first and the last, then the start ring.
fn polyline_path(canvas: &mut Canvas, geo: &Geometry, cells: &[usize], colour: i8) {
    let cell = f64::from(geo.cell);
    let n = geo.n as i32;
    let points: Vec<Point> = cells
        .iter()
        .map(|&i| {
            let (x, y) = geo.centre(i as i32 / n, i as i32 % n);
            Point::new(x as i32, y as i32)
        })
        .collect();
    let width = (cell * 0.16).round().max(1.0) as u32;
    let ink = queen_ink(colour);
    canvas.put(&Polyline::new(&points).into_styled(PrimitiveStyle::with_stroke(SHADOW, width + 2)));
    canvas.put(&Polyline::new(&points).into_styled(PrimitiveStyle::with_stroke(ink, width)));
    let dot = (cell * 0.16).round().max(2.0) as u32;
    for p in &points[1..points.len() - 1] {
        canvas.put(&Circle::with_center(*p, dot).into_styled(PrimitiveStyle::with_fill(INK)));
    }
    let start = PrimitiveStyleBuilder::new()
        .fill_color(ink)
        .stroke_color(INK)
        .stroke_width(1)
        .build();
    canvas.put(&Circle::with_center(points[0], 2 * dot).into_styled(start));
}

/// Both drawings of the walk `cells` on an empty `n × n` board with `cell` px cells.
fn both(n: usize, cell: u32, cells: &[usize]) -> (Geometry, Canvas, Canvas) {
    let geo = Geometry::new(n, cell, 10);
    let mut base = Canvas::new(geo.width, geo.height, BG);
    paint_board(&mut base, &geo, &vec![0; n * n]);
    let mut old = base.clone();
    polyline_path(&mut old, &geo, cells, 1);
    let mut trail = Trail::new(n, cells[0]);
    for &to in &cells[1..] {
        trail.push(to);
    }
    let mut new = base;
    paint_path(&mut new, &geo, &trail, 1);
    (geo, old, new)
}

/// The pixels where the two canvases differ, as `(x, y)`.
fn differences(a: &Canvas, b: &Canvas) -> Vec<(i32, i32)> {
    let w = a.width() as usize;
    a.pixels()
        .iter()
        .zip(b.pixels())
        .enumerate()
        .filter(|(_, (p, q))| p != q)
        .map(|(i, _)| ((i % w) as i32, (i / w) as i32))
        .collect()
}

/// Whether `canvas` has the colour `ink` within one pixel of `(x, y)`.
fn has_near(canvas: &Canvas, (x, y): (i32, i32), ink: u8) -> bool {
    let (w, h) = (canvas.width() as i32, canvas.height() as i32);
    (x - 1..=x + 1).any(|u| {
        (y - 1..=y + 1).any(|v| {
            (0..w).contains(&u)
                && (0..h).contains(&v)
                && canvas.pixels()[(v * w + u) as usize] == ink
        })
    })
}

/// The pixels where the canvases differ by more than a one-pixel shift: the other canvas has
/// not this pixel's colour within one pixel of it.
fn real_differences(old: &Canvas, new: &Canvas) -> Vec<(i32, i32)> {
    let at = |c: &Canvas, (x, y): (i32, i32)| c.pixels()[(y * c.width() as i32 + x) as usize];
    differences(old, new)
        .into_iter()
        .filter(|&p| !has_near(old, p, at(new, p)) || !has_near(new, p, at(old, p)))
        .collect()
}

/// Checks that the drawings of `cells` differ only near the cells where the path turns (and
/// its two ends), or by a pixel's shift, for several cell sizes; returns how many pixels
/// differ by more than a shift.
fn differ_only_at_corners(n: usize, cells: &[usize]) -> usize {
    let mut total = 0;
    // Not 32 px: there the old polyline's corner code overflows an `i32` inside
    // embedded-graphics (a panic in debug builds) on the walk of the test below.
    for cell in [4, 9, 20] {
        let (geo, old, new) = both(n, cell, cells);
        let stroke = (f64::from(cell) * 0.16).round().max(1.0) as i32 + 2;
        let corners: Vec<(i32, i32)> = cells
            .iter()
            .map(|&i| {
                let (x, y) = geo.centre((i / n) as i32, (i % n) as i32);
                (x as i32, y as i32)
            })
            .collect();
        let diff = real_differences(&old, &new);
        for &(x, y) in &diff {
            let near = corners
                .iter()
                .map(|&(cx, cy)| (x - cx).abs().max((y - cy).abs()))
                .min()
                .unwrap();
            assert!(
                near <= 2 * stroke,
                "cell {cell}: pixel ({x}, {y}) differs {near} px from the nearest corner"
            );
        }
        total += diff.len();
    }
    total
}

#[test]
fn a_straight_walk_differs_only_under_its_queen() {
    let n = 8;
    // Along row 0 in three moves, and down the main diagonal in two: no corner at all. Only
    // the round end on the last cell is new (the queen standing there hides it), and side
    // pixels of the diagonal may shift by one.
    for walk in [[0, 2, 5, 7].as_slice(), &[0, 3 * n + 3, 7 * n + 7]] {
        for cell in [4, 9, 20, 32] {
            let (geo, old, new) = both(n, cell, walk);
            let last = walk[walk.len() - 1];
            let (x, y) = geo.centre((last / n) as i32, (last % n) as i32);
            // The queen's disc: `paint_queens`' diameter, halved.
            let queen = (f64::from(cell) * 0.76).round().max(2.0) as i32 / 2;
            for (u, v) in real_differences(&old, &new) {
                let away = (u - x as i32).abs().max((v - y as i32).abs());
                assert!(
                    away <= queen,
                    "cell {cell}: ({u}, {v}) is {away} px from the queen"
                );
            }
        }
    }
}

#[test]
fn turns_differ_only_at_the_corners() {
    let n = 8;
    let at = |r: usize, c: usize| r * n + c;
    // Rows, columns, both diagonals, a return to the start and a reversal.
    let walk = [
        at(0, 0),
        at(0, 5),
        at(5, 5),
        at(2, 2),
        at(2, 6),
        at(6, 2),
        at(6, 7),
        at(0, 7),
        at(0, 0),
        at(7, 0),
        at(3, 0),
    ];
    differ_only_at_corners(n, &walk);
}

#[test]
fn a_long_shuttle_draws_like_its_first_trip() {
    // The case: one queen between (0,0) and (29,0). However many trips, the picture
    // is the one of a single trip there and back (the dots and the ring on the same cells).
    let n = 30;
    let (top, bottom) = (0, 29 * n);
    let trip: Vec<usize> = (0..=2).map(|k| [top, bottom][k % 2]).collect();
    let long: Vec<usize> = (0..=400).map(|k| [top, bottom][k % 2]).collect();
    for cell in [4, 20] {
        let (_, _, short) = both(n, cell, &trip);
        let (_, old, new) = both(n, cell, &long);
        assert_eq!(differences(&short, &new), [], "cell {cell}");
        // The old drawing of the long shuttle is the same apart from its two turning cells.
        assert!(
            differences(&old, &new).len() < 4 * (cell * cell) as usize,
            "cell {cell}"
        );
    }
    differ_only_at_corners(n, &long[..9]);
}
