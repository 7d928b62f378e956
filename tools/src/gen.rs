//! The official test-case generator, reproduced byte for byte.
//!
//! Every number comes from a [`Sha1Prng`] seeded with the seed, in the official order:
//! 1. `N = randomInt(8, 30)`, `C = randomInt(1, 6)`, `P = randomDouble(0, 0.25)`;
//! 2. seed 1 forces `N = 8, C = 2`; seed 2 forces `N = 30, C = 6, P = 0.25`;
//! 3. user ranges (if any) for `N`, `C`, `P` are drawn now, in that order, clamped into the
//!    contest limits, and replace the value;
//! 4. the grid: for each colour `1..=C`, `N` queens, each on the first drawn cell (row, then
//!    column) that is empty; then, row-major, each still-empty cell becomes a wall when
//!    `randomDouble(0, 1) < P`. A grid with more than `N − C` walls in a row or a column is
//!    thrown away and drawn again from the same stream.

use crate::input::{Input, EMPTY, WALL};
use crate::sha1prng::Sha1Prng;

/// Contest limits on `N`.
pub const N_RANGE: (i32, i32) = (8, 30);
/// Contest limits on `C`.
pub const C_RANGE: (i32, i32) = (1, 6);
/// Contest limits on the wall probability `P`.
pub const P_RANGE: (f64, f64) = (0.0, 0.25);

/// Optional user ranges that replace the drawn `N`, `C` and `P` (inclusive bounds; a single
/// value is a range with equal ends).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ranges {
    /// Range for `N`, clamped into [`N_RANGE`].
    pub n: Option<(i32, i32)>,
    /// Range for `C`, clamped into [`C_RANGE`].
    pub c: Option<(i32, i32)>,
    /// Range for `P`, clamped into [`P_RANGE`].
    pub p: Option<(f64, f64)>,
}

/// A generated test case together with the wall probability it was drawn with.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// The seed it came from.
    pub seed: u64,
    /// The test case.
    pub input: Input,
    /// The wall probability `P`.
    pub p: f64,
}

/// Generates the test case of `seed` like the official tester does.
///
/// # Examples
///
/// ```
/// use tools::gen::{generate, Ranges};
///
/// let case = generate(1, &Ranges::default());
/// assert_eq!((case.input.n, case.input.c), (8, 2)); // seed 1 is forced to N = 8, C = 2
/// let text = case.input.to_string();
/// assert!(text.starts_with("8\n2\n"));
///
/// let small = generate(1000, &Ranges { n: Some((10, 10)), ..Ranges::default() });
/// assert_eq!(small.input.n, 10);
/// ```
///
/// # Complexity
///
/// `O(N² · tries)` draws, where `tries` is the number of grids drawn (almost always 1).
pub fn generate(seed: u64, ranges: &Ranges) -> Generated {
    let mut rng = Sha1Prng::new(seed);
    let mut n = rng.random_int(N_RANGE.0, N_RANGE.1);
    let mut c = rng.random_int(C_RANGE.0, C_RANGE.1);
    let mut p = rng.random_double(P_RANGE.0, P_RANGE.1);
    if seed == 1 {
        n = 8;
        c = 2;
    } else if seed == 2 {
        n = 30;
        c = 6;
        p = 0.25;
    }
    if let Some((a, b)) = ranges.n {
        n = rng.random_int(a.clamp(N_RANGE.0, N_RANGE.1), b.clamp(N_RANGE.0, N_RANGE.1));
    }
    if let Some((a, b)) = ranges.c {
        c = rng.random_int(a.clamp(C_RANGE.0, C_RANGE.1), b.clamp(C_RANGE.0, C_RANGE.1));
    }
    if let Some((a, b)) = ranges.p {
        p = rng.random_double(a.clamp(P_RANGE.0, P_RANGE.1), b.clamp(P_RANGE.0, P_RANGE.1));
    }
    let grid = draw_grid(&mut rng, n as usize, c as usize, p);
    let input = Input::new(n as usize, c as usize, grid)
        .expect("generated parameters are within the contest limits");
    Generated { seed, input, p }
}

/// Draws grids until one has at most `n − c` walls in every row and column.
fn draw_grid(rng: &mut Sha1Prng, n: usize, c: usize, p: f64) -> Vec<i8> {
    let last = n as i32 - 1;
    loop {
        let mut grid = vec![EMPTY; n * n];
        for colour in 1..=c as i8 {
            for _ in 0..n {
                loop {
                    let r = rng.random_int(0, last) as usize;
                    let col = rng.random_int(0, last) as usize;
                    if grid[r * n + col] == EMPTY {
                        grid[r * n + col] = colour;
                        break;
                    }
                }
            }
        }
        for cell in grid.iter_mut() {
            if *cell == EMPTY && rng.random_double(0.0, 1.0) < p {
                *cell = WALL;
            }
        }
        let limit = n - c;
        let too_many = (0..n).any(|i| {
            let row = (0..n).filter(|&j| grid[i * n + j] == WALL).count();
            let col = (0..n).filter(|&j| grid[j * n + i] == WALL).count();
            row > limit || col > limit
        });
        if !too_many {
            return grid;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_seeds() {
        let two = generate(2, &Ranges::default());
        assert_eq!((two.input.n, two.input.c, two.p), (30, 6, 0.25));
    }

    #[test]
    fn every_case_respects_the_rules() {
        for seed in 1..=60u64 {
            let case = generate(seed, &Ranges::default());
            let Input { n, c, ref grid } = case.input;
            assert!((8..=30).contains(&n) && (1..=6).contains(&c));
            assert!((0.0..=0.25).contains(&case.p));
            for colour in 1..=c as i8 {
                assert_eq!(grid.iter().filter(|&&v| v == colour).count(), n);
            }
            for i in 0..n {
                let row = (0..n).filter(|&j| grid[i * n + j] == WALL).count();
                let col = (0..n).filter(|&j| grid[j * n + i] == WALL).count();
                assert!(row <= n - c && col <= n - c, "seed {seed}");
            }
        }
    }

    #[test]
    fn ranges_are_clamped_and_applied() {
        let r = Ranges {
            n: Some((1, 9)),
            c: Some((9, 9)),
            p: Some((0.5, 0.9)),
        };
        for seed in 3..20 {
            let case = generate(seed, &r);
            assert!((8..=9).contains(&case.input.n));
            assert_eq!(case.input.c, 6);
            assert_eq!(case.p, 0.25);
        }
    }
}
