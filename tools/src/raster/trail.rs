//! Where one queen has been, kept merged so that drawing it costs the same however long it is.
//!
//! A queen moves along a row, a column or a diagonal, so its path is a set of stretches of the
//! board's `6N - 2` lines. [`Trail`] keeps, per line and start cell, the farthest cell reached
//! from there, and per cell how many moves ended on it: a queen that shuttles 54 000 times
//! between two cells holds one stretch and two cells, not 54 000 points. [`Trail::pieces`]
//! merges the stretches of a line that overlap or touch, like `pathPieces` of the web page
//! (`visualizer/draw.js`): a stroke of the pieces covers what a stroke of the whole path covers.
//!
//! # Examples
//!
//! ```
//! use tools::raster::Trail;
//!
//! // N = 5: from (0,0) right to (0,4), back to (0,2), then down the column to (4,2).
//! let mut trail = Trail::new(5, 0);
//! for to in [4, 2, 22] {
//!     trail.push(to);
//! }
//! assert_eq!(trail.pieces(), [(0, 4), (2, 22)]); // row 0, then column 2
//! assert_eq!(trail.stops().collect::<Vec<_>>(), [2, 4]); // the cells stopped on before (4,2)
//! assert_eq!((trail.start(), trail.at()), (0, 22));
//! ```

use std::collections::{BTreeMap, BTreeSet};

/// The path of one queen, merged by line (see the module docs of `raster::trail`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trail {
    n: usize,
    start: usize,
    at: usize,
    /// `(line, a) → b`: the queen moved over the stretch `a..=b` of `line` (positions along the
    /// line, `a < b`); only the farthest `b` per start matters for the merged picture.
    reach: BTreeMap<(usize, usize), usize>,
    /// Moves that are on no line (the judge accepts none; kept so nothing is lost).
    jumps: BTreeSet<(usize, usize)>,
    /// How many moves ended on each cell.
    arrivals: BTreeMap<usize, u64>,
}

impl Trail {
    /// The trail of a queen standing on `start` (a row-major cell index) of an `n × n` board,
    /// before it moves.
    pub fn new(n: usize, start: usize) -> Trail {
        Trail {
            n,
            start,
            at: start,
            reach: BTreeMap::new(),
            jumps: BTreeSet::new(),
            arrivals: BTreeMap::new(),
        }
    }

    /// The cell the queen started on.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The cell the queen stands on now.
    pub fn at(&self) -> usize {
        self.at
    }

    /// Whether the queen has moved.
    pub fn moved(&self) -> bool {
        !self.arrivals.is_empty()
    }

    /// Records a move of the queen from where it stands to `to`.
    ///
    /// `O(log)` of the stretches kept, which are at most `(6N - 2) × N` whatever the number of
    /// moves.
    pub fn push(&mut self, to: usize) {
        let from = std::mem::replace(&mut self.at, to);
        *self.arrivals.entry(to).or_insert(0) += 1;
        if from == to {
            return;
        }
        match self.line_of(from, to) {
            Some((line, a, b)) => {
                let far = self.reach.entry((line, a)).or_insert(b);
                *far = (*far).max(b);
            }
            None => {
                self.jumps.insert((from.min(to), from.max(to)));
            }
        }
    }

    /// The line through cells `from` and `to` with their positions on it, smaller first; `None`
    /// when no row, column or diagonal holds both.
    ///
    /// Lines are numbered like `pathPieces` of the page: rows `0..N` (position: column),
    /// columns `N..2N` (position: row), diagonals `r - c` in `2N..4N-1` and anti-diagonals
    /// `r + c` in `4N-1..6N-2` (position: row).
    fn line_of(&self, from: usize, to: usize) -> Option<(usize, usize, usize)> {
        let n = self.n;
        let (r1, c1, r2, c2) = (from / n, from % n, to / n, to % n);
        let (line, a, b) = if r1 == r2 {
            (r1, c1, c2)
        } else if c1 == c2 {
            (n + c1, r1, r2)
        } else if r1 + c2 == r2 + c1 {
            (2 * n + (r1 + n - 1 - c1), r1, r2)
        } else if r1 + c1 == r2 + c2 {
            (4 * n - 1 + r1 + c1, r1, r2)
        } else {
            return None;
        };
        Some((line, a.min(b), a.max(b)))
    }

    /// The cell at position `pos` of `line` (numbered as in [`Trail::line_of`]).
    fn cell_on(&self, line: usize, pos: usize) -> usize {
        let n = self.n;
        let (r, c) = if line < n {
            (line, pos)
        } else if line < 2 * n {
            (pos, line - n)
        } else if line < 4 * n - 1 {
            // r - c = line - 2N - (N - 1)
            (pos, pos + 3 * n - 1 - line)
        } else {
            (pos, line - (4 * n - 1) - pos)
        };
        r * n + c
    }

    /// The path as straight pieces `(from cell, to cell)`: per line, the stretches that overlap
    /// or touch merged into one, in line order; then any move on no line as it was.
    ///
    /// `O(stretches kept)`: at most `(6N - 2) × N` however long the path.
    pub fn pieces(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut open: Option<(usize, usize, usize)> = None;
        for (&(line, a), &b) in &self.reach {
            match &mut open {
                Some((l, _, end)) if *l == line && a <= *end => *end = (*end).max(b),
                _ => {
                    if let Some((l, s, e)) = open {
                        out.push((self.cell_on(l, s), self.cell_on(l, e)));
                    }
                    open = Some((line, a, b));
                }
            }
        }
        if let Some((l, s, e)) = open {
            out.push((self.cell_on(l, s), self.cell_on(l, e)));
        }
        out.extend(self.jumps.iter().copied());
        out
    }

    /// The cells the queen stopped on before the one it stands on, each once, in cell order
    /// (the start cell among them only if a move ended there).
    pub fn stops(&self) -> impl Iterator<Item = usize> + '_ {
        self.arrivals
            .iter()
            .filter(|&(&cell, &count)| count > u64::from(cell == self.at))
            .map(|(&cell, _)| cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cell a stroke along the pieces passes, as unit steps between neighbours.
    fn covered_steps(n: usize, pieces: &[(usize, usize)]) -> BTreeSet<(usize, usize)> {
        let mut steps = BTreeSet::new();
        for &(from, to) in pieces {
            let (r1, c1, r2, c2) = (
                (from / n) as i64,
                (from % n) as i64,
                (to / n) as i64,
                (to % n) as i64,
            );
            let (dr, dc) = ((r2 - r1).signum(), (c2 - c1).signum());
            let (mut r, mut c) = (r1, c1);
            while (r, c) != (r2, c2) {
                let a = (r * n as i64 + c) as usize;
                let b = ((r + dr) * n as i64 + c + dc) as usize;
                steps.insert((a.min(b), a.max(b)));
                r += dr;
                c += dc;
            }
        }
        steps
    }

    #[test]
    fn lines_round_trip_for_every_pair_of_cells_on_a_line() {
        let n = 6;
        let trail = Trail::new(n, 0);
        for from in 0..n * n {
            for to in 0..n * n {
                let Some((line, a, b)) = trail.line_of(from, to) else {
                    continue;
                };
                assert!(line < 6 * n - 2 && a < n && b < n, "{from} {to}");
                let ends = [trail.cell_on(line, a), trail.cell_on(line, b)];
                assert!(ends.contains(&from) && ends.contains(&to), "{from} {to}");
            }
        }
        // (0,0)-(1,2) is a knight's jump: on no line.
        assert_eq!(trail.line_of(0, n + 2), None);
    }

    #[test]
    fn a_shuttle_is_one_piece_and_two_stops() {
        let n = 30;
        let (top, bottom) = (0, 29 * n);
        let mut trail = Trail::new(n, top);
        for k in 0..54_000 {
            trail.push(if k % 2 == 0 { bottom } else { top });
        }
        assert_eq!(trail.pieces(), [(top, bottom)]);
        assert_eq!(trail.stops().collect::<Vec<_>>(), [top, bottom]);
        assert_eq!(trail.at(), top);
    }

    #[test]
    fn pieces_cover_exactly_the_steps_of_the_path() {
        // A walk over all four kinds of lines, with overlaps, touching and separate stretches.
        let n = 7;
        let cell = |r: usize, c: usize| r * n + c;
        let walk = [
            cell(0, 0),
            cell(0, 3),
            cell(0, 1),
            cell(0, 6),
            cell(6, 0),
            cell(6, 6),
            cell(0, 6),
            cell(0, 5),
            cell(3, 2),
            cell(3, 4),
            cell(5, 6),
            cell(5, 2),
            cell(2, 5),
            cell(4, 3),
        ];
        let mut trail = Trail::new(n, walk[0]);
        for &to in &walk[1..] {
            trail.push(to);
        }
        let raw: Vec<(usize, usize)> = walk.windows(2).map(|w| (w[0], w[1])).collect();
        let pieces = trail.pieces();
        assert_eq!(covered_steps(n, &pieces), covered_steps(n, &raw));
        assert!(pieces.len() < raw.len(), "{pieces:?}");
        // Stretches of one line never overlap or touch after merging.
        let mut cells = BTreeSet::new();
        for &(a, b) in &pieces {
            let line = trail.line_of(a, b).unwrap().0;
            assert!(
                cells.insert((line, a)) && cells.insert((line, b)),
                "{pieces:?}"
            );
        }
    }

    #[test]
    fn moves_on_no_line_are_kept_as_they_are() {
        let mut trail = Trail::new(4, 0);
        trail.push(6); // (0,0) -> (1,2)
        assert_eq!(trail.pieces(), [(0, 6)]);
        assert!(trail.moved());
        assert_eq!(trail.stops().count(), 0);
    }
}
