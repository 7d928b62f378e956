//! The closed-form N-Queens solution for every N ≥ 4 (Hoffman, Loessi and Moore, 1969; the
//! formula seed 001 quotes).
//!
//! For even `m`, with rows and columns 1-based and `h = m / 2`:
//!
//! * if `m mod 6 ≠ 2`: row `i ≤ h` takes column `2i`, row `h + i` takes column `2i − 1`;
//! * if `m mod 6 = 2`: row `i ≤ h` takes column `1 + (2(i − 1) + h − 1) mod m`, and row
//!   `i > h` takes column `m − (2(m − i) + h − 1) mod m`.
//!
//! Neither pattern puts a queen on the main diagonal, so for odd `n` the even solution for
//! `m = n − 1` plus a queen in the corner `(n, n)` solves `n`. `n = 2` and `n = 3` have no
//! solution; `n = 1` is the single queen.

/// Whether an `n × n` board has an N-Queens solution: every `n` except 0, 2 and 3.
///
/// # Examples
/// ```
/// use queenattack::nqueens::explicit::has_solution;
/// assert!(has_solution(1) && has_solution(4) && !has_solution(3));
/// ```
pub fn has_solution(n: usize) -> bool {
    !matches!(n, 0 | 2 | 3)
}

/// The 0-based column of the queen in 0-based `row` of the closed-form solution for `n`.
///
/// # Panics
/// If `n` has no solution (see [`has_solution`]) or `row >= n`.
///
/// # Complexity
/// O(1).
///
/// # Examples
/// ```
/// use queenattack::nqueens::explicit::explicit_column;
/// let cols: Vec<usize> = (0..4).map(|r| explicit_column(4, r)).collect();
/// assert_eq!(cols, [1, 3, 0, 2]);
/// ```
#[inline]
pub fn explicit_column(n: usize, row: usize) -> usize {
    assert!(has_solution(n), "no N-Queens solution for n = {n}");
    assert!(row < n, "row {row} is off an {n}×{n} board");
    // Odd n: the even pattern on the first n − 1 rows and columns, then the corner.
    let m = n & !1;
    if row == m {
        return row;
    }
    let h = m / 2;
    let i = row + 1; // 1-based row
    let col = if m % 6 != 2 {
        if i <= h {
            2 * i
        } else {
            2 * (i - h) - 1
        }
    } else if i <= h {
        1 + (2 * (i - 1) + h - 1) % m
    } else {
        m - (2 * (m - i) + h - 1) % m
    };
    col - 1
}

/// Fills `out[k]` with the 0-based column of row `start + k` of the closed-form solution.
///
/// This is the streaming form used to write very large solutions chunk by chunk.
///
/// # Panics
/// If `n` has no solution or `start + out.len() > n`.
///
/// # Complexity
/// O(`out.len()`).
///
/// # Examples
/// ```
/// use queenattack::nqueens::explicit::explicit_fill;
/// let mut cols = [0u32; 3];
/// explicit_fill(5, 2, &mut cols);
/// assert_eq!(cols, [0, 2, 4]);
/// ```
pub fn explicit_fill(n: usize, start: usize, out: &mut [u32]) {
    assert!(has_solution(n), "no N-Queens solution for n = {n}");
    assert!(
        start + out.len() <= n,
        "rows {start}..{} are off an {n}×{n} board",
        start + out.len()
    );
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = explicit_column(n, start + k) as u32;
    }
}

/// The whole closed-form solution: entry `r` is the 0-based column of the queen in row `r`;
/// `None` when `n` has no solution (0, 2, 3).
///
/// # Complexity
/// O(n) time and memory.
///
/// # Examples
/// ```
/// use queenattack::nqueens::explicit::explicit_solution;
/// use queenattack::nqueens::{find_conflict, Placement};
/// assert_eq!(explicit_solution(3), None);
/// let cols = explicit_solution(8).unwrap();
/// let p = Placement::Cols { n: 8, cols: cols.iter().map(|&c| c + 1).collect() };
/// assert_eq!(find_conflict(&p, false), None);
/// ```
pub fn explicit_solution(n: usize) -> Option<Vec<u32>> {
    if !has_solution(n) {
        return None;
    }
    let mut cols = vec![0u32; n];
    explicit_fill(n, 0, &mut cols);
    Some(cols)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nqueens::{find_conflict, Placement};

    fn peaceful(cols: &[u32]) -> bool {
        let p = Placement::Cols {
            n: cols.len(),
            cols: cols.iter().map(|&c| c + 1).collect(),
        };
        find_conflict(&p, false).is_none()
    }

    #[test]
    fn small_boards() {
        assert_eq!(explicit_solution(0), None);
        assert_eq!(explicit_solution(1), Some(vec![0]));
        assert_eq!(explicit_solution(2), None);
        assert_eq!(explicit_solution(3), None);
        for n in 4..=2000 {
            assert!(peaceful(&explicit_solution(n).unwrap()), "n = {n}");
        }
    }

    #[test]
    fn every_residue_class_at_large_n() {
        // Both branches of the formula and both parities, mod 6 and mod 12.
        for n in 1_000_000..1_000_012 {
            assert!(peaceful(&explicit_solution(n).unwrap()), "n = {n}");
        }
    }

    #[test]
    fn fill_matches_column() {
        let n = 1001;
        let mut chunk = vec![0u32; 100];
        explicit_fill(n, 900, &mut chunk);
        for (k, &c) in chunk.iter().enumerate() {
            assert_eq!(c as usize, explicit_column(n, 900 + k));
        }
    }

    #[test]
    #[should_panic(expected = "no N-Queens solution")]
    fn column_panics_without_solution() {
        explicit_column(3, 0);
    }
}
