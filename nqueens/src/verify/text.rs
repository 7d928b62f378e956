//! The one-pass check of `nqueens solve` text: parse and test the lines at once, without
//! building the column array (see [`peaceful_text`]).

use super::super::mem::{prefetch, random_access_vec};
use super::super::placement::{parse_batch, parse_lines_bytewise, strict_cols_header};
use super::test_and_set;

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
/// A `None` proves nothing: then [`parse_placement`](crate::placement::parse_placement) and
/// [`find_conflict`](super::find_conflict) give the error or the first pair. This path never builds the column
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
/// use nqueens::verify::peaceful_text;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::find_conflict;

    fn cols_text(cols: &[u32]) -> Vec<u8> {
        let mut text = format!("{}\n", cols.len()).into_bytes();
        for c in cols {
            text.extend_from_slice(format!("{c}\n").as_bytes());
        }
        text
    }

    /// The slow path's answer: `Some((n, queens))` iff the text reads and is peaceful.
    fn slow(text: &[u8]) -> Option<(usize, usize)> {
        let p = crate::parse_placement(text).ok()?;
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
        let explicit = crate::explicit::explicit_solution(n).unwrap();
        let random = crate::search::search(n, 5).unwrap();
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
}
