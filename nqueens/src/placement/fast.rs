//! The fast path of the reader: the exact text `nqueens solve` and `nqueens complete` write,
//! parsed 8 bytes at a time (SWAR) and by two threads on large inputs. Anything else falls
//! back to the general reader in the parent module, which has the error messages.

use super::{Placement, MAX_N};

/// Inputs from this many bytes on are parsed by two threads on the fast path.
const PARALLEL_FROM: usize = 1 << 22;

/// The header of a text in the strict `cols` shape that `nqueens solve` writes: `N` (digits
/// only, `1..=MAX_N`) on the first line, and the rest of the text (the rows), which must end in
/// `\n` and be long enough for `N` rows; or `YES` (what `nqueens complete` writes), `N` being
/// the number of lines after it. `None` for anything else, so the caller falls back to the
/// general reader.
pub(crate) fn strict_cols_header(text: &[u8]) -> Option<(usize, &[u8])> {
    if let Some(body) = text.strip_prefix(b"YES\n") {
        // `complete`'s answer: as many rows as lines.
        let n = count_newlines(body);
        return (n > 0 && n <= MAX_N && body.last() == Some(&b'\n')).then_some((n, body));
    }
    // A valid header has at most 10 digits: no need to look further for its line end.
    let header = text.iter().take(24).position(|&b| b == b'\n')?;
    let n = digits(&text[..header])?;
    if n == 0 || n as usize > MAX_N {
        return None;
    }
    let body = &text[header + 1..];
    // Each row takes at least 2 bytes: a header claiming more rows than the text can hold
    // must not size any buffer (the general reader reports it).
    if body.last() != Some(&b'\n') || body.len() < 2 * n as usize {
        return None;
    }
    Some((n as usize, body))
}

/// Fast path for the exact shape `nqueens solve` writes: `N\n`, then `N` lines of digits each
/// ending in `\n`, nothing else. Anything else (CRLF, blanks, spaces, a wrong count, a value
/// off the board) returns `None` and the general reader decides, with its error messages.
pub(super) fn parse_strict_cols(text: &[u8]) -> Option<Placement> {
    let (n, body) = strict_cols_header(text)?;
    let mut cols = vec![0u32; n];
    if body.len() < PARALLEL_FROM {
        return (parse_lines(body, &mut cols, n as u64)? == n)
            .then_some(Placement::Cols { n, cols });
    }
    // Two halves, split after a newline; counting the first half's lines (a vectorised
    // byte count) tells where the second half's rows start.
    let mid = body.len() / 2 + body[body.len() / 2..].iter().position(|&b| b == b'\n')? + 1;
    let (first, second) = body.split_at(mid);
    let lines = count_newlines(first);
    if lines > n {
        return None;
    }
    let (head, tail) = cols.split_at_mut(lines);
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| parse_lines(second, tail, n as u64));
        (
            parse_lines(first, head, n as u64),
            other.join().ok().flatten(),
        )
    });
    (a? == lines && b? == n - lines).then_some(Placement::Cols { n, cols })
}

/// The value of a non-empty run of at most 19 ASCII digits.
pub(crate) fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    s.iter().try_fold(0u64, |v, &b| {
        let d = b.wrapping_sub(b'0');
        (d <= 9).then_some(v * 10 + u64::from(d))
    })
}

/// Reads lines `digits\n` (each value ≤ `n`) into `out`; returns how many, or `None` on any
/// other byte, an empty line or one of more than 10 digits, a value above `n`, or more lines
/// than `out` holds.
///
/// Eight bytes at a time: find the newline in a word, check and convert up to eight digits
/// with a few multiplications (SWAR); the last bytes go through [`parse_lines_bytewise`].
fn parse_lines(text: &[u8], out: &mut [u32], n: u64) -> Option<usize> {
    let mut pos = 0;
    let k = parse_batch(text, &mut pos, out, n)?;
    Some(k + parse_lines_bytewise(&text[pos..], out.get_mut(k..)?, n)?)
}

/// Reads lines `digits\n` (each value ≤ `n`) from `text[*pos..]` into `out` until `out` is
/// full or fewer than 16 bytes are left (those are for [`parse_lines_bytewise`]); advances
/// `*pos` past the lines read and returns how many, or `None` on anything
/// [`parse_lines`] rejects. The same word-at-a-time reader, in batches, for the streaming
/// verifier.
#[inline]
pub(crate) fn parse_batch(text: &[u8], pos: &mut usize, out: &mut [u32], n: u64) -> Option<usize> {
    let word = |i: usize| u64::from_le_bytes(text[i..i + 8].try_into().expect("8 bytes"));
    let (mut i, mut k) = (*pos, 0);
    while k < out.len() && i + 16 <= text.len() {
        let lo = word(i);
        let p = newline(lo);
        let (v, len) = match p {
            0 => return None,
            1..=7 => (swar_digits(lo, p)?, p),
            _ => {
                let hi = word(i + 8);
                match newline(hi) {
                    0 => (swar_digits(lo, 8)?, 8),
                    q @ 1..=2 => {
                        let scale = if q == 1 { 10 } else { 100 };
                        (swar_digits(lo, 8)? * scale + swar_digits(hi, q)?, 8 + q)
                    }
                    _ => return None,
                }
            }
        };
        if v > n {
            return None;
        }
        out[k] = v as u32;
        k += 1;
        i += len + 1;
    }
    *pos = i;
    Some(k)
}

/// Number of `\n` bytes, eight at a time: a byte of `w ^ 0x0A…` is zero exactly at a
/// newline, and `((x & 0x7F…) + 0x7F…) | x` has bit 7 clear exactly in the zero bytes (no
/// carry crosses a byte, unlike the borrow trick in [`newline`]).
pub(super) fn count_newlines(text: &[u8]) -> usize {
    let mut words = text.chunks_exact(8);
    let mut count = 0;
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes")) ^ 0x0A0A_0A0A_0A0A_0A0A;
        let t = ((x & 0x7F7F_7F7F_7F7F_7F7F) + 0x7F7F_7F7F_7F7F_7F7F) | x;
        count += (!t & 0x8080_8080_8080_8080).count_ones() as usize;
    }
    count + words.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Index of the first `\n` byte of a little-endian word, 8 if none. (The borrow trick flags
/// bytes after a true match too, but never before one, so the lowest flag is exact.)
#[inline(always)]
fn newline(w: u64) -> usize {
    let x = w ^ 0x0A0A_0A0A_0A0A_0A0A;
    let t = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
    t.trailing_zeros() as usize / 8
}

/// The value of the first `len` (1..=8) bytes of `w` if they are all ASCII digits.
#[inline(always)]
fn swar_digits(w: u64, len: usize) -> Option<u64> {
    let mask = if len == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    };
    let x = (w ^ 0x3030_3030_3030_3030) & mask;
    // A digit becomes a byte 0..=9; any other byte is ≥ 10 and gets bit 7 set by + 0x76
    // (or has it already). Carries only run upward from a byte that is flagged itself.
    if (x.wrapping_add(0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080 & mask != 0 {
        return None;
    }
    // Leading zero bytes as high-order digits, then pairs, quads, eights.
    let x = x << (8 * (8 - len));
    let x = x.wrapping_mul(10 * 256 + 1) >> 8;
    let x = (x & 0x00FF_00FF_00FF_00FF).wrapping_mul(100 * 65536 + 1) >> 16;
    let x = (x & 0x0000_FFFF_0000_FFFF).wrapping_mul(10000 * (1 << 32) + 1) >> 32;
    Some(x)
}

/// [`parse_lines`] one byte at a time (its tail, and its reference in tests).
pub(crate) fn parse_lines_bytewise(text: &[u8], out: &mut [u32], n: u64) -> Option<usize> {
    let (mut k, mut v, mut len) = (0usize, 0u64, 0u32);
    for &b in text {
        if b == b'\n' {
            if len == 0 || v > n {
                return None;
            }
            *out.get_mut(k)? = v as u32;
            k += 1;
            (v, len) = (0, 0);
        } else {
            let d = b.wrapping_sub(b'0');
            if d > 9 || len == 10 {
                return None;
            }
            v = v * 10 + u64::from(d);
            len += 1;
        }
    }
    // A last line without its newline is for the general reader.
    (len == 0).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::parse_placement;

    #[test]
    fn fast_path_agrees_with_the_general_reader() {
        // Large enough for the two-thread split, with a wrong value planted in each half.
        let n = 600_000usize;
        let mut text = format!("{n}\n").into_bytes();
        for r in 0..n {
            text.extend_from_slice(format!("{}\n", (r * 7) % n + 1).as_bytes());
        }
        let p = parse_placement(&text).unwrap();
        assert_eq!(p.n(), n);
        assert_eq!(p.queen(n - 1), Some((n - 1, (n - 1) * 7 % n)));
        assert_eq!(parse_strict_cols(&text), Some(p));
        let mut bad = text.clone();
        let at = bad.len() / 4;
        let at = at + bad[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
        bad[at] = b'x';
        let e = parse_placement(&bad).unwrap_err();
        assert!(e.message.contains("found \"x"), "{e}");
        let mut extra = text.clone();
        extra.extend_from_slice(b"5\n");
        assert!(parse_placement(&extra)
            .unwrap_err()
            .message
            .contains("more than"));
        let cut = text[..text.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        let e = parse_placement(&text[..cut]).unwrap_err();
        assert!(e.message.contains(&format!("found {}", n - 1)), "{e}");
        // Off the board on the fast path falls back to the general message.
        let e = parse_placement(b"3\n1\n4\n2\n").unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn counts_newlines_exactly() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        for len in 0..300 {
            let text: Vec<u8> = (0..len)
                .map(|_| [b'\n', b'1', 0x8A, 0x0B, 0x09, 0xFF, 0][rng.random_range(0..7)])
                .collect();
            let expected = text.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_newlines(&text), expected);
        }
    }

    #[test]
    fn word_parser_agrees_with_bytewise_on_random_text() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let alphabet = b"0123456789\n\n\n/:a \x80";
        for round in 0..50_000 {
            let len = rng.random_range(0..60);
            // Mostly well-formed lines, sometimes random bytes.
            let text: Vec<u8> = if round % 2 == 0 {
                let mut t = Vec::new();
                while t.len() < len {
                    let digits = rng.random_range(1..=11);
                    t.extend((0..digits).map(|_| b'0' + rng.random_range(0..10u8)));
                    t.push(b'\n');
                }
                t
            } else {
                (0..len)
                    .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                    .collect()
            };
            let n = if round % 3 == 0 {
                u64::MAX >> 8
            } else {
                rng.random_range(1..2_000_000_000)
            };
            let cap = rng.random_range(0..12);
            let (mut a, mut b) = (vec![0u32; cap], vec![0u32; cap]);
            let fast = parse_lines(&text, &mut a, n);
            let slow = parse_lines_bytewise(&text, &mut b, n);
            assert_eq!(fast, slow, "{:?} n={n}", String::from_utf8_lossy(&text));
            if let Some(k) = fast {
                assert_eq!(a[..k], b[..k]);
            }
        }
    }
}
