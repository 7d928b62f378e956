//! A replay as an animated GIF (`tester vis --gif`).
//!
//! The output is read and played like the judge does ([`crate::judge::judge`]); each frame is
//! the board after some number of moves, drawn by [`crate::raster`] with the web visualizer's
//! rules, and the frames are encoded by the `gif` crate (GIF89a, looping forever, one fixed
//! palette). A frame only stores the rectangle that changed since the one before.
//!
//! * **Long outputs are sampled.** A GIF of more than [`GifOptions::max_frames`] frames (at
//!   most [`MAX_FRAMES`]) would be large and slow to watch, so then the frames are that many
//!   boards spread evenly over the moves (the first and the last board always among them); each
//!   frame still shows the last move made before it and the whole path of the queen that made
//!   it.
//! * **Bounded work per frame.** A queen's path is kept merged by line ([`Trail`]), so a frame
//!   draws at most `(6N - 2) × N` pieces however many moves came before: a 54 000-move shuttle
//!   at N = 30 is drawn in seconds (stroking every move in every frame took hours). Frames go
//!   to the writer as they are made ([`write_gif`]), so memory holds three frames.
//! * **Invalid outputs play up to the failing move**, like the page: the last frame shows the
//!   board before it, the illegal move in red (when a move was illegal) and the judge's message.
//!   An output that fails before any move gives the starting board with the message.
//! * The last frame is held for [`END_HOLD_MS`] before the GIF starts again.
//!
//! # Examples
//!
//! ```
//! use tools::animation::{render_gif, GifOptions};
//! use tools::input::Input;
//!
//! // 3×3, one colour: two queens on row 0; move one down, then back.
//! let input = Input::new(3, 1, vec![1, 0, 1, 0, 0, 0, 0, 0, 0]).unwrap();
//! let gif = render_gif(&input, "2\n0 2 1 2\n1 2 0 2\n", "example", &GifOptions::default()).unwrap();
//! assert!(gif.bytes.starts_with(b"GIF89a"));
//! assert_eq!(gif.info.frames, 3);
//! assert!(gif.info.fatal.is_none());
//! ```

use std::borrow::Cow;
use std::io::Write;

use crate::input::Input;
use crate::output::{parse_output, Move};
use crate::raster::{paint_board, paint_scene, palette, Canvas, Geometry, Scene, Trail, BG};
use crate::replay::{Fatal, Replay};

/// How long the last frame stays before the GIF loops (ms).
pub const END_HOLD_MS: u32 = 2000;
/// Cell sizes `--gif-cell` accepts (pixels).
pub const CELL_RANGE: std::ops::RangeInclusive<u32> = 4..=64;
/// Frame delays `--gif-delay` accepts (ms; GIF stores hundredths of a second, and browsers
/// show delays under 20 ms as 100 ms).
pub const DELAY_RANGE: std::ops::RangeInclusive<u32> = 20..=10_000;
/// The widest board a GIF may have (pixels): beyond it a frame costs tens of megabytes.
pub const MAX_BOARD_PX: u32 = 4096;
/// The most frames `--gif-frames` accepts: 100 s of animation at the default delay. Each frame
/// costs a few milliseconds at the default cell size (up to about a second on the widest
/// board), so this bounds the time of any GIF; longer replays are sampled.
pub const MAX_FRAMES: usize = 1000;
/// Characters the caption needs for its numbers (`move 54000/54000  errors 100  penalty
/// 12345.678  score 15345.678` is 62); the frame widens for them on small boards.
const CAPTION_CHARS: usize = 62;

/// Options of a GIF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GifOptions {
    /// Cell side in pixels; `None` picks [`default_cell`].
    pub cell: Option<u32>,
    /// Time per frame (ms).
    pub delay_ms: u32,
    /// At most this many frames (2 to [`MAX_FRAMES`]); longer replays are sampled evenly.
    pub max_frames: usize,
}

impl Default for GifOptions {
    /// 100 ms per frame and at most 300 frames: half a minute at most, a few hundred KB for a
    /// 30×30 board.
    fn default() -> Self {
        GifOptions {
            cell: None,
            delay_ms: 100,
            max_frames: 300,
        }
    }
}

/// A GIF and what is in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Gif {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Frames, moves, size and verdict (what [`write_gif`] reports).
    pub info: GifInfo,
}

/// The default cell side for an `n × n` board: about 600 pixels of board, cells of 4 to 32.
pub fn default_cell(n: usize) -> u32 {
    (600 / n.max(1) as u32).clamp(4, 32)
}

/// The boards a GIF of a replay with `moves` moves shows, as move counts: every board when
/// there are at most `max_frames`, else `max_frames` counts spread evenly from 0 to `moves`.
///
/// # Panics
///
/// If `max_frames < 2`.
///
/// # Examples
///
/// ```
/// use tools::animation::frame_moves;
///
/// assert_eq!(frame_moves(3, 300), [0, 1, 2, 3]);
/// assert_eq!(frame_moves(100, 5), [0, 25, 50, 75, 100]);
/// ```
pub fn frame_moves(moves: usize, max_frames: usize) -> Vec<usize> {
    assert!(max_frames >= 2, "a GIF needs room for 2 frames");
    if moves < max_frames {
        return (0..=moves).collect();
    }
    let last = (max_frames - 1) as u128;
    (0..max_frames as u128)
        .map(|i| ((i * moves as u128 + last / 2) / last) as usize)
        .collect()
}

/// What the judge does with an output, kept for drawing: the legal moves, and how it failed.
struct Played {
    moves: Vec<Move>,
    illegal: Option<Move>,
    fatal: Option<Fatal>,
}

/// Plays `output` on `input` with the judge's checks, in the judge's order.
fn play(input: &Input, output: &str) -> Played {
    let parsed = match parse_output(output, input.n) {
        Ok(parsed) => parsed,
        Err(message) => {
            let fatal = Fatal {
                move_index: None,
                message,
            };
            return Played {
                moves: Vec::new(),
                illegal: None,
                fatal: Some(fatal),
            };
        }
    };
    let mut replay = Replay::new(input);
    for (index, (mv, line)) in parsed.moves.iter().zip(&parsed.lines).enumerate() {
        if replay.apply_line(*mv, line).is_err() {
            return Played {
                moves: parsed.moves[..index].to_vec(),
                illegal: Some(*mv),
                fatal: replay.fatal().cloned(),
            };
        }
    }
    let fatal = parsed.bad_line.map(|bad| Fatal {
        move_index: Some(bad.index),
        message: bad.message,
    });
    Played {
        moves: parsed.moves,
        illegal: None,
        fatal,
    }
}

/// Checks `opts` for a board of side `n`; returns the cell size to use.
///
/// # Examples
///
/// ```
/// use tools::animation::{checked_cell, GifOptions};
///
/// assert_eq!(checked_cell(30, &GifOptions::default()), Ok(20));
/// let many = GifOptions { max_frames: 1_000_000_000, ..GifOptions::default() };
/// assert_eq!(
///     checked_cell(30, &many).unwrap_err(),
///     "a GIF has at most 1000 frames (longer replays are sampled), not 1000000000"
/// );
/// ```
pub fn checked_cell(n: usize, opts: &GifOptions) -> Result<u32, String> {
    if !DELAY_RANGE.contains(&opts.delay_ms) {
        return Err(format!(
            "the frame delay must be {} to {} ms, not {}",
            DELAY_RANGE.start(),
            DELAY_RANGE.end(),
            opts.delay_ms
        ));
    }
    if opts.max_frames < 2 {
        return Err(format!(
            "a GIF needs at least 2 frames, not {}",
            opts.max_frames
        ));
    }
    if opts.max_frames > MAX_FRAMES {
        return Err(format!(
            "a GIF has at most {MAX_FRAMES} frames (longer replays are sampled), not {}",
            opts.max_frames
        ));
    }
    let cell = opts.cell.unwrap_or_else(|| default_cell(n));
    if !CELL_RANGE.contains(&cell) {
        return Err(format!(
            "the cell size must be {} to {} pixels, not {cell}",
            CELL_RANGE.start(),
            CELL_RANGE.end()
        ));
    }
    if cell as usize * n > MAX_BOARD_PX as usize {
        return Err(format!(
            "a {n}×{n} board with {cell} px cells is wider than {MAX_BOARD_PX} px: use at most {} px cells",
            MAX_BOARD_PX as usize / n
        ));
    }
    Ok(cell)
}

/// Builds the animated GIF of `output` replayed on `input`, in memory; `title` (say `seed 2`)
/// goes into the caption. [`write_gif`] does the same into any writer.
///
/// An invalid output is not an error here: its GIF stops at the failing move and says why
/// ([`GifInfo::fatal`] has the judge's message). Errors are about the options (delay, frame count,
/// cell size, see [`GifOptions`]).
pub fn render_gif(
    input: &Input,
    output: &str,
    title: &str,
    opts: &GifOptions,
) -> Result<Gif, String> {
    let mut bytes = Vec::new();
    let info = write_gif(&mut bytes, input, output, title, opts)?;
    Ok(Gif { bytes, info })
}

/// What [`write_gif`] wrote: [`Gif`] without the bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct GifInfo {
    /// Frames in the GIF.
    pub frames: usize,
    /// Moves replayed (legal moves before a fatal error).
    pub moves: usize,
    /// Whether frames were sampled (fewer frames than boards).
    pub sampled: bool,
    /// Frame size in pixels.
    pub width: u32,
    /// Frame size in pixels.
    pub height: u32,
    /// The judge's fatal error, if the output is invalid.
    pub fatal: Option<Fatal>,
}

/// Writes the animated GIF of `output` replayed on `input` to `sink` as it is drawn, frame by
/// frame, so that memory holds three frames whatever the number of frames ([`render_gif`]
/// says more). The options are checked ([`checked_cell`]) before anything is written.
///
/// # Complexity
///
/// `O(moves × log + frames × (W × H + N²))` time for frames of `W × H` pixels: each frame
/// draws the moving queen's path merged ([`Trail`]), at most `(6N - 2) × N` pieces however
/// long it is; memory `O(W × H + moves)`.
pub fn write_gif<W: Write>(
    sink: W,
    input: &Input,
    output: &str,
    title: &str,
    opts: &GifOptions,
) -> Result<GifInfo, String> {
    let cell = checked_cell(input.n, opts)?;
    let played = play(input, output);
    let geo = Geometry::new(input.n, cell, CAPTION_CHARS);
    let mut base = Canvas::new(geo.width, geo.height, BG);
    paint_board(&mut base, &geo, &input.grid);
    let shown = frame_moves(played.moves.len(), opts.max_frames);
    let mut encoder = Encoder::new(sink, &geo, input.c)?;
    let mut board = Board::new(input);
    for (i, &t) in shown.iter().enumerate() {
        while board.replay.moves_applied() < t {
            board.apply(played.moves[board.replay.moves_applied()]);
        }
        let last = i + 1 == shown.len();
        let mut canvas = base.clone();
        let caption = caption(&board, played.moves.len(), title, last.then_some(&played));
        let attacks = board.replay.attack_counts();
        let scene = Scene {
            grid: board.replay.grid(),
            attacks: &attacks,
            last_move: t.checked_sub(1).map(|k| played.moves[k]),
            path: board.moved_path(),
            illegal: played.illegal.filter(|_| last),
            caption: [&caption[0], &caption[1]],
            alert: last && played.fatal.is_some(),
        };
        paint_scene(&mut canvas, &geo, &scene);
        let delay = if last {
            opts.delay_ms.max(END_HOLD_MS)
        } else {
            opts.delay_ms
        };
        encoder.frame(canvas, delay)?;
    }
    encoder.finish()?;
    Ok(GifInfo {
        frames: shown.len(),
        moves: played.moves.len(),
        sampled: shown.len() < played.moves.len() + 1,
        width: geo.width,
        height: geo.height,
        fatal: played.fatal,
    })
}

/// The caption of a frame: the page's panel numbers, then the title, or on the last frame the
/// verdict (the judge's message for an invalid output).
fn caption(board: &Board, total: usize, title: &str, end: Option<&Played>) -> [String; 2] {
    let r = &board.replay;
    let n = r.n() as f64;
    let stats = format!(
        "move {}/{total}  errors {}  penalty {:.3}  score {:.3}",
        r.moves_applied(),
        r.errors(),
        r.penalty(),
        r.errors() as f64 * n + r.penalty()
    );
    let second = match end.and_then(|p| p.fatal.as_ref()) {
        Some(fatal) => format!("invalid output (score -1): {}", fatal.message),
        None if end.is_some() => format!("{title}  final score {:.3}", r.score()),
        None => title.to_string(),
    };
    [stats, second]
}

/// The board during the GIF's replay, with which queen stands where and where each has been.
struct Board {
    replay: Replay,
    /// `ids[cell]`: the queen on the cell (numbered in reading order at the start), or `NONE`.
    ids: Vec<usize>,
    /// Where each queen has been, merged by line (drawing it costs the same at any length).
    trails: Vec<Trail>,
    /// The queen that made the last move.
    moved: Option<usize>,
}

const NONE: usize = usize::MAX;

impl Board {
    fn new(input: &Input) -> Board {
        let mut ids = vec![NONE; input.grid.len()];
        let mut trails = Vec::new();
        for (cell, &v) in input.grid.iter().enumerate() {
            if v > 0 {
                ids[cell] = trails.len();
                trails.push(Trail::new(input.n, cell));
            }
        }
        Board {
            replay: Replay::new(input),
            ids,
            trails,
            moved: None,
        }
    }

    /// Plays a move the judge accepted.
    fn apply(&mut self, mv: Move) {
        let n = self.replay.n();
        let from = mv.r1 as usize * n + mv.c1 as usize;
        let to = mv.r2 as usize * n + mv.c2 as usize;
        self.replay
            .apply(mv)
            .expect("the move was accepted by the same replay before");
        let id = std::mem::replace(&mut self.ids[from], NONE);
        self.ids[to] = id;
        self.trails[id].push(to);
        self.moved = Some(id);
    }

    /// The path of the queen that made the last move (`None` before any move).
    fn moved_path(&self) -> Option<&Trail> {
        self.moved.map(|id| &self.trails[id])
    }
}

/// Encodes frames, each as the rectangle that changed since the frame before, in which the
/// pixels that did not change are transparent (long runs of one index, which LZW packs well).
struct Encoder<W: Write> {
    gif: gif::Encoder<W>,
    previous: Option<Canvas>,
    /// The palette index no drawing uses: "keep the pixel of the frame before".
    keep: u8,
}

/// The message of a GIF encoding error: the writer's (a full disk), or the format's.
fn gif_error(e: gif::EncodingError) -> String {
    format!("cannot write the GIF: {e}")
}

impl<W: Write> Encoder<W> {
    fn new(sink: W, geo: &Geometry, colours: usize) -> Result<Encoder<W>, String> {
        let (w, h) = (to_u16(geo.width)?, to_u16(geo.height)?);
        let mut colours = palette(colours);
        let keep = u8::try_from(colours.len() / 3).map_err(|_| "too many colours for a GIF")?;
        // Never shown: the colour of the transparent index.
        colours.extend([255, 0, 255]);
        let mut gif = gif::Encoder::new(sink, w, h, &colours).map_err(gif_error)?;
        gif.set_repeat(gif::Repeat::Infinite).map_err(gif_error)?;
        Ok(Encoder {
            gif,
            previous: None,
            keep,
        })
    }

    /// Adds `canvas` as the next frame, shown for `delay_ms`.
    fn frame(&mut self, canvas: Canvas, delay_ms: u32) -> Result<(), String> {
        let (left, top, width, height) = match &self.previous {
            Some(before) => changed(before, &canvas),
            None => (0, 0, canvas.width(), canvas.height()),
        };
        let stride = canvas.width() as usize;
        let keep = self.keep;
        let mut buffer = Vec::with_capacity(width as usize * height as usize);
        for y in top..top + height {
            let row =
                y as usize * stride + left as usize..y as usize * stride + (left + width) as usize;
            let now = &canvas.pixels()[row.clone()];
            match &self.previous {
                Some(before) => {
                    buffer.extend(now.iter().zip(&before.pixels()[row]).map(|(&p, &q)| {
                        if p == q {
                            keep
                        } else {
                            p
                        }
                    }))
                }
                None => buffer.extend_from_slice(now),
            }
        }
        let frame = gif::Frame {
            delay: (delay_ms / 10).min(u32::from(u16::MAX)) as u16,
            left: to_u16(left)?,
            top: to_u16(top)?,
            width: to_u16(width)?,
            height: to_u16(height)?,
            transparent: self.previous.is_some().then_some(keep),
            buffer: Cow::Owned(buffer),
            ..gif::Frame::default()
        };
        self.gif.write_frame(&frame).map_err(gif_error)?;
        self.previous = Some(canvas);
        Ok(())
    }

    /// Writes the GIF's end.
    fn finish(self) -> Result<W, String> {
        self.gif.into_inner().map_err(gif_error)
    }
}

fn to_u16(v: u32) -> Result<u16, String> {
    u16::try_from(v).map_err(|_| format!("a GIF side is at most 65535 pixels, not {v}"))
}

/// The smallest rectangle `(left, top, width, height)` holding every pixel that differs
/// between two canvases of one size; one pixel when none differs (a frame cannot be empty).
fn changed(before: &Canvas, after: &Canvas) -> (u32, u32, u32, u32) {
    let w = after.width() as usize;
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (y, (a, b)) in before
        .pixels()
        .chunks(w)
        .zip(after.pixels().chunks(w))
        .enumerate()
    {
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
        let last = a.iter().zip(b).rposition(|(p, q)| p != q).unwrap_or(0);
        x0 = x0.min(first);
        x1 = x1.max(last);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 == usize::MAX {
        return (0, 0, 1, 1);
    }
    (
        x0 as u32,
        y0 as u32,
        (x1 - x0 + 1) as u32,
        (y1 - y0 + 1) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_the_ends_and_stays_in_order() {
        for (moves, max) in [
            (0, 2),
            (1, 2),
            (2, 2),
            (54_000, 300),
            (299, 300),
            (300, 300),
            (7, 3),
        ] {
            let t = frame_moves(moves, max);
            assert_eq!(t.len(), (moves + 1).min(max), "{moves} {max}");
            assert_eq!((t[0], *t.last().unwrap()), (0, moves));
            assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        }
    }

    #[test]
    fn changed_rectangle() {
        let a = Canvas::new(5, 4, BG);
        assert_eq!(changed(&a, &a), (0, 0, 1, 1));
        let mut b = a.clone();
        use embedded_graphics::prelude::*;
        let Ok(()) = b.draw_iter([
            Pixel(Point::new(1, 2), crate::raster::Ink(3)),
            Pixel(Point::new(3, 1), crate::raster::Ink(3)),
        ]);
        assert_eq!(changed(&a, &b), (1, 1, 3, 2));
    }

    #[test]
    fn options_are_checked() {
        let input = Input::new(2, 1, vec![1, 0, 0, 0]).unwrap();
        let bad = |opts: GifOptions| render_gif(&input, "0\n", "", &opts).unwrap_err();
        let ok = GifOptions::default();
        assert!(bad(GifOptions { delay_ms: 5, ..ok }).contains("20 to 10000 ms"));
        assert!(bad(GifOptions {
            max_frames: 1,
            ..ok
        })
        .contains("at least 2 frames"));
        assert!(bad(GifOptions {
            max_frames: MAX_FRAMES + 1,
            ..ok
        })
        .contains("at most 1000 frames"));
        assert!(bad(GifOptions {
            cell: Some(3),
            ..ok
        })
        .contains("4 to 64 pixels"));
        let big = Input::new(128, 1, {
            let mut g = vec![0; 128 * 128];
            g[..128].fill(1);
            g
        })
        .unwrap();
        let e = render_gif(
            &big,
            "0\n",
            "",
            &GifOptions {
                cell: Some(40),
                ..ok
            },
        )
        .unwrap_err();
        assert!(e.contains("at most 32 px cells"), "{e}");
    }
}
