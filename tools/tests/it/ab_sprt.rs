//! The error rates of `tester ab`'s sequential test (the GSPRT and the sign test together,
//! `walk.rs`), checked on simulated streams of pair statistics rather than assumed: with A = B
//! the test accepts B at most α of the time, and with B truly better by δ it accepts at least
//! 1 − β of the time, each within a binomial margin of three standard deviations over
//! [`TESTS`] simulated tests; a clear win (B 10 % better on most pairs, with ties and losses) is
//! accepted within 20 pairs, a B that crashes on every pair rejected at 15. The streams are normal,
//! Student-t with 3 degrees of freedom (heavy tails), a mixture (most pairs close, one in ten
//! five times as spread), half exact ties and half normal, and real seeds: the 40 pairs measured with one queenattack build on
//! both sides at 1 s (docs/benchmarks.md, "solver.md: how to tune (moved)"; 21 of them exactly
//! equal), drawn with replacement and shifted. Draws are quantiles (statrs) of uniform numbers from a seeded
//! generator, so every run sees the same streams.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use tools::cli::command::ab::sprt::{Sprt, Verdict, CLIP, FAILURE, MIN_PAIRS};
use tools::cli::command::ab::walk::{Rule, Walk};

/// Simulated tests per case.
const TESTS: usize = 20_000;

/// The per-pair standard deviation of the simulated streams (about the measured noise of the
/// solver at 1 s, see docs/solver.md "How to tune" and its log).
const SIGMA: f64 = 0.03;

const SPRT: Sprt = Sprt {
    delta: 0.01,
    alpha: 0.05,
    beta: 0.05,
};

/// `ln(score_B / score_A)` of 40 pairs of `tester ab --time-limit 1 --jobs 2 --max-pairs 40`
/// with the same build on both sides (seeds 10001 and up; sd 0.0164).
const MEASURED: [f64; 40] = [
    -0.006076, 0.003183, 0.0, 0.0, 0.0, 0.047278, 0.0, -0.024693, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, -0.055919, -0.009547, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.015067, 0.0, -0.004045,
    0.0, 0.026031, 0.003806, 0.0, 0.030635, 0.004965, -0.046609, 0.0, 0.0, 0.0, 0.0, -0.020894,
];

/// The shape of a stream of pair statistics around its mean.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Normal,
    StudentT3,
    Mixture,
    /// [`MEASURED`] less its mean, drawn with replacement.
    Measured,
    /// Half the pairs exact ties (`x = 0`, as two equal scores give), the others normal around
    /// twice the mean with `√2` times the spread (so the mean and spread stay the stream's).
    Ties,
}

const SHAPES: [Shape; 5] = [
    Shape::Normal,
    Shape::StudentT3,
    Shape::Mixture,
    Shape::Measured,
    Shape::Ties,
];

/// A uniform number in (0, 1), never 0 or 1 (the quantiles there are infinite).
fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    ((rng.random::<u64>() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// One draw of `shape` with mean `mean` and spread [`SIGMA`].
fn draw(shape: Shape, mean: f64, rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u = uniform(rng);
    match shape {
        Shape::Normal => Normal::new(mean, SIGMA).unwrap().inverse_cdf(u),
        // Variance 3 · scale²: scaled to SIGMA.
        Shape::StudentT3 => StudentsT::new(mean, SIGMA / 3f64.sqrt(), 3.0)
            .unwrap()
            .inverse_cdf(u),
        Shape::Mixture => {
            let wide = rng.random::<f64>() < 0.1;
            let sd = if wide { 5.0 * SIGMA } else { SIGMA };
            Normal::new(mean, sd).unwrap().inverse_cdf(u)
        }
        Shape::Ties => {
            if rng.random::<f64>() < 0.5 {
                0.0
            } else {
                Normal::new(2.0 * mean, SIGMA * 2f64.sqrt())
                    .unwrap()
                    .inverse_cdf(u)
            }
        }
        Shape::Measured => {
            let centre = MEASURED.iter().sum::<f64>() / MEASURED.len() as f64;
            let i = ((u * MEASURED.len() as f64) as usize).min(MEASURED.len() - 1);
            MEASURED[i] - centre + mean
        }
    }
}

/// What [`TESTS`] (or `tests`) simulated tests did: the share that accepted B, the mean
/// number of pairs they read, and the share of the verdicts the sign test gave.
struct Rates {
    accepted: f64,
    pairs: f64,
    by_sign: f64,
}

/// Runs `tests` simulated tests on pairs from `next` (clipped as the real statistic is).
fn simulate(tests: usize, sprt: Sprt, mut next: impl FnMut() -> f64) -> Rates {
    let (mut accepted, mut pairs, mut by_sign) = (0, 0, 0);
    for _ in 0..tests {
        let mut walk = Walk::new(sprt, 1_000_000);
        let verdict = loop {
            if let Some(v) = walk.push(next().clamp(-CLIP, CLIP)) {
                break v;
            }
        };
        accepted += usize::from(verdict == Verdict::Accepted);
        by_sign += usize::from(walk.rule == Some(Rule::Sign));
        pairs += walk.stats.n;
    }
    let share = |k: usize| k as f64 / tests as f64;
    Rates {
        accepted: share(accepted),
        pairs: pairs as f64 / tests as f64,
        by_sign: share(by_sign),
    }
}

/// [`simulate`] on streams of `shape` around `mean`.
fn accept_rate(tests: usize, shape: Shape, mean: f64, seed: u64) -> Rates {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    simulate(tests, SPRT, || draw(shape, mean, &mut rng))
}

/// Three standard deviations of a share measured on `tests` tests whose true rate is `p`.
fn margin(p: f64, tests: usize) -> f64 {
    3.0 * (p * (1.0 - p) / tests as f64).sqrt()
}

/// Checks and prints the false-accept rate of equal builds over `tests` tests per shape.
fn false_accepts(tests: usize, shapes: &[Shape]) {
    for (i, &shape) in shapes.iter().enumerate() {
        let r = accept_rate(tests, shape, 0.0, 100 + i as u64);
        eprintln!(
            "{shape:?} A = B: accepted {:.4}, {:.1} pairs on average, {:.4} of the verdicts by \
             the sign test ({tests} tests)",
            r.accepted, r.pairs, r.by_sign
        );
        assert!(
            r.accepted <= SPRT.alpha + margin(SPRT.alpha, tests),
            "{shape:?}: false accepts {} > alpha {}",
            r.accepted,
            SPRT.alpha
        );
    }
}

/// Checks and prints the accept rate of a B better by δ over `tests` tests per shape: at
/// least `power` (within the margin).
fn true_accepts(tests: usize, shapes: &[Shape], power: f64) {
    for (i, &shape) in shapes.iter().enumerate() {
        let r = accept_rate(tests, shape, SPRT.mu1(), 200 + i as u64);
        eprintln!(
            "{shape:?} B better by delta: accepted {:.4}, {:.1} pairs on average, {:.4} of the \
             verdicts by the sign test ({tests} tests)",
            r.accepted, r.pairs, r.by_sign
        );
        assert!(
            r.accepted >= power - margin(power, tests),
            "{shape:?}: accepts {} < {power}",
            r.accepted
        );
    }
}

#[test]
#[ignore = "slow: 5.3 s of CPU, 8 s at load 5 (2026-11-29); CI runs it (cargo test --workspace -- --include-ignored)"]
fn with_a_equal_to_b_the_false_accept_rate_is_at_most_alpha() {
    false_accepts(TESTS, &SHAPES);
}

#[test]
#[ignore = "slow: 5.3 s of CPU, 8 s at load 5 (2026-11-29); CI runs it (cargo test --workspace -- --include-ignored)"]
fn with_b_better_by_delta_it_accepts_at_least_one_minus_beta() {
    true_accepts(TESTS, &SHAPES[..4], 1.0 - SPRT.beta);
    // The known weak case: half the pairs ties and the gain all on the others. A run of ties
    // gives a small variance and a mean near 0 together, which the GSPRT reads as strong
    // evidence for H0 (its error rates assume normal pairs): 91 % (the GSPRT alone, at its
    // whole β, 90 %).
    true_accepts(TESTS, &[Shape::Ties], 1.0 - 2.0 * SPRT.beta);
}

/// The fast set's share of the two checks above: 2 000 tests of the normal pairs and of the
/// pairs with ties (a wider margin: 1.5 % at α = 5 %).
#[test]
fn error_rates_hold_on_fewer_tests() {
    false_accepts(2000, &[Shape::Normal, Shape::Ties]);
    true_accepts(2000, &[Shape::Normal, Shape::Measured], 1.0 - SPRT.beta);
}

/// A clear win as issue 64 met it: B 10 % better on most pairs (`x = ln 0.9` with the spread
/// [`SIGMA`]), a tie one pair in ten and a loss (B 0–6 % worse) one pair in `1 / losses`.
fn clear_win(rng: &mut Xoshiro256PlusPlus, losses: f64) -> f64 {
    let u = rng.random::<f64>();
    if u < 0.1 {
        0.0
    } else if u < 0.1 + losses {
        0.06 * rng.random::<f64>()
    } else {
        draw(Shape::Normal, (0.9f64).ln(), rng)
    }
}

/// The share of `tests` tests of [`clear_win`] streams accepted within 20 pairs, the mean
/// pairs of the tests run to their verdict, and the mean pairs of the GSPRT alone.
fn clear_wins(tests: usize, losses: f64) -> (f64, Rates, f64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(64);
    let r = simulate(tests, SPRT, || clear_win(&mut rng, losses));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(65);
    let mut within = 0;
    for _ in 0..tests {
        let mut walk = Walk::new(SPRT, 20);
        while walk
            .push(clear_win(&mut rng, losses).clamp(-CLIP, CLIP))
            .is_none()
        {}
        within += usize::from(walk.verdict == Some(Verdict::Accepted));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(66);
    let mut alone = 0;
    for _ in 0..tests {
        let mut stats = tools::cli::command::ab::sprt::Stats::default();
        while stats.n < 1000 {
            stats.push(clear_win(&mut rng, losses).clamp(-CLIP, CLIP));
            if SPRT.decide(&stats).is_some() {
                break;
            }
        }
        alone += stats.n;
    }
    let per_test = |k: usize| k as f64 / tests as f64;
    (per_test(within), r, per_test(alone))
}

#[test]
fn a_clear_win_with_ties_and_losses_is_accepted_within_20_pairs() {
    let tests = 5000;
    for losses in [0.05, 0.1] {
        let (within, r, alone) = clear_wins(tests, losses);
        eprintln!(
            "clear win (10 % better, ties 10 %, losses {:.0} %): accepted {:.4}, within 20 pairs \
             {within:.4}, {:.1} pairs on average ({:.4} by the sign test); the GSPRT alone {alone:.1} \
             pairs on average ({tests} tests)",
            100.0 * losses,
            r.accepted,
            r.pairs,
            r.by_sign
        );
        assert!(r.accepted >= 0.99, "{losses}: {}", r.accepted);
        assert!(
            r.pairs < 20.0 && alone > 25.0,
            "{losses}: {} {alone}",
            r.pairs
        );
        // A loss or two in 20 pairs (one pair in 20 a loss): within 20 pairs, 95 % at least.
        if losses == 0.05 {
            assert!(within >= 0.95, "{within}");
        }
    }
}

#[test]
fn a_b_that_crashes_on_every_pair_is_rejected_at_the_minimum() {
    let walk = Walk::run(SPRT, 1000, &[FAILURE; 300]);
    assert_eq!(
        (walk.verdict, walk.stats.n),
        (Some(Verdict::Rejected), MIN_PAIRS)
    );
    // And one that crashes on every other pair, equal otherwise (the ties count for neither
    // side of the sign test: 10 crashes decide).
    let xs: Vec<f64> = (0..300)
        .map(|i| if i % 2 == 0 { FAILURE } else { 0.0 })
        .collect();
    let walk = Walk::run(SPRT, 1000, &xs);
    assert_eq!((walk.verdict, walk.stats.n), (Some(Verdict::Rejected), 19));
}

/// Wald's approximation of the mean number of pairs of the GSPRT at H0 and at H1 with its
/// bounds `±b` (α' = β' = 0.04: `b = ln 24`): `(0.96 · b − 0.04 · b) / (μ1² / (2σ²))` (at the
/// 15-pair minimum at least).
fn wald_pairs(sigma: f64, sprt: Sprt) -> f64 {
    let b = sprt.upper();
    let drift = sprt.mu1() * sprt.mu1() / (2.0 * sigma * sigma);
    ((0.92 * b) / drift).max(15.0)
}

#[test]
fn pair_counts_at_the_measured_noise_follow_walds_approximation() {
    let centre = MEASURED.iter().sum::<f64>() / 40.0;
    let sigma = (MEASURED
        .iter()
        .map(|x| (x - centre) * (x - centre))
        .sum::<f64>()
        / 39.0)
        .sqrt();
    assert!((sigma - 0.0164).abs() < 5e-5, "{sigma}");
    for delta in [0.005, 0.02] {
        let sprt = Sprt {
            delta,
            alpha: 0.05,
            beta: 0.05,
        };
        let wald = wald_pairs(sigma, sprt);
        for (what, mean) in [("A = B", 0.0), ("B better by delta", sprt.mu1())] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
            // Each stream read by the walk (both tests) and by the GSPRT alone: the walk stops
            // where the GSPRT would or sooner, so Wald's figure is what the GSPRT follows.
            let (mut counts, mut alone): (Vec<usize>, Vec<usize>) = (0..TESTS)
                .map(|_| {
                    let mut walk = Walk::new(sprt, 1_000_000);
                    let mut stats = tools::cli::command::ab::sprt::Stats::default();
                    loop {
                        let x = draw(Shape::Measured, mean, &mut rng);
                        if walk.verdict.is_none() {
                            walk.push(x);
                        }
                        stats.push(x);
                        if sprt.decide(&stats).is_some() {
                            break;
                        }
                    }
                    assert!(walk.verdict.is_some() && walk.stats.n <= stats.n);
                    (walk.stats.n, stats.n)
                })
                .unzip();
            counts.sort_unstable();
            alone.sort_unstable();
            let mean_of = |c: &[usize]| c.iter().sum::<usize>() as f64 / TESTS as f64;
            let (average, walked) = (mean_of(&alone), mean_of(&counts));
            eprintln!(
                "delta {delta}, {what}: the GSPRT alone {average:.1} pairs on average (Wald \
                 {wald:.1}), median {}, 90th percentile {}; with the sign test {walked:.1} on \
                 average, median {}, 90th percentile {}",
                alone[TESTS / 2],
                alone[TESTS * 9 / 10],
                counts[TESTS / 2],
                counts[TESTS * 9 / 10]
            );
            assert!(
                (average - wald).abs() < 0.25 * wald,
                "delta {delta}, {what}: {average} pairs, Wald says {wald}"
            );
        }
    }
}
