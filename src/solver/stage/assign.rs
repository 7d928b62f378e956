//! Stage 4, assignment: which queen of a colour goes to which target cell of that colour.
//!
//! Per colour, a minimum-cost perfect matching of queens to the colour's target cells by
//! walls-only path cost (Hungarian method, `pathfinding::kuhn_munkres_min` on integer costs
//! scaled by 10⁶).

use crate::solver::board::{by_colour, Queen};
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;

/// Integer scale of path costs for the Hungarian method.
const SCALE: f64 = 1e6;
/// Integer cost of an unreachable target: larger than any sum of real costs.
const FORBIDDEN: i64 = 1 << 50;

/// Reassigns the target cells among the queens of each colour so that the total path cost is
/// minimal; `targets[q]` is queen `q`'s target cell before and after. `dist(q, cell)` is the
/// path cost of queen `q` to `cell` (infinite if unreachable).
///
/// # Complexity
/// `O(k³)` per colour of `k` queens.
pub fn assign(queens: &[Queen], targets: &mut [usize], dist: impl Fn(usize, usize) -> f32) {
    for group in by_colour(queens).iter().filter(|g| g.len() > 1) {
        let cells: Vec<usize> = group.iter().map(|&q| targets[q]).collect();
        let k = group.len();
        let weights = Matrix::from_fn(k, k, |(i, j)| {
            let d = dist(group[i], cells[j]);
            if d.is_finite() {
                (d as f64 * SCALE).round() as i64
            } else {
                FORBIDDEN
            }
        });
        let (_, columns) = kuhn_munkres_min(&weights);
        for (i, &j) in columns.iter().enumerate() {
            targets[group[i]] = cells[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn permutations(k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(k - 1) {
            for i in 0..k {
                let mut q = p.clone();
                q.insert(i, k - 1);
                out.push(q);
            }
        }
        out
    }

    #[test]
    fn matches_brute_force_permutations() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..60 {
            let colours = rng.random_range(1..=3);
            let per = rng.random_range(1..=6);
            let queens: Vec<Queen> = (0..colours * per)
                .map(|i| Queen {
                    start: i,
                    colour: i % colours,
                })
                .collect();
            let table: Vec<f32> = (0..queens.len() * 100)
                .map(|_| rng.random_range(0..50) as f32 / 7.0)
                .collect();
            let dist = |q: usize, cell: usize| table[q * 100 + cell];
            let mut targets: Vec<usize> = (0..queens.len()).map(|q| 20 + q).collect();
            let before = targets.clone();
            assign(&queens, &mut targets, dist);
            for k in 0..colours {
                let group: Vec<usize> = (0..queens.len()).filter(|&q| q % colours == k).collect();
                let cells: Vec<usize> = group.iter().map(|&q| before[q]).collect();
                let brute = permutations(group.len())
                    .iter()
                    .map(|p| {
                        group
                            .iter()
                            .enumerate()
                            .map(|(i, &q)| dist(q, cells[p[i]]) as f64)
                            .sum::<f64>()
                    })
                    .fold(f64::INFINITY, f64::min);
                let got: f64 = group.iter().map(|&q| dist(q, targets[q]) as f64).sum();
                assert!((got - brute).abs() < 1e-4, "{got} vs {brute}");
                // the same cells, reassigned
                let mut a: Vec<usize> = group.iter().map(|&q| targets[q]).collect();
                let mut b = cells.clone();
                a.sort();
                b.sort();
                assert_eq!(a, b);
            }
        }
    }
}

/// The examples of this module's documentation, as unit tests (the module is private to
/// the crate, so rustdoc cannot run them).
#[cfg(test)]
mod examples {
    #[test]
    fn assign_example() {
        use crate::solver::{board::Queen, stage::assign::assign};
        let queens = [
            Queen {
                start: 0,
                colour: 0,
            },
            Queen {
                start: 9,
                colour: 0,
            },
        ];
        let mut targets = vec![9, 0]; // crossed: each queen goes to the other's cell
        assign(&queens, &mut targets, |q, cell| {
            (queens[q].start as f32 - cell as f32).abs()
        });
        assert_eq!(targets, vec![0, 9]);
    }
}
