//! Tests of the one-colour search, its proof and the proof's caps (`next_step`).

use super::super::colours::all_boards;
use super::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;

/// The cheapest matching of queens `0..n` to `cells`, over every permutation.
fn permutations(n: usize, cells: &mut [usize], k: usize, dist: &[f32]) -> f64 {
    if k == cells.len() {
        return (0..k).map(|i| f64::from(dist[i * n * n + cells[i]])).sum();
    }
    let mut best = f64::INFINITY;
    for i in k..cells.len() {
        cells.swap(k, i);
        best = best.min(permutations(n, cells, k + 1, dist));
        cells.swap(k, i);
    }
    best
}

/// Random walls (one cell in ten) and queen-to-cell costs for `n` queens on an `n × n`
/// board: like distances plus cell prices, with a few cells a queen cannot reach.
pub(super) fn random_case(n: usize, rng: &mut impl Rng) -> (Vec<bool>, Vec<f32>) {
    let nn = n * n;
    let walls: Vec<bool> = (0..nn).map(|_| rng.random_bool(0.1)).collect();
    let dist: Vec<f32> = (0..n * nn)
        .map(|_| match rng.random_range(0..10) {
            0 => f32::INFINITY,
            _ => rng.random_range(0..60) as f32 / 8.0,
        })
        .collect();
    (walls, dist)
}

/// `cells` (one per queen) form an N-Queens board that avoids the walls.
pub(super) fn is_board(n: usize, walls: &[bool], cells: &[usize]) -> bool {
    let mut lines = std::collections::HashSet::new();
    cells.len() == n
        && cells.iter().all(|&x| {
            let (r, c) = (x / n, x % n);
            !walls[x]
                && lines.insert(('r', r))
                && lines.insert(('c', c))
                && lines.insert(('d', r + n - c))
                && lines.insert(('a', r + c))
        })
}

/// The least cost over every N-Queens board avoiding `walls`, by listing them all.
pub(super) fn brute_minimum(n: usize, walls: &[bool], dist: &[f32]) -> f64 {
    let far = Instant::now() + Duration::from_secs(3600);
    let listed = all_boards(n, walls, far).expect("no deadline");
    (0..listed.masks.len())
        .map(|i| permutations(n, &mut listed.cells(i), 0, dist))
        .fold(f64::INFINITY, f64::min)
}

/// `run` (a search of every board below a cap; `true` when it finished) on `cases` random
/// boards of N 4–7 drawn from `seed`: a cap just above the minimum or well above finds it;
/// one at or below finds nothing (costs are eighths: a bound too high by a little prunes
/// the minimum).
pub(super) fn finds_the_minimum_below_any_cap(
    seed: u64,
    cases: usize,
    run: impl Fn(&mut OneColour<'_>, f64) -> bool,
) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let members: Vec<usize> = (0..7).collect();
    let far = Instant::now() + Duration::from_secs(3600);
    let (mut found, mut below) = (0, 0);
    for case in 0..cases {
        let n = rng.random_range(4..=7);
        let (walls, dist) = random_case(n, &mut rng);
        let want = brute_minimum(n, &walls, &dist);
        let over = rng.random_range(0.0..2.0);
        for cap in [want + 1e-3, want + over, want, want - over] {
            let Some(mut search) = OneColour::new(n, &walls, &members[..n], &dist, 1, far) else {
                assert_eq!(want, f64::INFINITY, "case {case}: the search saw no board");
                continue;
            };
            assert!(run(&mut search, cap), "case {case}: no deadline");
            match search.best.into_sorted().first() {
                Some(&(cost, _)) => {
                    assert!((cost - want).abs() < 1e-4, "case {case}: {cost} vs {want}");
                    found += 1;
                }
                None => {
                    assert!(cap <= want + 1e-4, "case {case}: missed {want} below {cap}");
                    below += 1;
                }
            }
        }
    }
    // both outcomes, on most cases
    assert!(
        found >= cases * 5 / 6 && below >= cases * 5 / 6,
        "found {found}, below the cap {below}"
    );
}

#[test]
fn the_next_step_doubles_until_timed_then_grows_the_time_fourfold_or_aims_at_the_time_left() {
    // no earlier cap, or searches too quick to time: doubling
    assert_eq!(next_step(0.1, None, (1.0, 0.5), 9.0), 0.2);
    assert_eq!(next_step(0.1, Some((0.9, 0.001)), (1.0, 0.5), 9.0), 0.2);
    // ×10 per 0.1 of cap: the share of 2 s left over 0.1 s, 0.1 · log10(20 · share) further
    let step = next_step(0.1, Some((0.9, 0.01)), (1.0, 0.1), 2.0);
    let want = 0.1 * (20.0 * NEXT_CAP_SHARE).log10();
    assert!((step - want).abs() < 1e-9, "{step} against {want}");
    // under a second left: doubling; little more than the last search: a quarter of the
    // last step; plenty: at most four times it
    assert_eq!(next_step(0.1, Some((0.9, 0.01)), (1.0, 0.1), 0.5), 0.2);
    assert_eq!(next_step(0.1, Some((0.9, 0.01)), (1.0, 1.0), 1.0), 0.025);
    // plenty of time: a search four times the last one, 0.1 · log10(4) further
    let step = next_step(0.1, Some((0.9, 0.01)), (1.0, 0.1), 1e9);
    let want = 0.1 * NEXT_CAP_GROWTH.log10();
    assert!((step - want).abs() < 1e-9, "{step} against {want}");
}

#[test]
fn the_floor_search_finds_the_brute_force_minimum_and_never_passes_it() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    let far = || Instant::now() + Duration::from_secs(3600);
    let members: Vec<usize> = (0..6).collect();
    let (mut exact, mut none) = (0, 0);
    for case in 0..80 {
        let n = rng.random_range(2..=6);
        let (walls, dist) = random_case(n, &mut rng);
        let want = brute_minimum(n, &walls, &dist);
        let members = &members[..n];
        match one_colour_floor(n, &walls, members, &dist, f64::NEG_INFINITY, far(), 1) {
            Floor::Exact(cost, cells) => {
                assert!((cost - want).abs() < 1e-4, "case {case}: {cost} vs {want}");
                let mut seen = cells.clone();
                seen.sort();
                seen.dedup();
                assert_eq!(seen.len(), n, "case {case}: distinct cells");
                exact += 1;
            }
            Floor::AtLeast(floor) => {
                assert_eq!(floor, f64::INFINITY, "case {case}: a finished search");
                assert_eq!(want, f64::INFINITY, "case {case}: missed a board");
                none += 1;
            }
        }
        // cut at once: only the potentials' bound, still at most the minimum
        let past = Instant::now();
        match one_colour_floor(n, &walls, members, &dist, f64::NEG_INFINITY, past, 2) {
            Floor::Exact(cost, _) => assert!((cost - want).abs() < 1e-4, "case {case}"),
            Floor::AtLeast(floor) => assert!(floor <= want + 1e-6, "case {case}: {floor}"),
        }
        // a caller's floor below the minimum changes nothing
        let given = want - 1.0;
        match one_colour_floor(n, &walls, members, &dist, given, far(), 2) {
            Floor::Exact(cost, _) => assert!((cost - want).abs() < 1e-4, "case {case}"),
            Floor::AtLeast(floor) => assert_eq!(floor, f64::INFINITY, "case {case}"),
        }
    }
    // both outcomes were tested (n = 2, 3 and crowded walls have no board)
    assert!(exact >= 30 && none >= 5, "exact {exact}, no board {none}");
}
