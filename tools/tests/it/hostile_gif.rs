//! `tester vis --gif` on hostile but legal outputs (issue 35, case 2): time and memory stay
//! bounded however long one queen's path is, and `--gif-frames` has a documented maximum.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{scratch, tester};

/// N = 30, C = 1: the 30 queens on row 0, so the queen on (0,0) can shuttle down column 0.
fn board() -> String {
    let mut text = String::from("30\n1\n");
    for cell in 0..30 * 30 {
        text += if cell < 30 { "1\n" } else { "0\n" };
    }
    text
}

/// `moves` moves of the queen of (0,0) to (29,0) and back: legal for up to 2·30³ = 54 000.
fn shuttle(moves: usize) -> String {
    let mut text = format!("{moves}\n");
    for k in 0..moves {
        text += if k % 2 == 0 {
            "0 0 29 0\n"
        } else {
            "29 0 0 0\n"
        };
    }
    text
}

/// The case and an output in a fresh folder.
fn case(name: &str, output: &str) -> std::path::PathBuf {
    let dir = scratch(&format!("hostile-gif-{name}"));
    fs::write(dir.join("board.in"), board()).unwrap();
    fs::write(dir.join("a.out"), output).unwrap();
    dir
}

fn vis(dir: &Path, args: &[&str]) -> Command {
    let mut command = tester();
    command
        .args(["vis", "--input", "board.in", "a.out"])
        .args(args)
        .current_dir(dir);
    command
}

#[test]
fn a_54000_move_shuttle_gives_its_gif_in_bounded_time_and_memory() {
    // Before: every frame stroked the whole path, move by move (hours for this output, at
    // any number of frames). 60 frames, not the default 300: each frame is drawn and encoded
    // by the unoptimised test build (300 took 8.3 s of a loaded test run, issue 49); what is
    // tested is the 54 000 moves.
    let dir = case("shuttle", &shuttle(54_000));
    let args = ["--gif", "a.gif", "--gif-frames", "60"];
    let (out, peak) = common::run_within(vis(&dir, &args), Duration::from_secs(60));
    let out = out.expect("the GIF of 54 000 moves is written in under 60 s");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("(60 frames, sampled evenly") && err.contains("54000 moves"),
        "{err}"
    );
    assert!(fs::read(dir.join("a.gif")).unwrap().starts_with(b"GIF89a"));
    // A few frames and the parsed output: far under 200 MiB (0 where /proc is not there).
    assert!(peak < 200 * 1024, "peak memory {peak} KiB");
}

#[test]
fn gif_frames_has_a_documented_maximum() {
    let dir = case("frames", &shuttle(4));
    for (k, ok) in [("1000000000", false), ("1001", false), ("1000", true)] {
        let out = vis(&dir, &["--gif", "a.gif", "--gif-frames", k])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if ok {
            assert!(out.status.success(), "{k}: {err}");
            assert!(err.contains("(5 frames"), "{err}");
            fs::remove_file(dir.join("a.gif")).unwrap();
        } else {
            assert_eq!(out.status.code(), Some(2), "{k}: {err}");
            let message = format!(
                "--gif: a GIF has at most 1000 frames (longer replays are sampled), not {k}"
            );
            assert!(err.contains(&message) && !err.contains("panicked"), "{err}");
            assert!(!dir.join("a.gif").exists(), "nothing written for {k}");
        }
    }
    let help = tester().args(["vis", "--help"]).output().unwrap();
    // clap wraps the help to the terminal's width: the phrase is looked for across lines.
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("At most this many GIF frames (2..=1000)"),
        "{help}"
    );
}

#[test]
fn every_trip_of_a_shuttle_shows_the_same_board() {
    // 40 moves, a frame each: after every return the board, path and arrow are those of the
    // first return; only the caption's numbers under the board change.
    let dir = case("trips", &shuttle(40));
    let out = vis(&dir, &["--gif", "a.gif", "--gif-cell", "12"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gif = crate::vis_gif::decode(&dir.join("a.gif"));
    let width = gif.width;
    let frames: Vec<Vec<u8>> = gif.frames.into_iter().map(|(_, picture)| picture).collect();
    assert_eq!(frames.len(), 41);
    // The board ends above the caption: 14 px of labels, 30 cells of 12 px, 6 px of margin.
    let board = width * (14 + 30 * 12 + 6);
    for k in 4..=40 {
        let first = 2 + k % 2;
        assert!(
            frames[k][..board] == frames[first][..board],
            "frames {k} and {first}"
        );
    }
    // And the path is drawn: down the centre of column 0 (x = 14 + 6), most pixels between
    // the two ends differ from the empty board of frame 0.
    let changed = (14 + 18..14 + 29 * 12 - 6)
        .filter(|&y| frames[2][y * width + 20] != frames[0][y * width + 20])
        .count();
    assert!(changed > 300, "{changed}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_gif_that_cannot_be_written_is_an_error_and_removes_nothing_else() {
    // /dev/full takes the file but fails every write: the streamed GIF stops with a message,
    // and the device is left alone (only a plain file is removed after a failed write).
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = case("full", &shuttle(4));
    let out = vis(&dir, &["--gif", "/dev/full"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write") && !err.contains("panicked"),
        "{err}"
    );
    assert!(Path::new("/dev/full").exists());
}
