//! `tester vis --gif`: the replay as an animated GIF, decoded back with the `gif` crate.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tools::gen::{generate, Ranges};
use tools::output::Move;
use tools::replay::{Replay, DIRECTIONS};

fn tester() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tester"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vis-gif-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// `count` legal one-step moves on the case of `seed`, picked by a fixed pseudo-random walk.
fn legal_moves(seed: u64, count: usize) -> Vec<Move> {
    let input = generate(seed, &Ranges::default()).input;
    let n = input.n as i32;
    let mut replay = Replay::new(&input);
    let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ seed;
    let mut moves = Vec::new();
    while moves.len() < count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let cell = (state % (n * n) as u64) as i32;
        let (dr, dc) = DIRECTIONS[(state >> 32) as usize % 8];
        let mv = Move::new(cell / n, cell % n, cell / n + dr, cell % n + dc);
        if replay.check(mv, "").is_ok() {
            replay.apply(mv).unwrap();
            moves.push(mv);
        }
    }
    moves
}

fn output_text(moves: &[Move]) -> String {
    let mut text = format!("{}\n", moves.len());
    for mv in moves {
        text += &format!("{mv}\n");
    }
    text
}

fn vis(dir: &Path, args: &[&str]) -> Output {
    tester()
        .arg("vis")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A decoded GIF: its size, global palette, and per frame the delay (1/100 s) and the
/// composited picture as palette indices.
pub struct Decoded {
    pub width: usize,
    palette: Vec<u8>,
    pub frames: Vec<(u16, Vec<u8>)>,
}

/// Decodes the GIF at `path` frame by frame (also for `hostile_gif`).
pub fn decode(path: &Path) -> Decoded {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options
        .read_info(fs::File::open(path).unwrap())
        .expect("a GIF the gif crate reads");
    let (width, height) = (decoder.width() as usize, decoder.height() as usize);
    let palette = decoder.global_palette().expect("a global palette").to_vec();
    let mut picture = vec![0u8; width * height];
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a valid frame") {
        let (left, top, w) = (
            frame.left as usize,
            frame.top as usize,
            frame.width as usize,
        );
        for (i, &p) in frame.buffer.iter().enumerate() {
            if Some(p) != frame.transparent {
                picture[(top + i / w) * width + left + i % w] = p;
            }
        }
        frames.push((frame.delay, picture.clone()));
    }
    Decoded {
        width,
        palette,
        frames,
    }
}

impl Decoded {
    /// How many pixels of frame `k` have the colour `rgb`.
    fn count(&self, k: usize, rgb: [u8; 3]) -> usize {
        let index: Vec<u8> = (0..self.palette.len() / 3)
            .filter(|&i| self.palette[3 * i..3 * i + 3] == rgb)
            .map(|i| i as u8)
            .collect();
        self.frames[k]
            .1
            .iter()
            .filter(|p| index.contains(p))
            .count()
    }
}

#[test]
fn gif_of_a_seed_has_a_frame_per_board() {
    let dir = scratch("seed");
    fs::write(dir.join("2.out"), output_text(&legal_moves(2, 40))).unwrap();
    let out = vis(&dir, &["--seed", "2", "2.out", "--gif", "2.gif"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("2.gif (41 frames") && err.contains("40 moves"),
        "{err}"
    );
    assert!(!dir.join("2.html").exists(), "no page without -o");
    let bytes = fs::read(dir.join("2.gif")).unwrap();
    assert!(bytes.starts_with(b"GIF89a"));
    let gif = decode(&dir.join("2.gif"));
    assert_eq!(gif.frames.len(), 41, "the start and one frame per move");
    // 100 ms per frame, the last one held 2 s.
    assert!(gif.frames[..40].iter().all(|f| f.0 == 10));
    assert_eq!(gif.frames[40].0, 200);
    // Seed 2 has six colours: every official colour is drawn, and frames differ.
    for rgb in [
        [0, 255, 255],
        [255, 0, 0],
        [0, 255, 0],
        [255, 0, 255],
        [255, 200, 0],
        [153, 102, 0],
    ] {
        assert!(gif.count(0, rgb) > 100, "{rgb:?}");
    }
    assert_ne!(gif.frames[0].1, gif.frames[1].1);
    // The move's arrow is drawn in the page's ink from the second frame on.
    assert!(gif.count(1, [31, 35, 40]) > gif.count(0, [31, 35, 40]));
    assert!(gif.width >= 600, "default cells of 20 px at N = 30");
}

#[test]
fn long_outputs_are_sampled_and_options_apply() {
    let dir = scratch("sampled");
    fs::write(dir.join("2.out"), output_text(&legal_moves(2, 500))).unwrap();
    let out = vis(
        &dir,
        &[
            "--seed",
            "2",
            "2.out",
            "--gif",
            "2.gif",
            "--gif-frames",
            "25",
            "--gif-delay",
            "50",
            "--gif-cell",
            "8",
            "-o",
            "2.html",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("25 frames, sampled evenly"), "{err}");
    assert!(dir.join("2.html").exists(), "-o and --gif write both");
    let gif = decode(&dir.join("2.gif"));
    assert_eq!(gif.frames.len(), 25);
    assert_eq!(gif.frames[0].0, 5);
    assert!(gif.width < 400, "8 px cells: {}", gif.width);
}

#[test]
fn invalid_output_stops_at_the_illegal_move() {
    let dir = scratch("invalid");
    let mut moves = legal_moves(2, 12);
    let last = moves[11];
    moves.push(Move::new(last.r2, last.c2, last.r2, last.c2));
    fs::write(dir.join("bad.out"), output_text(&moves)).unwrap();
    let out = vis(&dir, &["--seed", "2", "bad.out", "--gif", "bad.gif"]);
    let err = String::from_utf8_lossy(&out.stderr);
    // Shown, and the exit code says it is invalid, as `tester score`'s does.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("stops after move 12: Start and end locations cannot be the same"),
        "{err}"
    );
    let gif = decode(&dir.join("bad.gif"));
    assert_eq!(gif.frames.len(), 13);
    // The illegal move and the message are drawn in the page's red on the last frame only.
    let red = [198, 40, 40];
    assert_eq!(gif.count(11, red), 0);
    assert!(gif.count(12, red) > 50, "{}", gif.count(12, red));

    // An output that fails before any move: the starting board alone.
    fs::write(dir.join("short.out"), "5\n0 0 0 1\n").unwrap();
    let out = vis(&dir, &["--seed", "2", "short.out", "--gif", "short.gif"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1) && err.contains("Cannot parse your output"),
        "{err}"
    );
    let gif = decode(&dir.join("short.gif"));
    assert_eq!(gif.frames.len(), 1);
    assert!(gif.count(0, red) > 0);
}

#[test]
fn bad_gif_options_are_clear_errors() {
    let dir = scratch("errors");
    fs::write(dir.join("0.out"), "0\n").unwrap();
    for (args, needle) in [
        (
            vec!["--gif-delay", "5"],
            "--gif: the frame delay must be 20 to 10000 ms, not 5",
        ),
        (
            vec!["--gif-frames", "1"],
            "--gif: a GIF needs at least 2 frames, not 1",
        ),
        (
            vec!["--gif-cell", "65"],
            "--gif: the cell size must be 4 to 64 pixels, not 65",
        ),
        (
            vec!["--gif-cell", "x"],
            "invalid value 'x' for '--gif-cell <PX>'",
        ),
    ] {
        let mut all = vec!["--seed", "2", "0.out", "--gif", "x.gif"];
        all.extend(args);
        let out = vis(&dir, &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        assert!(!dir.join("x.gif").exists());
    }
    let out = vis(
        &dir,
        &["--seed", "2", "0.out", "--gif", "no/such/dir/x.gif"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write no/such/dir/x.gif"), "{err}");
    // --gif-* options need --gif, and something must be written.
    let out = vis(
        &dir,
        &["--seed", "2", "0.out", "-o", "x.html", "--gif-delay", "50"],
    );
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--gif"));
    let out = vis(&dir, &["--seed", "2", "0.out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--out") && err.contains("--gif"),
        "{err}"
    );
}
