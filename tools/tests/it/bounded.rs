//! Bounded everything: outputs whose numbers or lines are huge are judged in bounded memory,
//! with the official answer and a bounded message, by `score`, `vis` and `rescore`.
//!
//! Memory is the largest resident size of the `tester` children (`getrusage`), so this file
//! holds only these tests (no other child can raise the figure).

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common;
use common::{scratch, tester};

/// The largest board the project accepts: N = 128, one colour, the queens on the diagonal.
fn big_input() -> String {
    let n = 128;
    let mut text = format!("{n}\n1\n");
    for r in 0..n {
        for c in 0..n {
            text.push_str(if r == c { "1\n" } else { "0\n" });
        }
    }
    text
}

/// Largest resident set so far of any waited-for child, in MB.
fn children_max_rss_mb() -> i64 {
    // SAFETY: getrusage only fills the zeroed struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    usage.ru_maxrss / 1024
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `score`, `vis` and `rescore` of `output` on the big board; returns what each said.
fn judge_everywhere(dir: &Path, output: &[u8]) -> [String; 3] {
    fs::write(dir.join("case.in"), big_input()).unwrap();
    fs::write(dir.join("out.txt"), output).unwrap();
    let run = dir.join("run");
    fs::create_dir_all(&run).unwrap();
    fs::write(run.join("1.in"), big_input()).unwrap();
    fs::write(run.join("1.out"), output).unwrap();
    let score = tester()
        .current_dir(dir)
        .args(["score", "--input", "case.in", "out.txt"])
        .output()
        .unwrap();
    let vis = tester()
        .current_dir(dir)
        .args(["vis", "--input", "case.in", "out.txt", "-o", "page.html"])
        .output()
        .unwrap();
    let rescore = tester()
        .current_dir(dir)
        .args(["rescore", "run"])
        .output()
        .unwrap();
    assert_eq!(rescore.status.code(), Some(0), "{:?}", text(&rescore));
    // `score` and `vis` exit 1 on an invalid output (its official line says -1), else 0.
    let invalid = text(&score).0.contains("Score = -1.0");
    let code = if invalid { 1 } else { 0 };
    assert_eq!(score.status.code(), Some(code), "{:?}", text(&score));
    assert_eq!(vis.status.code(), Some(code), "{:?}", text(&vis));
    [text(&score).0, text(&vis).1, text(&rescore).0]
}

#[test]
fn huge_counts_long_lines_and_bad_inputs_stay_bounded() {
    let dir = scratch("bounded-all");
    // A count above 2·N³: the official message, before anything is read.
    let said = judge_everywhere(&dir, b"2000000000\n0 0 1 0\n");
    let official = "Number of moves must between 0 and 4194304 inclusive";
    for s in &said {
        assert!(s.contains(official), "{s}");
    }
    // The largest legal count on a short text: nothing is reserved for it.
    let said = judge_everywhere(&dir, b"4194304\n0 0 1 0\n");
    for s in &said {
        assert!(s.contains("Cannot parse your output"), "{s}");
    }
    // One 100 MB move line: judged in about its size, quoted in at most ~100 bytes.
    let mut long = b"1\n".to_vec();
    long.extend(b"0 ".repeat(50_000_000));
    long.push(b'\n');
    let said = judge_everywhere(&dir, &long);
    for s in &said {
        assert!(
            s.contains("… (100000000 bytes)"),
            "{}",
            &s[..s.len().min(500)]
        );
        assert!(s.len() < 20_000, "a long message: {} bytes", s.len());
    }
    let rss = children_max_rss_mb();
    // The output file itself is 100 MB; the 2·N³ reservation alone would be 134 MB of moves
    // plus 134 MB of line slices, and the old judge needed ~1 GB for the long line.
    assert!(rss < 400, "a tester child used {rss} MB");

    // Bad boards are refused with exit 2 and a short message.
    let refuse = |case: &str| {
        fs::write(dir.join("bad.in"), case).unwrap();
        let out = tester()
            .current_dir(&dir)
            .args(["score", "--input", "bad.in", "out.txt"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        text(&out).1
    };
    // The rule: the message names the colour and its count.
    let err = refuse("3\n1\n1\n1\n0\n0\n0\n0\n0\n0\n0\n");
    assert!(err.contains("colour 1 has 2 queens"), "{err}");
    // A huge bad token is quoted in at most 80 bytes, escaped.
    let err = refuse(&format!("8\n\u{1b}{}\n", "x".repeat(10_000)));
    assert!(err.len() < 300 && err.contains("\\u{1b}"), "{err}");
}
