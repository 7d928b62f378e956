//! Linear-time check that no two queens attack each other.
//!
//! Every attack line is identified by an integer key, so one pass with a bitset per line
//! family finds the first queen that lands on an occupied line; a second pass finds the
//! earlier queen on that line. Nightrider lines (slopes ±2 and ±1/2) are four more families:
//! the cells `(x + k, y + 2k)` all share `2x − y`, `(x + 2k, y + k)` share `x − 2y`,
//! `(x − k, y + 2k)` share `2x + y` and `(x − 2k, y + k)` share `x + 2y`.

use super::mem::{prefetch, random_access_vec};
use super::placement::{parse_batch, parse_lines_bytewise, strict_cols_header, Placement};
use std::fmt;

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
/// use queenattack::nqueens::{find_conflict, parse_placement, Line};
/// let ok = parse_placement(b"4\n2\n4\n1\n3\n").unwrap();
/// assert_eq!(find_conflict(&ok, false), None);
/// let bad = parse_placement(b"4 2\n1 1\n3 3\n").unwrap();
/// let c = find_conflict(&bad, false).unwrap();
/// assert_eq!((c.line, c.first, c.second), (Line::Diagonal, (0, 0), (2, 2)));
/// ```
pub fn find_conflict(p: &Placement, nightrider: bool) -> Option<Conflict> {
    if let Placement::Cols { n, cols } = p {
        if !nightrider && peaceful_cols(*n, cols) {
            return None;
        }
    }
    let n = p.n();
    let families = if nightrider { FAMILIES } else { 4 };
    // A few queens on a huge board: one hash map per family (memory follows the queens read,
    // not the size the header claims).
    if p.slots().saturating_mul(64) < n {
        return first_conflict_sparse(p, families);
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
        let k = key(r, c as usize - 1);
        let (w, b) = (k / 64, 1u64 << (k % 64));
        if bits[w] & b != 0 {
            return false;
        }
        bits[w] |= b;
    }
    true
}

/// Texts from this many bytes on are checked by two threads, one per half (small under test,
/// so that the tests exercise the split and the merge).
const STREAM_PARALLEL_FROM: usize = if cfg!(test) { 1 << 12 } else { 1 << 22 };

/// How many keys ahead the bitset word of a coming key is prefetched.
const SET_AHEAD: usize = 16;

/// One pass that parses and checks at once, for the exact text shape `nqueens solve` writes
/// (`N\n`, then `N` lines of digits, each ending in `\n`; `0` for an empty row): returns
/// `Some((n, queens))` when it is such a text and no two queens share a column or a
/// diagonal, and `None` otherwise — for any other shape, and for any conflict.
///
/// A `None` proves nothing: then [`parse_placement`](super::parse_placement) and
/// [`find_conflict`] give the error or the first pair. This path never builds the column
/// array: it parses a chunk of rows (`CHUNK_ROWS`) into a buffer and sets their column
/// and diagonal bits straight away (see `Half` for the order). From
/// `STREAM_PARALLEL_FROM` bytes the text is split in two at a line boundary; each thread
/// keeps its own bitset with keys relative to its first row, and at the end the second
/// half's diagonal bits, shifted by the first half's row count, must not meet the first
/// half's. Boards whose `5n` keys do not fit in a `u32` also get `None`.
///
/// # Complexity
/// O(length of the text) time; per thread `5n / 8` bytes of bits plus at most 16 bytes per
/// row of a chunk (64 MB from 2²² rows on).
///
/// # Examples
/// ```
/// use queenattack::nqueens::verify::peaceful_text;
/// assert_eq!(peaceful_text(b"4\n2\n4\n1\n3\n"), Some((4, 4)));
/// assert_eq!(peaceful_text(b"4\n1\n2\n0\n0\n"), None); // rows 1 and 2 share a diagonal
/// assert_eq!(peaceful_text(b"4 1\n1 2\n"), None); // not the `cols` shape: use the reader
/// ```
pub fn peaceful_text(text: &[u8]) -> Option<(usize, usize)> {
    let (n, body) = strict_cols_header(text)?;
    if body.len() < STREAM_PARALLEL_FROM {
        let half = Half::check(body, n)?;
        return (half.rows == n).then_some((n, half.queens));
    }
    let mid = body.len() / 2 + body[body.len() / 2..].iter().position(|&b| b == b'\n')? + 1;
    let (first, second) = body.split_at(mid);
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| Half::check(second, n));
        (Half::check(first, n), other.join().ok().flatten())
    });
    let (a, b) = (a?, b?);
    if a.rows + b.rows != n {
        return None;
    }
    let apart = |x: &[u64], y: &[u64], shift: usize| {
        y.iter()
            .enumerate()
            .all(|(i, &w)| w == 0 || shifted_word(x, i * 64 + shift) & w == 0)
    };
    let (downs, ups) = (a.downs / 64, a.ups / 64);
    let peaceful = apart(&a.bits[..downs], &b.bits[..downs], 0)
        && apart(&a.bits[downs..ups], &b.bits[downs..ups], a.rows)
        && apart(&a.bits[ups..], &b.bits[ups..], a.rows);
    peaceful.then_some((n, a.queens + b.queens))
}

/// Bits `at..at + 64` of a bitset as one word, zero beyond its end.
#[inline(always)]
fn shifted_word(words: &[u64], at: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    let lo = words.get(w).copied().unwrap_or(0);
    let hi = words.get(w + 1).copied().unwrap_or(0);
    // Shifting by 64 is not allowed: `b == 0` takes nothing from the next word.
    (lo >> b) | ((hi << 1) << (63 - b))
}

/// Rows parsed into one chunk before their keys are sorted into regions (small under test,
/// so that the tests cross many chunk boundaries).
const CHUNK_ROWS: usize = if cfg!(test) { 1 << 10 } else { 1 << 22 };

/// Rows per chunk while the bits stay in cache (no sorting needed).
const SMALL_CHUNK_ROWS: usize = if cfg!(test) { 1 << 8 } else { 1 << 12 };

/// Keys are sorted by region only from this many bits on (16 MB, half the L3 cache): below,
/// the bitset stays in cache and sorting only costs (measured 2× slower at N = 10⁷).
const SORT_FROM_BITS: usize = if cfg!(test) { 1 << 16 } else { 1 << 27 };

/// Each region of the key space covers `2^REGION_SHIFT` bits (512 KB: it stays in the L2
/// cache while the chunk's keys for it are set).
const REGION_SHIFT: u32 = 26;

/// The lines of one part of the text, checked on their own: keys use the row within the
/// part, so the parts can be run at once and compared afterwards.
///
/// All three line families share one key space — columns `c` from 0, down-right diagonals
/// `row − col + n − 1` from `downs`, up-right diagonals `row + col` from `ups` (both
/// word-aligned) — and one bitset. A random solution would hit that 5n-bit set at random,
/// one cache miss per key, so the keys of a chunk of rows are first sorted by region
/// (counting sort on the high bits) and then set region by region, each region in cache.
struct Half {
    rows: usize,
    queens: usize,
    n: usize,
    downs: usize,
    ups: usize,
    bits: Vec<u64>,
    cols: Vec<u32>,
    keys: Vec<u32>,
    counts: Vec<usize>,
    /// Whether chunks are sorted by region (large bitsets only).
    sort: bool,
}

impl Half {
    /// `None` on a shape error, more than `n` lines, or two queens of the part on one line.
    fn check(text: &[u8], n: usize) -> Option<Half> {
        let downs = n.next_multiple_of(64);
        let ups = downs + (2 * n).next_multiple_of(64);
        let end = ups + (2 * n).next_multiple_of(64);
        // Keys are `u32`; larger boards take the exact path.
        u32::try_from(end).ok()?;
        let sort = end >= SORT_FROM_BITS;
        let chunk = if sort { CHUNK_ROWS } else { SMALL_CHUNK_ROWS }.min(n);
        let mut half = Half {
            rows: 0,
            queens: 0,
            n,
            downs,
            ups,
            bits: random_access_vec(end / 64),
            // Room for the bytewise tail (fewer than 16 bytes, so at most 8 lines).
            cols: vec![0; chunk + 8],
            keys: vec![0; 3 * (chunk + 8)],
            counts: vec![0; (end >> REGION_SHIFT) + 2],
            sort,
        };
        let mut pos = 0;
        let probe = SMALL_CHUNK_ROWS.min(chunk);
        loop {
            // A small piece first: if its columns are neighbours it is set in row order at
            // once (in cache); only a random-looking piece grows into a full chunk to sort.
            let mut got = parse_batch(text, &mut pos, &mut half.cols[..probe], n as u64)?;
            if got == probe && sort && !mostly_near(&half.cols[..probe]) {
                got += parse_batch(text, &mut pos, &mut half.cols[probe..chunk], n as u64)?;
            }
            let tail = text.len() - pos < 16;
            if tail {
                got += parse_lines_bytewise(&text[pos..], &mut half.cols[got..], n as u64)?;
            }
            half.add(got)?;
            if tail {
                return Some(half);
            }
        }
    }

    /// Adds the queens of the next `rows` rows, from `self.cols` (1-based columns, 0 = empty);
    /// `None` if one lands on an occupied line or the rows run past `n`.
    fn add(&mut self, rows: usize) -> Option<()> {
        let (r0, n) = (self.rows, self.n);
        if r0 + rows > n {
            return None;
        }
        let (downs, ups) = (self.downs + n - 1, self.ups);
        let keys = |r: usize, c: usize| [c, downs + r - c, ups + r + c];
        if !self.sort {
            return self.add_in_order(rows);
        }
        // Mostly neighbouring columns (the closed-form solution): the bits are met in order
        // anyway, so sorting would only cost.
        let cols = &self.cols[..rows];
        if mostly_near(cols) {
            return self.add_in_order(rows);
        }
        self.counts.fill(0);
        let mut queens = 0;
        for (i, &c) in cols.iter().enumerate() {
            if c != 0 {
                queens += 1;
                for k in keys(r0 + i, c as usize - 1) {
                    self.counts[(k >> REGION_SHIFT) + 1] += 1;
                }
            }
        }
        // counts[b] becomes the start of region b's keys.
        for b in 1..self.counts.len() {
            self.counts[b] += self.counts[b - 1];
        }
        for (i, &c) in self.cols[..rows].iter().enumerate() {
            if c != 0 {
                for k in keys(r0 + i, c as usize - 1) {
                    let slot = &mut self.counts[k >> REGION_SHIFT];
                    self.keys[*slot] = k as u32;
                    *slot += 1;
                }
            }
        }
        // Now counts[b] is the end of region b's keys, and they are in region order.
        let keys = &self.keys[..3 * queens];
        for (i, &k) in keys.iter().enumerate() {
            // Random within a region: request the word a few keys early.
            if let Some(&ahead) = keys.get(i + SET_AHEAD) {
                prefetch(&self.bits[ahead as usize / 64]);
            }
            if !test_and_set(&mut self.bits, k as usize) {
                return None;
            }
        }
        self.rows += rows;
        self.queens += queens;
        Some(())
    }

    /// [`Half::add`] without sorting: the keys in row order.
    fn add_in_order(&mut self, rows: usize) -> Option<()> {
        let (r0, n) = (self.rows, self.n);
        let (downs, ups) = (self.downs + n - 1, self.ups);
        let mut queens = 0;
        for (i, &c) in self.cols[..rows].iter().enumerate() {
            // A random solution misses the caches on mid-sized boards: ask early.
            if let Some(&ahead) = self
                .cols
                .get(i + SET_AHEAD)
                .filter(|_| i + SET_AHEAD < rows)
            {
                if let Some(a) = (ahead as usize).checked_sub(1) {
                    let r = r0 + i + SET_AHEAD;
                    prefetch(&self.bits[a / 64]);
                    prefetch(&self.bits[(downs + r - a) / 64]);
                    prefetch(&self.bits[(ups + r + a) / 64]);
                }
            }
            if c != 0 {
                let (r, c) = (r0 + i, c as usize - 1);
                queens += 1;
                let fresh = test_and_set(&mut self.bits, c)
                    & test_and_set(&mut self.bits, downs + r - c)
                    & test_and_set(&mut self.bits, ups + r + c);
                if !fresh {
                    return None;
                }
            }
        }
        self.rows += rows;
        self.queens += queens;
        Some(())
    }
}

/// Whether most rows' columns are within 64 of the previous row's (the closed form), so
/// that setting bits in row order touches few cache lines.
fn mostly_near(cols: &[u32]) -> bool {
    let near = cols.windows(2).filter(|w| w[0].abs_diff(w[1]) < 64).count();
    2 * near > cols.len()
}

/// Sets bit `k`; returns whether it was clear.
#[inline(always)]
fn test_and_set(bits: &mut [u64], k: usize) -> bool {
    let (w, b) = (k / 64, 1u64 << (k % 64));
    let clear = bits[w] & b == 0;
    bits[w] |= b;
    clear
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

    fn cols_text(cols: &[u32]) -> Vec<u8> {
        let mut text = format!("{}\n", cols.len()).into_bytes();
        for c in cols {
            text.extend_from_slice(format!("{c}\n").as_bytes());
        }
        text
    }

    /// The slow path's answer: `Some((n, queens))` iff the text reads and is peaceful.
    fn slow(text: &[u8]) -> Option<(usize, usize)> {
        let p = crate::nqueens::parse_placement(text).ok()?;
        find_conflict(&p, false)
            .is_none()
            .then(|| (p.n(), p.count()))
    }

    #[test]
    fn streaming_check_agrees_with_the_reader_on_random_texts() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for round in 0..20_000 {
            let n = rng.random_range(1..10usize);
            let cols: Vec<u32> = (0..n).map(|_| rng.random_range(0..=n as u32)).collect();
            let mut text = cols_text(&cols);
            if round % 5 == 0 {
                // Sometimes a byte changed: the fast path may only say yes when the reader does.
                let at = rng.random_range(0..text.len());
                text[at] = b"0123456789\n \rx"[rng.random_range(0..14)];
            }
            let fast = peaceful_text(&text);
            if fast.is_some() || round % 5 != 0 {
                assert_eq!(fast, slow(&text), "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }

    #[test]
    fn streaming_check_finds_planted_conflicts_in_both_halves() {
        // Closed-form (neighbouring columns) and random (sorted by region) solutions, large
        // enough for two halves and many chunks under test.
        let n = 50_000;
        let explicit = crate::nqueens::explicit::explicit_solution(n).unwrap();
        let random = crate::nqueens::search::search(n, 5).unwrap();
        for solution in [explicit, random] {
            let cols: Vec<u32> = solution.iter().map(|&c| c + 1).collect();
            assert_eq!(peaceful_text(&cols_text(&cols)), Some((n, n)));
            let mut holes = cols.clone();
            for r in (0..n).step_by(7) {
                holes[r] = 0;
            }
            let queens = holes.iter().filter(|&&c| c != 0).count();
            assert_eq!(peaceful_text(&cols_text(&holes)), Some((n, queens)));
            // Row pairs: start, middle (across the halves), end, within one half, far apart.
            let pairs = [
                (0, 1),
                (0, n - 1),
                (n / 2 - 3, n / 2 + 2),
                (n / 2 - 1, n / 2),
                (n - 2, n - 1),
                (n / 5, n / 3),
                (3 * n / 5, 4 * n / 5),
                (10, n - 10),
            ];
            for (a, b) in pairs {
                let d = (b - a) as u32;
                // Same column, then each diagonal where it fits on the board.
                let mut plants = vec![cols[a]];
                if cols[a] + d <= n as u32 {
                    plants.push(cols[a] + d);
                }
                if cols[a] > d {
                    plants.push(cols[a] - d);
                }
                for c in plants {
                    let mut bad = cols.clone();
                    bad[b] = c;
                    let text = cols_text(&bad);
                    assert_eq!(peaceful_text(&text), None, "rows {a} and {b}, column {c}");
                    assert!(slow(&text).is_none());
                }
            }
        }
    }

    #[test]
    fn streaming_check_leaves_other_shapes_to_the_reader() {
        for text in [
            &b"4\r\n2\r\n4\r\n1\r\n3\r\n"[..],
            b"4\n2\n4\n1\n3",
            b"4\n2\n4\n1\n",
            b"4\n2\n4\n1\n3\n1\n",
            b"4\n2\n5\n1\n3\n",
            b"4 4\n1 2\n2 4\n3 1\n4 3\n",
            b"",
            b"0\n",
        ] {
            assert_eq!(
                peaceful_text(text),
                None,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        assert_eq!(peaceful_text(b"1\n1\n"), Some((1, 1)));
        assert_eq!(peaceful_text(b"3\n0\n0\n0\n"), Some((3, 0)));
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
