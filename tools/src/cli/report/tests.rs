use super::*;

fn result(seed: u64, n: usize, c: usize, status: Status, score: f64) -> SeedResult {
    SeedResult {
        seed,
        n,
        c,
        p: Some(0.1),
        status,
        score,
        errors: 0,
        moves: 3,
        penalty: 1.5,
        wall_ms: Some(12),
        cpu_ms: Some(11),
        wait_ms: Some(1),
        message: (status != Status::Ok).then(|| "boom".to_string()),
        data: [("probe".to_string(), json!(7))].into(),
        bound: None,
    }
}

fn bests_of(scores: &[(u64, f64)]) -> Bests {
    let mut bests = Bests::default();
    for &(seed, score) in scores {
        bests.improve(seed, score, "");
    }
    bests
}

#[test]
fn relative_scores() {
    let bests = bests_of(&[(1, 50.0), (2, 10.0)]);
    let rs = [
        result(1, 8, 1, Status::Ok, 100.0),      // 50
        result(2, 30, 1, Status::Ok, 5.0),       // better than the best: 100
        result(3, 20, 2, Status::Timeout, -1.0), // 0
        result(4, 20, 2, Status::Ok, 7.0),       // no best known: 100
    ];
    assert_eq!(rs[0].relative(Some(&bests)), Some(50.0));
    assert_eq!(rs[1].relative(Some(&bests)), Some(100.0));
    assert_eq!(rs[2].relative(Some(&bests)), Some(0.0));
    assert_eq!(rs[3].relative(None), None);
    let g = Group::of(&rs, Some(&bests));
    assert_eq!((g.seeds, g.ok), (4, 3));
    assert_eq!(g.relative, Some(62.5));
    assert!((g.mean.unwrap() - 112.0 / 3.0).abs() < 1e-12);
    let text = summary(&rs, Some(&bests));
    assert!(text.contains("sum of scores (ok seeds): 112.000"), "{text}");
    let failed = summary(&rs[2..3], Some(&bests));
    assert!(
        failed.contains("sum of scores (ok seeds): 0.000"),
        "{failed}"
    );
    assert!(
        text.contains("seeds 4  ok 3  invalid 0  timeout 1  crash 0"),
        "{text}"
    );
    assert!(text.contains("relative score: 62.500"), "{text}");
    assert!(text.contains("C=2"), "{text}");
    assert!(text.contains("N=19-24"), "{text}");
    let js = summary_json(&rs, Some(&bests));
    assert_eq!(js["by_c"]["2"]["seeds"], 2);
    assert_eq!(js["by_n"]["25-30"]["relative"], 100.0);
}

#[test]
fn a_rounding_of_the_file_s_score_is_not_marked_as_the_run_s() {
    // Issue 52: seed 8 scored 21.73658396076715 against the file's 21.736583960767152 (the
    // same moves summed in another order): no `*`, the file's best is used.
    let bests = bests_of(&[(8, 21.736583960767152), (9, 30.0)]);
    let rs = [
        result(8, 19, 1, Status::Ok, 21.73658396076715),
        result(9, 19, 1, Status::Ok, 29.999),
    ];
    assert_eq!(
        rs[0].best_used(Some(&bests)),
        Some((21.736583960767152, false))
    );
    assert_eq!(rs[1].best_used(Some(&bests)), Some((29.999, true)));
    let t = table(&rs, Some(&bests));
    let seed8 = t
        .lines()
        .find(|l| l.trim_start().starts_with("8 "))
        .unwrap();
    assert!(seed8.contains("21.737 "), "{t}");
    assert!(!seed8.contains('*'), "{t}");
}

#[test]
fn best_column_shows_the_best_the_relative_score_used() {
    // Issue 13 item 5: seed 1's file best is 17.529, the run scored 16.938: the best
    // column must show 16.938 (marked as the run's own) next to rel 100.00.
    let bests = bests_of(&[(1, 17.529), (2, 10.0)]);
    let rs = [
        result(1, 8, 1, Status::Ok, 16.938),
        result(2, 8, 1, Status::Ok, 20.0),
        result(3, 8, 1, Status::Ok, 7.0),
        result(2, 8, 1, Status::Crash, -1.0),
    ];
    assert_eq!(rs[0].best_used(Some(&bests)), Some((16.938, true)));
    assert_eq!(rs[1].best_used(Some(&bests)), Some((10.0, false)));
    assert_eq!(rs[2].best_used(Some(&bests)), Some((7.0, true)));
    assert_eq!(rs[3].best_used(Some(&bests)), Some((10.0, false)));
    assert_eq!(rs[0].best_used(None), None);
    let t = table(&rs, Some(&bests));
    let line = |seed: &str| {
        t.lines()
            .find(|l| l.split_whitespace().next() == Some(seed))
            .unwrap()
            .split_whitespace()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
    };
    // gap%, rel, best (read from the right)
    assert_eq!(line("1"), ["-", "100.00", "16.938*"], "{t}");
    assert_eq!(line("2"), ["-", "50.00", "10.000"], "{t}");
    assert_eq!(line("3"), ["-", "100.00", "7.000*"], "{t}");
    assert!(t.contains("this run's (marked *)"), "{t}");
    // Without a bests file: no best, no legend.
    let plain = table(&rs[..1], None);
    assert!(
        plain.lines().nth(1).unwrap().ends_with("-       -      -"),
        "{plain}"
    );
    assert!(!plain.contains("marked *"), "{plain}");
}

#[test]
fn json_round_trip() {
    let r = result(7, 9, 3, Status::Invalid, -1.0);
    assert_eq!(SeedResult::from_json(&r.to_json()).unwrap(), r);
    let t = table(&[r], None);
    assert!(
        t.contains("invalid") && t.contains("seed 7 invalid: boom"),
        "{t}"
    );
}

#[test]
fn gaps_come_from_the_bounds_file() {
    let mut bounds = Bests {
        side: crate::cli::bests::Side::Bound,
        ..Bests::default()
    };
    bounds.improve(1, 15.0, "proof");
    bounds.improve(2, 5.0, "relaxation");
    // a bound can only rise
    assert!(!bounds.improve(2, 4.0, "weaker"));
    let mut rs = vec![
        result(1, 8, 1, Status::Ok, 15.0),
        result(2, 8, 2, Status::Ok, 20.0),
        result(3, 8, 2, Status::Ok, 7.0),
        result(2, 8, 2, Status::Crash, -1.0),
    ];
    assert_eq!(set_bounds(&mut rs, Some(&bounds)), Vec::<String>::new());
    assert_eq!(rs[0].gap(), Some(0.0));
    assert_eq!(rs[1].gap(), Some(0.75));
    assert_eq!(rs[2].gap(), None, "seed 3 has no bound");
    assert_eq!(rs[3].gap(), None, "a failed run has no gap");
    let t = table(&rs, None);
    let last = |seed: &str| {
        t.lines()
            .find(|l| l.split_whitespace().next() == Some(seed))
            .and_then(|l| l.split_whitespace().last())
            .unwrap()
            .to_string()
    };
    assert_eq!(last("1"), "0.00", "{t}");
    assert_eq!(last("3"), "-", "{t}");
    assert!(t.contains("gap% = 100 * (score - bound) / score"), "{t}");
    let g = Group::of(&rs, None);
    assert_eq!(g.gap, Some(0.375));
    let text = summary(&rs, None);
    assert!(
        text.contains("mean gap to the bound: 37.500 %  (over the 2 ok seeds"),
        "{text}"
    );
    let js = summary_json(&rs, None);
    assert_eq!(js["gap"], json!(0.375));
    // the bound travels in results.json
    assert_eq!(SeedResult::from_json(&rs[1].to_json()).unwrap(), rs[1]);
}
