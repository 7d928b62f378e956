use super::super::one_colour;
use super::super::tests::assert_valid;
use super::*;
use crate::solver::board::{by_colour, Board};
use crate::solver::problem::walls_only_problem;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn far() -> Instant {
    Instant::now() + Duration::from_secs(3600)
}

/// Random columns: `k` cells of the first `cells` cells each, costs in tenths.
fn random_columns(rng: &mut impl Rng, colours: usize, cells: usize, k: usize) -> Vec<Vec<Column>> {
    (0..colours)
        .map(|_| {
            let count = rng.random_range(0..=7);
            let mut list: Vec<Column> = (0..count)
                .map(|_| {
                    let mut picked: Vec<usize> = (0..cells).collect();
                    for i in 0..k {
                        let j = rng.random_range(i..cells);
                        picked.swap(i, j);
                    }
                    picked.truncate(k);
                    Column::new(picked, rng.random_range(0..100) as f64 / 10.0)
                })
                .collect();
            list.sort_by(|a, b| a.cost.total_cmp(&b.cost));
            list
        })
        .collect()
}

/// Every choice of one column per colour, pairwise disjoint: their costs, ascending.
fn brute_force(columns: &[Vec<Column>]) -> Vec<f64> {
    let mut totals = Vec::new();
    let mut stack: Vec<(usize, Cells, f64)> = vec![(0, [0; 16], 0.0)];
    while let Some((c, used, cost)) = stack.pop() {
        if c == columns.len() {
            totals.push(cost);
            continue;
        }
        for col in columns[c].iter().filter(|col| disjoint(&col.mask, &used)) {
            stack.push((c + 1, union(&used, &col.mask), cost + col.cost));
        }
    }
    totals.sort_by(|a, b| a.total_cmp(b));
    totals
}

#[test]
fn the_master_equals_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(50);
    let (mut found, mut none) = (0, 0);
    for case in 0..300 {
        let colours = rng.random_range(1..=4);
        let cells = rng.random_range(8..=40);
        let size = rng.random_range(2..=5);
        let columns = random_columns(&mut rng, colours, cells, size);
        let keep = rng.random_range(1..=6);
        let got = master(&columns, keep, far());
        let want = brute_force(&columns);
        assert_eq!(got.len(), want.len().min(keep), "case {case}");
        for ((cost, chosen), w) in got.iter().zip(&want) {
            assert!((cost - w).abs() < 1e-9, "case {case}: {cost} vs {w}");
            // the choice is what it claims: pairwise disjoint, of that cost
            let mut used = [0; 16];
            let mut sum = 0.0;
            for (c, &i) in chosen.iter().enumerate() {
                assert!(disjoint(&used, &columns[c][i].mask), "case {case}");
                used = union(&used, &columns[c][i].mask);
                sum += columns[c][i].cost;
            }
            assert!((sum - cost).abs() < 1e-9, "case {case}");
        }
        if want.is_empty() {
            none += 1;
        } else {
            found += 1;
        }
    }
    assert!(found >= 100 && none >= 30, "found {found}, none {none}");
}

#[test]
fn a_master_out_of_time_finds_nothing_wrong() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(51);
    let columns = random_columns(&mut rng, 4, 30, 3);
    let want = brute_force(&columns);
    for (cost, _) in master(&columns, 5, Instant::now()) {
        assert!(want.iter().any(|w| (w - cost).abs() < 1e-9));
    }
}

#[test]
fn prices_rise_where_colours_meet_and_fall_elsewhere() {
    let wish = |cells: &[usize]| Column::new(cells.to_vec(), 1.0);
    let mut prices = vec![0.0, 0.0, 0.0, 0.5, 0.0];
    // cell 1 wished twice, cell 3 priced but wished by none
    assert!(step(&mut prices, &[wish(&[0, 1]), wish(&[1, 2])], 1.0, 2.0));
    assert!(prices[1] > 0.0, "{prices:?}");
    assert!(prices[3] < 0.5 && prices[3] >= 0.0, "{prices:?}");
    assert_eq!((prices[0], prices[2], prices[4]), (0.0, 0.0, 0.0));
    // gap 1, |g|² = 1 + 1: half a unit up and down
    assert!((prices[1] - 0.5).abs() < 1e-12 && prices[3].abs() < 1e-12);
    // disjoint wishes: nothing to move
    let before = prices.clone();
    assert!(!step(&mut prices, &[wish(&[0]), wish(&[2])], 1.0, 2.0));
    assert_eq!(prices, before);
}

/// The boards are error-free, of the cost they claim, never cheaper than every colour's own
/// cheapest board, and the best of them is the sum of those when the colours' own cheapest
/// boards share no cell: eight boards of N 8–9 (about 2 s at the test profile).
#[test]
fn boards_are_error_free_priced_right_and_bounded() {
    check_boards(SMALL_SEED, 8, 8..=9);
}

/// The same on sixteen boards of N 8–11: cases of N = 11 with four colours run the rounds to
/// their end for up to 11 s each (25 s in all on the 2-core machine, 2026-11-27).
#[test]
#[ignore = "slow: sixteen boards up to N = 11, about 25 s"]
fn boards_up_to_n11_are_error_free_priced_right_and_bounded() {
    check_boards(52, 16, 8..=11);
}

/// Seed of the fast case: three of its eight boards have the colours' own cheapest boards apart.
const SMALL_SEED: u64 = 7;

/// `cases` random boards with N in `sizes` from `seed`: see the two tests above.
fn check_boards(seed: u64, cases: usize, sizes: std::ops::RangeInclusive<usize>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut made, mut apart) = (0, 0);
    for case in 0..cases {
        let n = rng.random_range(sizes.clone());
        let colours = rng.random_range(2..=4);
        let board = Board::random(n, colours, 0.04, &mut rng);
        let (queens, walls, dist) = walls_only_problem(&board);
        let members = by_colour(&queens);
        let alone: Vec<ExactBoard> = members
            .iter()
            .filter_map(|g| one_colour(n, &walls, g, &dist, 1, far()).into_iter().next())
            .collect();
        let floor: f64 = alone.iter().map(|b| b.cost).sum();
        let found = together(n, &walls, &members, &dist, 5, far());
        assert!(
            found.windows(2).all(|w| w[0].cost <= w[1].cost),
            "case {case}"
        );
        for b in &found {
            assert_valid(b, &queens, &walls, &dist);
            assert!(
                b.cost >= floor - 1e-3,
                "case {case}: {} below {floor}",
                b.cost
            );
            made += 1;
        }
        // each colour's own cheapest board, on its own queens' cells
        let mut own: Vec<usize> = alone
            .iter()
            .zip(&members)
            .flat_map(|(b, g)| g.iter().map(|&q| b.cells[q]))
            .collect();
        own.sort_unstable();
        own.dedup();
        let disjoint_alone = alone.len() == colours && own.len() == colours * n;
        if disjoint_alone {
            assert!((found[0].cost - floor).abs() < 1e-3, "case {case}");
            apart += 1;
        }
    }
    assert!(made >= cases, "only {made} boards");
    // seeded: at least one case has the colours' own cheapest boards apart
    assert!(apart >= 1, "no case with disjoint own boards");
}
