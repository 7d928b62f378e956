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
    // Issue 52: results.json holds what the table shows, per seed and per group.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r3/results.json")).unwrap())
            .unwrap();
    assert_eq!(doc["results"][0]["bound"], 100.0, "{doc}");
    let gap = doc["results"][0]["gap"]
        .as_f64()
        .expect("a gap in results.json");
    assert!((gap - 0.21875).abs() < 1e-12, "{gap}");
    assert!(doc["summary"]["gap"].is_f64(), "{}", doc["summary"]);
    assert!(
        doc["summary"]["by_c"]["2"]["gap"].is_f64(),
        "{}",
        doc["summary"]
    );
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

/// The cell of `column` (counted from the right, 0 = last) on the table line of `seed`.
fn cell(text: &str, seed: &str, from_right: usize) -> String {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(seed))
        .unwrap_or_else(|| panic!("no line for seed {seed}: {text}"));
    line.split_whitespace()
        .rev()
        .nth(from_right)
        .unwrap()
        .to_string()
}

#[test]
fn case9_a_bound_above_a_judged_score_is_named_and_left_out_of_the_gaps() {
    let dir = scratch("bounds_impossible");
    // The no-move answers score 128 (seed 1) and 8430 (seed 2): 1e308 is no lower bound of
    // seed 1, 100 is one of seed 2.
    let bounds = dir.join("b.json");
    std::fs::write(
        &bounds,
        r#"{"bounds": [{"seed": 1, "bound": 1e308, "source": "wrong"},
                       {"seed": 2, "bound": 100, "source": "right"}]}"#,
    )
    .unwrap();
    let b = bounds.to_str().unwrap();
    let warning = "seed 1: the bound 1e308 is above the judged score 128: impossible";
    let text = run(&dir, "r1", &fixture("data.sh"), &["--bounds", b]);
    assert_eq!(cell(&text, "1", 0), "!", "{text}");
    let gap2 = cell(&text, "2", 0);
    assert_eq!(gap2, "98.81", "{text}");
    assert!(text.contains(warning), "{text}");
    assert!(
        text.contains(
            "mean gap to the bound: 98.814 %  (over the 1 ok seeds with a bound; 1 \
                       impossible bound left out)"
        ),
        "{text}"
    );
    assert!(!text.contains("inf") && !text.contains("-498"), "{text}");
    let out = tester()
        .current_dir(&dir)
        .args(["rescore", "r1", "--bounds", b])
        .output()
        .unwrap();
    let text = ok_text(&out) + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains(warning) && text.contains("mean gap to the bound: 98.814 %"),
        "{text}"
    );
    run(&dir, "r2", &fixture("data.sh"), &[]);
    let compare = |extra: &[&str]| {
        let out = tester()
            .current_dir(&dir)
            .arg("compare")
            .args(extra)
            .output()
            .unwrap();
        ok_text(&out) + &String::from_utf8_lossy(&out.stderr)
    };
    let text = compare(&["r1", "r2", "--bounds", b]);
    assert!(text.contains(&format!("r1: {warning}")), "{text}");
    assert!(text.contains(&format!("r2: {warning}")), "{text}");
    assert!(
        text.contains(
            "mean gap to the bound (100 * (score - bound) / score): A 98.814 % (1 seeds)"
        ),
        "{text}"
    );
    // A merged run keeps the bound in its results.json; compare meets it there, without
    // --bounds, and checks it all the same.
    let out = tester()
        .current_dir(&dir)
        .args(["merge", "r1", "--out", "m", "--bounds", b])
        .output()
        .unwrap();
    let text = ok_text(&out) + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(warning), "{text}");
    let text = compare(&["m", "r2"]);
    assert!(text.contains(&format!("m: {warning}")), "{text}");
    assert!(!text.contains("inf %") && !text.contains("-498"), "{text}");
}

#[test]
fn bounds_that_are_no_numbers_are_named_and_a_huge_one_is_readable() {
    let dir = scratch("bounds_no_numbers");
    for (printed, said) in [
        (
            "nan",
            "[DATA] bound = nan is not a number >= 0: not recorded",
        ),
        (
            "inf",
            "[DATA] bound = inf is not a number >= 0: not recorded",
        ),
        (
            "16.7 junk",
            "[DATA] bound = 16.7 junk is not a number >= 0: not recorded",
        ),
        (
            "1e308",
            "[DATA] bound = 1e308 is not below the score 128: not recorded",
        ),
    ] {
        let solver = format!("echo '[DATA] bound = {printed}' >&2; echo 0");
        let out = tester()
            .current_dir(&dir)
            .args([
                "run",
                "--seeds",
                "1",
                "--quiet",
                "--no-build",
                "--force",
                "--out",
                "r",
            ])
            .args(["--exec", &solver, "--update-bounds", "--bounds", "b.json"])
            .output()
            .unwrap();
        let text = ok_text(&out) + &String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains(&format!("seed 1: {said}")),
            "{printed}: {text}"
        );
        assert!(text.contains("bounds: 0 raised"), "{printed}: {text}");
        assert!(!text.contains("10000000000"), "{printed}: {text}");
    }
}
