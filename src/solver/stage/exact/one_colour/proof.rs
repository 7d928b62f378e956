//! The depth-first search of [`one_colour_floor`](super::one_colour_floor): the branch and
//! bound of [`OneColour`] with the most constrained line first (`docs/solver.md`, the
//! one-colour search).
//!
//! Every node fills one line, a row or a column, that no queen stands on yet: the one with
//! the fewest cells that can still take a board below the threshold. Two bounds decide:
//!
//! * a cheap one, first: the root's reduced costs reduced over the open rows and columns
//!   as the Hungarian method does (each open row pays at least its cheapest free cell, each
//!   open column at least the least extra of its free cells), which also leaves each row
//!   the cells within the slack;
//! * the node's own ([`ascent`](super::ascent)): the queens matched to the rows under column
//!   and diagonal weights raised for this node, the weights starting from the parent's.
//!   Beyond it, every open column pays the least reduced cost of its cells under that
//!   matching's duals; a cell whose bound reaches the threshold is out.
//!
//! On the held-out seeds of docs/benchmarks.md ("the one-colour engine") the second bound
//! took the proof's nodes from hundreds of thousands to thousands.

use super::super::assignment::Duals;
use super::ascent::{Ascent, AscentTables, NodeBound, Weights};
use super::lines::Lines;
use super::{bits, OneColour};
use std::sync::Arc;
use std::time::Instant;

/// Nodes of the proof's search between two looks at the clock: a node's ascent takes tens
/// of microseconds (seed 3016, N = 22: about 80 µs), so the search keeps its deadline to
/// within a millisecond.
const PROOF_CLOCK_EVERY: u32 = 8;

/// The reductions of a node: the least cost of every board below the threshold through it
/// is `base` plus, per cell, its `extra` beyond `cheapest[row] + column_least[column]`.
struct Reduced {
    /// Each open row's cheapest free cell.
    cheapest: [f64; 32],
    /// Each open column's least extra beyond its row's cheapest.
    column_least: [f64; 32],
    /// Each open row's cells that can still take a board below the threshold.
    viable: [u32; 32],
    /// The node's bound.
    base: f64,
}

impl Reduced {
    /// A cell's cost beyond the reductions.
    fn extra(&self, reduced: f64, row: usize, col: usize) -> f64 {
        reduced - self.cheapest[row] - self.column_least[col]
    }
}

impl OneColour<'_> {
    /// Searches every board below `cap` (and the keep list's threshold), most constrained
    /// line first; `false` when the deadline cut it.
    pub(super) fn run_most_constrained(&mut self, cap: f64) -> bool {
        self.cap = cap;
        if self.prefix.is_empty() {
            self.tables();
        }
        if let Some(ahead) = self.root_ahead {
            let start = Weights::from_lines(&self.lines);
            self.constrained(0, Lines::default(), self.root - ahead, (&start, None));
        }
        !self.out_of_time
    }

    /// The tables of this search that the others do without: every cell's reduced cost and
    /// the columns of each prefix of a row's order.
    pub(super) fn tables(&mut self) {
        let n = self.n;
        self.reduced = vec![f64::INFINITY; n * n];
        for (r, row) in self.order.iter().enumerate() {
            let mut masks = vec![0u32];
            for &(c, cost) in row {
                self.reduced[r * n + c as usize] = cost;
                masks.push(masks[masks.len() - 1] | 1 << c);
            }
            self.prefix.push(masks);
        }
        self.ascent_tables = Some(Arc::new(AscentTables::new(n, self.members, self.dist)));
    }

    /// The node with `depth` queens placed on `lines`, their reduced costs and the weights'
    /// constant summing to `bound`.
    pub(super) fn constrained(
        &mut self,
        depth: usize,
        lines: Lines,
        bound: f64,
        (weights, duals): (&Weights, Option<&Duals>),
    ) {
        self.nodes += 1;
        if self.nodes % PROOF_CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
            self.out_of_time = true;
        }
        if self.out_of_time {
            return;
        }
        if depth == self.split_depth {
            self.subtrees.push(super::split::Subtree {
                depth,
                lines,
                bound,
                cells: self.cells.clone(),
                weights: *weights,
            });
            return;
        }
        let n = self.n;
        if depth == n {
            // row-major, as the other searches offer their boards
            let mut cells = self.cells.clone();
            cells.sort_unstable();
            std::mem::swap(&mut cells, &mut self.cells);
            self.leaf();
            self.cells = cells;
            return;
        }
        let Some(reduced) = self.reduce(&lines, bound) else {
            return;
        };
        let tables = Arc::clone(self.ascent_tables.as_ref().expect("the proof's tables"));
        // the cells each row may take: a filled row its queen's, an open one those the
        // reductions left
        let mut allowed = reduced.viable;
        for &cell in &self.cells {
            allowed[cell / n] = 1 << (cell % n);
        }
        let mut ascent = self
            .ascent
            .take()
            .unwrap_or_else(|| Box::new(Ascent::new(n)));
        let node = ascent.bound(&tables, &allowed, (weights, duals), self.threshold() - 1e-9);
        self.ascent = Some(ascent);
        let Some(node) = node else {
            return;
        };
        // the cells' bounds go to a buffer of the search's: zeroing 8 kB per node cost a
        // sixth of the node's instructions
        let mut lap = std::mem::take(&mut self.scratch);
        lap.resize(32, [0.0; 32]);
        let found = self.fewest(&lines, &reduced, (&node, &tables), &mut lap);
        self.scratch = lap;
        let Some((options, count)) = found else {
            return;
        };
        for &(least, cell) in &options[..count] {
            if least >= self.threshold() - 1e-9 {
                break; // cheapest first: the other cells fail too
            }
            let (r, c) = (cell / n, cell % n);
            let next = lines.place(n, r, c as u32);
            self.cells.push(cell);
            let start = (&node.weights, Some(&node.duals));
            self.constrained(depth + 1, next, bound + self.reduced[cell], start);
            self.cells.pop();
        }
    }

    /// The node's reductions; `None` when no board below the threshold goes through it.
    fn reduce(&self, lines: &Lines, bound: f64) -> Option<Reduced> {
        let n = self.n;
        let all = u32::MAX >> (32 - n);
        let mut reduced = Reduced {
            cheapest: [0.0; 32],
            column_least: [f64::INFINITY; 32],
            viable: [0; 32],
            base: bound,
        };
        for r in bits(!lines.rows & all) {
            let blocked = lines.blocked[r];
            let &(_, cost) = self.order[r].iter().find(|(c, _)| blocked >> c & 1 == 0)?;
            reduced.cheapest[r] = cost;
            reduced.base += cost;
        }
        let slack = self.threshold() - 1e-9 - reduced.base;
        if slack <= 0.0 {
            return None;
        }
        // a row's cells within the slack of its cheapest are a prefix of its order
        for r in bits(!lines.rows & all) {
            let cheapest = reduced.cheapest[r];
            let within = self.order[r].partition_point(|&(_, cost)| cost - cheapest < slack);
            reduced.viable[r] = self.prefix[r][within] & !lines.blocked[r];
            for c in bits(reduced.viable[r]) {
                let extra = self.reduced[r * n + c] - cheapest;
                reduced.column_least[c] = reduced.column_least[c].min(extra);
            }
        }
        // a column no open row can fill within the slack adds ∞
        for c in bits(!lines.columns & all) {
            reduced.base += reduced.column_least[c];
        }
        (reduced.base < self.threshold() - 1e-9).then_some(reduced)
    }

    /// The open line (row or column) with the fewest cells left, as (least bound of a board
    /// through the cell, cell) cheapest first with their count; `None` when some open line
    /// has none, or when no board through the node beats the threshold.
    ///
    /// A cell stays while two bounds of the boards through it stay below the threshold: the
    /// row and column reductions' (`reduced`), and the queens matched to the rows' (`rows`)
    /// plus, per open column, the least reduced cost of its cells under that matching's
    /// duals (every board has a cell in every open column), the cell's own column counted
    /// at the cell's reduced cost.
    fn fewest(
        &self,
        lines: &Lines,
        reduced: &Reduced,
        (node, tables): (&NodeBound, &AscentTables),
        lap: &mut [[f64; 32]],
    ) -> Option<([(f64, usize); 32], usize)> {
        let n = self.n;
        let all = u32::MAX >> (32 - n);
        let threshold = self.threshold() - 1e-9;
        let slack = threshold - reduced.base;
        let matched = node.value;
        // each cell's reduced cost under the matching's duals, and each column's least
        let mut kept = [0u32; 32];
        let mut column_least = [f64::INFINITY; 32];
        for r in bits(!lines.rows & all) {
            for c in bits(reduced.viable[r]) {
                if reduced.extra(self.reduced[r * n + c], r, c) < slack {
                    let extra = node.extra(tables, r, c);
                    if matched + extra < threshold {
                        lap[r][c] = extra;
                        kept[r] |= 1 << c;
                        column_least[c] = column_least[c].min(extra);
                    }
                }
            }
        }
        let mut base = matched;
        for c in bits(!lines.columns & all) {
            base += column_least[c]; // ∞ when no cell of the column is left
        }
        if base >= threshold {
            return None;
        }
        let least = |r: usize, c: usize| {
            let old = reduced.base + reduced.extra(self.reduced[r * n + c], r, c);
            old.max(base - column_least[c] + lap[r][c])
        };
        let mut per_column = [0u32; 32];
        // each line's two least bounds: among lines with the fewest cells, the one whose
        // second cell costs most (the largest regret)
        let mut column_two = [(f64::INFINITY, f64::INFINITY); 32];
        let (mut line, mut fewest, mut regret) = (None, u32::MAX, f64::NEG_INFINITY);
        let two = |(a, b): (f64, f64), x: f64| if x < a { (x, a) } else { (a, b.min(x)) };
        for r in bits(!lines.rows & all) {
            let mut row_two = (f64::INFINITY, f64::INFINITY);
            for c in bits(kept[r]) {
                let bound = least(r, c);
                if bound < threshold {
                    per_column[c] += 1;
                    row_two = two(row_two, bound);
                    column_two[c] = two(column_two[c], bound);
                } else {
                    kept[r] &= !(1 << c);
                }
            }
            let count = kept[r].count_ones();
            if count < fewest || (count == fewest && row_two.1 > regret) {
                (line, fewest, regret) = (Some((r, true)), count, row_two.1);
            }
        }
        for c in bits(!lines.columns & all) {
            let count = per_column[c];
            if count < fewest || (count == fewest && column_two[c].1 > regret) {
                (line, fewest, regret) = (Some((c, false)), count, column_two[c].1);
            }
        }
        let (at, is_row) = line?;
        if fewest == 0 {
            return None;
        }
        let mut options = [(0.0, 0); 32];
        let mut count = 0;
        for r in bits(!lines.rows & all) {
            let cells = if is_row {
                if r != at {
                    continue;
                }
                kept[r]
            } else {
                kept[r] & 1 << at
            };
            for c in bits(cells) {
                options[count] = (least(r, c), r * n + c);
                count += 1;
            }
        }
        options[..count].sort_by(|a, b| a.0.total_cmp(&b.0));
        Some((options, count))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{finds_the_minimum_below_any_cap, random_case};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    #[test]
    fn the_most_constrained_search_finds_the_brute_force_minimum_below_any_cap() {
        finds_the_minimum_below_any_cap(52, 120, |search, cap| search.run_most_constrained(cap));
    }

    #[test]
    fn the_most_constrained_search_agrees_with_the_row_by_row_search_on_bigger_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(53);
        let members: Vec<usize> = (0..11).collect();
        let far = Instant::now() + Duration::from_secs(3600);
        let mut boards = 0;
        for case in 0..24 {
            let n = rng.random_range(8..=11);
            let (walls, dist) = random_case(n, &mut rng);
            let least = |most_constrained: bool| {
                let mut search = OneColour::new(n, &walls, &members[..n], &dist, 1, far)?;
                let finished = if most_constrained {
                    search.run_most_constrained(f64::INFINITY)
                } else {
                    search.run(f64::INFINITY)
                };
                assert!(finished, "case {case}: no deadline");
                search.best.into_sorted().first().map(|b| b.0)
            };
            let (rows, lines) = (least(false), least(true));
            match (rows, lines) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6, "case {case}: {a} vs {b}"),
                _ => assert_eq!(rows, lines, "case {case}"),
            }
            boards += usize::from(rows.is_some());
        }
        assert!(boards >= 16, "only {boards} boards with an N-Queens board");
    }
}
