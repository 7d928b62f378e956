//! Writing solutions fast: integers are formatted into one large byte buffer per chunk of
//! rows and handed to the writer in big blocks, so a 10^8-queen solution (about 900 MB of
//! text) costs two passes over memory rather than 10^8 formatted writes.

use std::io::{self, Write};
use std::sync::mpsc::sync_channel;

/// Rows formatted per block: ~700 KB of text, large enough for few system calls and small
/// enough to stay in cache.
pub const CHUNK_ROWS: usize = 1 << 16;

/// Largest board [`write_matrix`] accepts: 20 000 × 20 000 characters is 400 MB already.
pub const MAX_MATRIX_N: usize = 20_000;

/// Writes a solution in `cols` format: `n`, then one line per row with the 1-based column.
///
/// `fill(start, out)` must put the 0-based columns of rows `start..start + out.len()` into
/// `out`; it is called for consecutive blocks of at most [`CHUNK_ROWS`] rows, in order.
/// `progress(rows_written)` is called after each block. From [`THREADED_FROM`] rows on, a
/// second thread does the writing while this one formats the next blocks, so the kernel's
/// copying overlaps our formatting.
///
/// # Errors
/// Whatever the writer returns.
///
/// # Complexity
/// O(n) time, O([`CHUNK_ROWS`]) memory.
///
/// # Examples
/// ```
/// use nqueens::output::write_cols;
/// let cols = [1u32, 3, 0, 2];
/// let mut text = Vec::new();
/// write_cols(&mut text, 4, |s, out| out.copy_from_slice(&cols[s..s + out.len()]), |_| {})
///     .unwrap();
/// assert_eq!(text, b"4\n2\n4\n1\n3\n");
/// ```
pub fn write_cols<W: Write + Send>(
    out: &mut W,
    n: usize,
    mut fill: impl FnMut(usize, &mut [u32]),
    mut progress: impl FnMut(usize),
) -> io::Result<()> {
    let mut block = vec![0u32; CHUNK_ROWS.min(n)];
    // Formats the block of rows starting at `start` into `text` (whose length stays at
    // TEXT_CAPACITY) after its first `*used` bytes; returns the next row.
    let mut format = |start: usize, text: &mut [u8], used: &mut usize| {
        let len = CHUNK_ROWS.min(n - start);
        let block = &mut block[..len];
        fill(start, block);
        for &c in block.iter() {
            *used += put_line(&mut text[*used..], c + 1);
        }
        start + len
    };
    let mut text = vec![0u8; TEXT_CAPACITY];
    let mut used = put_line(&mut text, n as u32);
    if n < THREADED_FROM {
        let mut start = 0;
        while start < n {
            start = format(start, &mut text, &mut used);
            out.write_all(&text[..used])?;
            used = 0;
            progress(start);
        }
        out.write_all(&text[..used])?;
        return out.flush();
    }
    let (send, blocks) = sync_channel::<(Vec<u8>, usize)>(4);
    let (recycle, spare) = sync_channel::<Vec<u8>>(4);
    std::thread::scope(|s| {
        let writer = s.spawn(move || -> io::Result<()> {
            for (text, used) in blocks {
                out.write_all(&text[..used])?;
                let _ = recycle.try_send(text);
            }
            out.flush()
        });
        let mut start = 0;
        while start < n {
            start = format(start, &mut text, &mut used);
            let next = spare
                .try_recv()
                .unwrap_or_else(|_| vec![0u8; TEXT_CAPACITY]);
            if send
                .send((std::mem::replace(&mut text, next), used))
                .is_err()
            {
                break; // the writer failed: its error is reported below
            }
            used = 0;
            progress(start);
        }
        drop(send);
        writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("writer thread panicked")))
    })
}

/// Bytes of one formatted block: the header line, plus 10 digits and a newline per row.
const TEXT_CAPACITY: usize = 16 + CHUNK_ROWS * 11;

/// `"00" "01" … "99"`: two decimal digits per lookup.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566\
676869707172737475767778798081828384858687888990919293949596979899";

/// Writes `v` in decimal and a newline at the start of `out`; returns the bytes written.
///
/// # Panics
/// If `out` is shorter than the line (at most 11 bytes).
#[inline(always)]
fn put_line(out: &mut [u8], mut v: u32) -> usize {
    let len = v.checked_ilog10().unwrap_or(0) as usize + 1;
    let line = &mut out[..len + 1];
    line[len] = b'\n';
    let mut i = len;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        line[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        line[..2].copy_from_slice(&PAIRS[v as usize * 2..v as usize * 2 + 2]);
    } else {
        line[0] = b'0' + v as u8;
    }
    len + 1
}

/// Outputs from this many rows on are written by a second thread.
pub const THREADED_FROM: usize = 1 << 20;

/// Writes a solution as `n` lines of `n` characters, `1` where the queen stands, else `0`
/// (seed 001's format). `col(r)` is the 0-based column of row `r`.
///
/// # Panics
/// If `n > MAX_MATRIX_N`: check before calling.
///
/// # Errors
/// Whatever the writer returns.
///
/// # Complexity
/// O(n²) output, O(n) memory.
///
/// # Examples
/// ```
/// use nqueens::output::write_matrix;
/// let mut text = Vec::new();
/// write_matrix(&mut text, 4, |r| [1, 3, 0, 2][r]).unwrap();
/// assert_eq!(text, b"0100\n0001\n1000\n0010\n");
/// ```
pub fn write_matrix<W: Write>(
    out: &mut W,
    n: usize,
    mut col: impl FnMut(usize) -> usize,
) -> io::Result<()> {
    assert!(n <= MAX_MATRIX_N, "a {n}×{n} matrix is too large to print");
    let mut line = vec![b'0'; n + 1];
    line[n] = b'\n';
    // Batch several lines per write for small boards.
    let mut text = Vec::with_capacity((n + 1) * (CHUNK_ROWS * 8 / (n + 1)).max(1));
    for r in 0..n {
        let c = col(r);
        line[c] = b'1';
        text.extend_from_slice(&line);
        line[c] = b'0';
        if text.len() + line.len() > text.capacity() {
            out.write_all(&text)?;
            text.clear();
        }
    }
    out.write_all(&text)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{find_conflict, parse_placement};

    #[test]
    fn cols_round_trip_through_the_reader() {
        for n in [
            1usize,
            5,
            CHUNK_ROWS - 1,
            CHUNK_ROWS,
            CHUNK_ROWS + 3,
            3 * CHUNK_ROWS,
        ] {
            let cols = crate::explicit::explicit_solution(n).unwrap();
            let mut text = Vec::new();
            let mut last = 0;
            write_cols(
                &mut text,
                n,
                |s, out| out.copy_from_slice(&cols[s..s + out.len()]),
                |done| last = done,
            )
            .unwrap();
            assert_eq!(last, n);
            let p = parse_placement(&text).unwrap();
            assert_eq!(p.n(), n);
            assert!(find_conflict(&p, false).is_none());
            for (r, &c) in cols.iter().enumerate() {
                assert_eq!(p.queen(r), Some((r, c as usize)));
            }
        }
    }

    #[test]
    fn lines_match_std_formatting() {
        let mut buf = [0u8; 11];
        let mut check = |v: u32| {
            let len = put_line(&mut buf, v);
            assert_eq!(&buf[..len], format!("{v}\n").as_bytes());
        };
        for v in (0..2000).chain([9_999, 10_000, 99_999_999, 100_000_000, u32::MAX]) {
            check(v);
        }
        let mut v = 1u32;
        while let Some(next) = v.checked_mul(3) {
            check(v);
            check(v - 1);
            v = next;
        }
    }

    #[test]
    fn matrix_has_one_queen_per_line() {
        let n = 300;
        let cols = crate::explicit::explicit_solution(n).unwrap();
        let mut text = Vec::new();
        write_matrix(&mut text, n, |r| cols[r] as usize).unwrap();
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), n + 1);
        assert!(lines[n].is_empty());
        for (r, line) in lines[..n].iter().enumerate() {
            assert_eq!(line.len(), n);
            let ones: Vec<usize> = (0..n).filter(|&c| line[c] == b'1').collect();
            assert_eq!(ones, [cols[r] as usize]);
            assert!(line.iter().all(|&b| b == b'0' || b == b'1'));
        }
    }
}
