//! Tests of [`super::Params`]: names, ranges, defaults and the listing.

use super::*;

/// Every listed name takes its listed value back and yields the defaults unchanged;
/// the defaults are the constants the solver had before they became parameters.
#[test]
fn every_listed_name_round_trips() {
    let defaults = Params::default();
    let lines = defaults.lines();
    assert!(lines.len() >= 20, "{} parameters", lines.len());
    let mut all = Params::default();
    for line in &lines {
        let mut one = Params::default();
        one.apply(&format!("{}={}", line.name, line.value))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(one, defaults, "{}", line.name);
        all.set(line.name, &line.value).unwrap();
        assert!(!line.doc.is_empty(), "{} has no doc", line.name);
    }
    assert_eq!(all, defaults);
    // names are distinct
    let mut names: Vec<_> = lines.iter().map(|l| l.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), lines.len());
}

/// A sample of the old constants, by value.
#[test]
fn defaults_are_the_old_constants() {
    let p = Params::default();
    assert_eq!(
        (p.compute_share, p.compute_share_short, p.compute_share_long),
        (0.80, 0.70, 0.88)
    );
    assert_eq!((p.board_share, p.board_share_slow), (0.75, 0.85));
    assert_eq!((p.exact_keep, p.exact_keep_big, p.pool_size), (300, 20, 40));
    assert_eq!(
        (p.iterations_per_queen_min, p.iterations_per_queen_max),
        (1_500.0, 60_000.0)
    );
    assert_eq!(
        (p.t0_min, p.t0_max, p.t1, p.warm_t0),
        (1.0, 10.0, 0.05, 0.7)
    );
}

#[test]
fn a_change_reaches_its_field_only() {
    let mut p = Params::default();
    p.apply("pool_size=7").unwrap();
    p.apply(" t1 = 0.125").unwrap();
    assert_eq!((p.pool_size, p.t1), (7, 0.125));
    let back = Params {
        pool_size: 40,
        t1: 0.05,
        ..p
    };
    assert_eq!(back, Params::default());
}

#[test]
fn bad_overrides_are_refused_with_a_message() {
    let mut p = Params::default();
    let err = p.apply("no_such=1").unwrap_err();
    assert!(matches!(err, ParamError::Unknown(_)));
    assert!(err.to_string().contains("\"no_such\""));
    let err = p.apply("pool_size=lots").unwrap_err();
    assert!(err.to_string().contains("not a valid usize"), "{err}");
    let err = p.apply("pool_size=0").unwrap_err();
    assert!(err.to_string().contains("outside 1..=1000000"), "{err}");
    assert!(p.apply("board_share=NaN").is_err());
    assert!(p.apply("board_share=-0.1").is_err());
    assert!(matches!(
        p.apply("board_share").unwrap_err(),
        ParamError::NoEquals(_)
    ));
    // a huge value is quoted cut short
    let long = format!("t1={}", "9".repeat(10_000));
    assert!(p.apply(&long).unwrap_err().to_string().len() < 200);
    assert_eq!(p, Params::default());
}

#[test]
fn the_listing_has_one_line_per_parameter() {
    let listing = Params::default().listing();
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), Params::default().lines().len());
    assert!(lines
        .iter()
        .any(|l| l.starts_with("board_share = 0.75  # [0..=1] Share of the compute time")));
}

#[test]
fn the_listing_gives_whole_first_sentences() {
    let lines = [
        " A time limit of at least twice this many seconds is two runs, best kept: one of",
        " `first_run` seconds, then one of the rest (0: one run). Seeds 1201-1220 (never tuned",
        " on), e.g. more.",
    ];
    assert_eq!(
        first_sentence(&lines),
        "A time limit of at least twice this many seconds is two runs, best kept: one of \
         `first_run` seconds, then one of the rest (0: one run)."
    );
    assert_eq!(
        first_sentence(&[" Share (e.g. 0.5 s)."]),
        "Share (e.g. 0.5 s)."
    );
    assert_eq!(first_sentence(&[" No end"]), "No end");
    for line in Params::default().lines() {
        assert!(line.doc.ends_with('.'), "{}: {}", line.name, line.doc);
    }
}
