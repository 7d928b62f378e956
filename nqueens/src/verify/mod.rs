//! Linear-time check that no two queens attack each other.
//!
//! Every attack line is identified by an integer key, so one pass with a bitset per line
//! family finds the first queen that lands on an occupied line; a second pass finds the
//! earlier queen on that line. Nightrider lines (slopes ±2 and ±1/2) are four more families:
//! the cells `(x + k, y + 2k)` all share `2x − y`, `(x + 2k, y + k)` share `x − 2y`,
//! `(x − k, y + 2k)` share `2x + y` and `(x − 2k, y + k)` share `x + 2y`.

use super::mem::{prefetch, random_access_vec};
use super::placement::Placement;
use std::fmt;

mod text;
pub use text::peaceful_text;

/// The kind of line two attacking queens share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Row,
    Column,
    /// Down-right diagonal (`row − col` constant).
    Diagonal,
    /// Down-left diagonal (`row + col` constant).
    AntiDiagonal,
    /// Nightrider line of slope 2 or 1/2 or −2 or −1/2.
    Nightrider,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Line::Row => "row",
            Line::Column => "column",
            Line::Diagonal => "diagonal",
            Line::AntiDiagonal => "anti-diagonal",
            Line::Nightrider => "nightrider line",
        })
    }
}

/// Two queens that attack each other, 0-based `(row, col)`; `first` comes earlier in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub line: Line,
    pub first: (usize, usize),
    pub second: (usize, usize),
}

impl Conflict {
    /// Whether the "pair" is one queen given twice (the same cell in two input lines).
    pub fn is_duplicate(&self) -> bool {
        self.first == self.second
    }
}

impl fmt::Display for Conflict {
    /// 1-based, as the text formats are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_duplicate() {
            return write!(
                f,
                "queen ({}, {}) is given twice",
                self.first.0 + 1,
                self.first.1 + 1
            );
        }
        write!(
            f,
            "queens ({}, {}) and ({}, {}) share {} {}",
            self.first.0 + 1,
            self.first.1 + 1,
            self.second.0 + 1,
            self.second.1 + 1,
            if self.line == Line::AntiDiagonal {
                "an"
            } else {
                "a"
            },
            self.line
        )
    }
}

/// Number of line families checked, and the key of queen `(r, c)` in family `f` on an
/// `n × n` board (all keys are in `0..3n`).
const FAMILIES: usize = 8;

#[inline(always)]
fn key(f: usize, n: usize, r: usize, c: usize) -> usize {
    match f {
        0 => r,
        1 => c,
        2 => r + n - 1 - c,
        3 => r + c,
        4 => 2 * r + n - 1 - c,
        5 => r + 2 * (n - 1) - 2 * c,
        6 => 2 * r + c,
        _ => r + 2 * c,
    }
}

fn family_line(f: usize) -> Line {
    match f {
        0 => Line::Row,
        1 => Line::Column,
        2 => Line::Diagonal,
        3 => Line::AntiDiagonal,
        _ => Line::Nightrider,
    }
}

/// Finds the first pair of attacking queens, or `None` if the placement is peaceful.
///
/// Queens are taken in input order; the reported pair is the first queen that lands on a line
/// already occupied, with the earlier queen on that line. Families are checked in the order
/// row, column, diagonal, anti-diagonal, then (with `nightrider`) the four nightrider families.
///
/// # Complexity
/// O(n + k) time and O(n) bits of memory, for `k` queens.
///
/// # Examples
/// ```
/// use nqueens::{find_conflict, parse_placement, Line};
/// let ok = parse_placement(b"4\n2\n4\n1\n3\n").unwrap();
/// assert_eq!(find_conflict(&ok, false), None);
/// let bad = parse_placement(b"4 2\n1 1\n3 3\n").unwrap();
/// let c = find_conflict(&bad, false).unwrap();
/// assert_eq!((c.line, c.first, c.second), (Line::Diagonal, (0, 0), (2, 2)));
/// ```
pub fn find_conflict(p: &Placement, nightrider: bool) -> Option<Conflict> {
    let n = p.n();
    let families = if nightrider { FAMILIES } else { 4 };
    // A few queens on a huge board: one hash map per family (memory follows the queens read,
    // not the size the header claims).
    if p.slots().saturating_mul(64) < n {
        return first_conflict_sparse(p, families);
    }
    // Most placements checked are peaceful: a yes/no pass first, the exact pair only on a no.
    let peaceful = match p {
        Placement::Cols { cols, .. } if !nightrider => peaceful_cols(n, cols),
        _ => peaceful_lines(p, families),
    };
    if peaceful {
        return None;
    }
    let words = (3 * n).div_ceil(64) + 1;
    let mut seen: Vec<Vec<u64>> = (0..families).map(|_| vec![0u64; words]).collect();
    for i in 0..p.slots() {
        let Some((r, c)) = p.queen(i) else { continue };
        for (f, bits) in seen.iter_mut().enumerate() {
            let k = key(f, n, r, c);
            let (w, b) = (k / 64, 1u64 << (k % 64));
            if bits[w] & b != 0 {
                let first = (0..i)
                    .filter_map(|j| p.queen(j))
                    .find(|&(r2, c2)| key(f, n, r2, c2) == k)
                    .expect("an occupied line has an earlier queen");
                return Some(Conflict {
                    line: family_line(f),
                    first,
                    second: (r, c),
                });
            }
            bits[w] |= b;
        }
    }
    None
}

/// [`find_conflict`] with a map from line key to the first queen on it, per family: O(k)
/// memory for `k` queens, the same pair reported.
fn first_conflict_sparse(p: &Placement, families: usize) -> Option<Conflict> {
    let n = p.n();
    let mut seen: Vec<ahash::AHashMap<usize, (usize, usize)>> = (0..families)
        .map(|_| ahash::AHashMap::with_capacity(p.slots()))
        .collect();
    for i in 0..p.slots() {
        let Some((r, c)) = p.queen(i) else { continue };
        for (f, lines) in seen.iter_mut().enumerate() {
            if let Some(&first) = lines.get(&key(f, n, r, c)) {
                return Some(Conflict {
                    line: family_line(f),
                    first,
                    second: (r, c),
                });
            }
            lines.insert(key(f, n, r, c), (r, c));
        }
    }
    None
}

/// Boards from this size on are checked by three threads (one per line family).
const PARALLEL_FROM: usize = 1 << 20;

/// How far ahead the bit of a coming queen is prefetched.
const AHEAD: usize = 32;

/// Yes/no fast path for `cols` placements without nightriders: whether no column and no
/// diagonal holds two queens (rows cannot, by the format). Large boards check the three line
/// families on three threads, and each pass prefetches the bits of queens [`AHEAD`] rows on,
/// because a random solution hits its bitsets at random. Only a `false` needs the exact
/// (first-pair) search.
fn peaceful_cols(n: usize, cols: &[u32]) -> bool {
    let column = |_r: usize, c: usize| c;
    let down = |r: usize, c: usize| r + n - 1 - c;
    let up = |r: usize, c: usize| r + c;
    if n < PARALLEL_FROM {
        return distinct(cols, n, column)
            && distinct(cols, 2 * n, down)
            && distinct(cols, 2 * n, up);
    }
    // One thread per family: three equal jobs share two cores better than two unequal ones.
    std::thread::scope(|s| {
        let ups = s.spawn(|| distinct(cols, 2 * n, up));
        let downs = s.spawn(|| distinct(cols, 2 * n, down));
        let columns = distinct(cols, n, column);
        ups.join().unwrap_or(false) && downs.join().unwrap_or(false) && columns
    })
}

/// Yes/no fast path for any placement: whether no line of the first `families` families holds
/// two queens. One pass per family, each with its own `3n`-bit set and the bit of the queen
/// [`AHEAD`] slots on prefetched (a random board hits the set at random); from
/// [`PARALLEL_FROM`] queens the families are shared between two threads. At N = 10⁸ with 8·10⁷
/// given queens (the completion benchmark) this is the check of the given queens.
fn peaceful_lines(p: &Placement, families: usize) -> bool {
    // Small under test, so that the tests run the two-thread split.
    const PARALLEL_FROM: usize = if cfg!(test) { 1 << 10 } else { 1 << 20 };
    let n = p.n();
    let slots = p.slots();
    let pass = |f: usize| {
        let mut bits: Vec<u64> = random_access_vec((3 * n).div_ceil(64));
        for i in 0..slots {
            if let Some((r, c)) = p.queen((i + AHEAD).min(slots - 1)) {
                prefetch(&bits[key(f, n, r, c) / 64]);
            }
            if let Some((r, c)) = p.queen(i) {
                if !test_and_set(&mut bits, key(f, n, r, c)) {
                    return false;
                }
            }
        }
        true
    };
    if slots < PARALLEL_FROM {
        return (0..families).all(pass);
    }
    std::thread::scope(|s| {
        let odd = s.spawn(|| (1..families).step_by(2).all(pass));
        let even = (0..families).step_by(2).all(pass);
        odd.join().unwrap_or(false) && even
    })
}

/// Sets bit `k`; returns whether it was clear.
#[inline(always)]
fn test_and_set(bits: &mut [u64], k: usize) -> bool {
    let (w, b) = (k / 64, 1u64 << (k % 64));
    let clear = bits[w] & b == 0;
    bits[w] |= b;
    clear
}

/// Whether `key(row, col)` (0-based, below `len`) differs for all queens of `cols`.
#[inline(always)]
fn distinct(cols: &[u32], len: usize, key: impl Fn(usize, usize) -> usize) -> bool {
    let mut bits: Vec<u64> = random_access_vec(len.div_ceil(64));
    for (r, &c) in cols.iter().enumerate() {
        if let Some(&ahead) = cols.get(r + AHEAD) {
            if ahead != 0 {
                prefetch(&bits[key(r + AHEAD, ahead as usize - 1) / 64]);
            }
        }
        if c == 0 {
            continue;
        }
        if !test_and_set(&mut bits, key(r, c as usize - 1)) {
            return false;
        }
    }
    true
}

/// Whether 0-based columns `cols` (one per row) form a peaceful queens board: the check the
/// solution builders' tests share.
#[cfg(test)]
pub(crate) fn is_peaceful_permutation(cols: &[u32]) -> bool {
    let p = Placement::Cols {
        n: cols.len(),
        cols: cols.iter().map(|&c| c + 1).collect(),
    };
    find_conflict(&p, false).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(n: usize, q: &[(u32, u32)]) -> Placement {
        Placement::Pairs {
            n,
            queens: q.to_vec(),
        }
    }

    /// Brute force: every pair, every line kind.
    fn brute(p: &Placement, nightrider: bool) -> bool {
        let q: Vec<(i64, i64)> = (0..p.slots())
            .filter_map(|i| p.queen(i))
            .map(|(r, c)| (r as i64, c as i64))
            .collect();
        for i in 0..q.len() {
            for j in 0..i {
                let (dr, dc) = (q[i].0 - q[j].0, q[i].1 - q[j].1);
                if dr == 0 || dc == 0 || dr.abs() == dc.abs() {
                    return true;
                }
                if nightrider && (dr.abs() == 2 * dc.abs() || dc.abs() == 2 * dr.abs()) {
                    return true;
                }
            }
        }
        false
    }

    #[test]
    fn finds_each_kind_of_line() {
        let cases = [
            (vec![(0, 0), (0, 3)], Line::Row),
            (vec![(0, 1), (3, 1)], Line::Column),
            (vec![(1, 0), (3, 2)], Line::Diagonal),
            (vec![(0, 3), (3, 0)], Line::AntiDiagonal),
        ];
        for (q, line) in cases {
            let c = find_conflict(&pairs(4, &q), false).unwrap();
            assert_eq!(c.line, line);
            assert_eq!(c.first, (q[0].0 as usize, q[0].1 as usize));
        }
        for q in [
            [(0, 0), (1, 2)],
            [(0, 0), (2, 1)],
            [(0, 2), (1, 0)],
            [(0, 1), (2, 0)],
            [(0, 0), (4, 2)],
        ] {
            assert_eq!(find_conflict(&pairs(5, &q), false), None);
            assert_eq!(
                find_conflict(&pairs(5, &q), true).unwrap().line,
                Line::Nightrider
            );
        }
    }

    /// A board size below `max_n` and up to that many queens anywhere on it (attacks and
    /// repeats allowed).
    fn random_queens(rng: &mut impl rand::Rng, max_n: usize) -> (usize, Vec<(u32, u32)>) {
        let n = rng.random_range(1..max_n);
        let k = rng.random_range(0..=n);
        let q = (0..k)
            .map(|_| (rng.random_range(0..n as u32), rng.random_range(0..n as u32)))
            .collect();
        (n, q)
    }

    #[test]
    fn sparse_and_dense_checks_agree() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        for _ in 0..3000 {
            let (n, q) = random_queens(&mut rng, 40);
            let p = pairs(n, &q);
            for nr in [false, true] {
                let families = if nr { FAMILIES } else { 4 };
                assert_eq!(first_conflict_sparse(&p, families), find_conflict(&p, nr));
            }
        }
        // A huge board with two queens takes the sparse path (no 4 GB of bits).
        let p = pairs(4_000_000_000, &[(0, 0), (3_999_999_999, 3_999_999_999)]);
        assert_eq!(find_conflict(&p, false).unwrap().line, Line::Diagonal);
        let c = find_conflict(&pairs(9, &[(1, 1), (1, 1)]), false).unwrap();
        assert!(c.is_duplicate());
        assert_eq!(c.to_string(), "queen (2, 2) is given twice");
    }

    #[test]
    fn two_thread_check_of_pairs_finds_planted_conflicts() {
        // A peaceful board of 3 000 queens as pairs (above the test's two-thread size), then
        // each queen in turn moved onto a line of another: the pair found must really attack.
        let n = 3000;
        let board: Vec<(u32, u32)> = (0..n)
            .map(|r| (r as u32, crate::explicit::explicit_column(n, r) as u32))
            .collect();
        assert_eq!(find_conflict(&pairs(n, &board), false), None);
        for (i, nr) in [(17, false), (1500, false), (2999, false), (640, true)] {
            let mut q = board.clone();
            // Row i's queen onto the column of row i + 1's: same column.
            q[i].1 = board[(i + 1) % n].1;
            let c = find_conflict(&pairs(n, &q), nr).expect("a planted conflict is found");
            let pair = [
                (c.first.0 as u32, c.first.1 as u32),
                (c.second.0 as u32, c.second.1 as u32),
            ];
            assert!(brute(&pairs(n, &pair), nr), "{c:?}");
        }
    }

    #[test]
    fn agrees_with_brute_force_on_random_placements() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..20_000 {
            let (n, q) = random_queens(&mut rng, 12);
            let p = pairs(n, &q);
            for nr in [false, true] {
                let found = find_conflict(&p, nr);
                assert_eq!(found.is_some(), brute(&p, nr), "{q:?} nightrider={nr}");
                if let Some(c) = found {
                    assert!(
                        brute(
                            &pairs(
                                n,
                                &[
                                    (c.first.0 as u32, c.first.1 as u32),
                                    (c.second.0 as u32, c.second.1 as u32)
                                ]
                            ),
                            nr
                        ) || c.first == c.second
                    );
                }
            }
        }
    }
}
