//! The frames' colours: the page's colours (`visualizer/draw.js`) as one fixed GIF palette.

use embedded_graphics::pixelcolor::PixelColor;

/// A palette index: the colour type the frames are drawn in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ink(pub u8);

impl PixelColor for Ink {
    type Raw = ();
}

/// The page's background (`BG` of `draw.js`).
pub const BG: Ink = Ink(0);
pub(super) const CELL_A: Ink = Ink(1);
pub(super) const CELL_B: Ink = Ink(2);
pub(super) const WALL: Ink = Ink(3);
pub(super) const BORDER: Ink = Ink(4);
pub(super) const LABEL: Ink = Ink(5);
pub(super) const INK: Ink = Ink(6);
pub(super) const WHITE: Ink = Ink(7);
pub(super) const BAD: Ink = Ink(8);
pub(super) const ACCENT: Ink = Ink(9);
/// Tints of the last move's cells and of the illegal move's, over a light and a dark cell:
/// `[from on A, from on B, to on A, to on B]`.
pub(super) const MOVE_TINT: [Ink; 4] = [Ink(10), Ink(11), Ink(12), Ink(13)];
pub(super) const BAD_TINT: [Ink; 4] = [Ink(14), Ink(15), Ink(16), Ink(17)];
pub(super) const SHADOW: Ink = Ink(18);
pub(super) const HOT: Ink = Ink(19);
pub(super) const DARK: Ink = Ink(20);

pub(super) type Rgb = [u8; 3];

pub(super) const BG_RGB: Rgb = [245, 243, 238];
pub(super) const CELL_A_RGB: Rgb = [244, 240, 230];
pub(super) const CELL_B_RGB: Rgb = [231, 225, 211];
pub(super) const INK_RGB: Rgb = [31, 35, 40];
pub(super) const BAD_RGB: Rgb = [198, 40, 40];
pub(super) const ACCENT_RGB: Rgb = [47, 111, 222];

/// Colours 1..6 of the official tester (Java's Color constants and its brown).
pub(super) const OFFICIAL: [Rgb; 6] = [
    [0, 255, 255],
    [255, 0, 0],
    [0, 255, 0],
    [255, 0, 255],
    [255, 200, 0],
    [153, 102, 0],
];
/// Colours 7..16, as `draw.js` picked them (apart from the official six and the walls).
pub(super) const EXTRA: [Rgb; 10] = [
    [30, 80, 200],
    [128, 128, 0],
    [255, 150, 190],
    [110, 50, 170],
    [0, 128, 128],
    [128, 0, 0],
    [255, 120, 80],
    [20, 20, 20],
    [90, 200, 150],
    [180, 140, 255],
];

/// `top` drawn with opacity `alpha` over `bottom`.
fn blend(top: Rgb, bottom: Rgb, alpha: f64) -> Rgb {
    let mix = |t: u8, b: u8| (f64::from(t) * alpha + f64::from(b) * (1.0 - alpha)).round() as u8;
    [
        mix(top[0], bottom[0]),
        mix(top[1], bottom[1]),
        mix(top[2], bottom[2]),
    ]
}

/// HSL to RGB like `draw.js` (`h` in degrees, `s` and `l` in 0..=1).
fn hsl_to_rgb(h: f64, s: f64, l: f64) -> Rgb {
    let f = |n: f64| {
        let k = (n + h / 30.0) % 12.0;
        let a = s * l.min(1.0 - l);
        (255.0 * (l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0))).round() as u8
    };
    [f(0.0), f(8.0), f(4.0)]
}

/// The RGB of queen colour `k` (1-based) on the page: the official six, ten fixed ones, then
/// hues spread by the golden angle.
pub fn rgb_of(k: usize) -> [u8; 3] {
    match k {
        1..=6 => OFFICIAL[k - 1],
        7..=16 => EXTRA[k - 7],
        _ => {
            let i = k.saturating_sub(17);
            let h = (i as f64 * 137.508 + 200.0) % 360.0;
            hsl_to_rgb(
                h,
                0.55 + 0.2 * (i % 2) as f64,
                0.45 + 0.1 * ((i >> 1) % 2) as f64,
            )
        }
    }
}

/// The fixed colours, in the order of their [`Ink`] indices.
fn fixed_colours() -> Vec<Rgb> {
    let tint = |top, alpha| [blend(top, CELL_A_RGB, alpha), blend(top, CELL_B_RGB, alpha)];
    let [from_a, from_b] = tint(ACCENT_RGB, 0.10);
    let [to_a, to_b] = tint(ACCENT_RGB, 0.18);
    let [bad_from_a, bad_from_b] = tint(BAD_RGB, 0.15);
    let [bad_to_a, bad_to_b] = tint(BAD_RGB, 0.25);
    vec![
        BG_RGB,
        CELL_A_RGB,
        CELL_B_RGB,
        [140, 140, 140],
        [111, 106, 96],
        [138, 132, 120],
        INK_RGB,
        [255, 255, 255],
        BAD_RGB,
        ACCENT_RGB,
        from_a,
        from_b,
        to_a,
        to_b,
        bad_from_a,
        bad_from_b,
        bad_to_a,
        bad_to_b,
        // The path's dark underlay: the ink at 55 % over the board.
        blend(INK_RGB, CELL_A_RGB, 0.55),
        [58, 13, 13],
        [17, 17, 17],
    ]
}

/// Number of fixed palette entries before the queen colours.
pub(super) const FIXED: usize = 21;

/// The palette ink of queen colour `k` (1-based).
pub(super) fn queen_ink(k: i8) -> Ink {
    Ink((FIXED + k as usize - 1) as u8)
}

/// The palette (`r, g, b` per entry) of frames with queen colours `1..=colours`: the fixed
/// colours, then one entry per queen colour.
///
/// # Panics
///
/// If `colours` is more than `256 − 21` (a GIF palette holds 256 colours; boards have at most
/// 100).
pub fn palette(colours: usize) -> Vec<u8> {
    assert!(
        FIXED + colours <= 256,
        "{colours} colours do not fit a GIF palette"
    );
    let fixed = fixed_colours();
    debug_assert_eq!(fixed.len(), FIXED);
    fixed
        .into_iter()
        .chain((1..=colours).map(rgb_of))
        .flatten()
        .collect()
}

/// Dark or light ink for text on `rgb`, whichever reads better (`inkOn` of `draw.js`).
pub(super) fn ink_on(rgb: Rgb) -> Ink {
    let lum =
        (0.2126 * f64::from(rgb[0]) + 0.7152 * f64::from(rgb[1]) + 0.0722 * f64::from(rgb[2]))
            / 255.0;
    if lum > 0.5 {
        DARK
    } else {
        WHITE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_match_the_page() {
        // The values draw.js's rgbOf gives (run in node).
        assert_eq!(rgb_of(1), [0, 255, 255]);
        assert_eq!(rgb_of(7), [30, 80, 200]);
        assert_eq!(rgb_of(17), [52, 136, 178]);
        assert_eq!(rgb_of(18), [201, 29, 93]);
        assert_eq!(rgb_of(19), [88, 203, 77]);
        assert_eq!(rgb_of(67), [77, 87, 203]);
        let p = palette(6);
        assert_eq!(p.len(), 3 * (FIXED + 6));
        assert_eq!(&p[3 * (FIXED + 1)..3 * (FIXED + 2)], &[255, 0, 0]);
        assert_eq!(ink_on(rgb_of(1)), DARK);
        assert_eq!(ink_on(rgb_of(7)), WHITE);
    }
}
