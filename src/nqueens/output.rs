//! Writing solutions fast: integers are formatted into one large byte buffer per chunk of
//! rows and handed to the writer in big blocks, so a 10^8-queen solution (about 900 MB of
//! text) costs two passes over memory rather than 10^8 formatted writes.

use std::io::{self, Write};

/// Rows formatted per block: ~700 KB of text, large enough for few system calls and small
/// enough to stay in cache.
pub const CHUNK_ROWS: usize = 1 << 16;

/// Largest board [`write_matrix`] accepts: 20 000 × 20 000 characters is 400 MB already.
pub const MAX_MATRIX_N: usize = 20_000;

/// Writes a solution in `cols` format: `n`, then one line per row with the 1-based column.
///
/// `fill(start, out)` must put the 0-based columns of rows `start..start + out.len()` into
/// `out`; it is called for consecutive blocks of at most [`CHUNK_ROWS`] rows, in order.
/// `progress(rows_written)` is called after each block.
///
/// # Errors
/// Whatever the writer returns.
///
/// # Complexity
/// O(n) time, O([`CHUNK_ROWS`]) memory.
///
/// # Examples
/// ```
/// use queenattack::nqueens::output::write_cols;
/// let cols = [1u32, 3, 0, 2];
/// let mut text = Vec::new();
/// write_cols(&mut text, 4, |s, out| out.copy_from_slice(&cols[s..s + out.len()]), |_| {})
///     .unwrap();
/// assert_eq!(text, b"4\n2\n4\n1\n3\n");
/// ```
pub fn write_cols<W: Write>(
    out: &mut W,
    n: usize,
    mut fill: impl FnMut(usize, &mut [u32]),
    mut progress: impl FnMut(usize),
) -> io::Result<()> {
    let mut digits = itoa::Buffer::new();
    let mut text = Vec::with_capacity(CHUNK_ROWS * 11 + 32);
    text.extend_from_slice(digits.format(n).as_bytes());
    text.push(b'\n');
    let mut block = vec![0u32; CHUNK_ROWS.min(n)];
    let mut start = 0;
    while start < n {
        let len = CHUNK_ROWS.min(n - start);
        let block = &mut block[..len];
        fill(start, block);
        for &c in block.iter() {
            text.extend_from_slice(digits.format(c + 1).as_bytes());
            text.push(b'\n');
        }
        out.write_all(&text)?;
        text.clear();
        start += len;
        progress(start);
    }
    out.write_all(&text)?;
    out.flush()
}

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
/// use queenattack::nqueens::output::write_matrix;
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
    use crate::nqueens::{find_conflict, parse_placement};

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
            let cols = crate::nqueens::explicit::explicit_solution(n).unwrap();
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
    fn matrix_has_one_queen_per_line() {
        let n = 300;
        let cols = crate::nqueens::explicit::explicit_solution(n).unwrap();
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
