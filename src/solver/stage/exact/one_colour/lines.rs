//! The lines a node of the proof's search ([`proof`](super::proof)) has filled: its rows,
//! its columns, and the cells the queens placed so far attack in every row.

/// Which lines a node has filled, and the columns the queens placed so far attack in each
/// row (bit `c`: column `c`).
#[derive(Clone, Copy, Default)]
pub(super) struct Lines {
    pub(super) blocked: [u32; 32],
    pub(super) rows: u32,
    pub(super) columns: u32,
}

impl Lines {
    /// The lines once a queen stands on `(row, col)` of an `n`-row board.
    pub(super) fn place(&self, n: usize, row: usize, col: u32) -> Lines {
        let mut next = *self;
        next.rows |= 1 << row;
        next.columns |= 1 << col;
        for (r, blocked) in next.blocked.iter_mut().enumerate().take(n) {
            let k = r.abs_diff(row) as u32;
            let mut bits = 1u32 << col;
            if let Some(left) = col.checked_sub(k) {
                bits |= 1 << left;
            }
            if col + k < 32 {
                bits |= 1 << (col + k);
            }
            *blocked |= bits;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placing_a_queen_blocks_its_column_and_diagonals_in_every_row() {
        let lines = Lines::default().place(5, 2, 1);
        assert_eq!(lines.rows, 1 << 2);
        assert_eq!(lines.columns, 1 << 1);
        // rows 0 and 4 lose columns 1 and 3 (column −1 is off the board); rows 1 and 3
        // columns 0, 1, 2
        assert_eq!(&lines.blocked[..5], &[0b1010, 0b111, 0b10, 0b111, 0b1010]);
    }
}
