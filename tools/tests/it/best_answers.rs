//! The bundled best-known table: every entry of `testcases/bests.json` has its answer in
//! `testcases/best/SEED.out`, and the judge gives that answer exactly the recorded score.

use std::path::Path;
use tools::cli::bests::{Bests, Side};
use tools::gen::{generate, Ranges};
use tools::judge::judge;

fn testcases() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases")
}

#[test]
fn every_best_known_answer_rejudges_to_its_score() {
    let bests = Bests::load(&testcases().join("bests.json")).expect("testcases/bests.json");
    for seed in 1..=100 {
        assert!(
            bests.score(seed).is_some(),
            "seed {seed} has no best known answer"
        );
    }
    for (&seed, best) in &bests.seeds {
        let path = testcases().join(format!("best/{seed}.out"));
        let answer =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let verdict = judge(&generate(seed, &Ranges::default()).input, &answer);
        assert_eq!(verdict.error(), None, "seed {seed}");
        assert!(
            (verdict.score - best.score).abs() <= 1e-9 * best.score.max(1.0),
            "seed {seed}: judged {} but the table says {}",
            verdict.score,
            best.score
        );
    }
}

#[test]
fn the_reference_and_the_bounds_stay_below_or_at_the_best_known() {
    let bests = Bests::load(&testcases().join("bests.json")).expect("testcases/bests.json");
    let reference = Bests::load(&testcases().join("reference.json")).expect("reference.json");
    // The write-up's published scores are answers too: the best known is at most each.
    for (&seed, r) in &reference.seeds {
        let best = bests.score(seed).expect("a best for every reference seed");
        assert!(
            best <= r.score + 1e-9,
            "seed {seed}: best {best} above the reference"
        );
    }
    let bounds = Bests::load_side(&testcases().join("bounds.json"), Side::Bound)
        .expect("testcases/bounds.json");
    // A certified lower bound never exceeds a judged answer's score.
    for (&seed, b) in &bounds.seeds {
        if let Some(best) = bests.score(seed) {
            assert!(
                b.score <= best + 1e-9,
                "seed {seed}: bound {} above {best}",
                b.score
            );
        }
    }
}
