//! The bounds file: `tester run --update-bounds` records the solvers' `[DATA] bound` lines,
//! refuses a bound above a reached score, and `run`, `rescore` and `compare` show each seed's
//! gap to its bound.

use crate::common::{fixture, ok_text, scratch, tester};
use std::path::Path;

fn run(dir: &Path, name: &str, solver: &str, extra: &[&str]) -> String {
    let out = tester()
        .current_dir(dir)
        .args([
            "run",
            "--seeds",
            "1-2",
            "--quiet",
            "--no-build",
            "--exec",
            solver,
        ])
        .args(["--out", name])
        .args(extra)
        .output()
        .unwrap();
    ok_text(&out) + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn bounds_are_recorded_checked_and_shown_as_gaps() {
    let dir = scratch("bounds_file");
    let bounds = dir.join("b.json");
    let b = bounds.to_str().unwrap();
    let text = run(
        &dir,
        "r1",
        &fixture("bound.sh"),
        &["--update-bounds", "--bounds", b],
    );
    assert!(text.contains("bounds: 2 raised in"), "{text}");
    let file = std::fs::read_to_string(&bounds).unwrap();
    assert!(file.contains("\"bounds\": ["), "{file}");
    assert!(
        file.contains("{\"seed\": 1, \"bound\": 100.0, \"source\": \"tester run "),
        "{file}"
    );
    // A claimed bound above the seed's own score is no lower bound: refused, file unchanged.
    let high = format!("{} high", fixture("bound.sh"));
    let text = run(&dir, "r2", &high, &["--update-bounds", "--bounds", b]);
    assert!(text.contains("bounds: 0 raised in"), "{text}");
    assert!(
        text.contains("is not below the score 128: not recorded"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&bounds).unwrap(), file);
    // Seed 1's no-move answer scores 128 against the bound 100: gap 21.875 %.
    let text = run(&dir, "r3", &fixture("data.sh"), &["--bounds", b]);
    let seed1 = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("1"))
        .unwrap();
    assert_eq!(seed1.split_whitespace().last(), Some("21.88"), "{text}");
    assert!(text.contains("mean gap to the bound: "), "{text}");
    let out = tester()
        .current_dir(&dir)
        .args(["rescore", "r3", "--bounds", b])
        .output()
        .unwrap();
    assert!(ok_text(&out).contains("mean gap to the bound: "));
    let out = tester()
        .current_dir(&dir)
        .args(["compare", "r1", "r3", "--bounds", b])
        .output()
        .unwrap();
    let text = ok_text(&out);
    assert!(
        text.contains("mean gap to the bound (100 * (score - bound) / score): A "),
        "{text}"
    );
    // Without a bounds file the column is there, with `-`.
    let text = run(&dir, "r4", &fixture("data.sh"), &[]);
    assert!(!text.contains("mean gap"), "{text}");
}
