//! `queenattack --list-params` and `--param NAME=VALUE`: every tuning parameter is listed,
//! every listed default is taken back, and bad overrides are refused with exit code 2.

use std::process::Output;

use crate::common;

fn run(args: &[&str], stdin: &[u8]) -> Output {
    common::run_with_input(env!("CARGO_BIN_EXE_queenattack"), args, stdin)
}

/// The listing as (name, value) pairs, checking the `name = value  # doc` shape of each line
/// (the doc a whole first sentence).
fn listing() -> Vec<(String, String)> {
    let out = run(&["--list-params"], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    text.lines()
        .map(|line| {
            let (name, rest) = line.split_once(" = ").unwrap_or_else(|| panic!("{line}"));
            let (value, doc) = rest.split_once("  # ").unwrap_or_else(|| panic!("{line}"));
            assert!(!name.is_empty() && !name.contains(' '), "{line}");
            assert!(!value.is_empty() && !doc.trim().is_empty(), "{line}");
            // A whole sentence, not a doc comment's first line cut mid-sentence.
            assert!(doc.ends_with('.'), "{line}");
            (name.to_string(), value.to_string())
        })
        .collect()
}

#[test]
fn list_params_prints_every_parameter() {
    let params = listing();
    assert!(params.len() >= 20, "only {} parameters", params.len());
    for name in [
        "compute_share",
        "board_share",
        "pool_size",
        "t1",
        "exact_keep",
    ] {
        assert!(params.iter().any(|(n, _)| n == name), "{name} missing");
    }
}

/// Every listed default given back as `--param` runs and answers legally, and on a tiny board
/// (solved to its optimum well inside any limit) the score is the one without any `--param`
/// (the moves may come in another order: reordering keeps changes of equal score until the
/// deadline).
#[test]
fn every_default_given_back_changes_nothing() {
    let overrides: Vec<String> = listing()
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let with_defaults = |limit: &'static str| {
        let mut args = vec!["--time-limit", limit];
        for o in &overrides {
            args.push("--param");
            args.push(o);
        }
        args.into_iter()
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let tiny = "4\n1\n1 1 1 1\n0 0 0 0\n0 0 0 0\n0 0 0 0\n";
    let tiny_input = tools::input::Input::parse(tiny).expect("parses");
    let args = with_defaults("0.5");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let with = run(&args, tiny.as_bytes());
    assert_eq!(
        with.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let without = run(&["--time-limit", "0.5"], tiny.as_bytes());
    let score = |out: &Output| {
        let verdict = tools::judge::judge(&tiny_input, &String::from_utf8_lossy(&out.stdout));
        assert_eq!(verdict.error(), None);
        verdict.score
    };
    assert_eq!(score(&with), score(&without));

    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testcases/1.in"),
    )
    .expect("testcases/1.in");
    let input = tools::input::Input::parse(&text).expect("official input parses");
    let out = run(&args, text.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let verdict = tools::judge::judge(&input, &String::from_utf8(out.stdout).unwrap());
    assert_eq!(verdict.error(), None);
}

/// An override that changes the run still gives a legal answer.
#[test]
fn an_override_is_used() {
    let text = common::random_board(12, 3, 5);
    let input = tools::input::Input::parse(&text).expect("parses");
    let args = [
        "--time-limit",
        "0.5",
        "--param",
        "pool_size=1",
        "--param",
        "t1=0.5",
    ];
    let out = run(&args, text.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let verdict = tools::judge::judge(&input, &String::from_utf8(out.stdout).unwrap());
    assert_eq!(verdict.error(), None);
}

#[test]
fn list_params_shows_the_overrides() {
    let out = run(&["--param", "pool_size=7", "--list-params"], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("pool_size = 7  # ")),
        "{text}"
    );
    let out = run(&["--param", "pool_size=0", "--list-params"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_params_exit_2_with_a_message() {
    let long = format!("t1={}", "9".repeat(5000));
    let cases: [(&str, &str); 6] = [
        ("no_such=1", "\"no_such\""),
        ("pool_size=lots", "not a valid usize"),
        ("pool_size=0", "outside 1..="),
        ("board_share=1.5", "outside 0..=1"),
        ("board_share", "is not NAME=VALUE"),
        (&long, "bytes)"),
    ];
    for (param, want) in cases {
        let out = run(&["--param", param], b"1 1 1");
        assert_eq!(out.status.code(), Some(2), "--param {param}");
        assert!(out.stdout.is_empty(), "--param {param}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "--param {param}: {err}");
        assert!(err.len() < 300, "--param {param}: message too long");
        assert!(!err.contains("panicked"), "--param {param}: {err}");
    }
}

/// Before: `--param compute_share_short=1` was taken (it is in its range 0..=1) and
/// `--time-limit 1` took 1.06 s: with the polish and the post-optimiser after it, a run
/// ended at 105 % of the limit. Shares whose runs end past 93 % of the limit are refused.
#[test]
fn shares_that_end_past_the_limit_are_refused() {
    for params in [
        &["compute_share_short=1"][..],
        &["compute_share_long=0.95"],
        &["compute_share=0.8", "improve_share=0.2"],
    ] {
        let mut args = vec!["--time-limit", "1"];
        for p in params {
            args.extend(["--param", p]);
        }
        let out = run(&args, b"1 1 1");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{params:?}: {err}");
        assert!(out.stdout.is_empty(), "{params:?}");
        assert!(err.contains("of the time limit"), "{params:?}: {err}");
        assert!(err.contains("may be at most"), "{params:?}: {err}");
    }
    // within the limit: taken
    let args = ["--time-limit", "1", "--param", "compute_share_short=0.85"];
    let out = run(&args, b"1 1 1");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
