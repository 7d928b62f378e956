//! Drawing one frame of a replay into an indexed image, with the web visualizer's rules.
//!
//! The page (`visualizer/draw.js`) draws on a canvas; the GIF writer (`animation`) needs the same
//! picture as pixels for a GIF. This module paints it with `embedded-graphics` (shapes and
//! bitmap fonts, no system font) into a [`Canvas`] of palette indices, so a frame goes to the
//! GIF encoder as it is, without colour quantization. The colours, sizes and layers follow
//! `draw.js`: the chequered board and gray walls, the cells of the last move, the path of the
//! queen that moved, the queens in their colours with their attacker counts, the move's arrow,
//! and the illegal move in red; below the board, a caption with the numbers of the page's panel.
//! Where the page blends with transparency, the palette holds the blended colour.
//!
//! # Examples
//!
//! ```
//! use tools::raster::{paint_board, paint_scene, Canvas, Geometry, Scene, BG};
//!
//! let grid = [1, 0, -1, 0]; // 2×2: a queen of colour 1 and a wall
//! let geo = Geometry::new(2, 20, 10); // N = 2, 20 px cells, 10 characters of caption
//! let mut canvas = Canvas::new(geo.width, geo.height, BG);
//! paint_board(&mut canvas, &geo, &grid);
//! let scene = Scene { grid: &grid, attacks: &[0; 4], caption: ["move 0/0", ""], ..Scene::default() };
//! paint_scene(&mut canvas, &geo, &scene);
//! assert_eq!(canvas.pixels().len(), (geo.width * geo.height) as usize);
//! ```

mod canvas;
mod colours;
#[cfg(test)]
mod path_tests;
mod trail;

use embedded_graphics::mono_font::{ascii, MonoFont, MonoTextStyle};
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{
    Circle, Line, PrimitiveStyle, PrimitiveStyleBuilder, Rectangle, StrokeAlignment, Triangle,
};
use embedded_graphics::text::{Alignment, Baseline, Text, TextStyleBuilder};

pub use canvas::Canvas;
use colours::{
    ink_on, queen_ink, ACCENT, BAD, BAD_TINT, BORDER, CELL_A, CELL_B, HOT, INK, LABEL, MOVE_TINT,
    SHADOW, WALL, WHITE,
};
pub use colours::{palette, rgb_of, Ink, BG};
pub use trail::Trail;

use crate::output::Move;

/// Lines of text under the board: the numbers, then the title or verdict (wrapped once).
pub const CAPTION_LINES: u32 = 3;

/// Label steps: every coordinate label, then every 2nd, 5th, 10th, … when they would overlap.
const LABEL_STEPS: [usize; 7] = [1, 2, 5, 10, 20, 50, 100];
/// The coordinate labels' font (5 px wide digits).
const LABEL_FONT: MonoFont<'static> = ascii::FONT_5X8;

/// Where things go in a frame: the board after a margin for the coordinates, and the caption's
/// [`CAPTION_LINES`] lines below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Board side `N`.
    pub n: usize,
    /// Cell side in pixels.
    pub cell: u32,
    /// Left and top margin of the board (room for the coordinate labels).
    pub margin: u32,
    /// Width of a frame.
    pub width: u32,
    /// Height of a frame.
    pub height: u32,
    /// The first row of the caption.
    pub caption_top: u32,
    /// Every how many rows and columns a coordinate label is drawn.
    pub label_step: usize,
    /// Characters that fit on a caption line.
    pub caption_chars: usize,
    /// The caption's font is the larger one (7×13 px rather than 6×10 px characters).
    pub caption_large: bool,
}

impl Geometry {
    /// The layout of an `n × n` board with cells of `cell` pixels and a caption of numbers
    /// that fit in `min_chars` characters (the frame widens for them if needed).
    pub fn new(n: usize, cell: u32, min_chars: usize) -> Geometry {
        let char_w = LABEL_FONT.character_size.width;
        let widest = char_w * n.saturating_sub(1).max(1).to_string().len() as u32;
        let margin = (widest + 6).max(14);
        let label_step = LABEL_STEPS
            .into_iter()
            .find(|&k| k as u32 * cell >= widest + 3)
            .unwrap_or(n.max(1));
        let board = margin + cell * n as u32 + 6;
        let caption_large = board >= 360;
        let font = caption_font(caption_large);
        let caption_w = 12 + font.character_size.width * min_chars as u32;
        let width = board.max(caption_w);
        let line = font.character_size.height + 3;
        Geometry {
            n,
            cell,
            margin,
            width,
            height: board + CAPTION_LINES * line + 6,
            caption_top: board,
            label_step,
            caption_chars: ((width - 12) / font.character_size.width) as usize,
            caption_large,
        }
    }

    /// The pixel centre of cell `(r, c)` (fractional, like the page's `centres`).
    fn centre(&self, r: i32, c: i32) -> (f64, f64) {
        let at = |i: i32| f64::from(self.margin) + (f64::from(i) + 0.5) * f64::from(self.cell);
        (at(c), at(r))
    }

    /// The top-left pixel of cell `(r, c)`.
    fn corner(&self, r: i32, c: i32) -> Point {
        let cell = self.cell as i32;
        Point::new(self.margin as i32 + c * cell, self.margin as i32 + r * cell)
    }
}

/// The caption's font: the larger one under boards of 360 pixels or more.
fn caption_font(large: bool) -> MonoFont<'static> {
    if large {
        ascii::FONT_7X13
    } else {
        ascii::FONT_6X10
    }
}

/// Paints what never changes during a replay (walls do not move): the background, the
/// chequered board with its walls, its border and the coordinate labels.
pub fn paint_board(canvas: &mut Canvas, geo: &Geometry, grid: &[i8]) {
    let full = Rectangle::new(Point::zero(), canvas.size());
    canvas.put(&full.into_styled(PrimitiveStyle::with_fill(BG)));
    let n = geo.n;
    let side = Size::new(geo.cell, geo.cell);
    for r in 0..n {
        for c in 0..n {
            let ink = match grid[r * n + c] {
                v if v < 0 => WALL,
                _ if (r + c) % 2 == 1 => CELL_B,
                _ => CELL_A,
            };
            let at = geo.corner(r as i32, c as i32);
            canvas.put(&Rectangle::new(at, side).into_styled(PrimitiveStyle::with_fill(ink)));
        }
    }
    let board = geo.cell * n as u32;
    let frame = Rectangle::new(geo.corner(0, 0), Size::new(board, board));
    canvas.put(&frame.into_styled(PrimitiveStyle::with_stroke(BORDER, 1)));
    let style = MonoTextStyle::new(&LABEL_FONT, LABEL);
    let centred = TextStyleBuilder::new()
        .alignment(Alignment::Center)
        .baseline(Baseline::Middle)
        .build();
    let edge = (geo.margin / 2) as i32;
    for i in (0..n).step_by(geo.label_step) {
        let (x, y) = geo.centre(i as i32, i as i32);
        let text = i.to_string();
        canvas.put(&Text::with_text_style(
            &text,
            Point::new(x as i32, edge),
            style,
            centred,
        ));
        canvas.put(&Text::with_text_style(
            &text,
            Point::new(edge, y as i32),
            style,
            centred,
        ));
    }
}

/// What one frame shows on top of the board.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scene<'a> {
    /// The cells, row-major (`-1` wall, `0` empty, `1..=C` queen colour).
    pub grid: &'a [i8],
    /// How many same-colour queens attack the queen on each cell.
    pub attacks: &'a [u32],
    /// The move that led to this board (its cells and arrow are drawn).
    pub last_move: Option<Move>,
    /// Where the queen of the last move has been (drawn when there is a last move).
    pub path: Option<&'a Trail>,
    /// The illegal move the replay stopped at (drawn in red).
    pub illegal: Option<Move>,
    /// The caption: a line of numbers, then a text wrapped over the other lines (both cut to
    /// fit with `...`).
    pub caption: [&'a str; 2],
    /// Draw the caption's text (the second entry) as an error, in red.
    pub alert: bool,
}

/// Paints `scene` over a canvas that holds [`paint_board`]'s picture, in `draw.js`'s layers.
pub fn paint_scene(canvas: &mut Canvas, geo: &Geometry, scene: &Scene<'_>) {
    if let Some(mv) = scene.last_move {
        paint_move_cells(canvas, geo, mv, MOVE_TINT, ACCENT);
        if let Some(trail) = scene.path {
            let colour = scene.grid[trail.at()];
            if colour > 0 {
                paint_path(canvas, geo, trail, colour);
            }
        }
    }
    paint_queens(canvas, geo, scene.grid, scene.attacks);
    if let Some(mv) = scene.last_move {
        let (x1, y1) = geo.centre(mv.r1, mv.c1);
        let (x2, y2) = geo.centre(mv.r2, mv.c2);
        let cell = f64::from(geo.cell);
        let lw = (cell * 0.09).max(2.0);
        arrow(canvas, (x1, y1), (x2, y2), INK, lw, cell * 0.3);
    }
    if let Some(mv) = scene.illegal {
        paint_illegal_move(canvas, geo, mv);
    }
    paint_caption(canvas, geo, scene);
}

/// Whether `(r, c)` is on the board.
fn on_board(geo: &Geometry, r: i32, c: i32) -> bool {
    let n = geo.n as i32;
    (0..n).contains(&r) && (0..n).contains(&c)
}

/// The tinted inner square of cell `(r, c)` with an outline, dashed or solid.
fn paint_cell_mark(
    canvas: &mut Canvas,
    geo: &Geometry,
    (r, c): (i32, i32),
    tint: [Ink; 2],
    outline: (Ink, u32, bool),
) {
    let at = geo.corner(r, c) + Point::new(1, 1);
    let side = geo.cell.saturating_sub(2);
    let fill = tint[((r + c) & 1) as usize];
    let square = Rectangle::new(at, Size::new(side, side));
    canvas.put(&square.into_styled(PrimitiveStyle::with_fill(fill)));
    let (ink, width, dashed) = outline;
    if !dashed {
        let style = PrimitiveStyleBuilder::new()
            .stroke_color(ink)
            .stroke_width(width)
            .stroke_alignment(StrokeAlignment::Inside)
            .build();
        canvas.put(&square.into_styled(style));
        return;
    }
    // Dashes of 3 pixels on, 3 off, around the square (the page's `[3, 3]` dash).
    let side = side as i32;
    let perimeter = (0..side)
        .map(|i| (i, 0))
        .chain((0..side).map(|i| (side - 1, i)))
        .chain((0..side).map(|i| (side - 1 - i, side - 1)))
        .chain((0..side).map(|i| (0, side - 1 - i)));
    let pixels = perimeter
        .enumerate()
        .filter(|(i, _)| (i / 3) % 2 == 0)
        .map(|(_, (x, y))| Pixel(at + Point::new(x, y), ink));
    let Ok(()) = canvas.draw_iter(pixels);
}

/// The cells of `mv`: where it starts (dashed) and where it ends (solid), if on the board.
fn paint_move_cells(canvas: &mut Canvas, geo: &Geometry, mv: Move, tints: [Ink; 4], ink: Ink) {
    let (from, to) = ([tints[0], tints[1]], [tints[2], tints[3]]);
    if on_board(geo, mv.r1, mv.c1) {
        paint_cell_mark(canvas, geo, (mv.r1, mv.c1), from, (ink, 1, true));
    }
    if on_board(geo, mv.r2, mv.c2) {
        paint_cell_mark(canvas, geo, (mv.r2, mv.c2), to, (ink, 2, false));
    }
}

/// The path of a queen of colour `colour`, in the page's strong (hovered) style: its merged
/// pieces ([`Trail::pieces`]) stroked with round ends, a shadow under all of them first, a dot
/// on each cell it stopped on, and a ring on its start.
///
/// Each piece and cell is drawn once, so a frame costs at most `(6N - 2) × N` strokes and `N²`
/// dots however long the path is (stroking every move of a 54 000-move shuttle took hours).
fn paint_path(canvas: &mut Canvas, geo: &Geometry, trail: &Trail, colour: i8) {
    if !trail.moved() {
        return;
    }
    let cell = f64::from(geo.cell);
    let n = geo.n as i32;
    let point = |i: usize| {
        let (x, y) = geo.centre(i as i32 / n, i as i32 % n);
        Point::new(x as i32, y as i32)
    };
    let pieces: Vec<(Point, Point)> = trail
        .pieces()
        .into_iter()
        .map(|(a, b)| (point(a), point(b)))
        .collect();
    let width = (cell * 0.16).round().max(1.0) as u32;
    stroke_pieces(canvas, &pieces, SHADOW, width + 2);
    stroke_pieces(canvas, &pieces, queen_ink(colour), width);
    let dot = (cell * 0.16).round().max(2.0) as u32;
    for stop in trail.stops() {
        canvas.put(
            &Circle::with_center(point(stop), dot).into_styled(PrimitiveStyle::with_fill(INK)),
        );
    }
    let start = PrimitiveStyleBuilder::new()
        .fill_color(queen_ink(colour))
        .stroke_color(INK)
        .stroke_width(1)
        .build();
    canvas.put(&Circle::with_center(point(trail.start()), 2 * dot).into_styled(start));
}

/// Straight pieces stroked `width` pixels wide with round ends (the page's `lineCap: round`):
/// where two pieces meet at an angle the corner is round.
fn stroke_pieces(canvas: &mut Canvas, pieces: &[(Point, Point)], ink: Ink, width: u32) {
    let style = PrimitiveStyle::with_stroke(ink, width);
    let cap = PrimitiveStyle::with_fill(ink);
    for &(a, b) in pieces {
        canvas.put(&Line::new(a, b).into_styled(style));
        for end in [a, b] {
            canvas.put(&Circle::with_center(end, width).into_styled(cap));
        }
    }
}

/// The font of the attacker counts on cells of `cell` pixels (the page: `0.44 × cell` px).
fn count_font(cell: u32, bold: bool) -> MonoFont<'static> {
    let px = (f64::from(cell) * 0.44).round().max(7.0) as u32;
    match (px, bold) {
        (..=7, _) => ascii::FONT_4X6,
        (8..=9, _) => ascii::FONT_5X8,
        (10..=11, _) => ascii::FONT_6X10,
        (12..=13, false) => ascii::FONT_7X13,
        (12..=13, true) => ascii::FONT_7X13_BOLD,
        (14..=16, false) => ascii::FONT_9X15,
        (14..=16, true) => ascii::FONT_9X15_BOLD,
        (_, false) => ascii::FONT_10X20,
        (_, true) => ascii::FONT_9X18_BOLD,
    }
}

/// The queens: a disc in the queen's colour, outlined darker when attacked, with the number of
/// same-colour queens attacking it on cells of 9 pixels or more.
fn paint_queens(canvas: &mut Canvas, geo: &Geometry, grid: &[i8], attacks: &[u32]) {
    let n = geo.n;
    let cell = f64::from(geo.cell);
    let diameter = (cell * 0.76).round().max(2.0) as u32;
    // On small cells a full outline would hide the colour.
    let thin = (cell / 12.0).min(1.0);
    let centred = TextStyleBuilder::new()
        .alignment(Alignment::Center)
        .baseline(Baseline::Middle)
        .build();
    for (i, &k) in grid.iter().enumerate() {
        if k <= 0 {
            continue;
        }
        let (x, y) = geo.centre((i / n) as i32, (i % n) as i32);
        let centre = Point::new(x as i32, y as i32);
        let a = attacks[i];
        let outline = if a > 0 {
            (HOT, 1.6 * thin)
        } else {
            (INK, thin)
        };
        let style = PrimitiveStyleBuilder::new()
            .fill_color(queen_ink(k))
            .stroke_color(outline.0)
            .stroke_width(outline.1.round().max(1.0) as u32)
            .stroke_alignment(StrokeAlignment::Inside)
            .build();
        canvas.put(&Circle::with_center(centre, diameter).into_styled(style));
        if geo.cell >= 9 {
            let font = count_font(geo.cell, a > 0);
            let ink = ink_on(rgb_of(k as usize));
            let text = a.to_string();
            let style = MonoTextStyle::new(&font, ink);
            canvas.put(&Text::with_text_style(&text, centre, style, centred));
        }
    }
}

/// An arrow from `from` towards `to` with a white halo, stopping `gap` short of `to` when the
/// arrow is long enough (not to hide the queen's number).
fn arrow(canvas: &mut Canvas, from: (f64, f64), to: (f64, f64), ink: Ink, lw: f64, gap: f64) {
    let (x1, y1) = from;
    let (mut x2, mut y2) = to;
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = dx.hypot(dy);
    if len < 1.0 {
        return;
    }
    let (ux, uy) = (dx / len, dy / len);
    let head = (lw * 3.2).max(8.0);
    if gap > 0.0 && len - gap > head * 1.5 {
        x2 -= ux * gap;
        y2 -= uy * gap;
    }
    let (bx, by) = (x2 - ux * head, y2 - uy * head);
    let (px, py) = (-uy * head * 0.55, ux * head * 0.55);
    let pt = |x: f64, y: f64| Point::new(x.round() as i32, y.round() as i32);
    let shaft = Line::new(pt(x1, y1), pt(bx, by));
    let width = lw.round() as u32;
    canvas.put(&shaft.into_styled(PrimitiveStyle::with_stroke(WHITE, width + 3)));
    let halo = Triangle::new(
        pt(x2 + ux * 1.5, y2 + uy * 1.5),
        pt(bx + px * 1.25 - ux, by + py * 1.25 - uy),
        pt(bx - px * 1.25 - ux, by - py * 1.25 - uy),
    );
    canvas.put(&halo.into_styled(PrimitiveStyle::with_fill(WHITE)));
    canvas.put(&shaft.into_styled(PrimitiveStyle::with_stroke(ink, width)));
    let tip = Triangle::new(pt(x2, y2), pt(bx + px, by + py), pt(bx - px, by - py));
    canvas.put(&tip.into_styled(PrimitiveStyle::with_fill(ink)));
}

/// The illegal move: its cells in red, its arrow and a cross on the target.
fn paint_illegal_move(canvas: &mut Canvas, geo: &Geometry, mv: Move) {
    let cell = f64::from(geo.cell);
    paint_move_cells(canvas, geo, mv, BAD_TINT, BAD);
    let start_on = on_board(geo, mv.r1, mv.c1);
    let end_on = on_board(geo, mv.r2, mv.c2);
    let (x1, y1) = geo.centre(mv.r1, mv.c1);
    let (x2, y2) = geo.centre(mv.r2, mv.c2);
    if start_on && end_on && (mv.r1, mv.c1) != (mv.r2, mv.c2) {
        arrow(canvas, (x1, y1), (x2, y2), BAD, (cell * 0.1).max(2.0), 0.0);
    }
    if end_on {
        let d = cell * 0.22;
        let pt = |x: f64, y: f64| Point::new(x.round() as i32, y.round() as i32);
        let style = PrimitiveStyle::with_stroke(BAD, 3);
        canvas.put(&Line::new(pt(x2 - d, y2 - d), pt(x2 + d, y2 + d)).into_styled(style));
        canvas.put(&Line::new(pt(x2 - d, y2 + d), pt(x2 + d, y2 - d)).into_styled(style));
    }
}

/// `text` cut to `chars` characters (with `...` when cut), ASCII only (the bitmap fonts).
fn fit(text: &str, chars: usize) -> String {
    let ascii: String = text
        .chars()
        .map(|ch| {
            if ch.is_ascii() && !ch.is_ascii_control() {
                ch
            } else {
                '?'
            }
        })
        .collect();
    if ascii.len() <= chars {
        return ascii;
    }
    let keep = chars.saturating_sub(3);
    format!("{}...", &ascii[..keep])
}

/// The caption below the board: the numbers on the first line, the text wrapped over the
/// others (in red for an error).
fn paint_caption(canvas: &mut Canvas, geo: &Geometry, scene: &Scene<'_>) {
    let font = caption_font(geo.caption_large);
    let line = font.character_size.height + 3;
    let area = Rectangle::new(
        Point::new(0, geo.caption_top as i32),
        Size::new(geo.width, geo.height - geo.caption_top),
    );
    canvas.put(&area.into_styled(PrimitiveStyle::with_fill(BG)));
    let mut lines = vec![(fit(scene.caption[0], geo.caption_chars), INK)];
    let text_ink = if scene.alert { BAD } else { INK };
    let mut rest = fit(scene.caption[1], usize::MAX);
    for k in 1..CAPTION_LINES {
        if rest.is_empty() {
            break;
        }
        // Break after the last space that fits (`fit` left ASCII only); the last line is cut.
        let mut cut = rest.len();
        if k + 1 < CAPTION_LINES && cut > geo.caption_chars {
            cut = rest[..geo.caption_chars]
                .rfind(' ')
                .map_or(geo.caption_chars, |space| space + 1);
        }
        lines.push((fit(rest[..cut].trim_end(), geo.caption_chars), text_ink));
        rest.drain(..cut);
    }
    for (i, (text, ink)) in lines.iter().enumerate() {
        let at = Point::new(6, (geo.caption_top + 3 + i as u32 * line) as i32);
        let style = MonoTextStyle::new(&font, *ink);
        canvas.put(&Text::with_baseline(text, at, style, Baseline::Top));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_cells_walls_and_queens_have_their_colours() {
        let grid = [1, 0, -1, 2];
        let geo = Geometry::new(2, 20, 10);
        let mut canvas = Canvas::new(geo.width, geo.height, BG);
        paint_board(&mut canvas, &geo, &grid);
        let at = |c: &Canvas, x: u32, y: u32| c.pixels()[(y * c.width() + x) as usize];
        let m = geo.margin;
        // Cell (0,1) light-dark chequer: (0,0) is A, (0,1) B; (1,0) is a wall.
        assert_eq!(at(&canvas, m + 30, m + 10), CELL_B.0);
        assert_eq!(at(&canvas, m + 10, m + 30), WALL.0);
        assert_eq!(at(&canvas, m + 3, m + 3), CELL_A.0);
        let scene = Scene {
            grid: &grid,
            attacks: &[0, 0, 0, 0],
            caption: ["move 0/0", ""],
            ..Scene::default()
        };
        paint_scene(&mut canvas, &geo, &scene);
        // A queen's disc near its centre but off its label: colour 1 at (0,0), 2 at (1,1).
        assert_eq!(at(&canvas, m + 10, m + 4), queen_ink(1).0);
        assert_eq!(at(&canvas, m + 30, m + 24), queen_ink(2).0);
        let inks: std::collections::HashSet<u8> = canvas.pixels().iter().copied().collect();
        assert!(inks.contains(&INK.0), "caption text is drawn");
    }

    #[test]
    fn long_captions_are_cut() {
        assert_eq!(fit("abcdef", 6), "abcdef");
        assert_eq!(fit("abcdefg", 6), "abc...");
        assert_eq!(fit("é", 3), "?");
    }
}
