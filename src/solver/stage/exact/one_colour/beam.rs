//! Beam search over the rows of [`OneColour`]: the anytime front of the one-colour search.
//!
//! A depth-first search cut by its deadline only ever changes the last rows of its first
//! dive: on big boards its board is the greedy one. A beam keeps the `width` cheapest partial
//! boards of each row (bound plus look-ahead, the same numbers that prune the depth-first
//! search) and so compares choices in every row. Measured on the walls-only table of the
//! contest's one-colour seeds, the cheapest board found (depth first / beams of doubling
//! width, the same deadline, 2026-11-26): seed 3 (N = 27) at 50 ms 34.37 / 31.23, at 1 s
//! 33.23 / 30.57, at 3 s 32.92 / 30.18; seed 4 (N = 29) at 300 ms 40.96 / 32.16, at 3 s
//! 38.23 / 32.16; seed 8 (N = 19) at 100 ms 23.15 / 22.00, at 3 s both 21.74 (the search
//! finishes). The solver's whole 10 s run had ended at 32.15 and 37.19 on seeds 3 and 4.

use super::{bits, Attacks, OneColour};
use std::time::Instant;

/// Widest beam of [`OneColour::first_board`].
const FIRST_BOARD_WIDTH: usize = 1 << 10;
/// Share of the proof's time [`OneColour::first_board`] may take.
const FIRST_BOARD_SHARE: f64 = 0.05;

/// Width of the first beam: doubled while the next beam fits the time left.
pub(super) const FIRST_WIDTH: usize = 4;
/// Widest beam (seed 3 at 3 s reached 30.57 at width 2¹⁴ and 30.18 at 2¹⁶). A row's
/// children are cut back to the width once [`HELD_CHILDREN`] times it are held (after a whole
/// parent: up to `HELD_CHILDREN · width + N` children, allocated once at that size), beside
/// the frontier being expanded, the next one and the boards' paths (4 bytes a node a row).
/// At most 2²⁴ (a path step keeps the parent in 24 bits).
pub(super) const MAX_WIDTH: usize = 1 << 16;
const _: () = assert!(MAX_WIDTH <= 1 << 24);
/// See [`MAX_WIDTH`].
const HELD_CHILDREN: usize = 4;
/// Complete boards matched between two looks at the clock (each an `N × N` assignment).
const LEAF_CLOCK_EVERY: usize = 16;
/// A beam of twice the width takes about twice as long: the next one starts only while
/// this many times the last one's time is left.
pub(super) const NEXT_BEAM_ROOM: u32 = 3;
/// Frontier nodes expanded between two looks at the clock (each up to N children, each
/// with its look-ahead updated from its parent's).
const BEAM_CLOCK_EVERY: u32 = 64;

/// A child in a beam's row: (bound plus look-ahead, bound, attacks below it, its parent in
/// the frontier, its column).
type Child = (f64, f64, Attacks, usize, u8);

impl OneColour<'_> {
    /// Beams of doubling width while the next one is expected to end in time, then the
    /// depth-first search with the rest of the time: it prunes from the beams' best boards,
    /// and on small boards it still finishes (the exact answer). `false` when the deadline
    /// cut it.
    pub(super) fn anytime(&mut self) -> bool {
        let mut width = FIRST_WIDTH;
        while width <= MAX_WIDTH {
            let started = Instant::now();
            if !self.beam(width) {
                return false;
            }
            let took = started.elapsed();
            if took * NEXT_BEAM_ROOM > self.deadline.saturating_duration_since(Instant::now()) {
                break;
            }
            width *= 2;
        }
        self.run(f64::INFINITY)
    }

    /// Beams of doubling width up to [`FIRST_BOARD_WIDTH`] (or [`FIRST_BOARD_SHARE`] of the
    /// time to `deadline`): the cost of the cheapest board they find (`∞`: none), which
    /// stays in the keep list.
    pub(super) fn first_board(&mut self, deadline: Instant) -> f64 {
        let now = Instant::now();
        let end = now
            + deadline
                .saturating_duration_since(now)
                .mul_f64(FIRST_BOARD_SHARE);
        let mut width = FIRST_WIDTH;
        while width <= FIRST_BOARD_WIDTH {
            let started = Instant::now();
            let saved = std::mem::replace(&mut self.deadline, end);
            let finished = self.beam(width);
            self.deadline = saved;
            self.out_of_time = false;
            if !finished
                || started.elapsed() * NEXT_BEAM_ROOM
                    > end.saturating_duration_since(Instant::now())
            {
                break;
            }
            width *= 2;
        }
        self.best.threshold()
    }

    /// One beam search over the rows, top to bottom: of all children of the nodes kept,
    /// the `width` with the lowest bound plus look-ahead go on; every complete board is
    /// matched exactly (`leaf`). `false` when the deadline cut it (its boards are lost).
    pub(super) fn beam(&mut self, width: usize) -> bool {
        let Some(ahead) = self.root_ahead else {
            return true;
        };
        let n = self.n;
        // no attacks yet: every row's cheapest cell is its first
        let root = Node {
            bound: self.root - ahead,
            ahead,
            attacks: Attacks::default(),
            first: [0; 32],
        };
        let mut frontier = vec![root];
        // per row, each kept node's parent (above the low 8 bits) and column: the boards are
        // read back at the end
        let mut path: Vec<Vec<u32>> = Vec::with_capacity(n);
        // the most a row holds before its last cut: no reallocation, which would double it
        let mut children: Vec<Child> = Vec::with_capacity(HELD_CHILDREN * width + n);
        for row in 0..n {
            children.clear();
            // children at or above this cannot make the beam any more
            let mut cutoff = f64::INFINITY;
            for (parent, node) in frontier.iter().enumerate() {
                self.expand(row, node, parent, cutoff, &mut children);
                if children.len() >= HELD_CHILDREN * width {
                    cutoff = cut(&mut children, width);
                }
                self.nodes += 1;
                if self.nodes % BEAM_CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
                    self.out_of_time = true;
                    return false;
                }
            }
            if children.len() > width {
                cut(&mut children, width);
            }
            path.push(
                children
                    .iter()
                    .map(|c| (c.3 as u32) << 8 | u32::from(c.4))
                    .collect(),
            );
            frontier = children
                .iter()
                .map(|&(key, bound, attacks, parent, _)| {
                    let mut first = frontier[parent].first;
                    self.advance(row + 1, attacks, &mut first);
                    Node {
                        bound,
                        ahead: key - bound,
                        attacks,
                        first,
                    }
                })
                .collect();
            #[cfg(test)]
            frontier.iter().for_each(|node| self.check(row + 1, node));
        }
        // the most promising boards first: a deadline in the matchings loses the others
        let mut leaves: Vec<(f64, usize)> = frontier
            .iter()
            .enumerate()
            .map(|(i, node)| (node.bound, i))
            .collect();
        leaves.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut columns = vec![0u8; n];
        for (k, &(_, leaf)) in leaves.iter().enumerate() {
            if k % LEAF_CLOCK_EVERY == LEAF_CLOCK_EVERY - 1 && Instant::now() >= self.deadline {
                self.out_of_time = true;
                break;
            }
            let mut at = leaf;
            for row in (0..n).rev() {
                let step = path[row][at];
                columns[row] = step as u8;
                at = (step >> 8) as usize;
            }
            self.cells.clear();
            self.cells
                .extend(columns.iter().enumerate().map(|(r, &c)| r * n + c as usize));
            self.leaf();
        }
        self.cells.clear();
        !self.out_of_time
    }

    /// Moves each row's index `first[r]` (rows `from..n`) on to its first cell that
    /// `attacks` (on row `from`) leaves free: a kept child has one in every row, or its
    /// look-ahead would have failed.
    fn advance(&self, from: usize, attacks: Attacks, first: &mut [u8; 32]) {
        for (k, r) in (from..self.n).enumerate() {
            let blocked = attacks.at(k);
            let row = &self.order[r];
            let mut i = first[r] as usize;
            while blocked >> row[i].0 & 1 == 1 {
                i += 1;
            }
            first[r] = i as u8;
        }
    }

    /// Tests: a kept node's look-ahead and cheapest cells, found from its parent's, are
    /// those of a full look-ahead of the rows below it (`row..n`).
    #[cfg(test)]
    fn check(&self, row: usize, node: &Node) {
        let full = self
            .look_ahead(row, node.attacks)
            .expect("a kept node has a look-ahead");
        assert!(
            (node.ahead - full).abs() < 1e-9,
            "look-ahead {} against {full}",
            node.ahead
        );
        for (k, r) in (row..self.n).enumerate() {
            let blocked = node.attacks.at(k);
            let first = self.order[r]
                .iter()
                .position(|&(c, _)| blocked >> c & 1 == 0);
            assert_eq!(
                Some(node.first[r] as usize),
                first,
                "row {r}'s cheapest free cell"
            );
        }
    }

    /// The children of `node` in row `row` (its index `parent` in the frontier) that can
    /// still beat the threshold and `cutoff`, pushed onto `children`.
    ///
    /// A child's look-ahead is found from its parent's: the queens placed only add attacks,
    /// so every row's cheapest free cell lies at or after the parent's, and a child whose
    /// static part (bound, cell, the parent's look-ahead of the rows below) already fails
    /// ends the row's loop (its cells are cheapest first).
    fn expand(
        &self,
        row: usize,
        node: &Node,
        parent: usize,
        cutoff: f64,
        children: &mut Vec<Child>,
    ) {
        let n = self.n;
        let blocked = node.attacks.at(0);
        let threshold = (self.threshold() - 1e-9).min(cutoff);
        let cells = &self.order[row];
        let first = node.first[row] as usize;
        let below = node.ahead - cells[first].1;
        // per column, the rows below whose cheapest free cell a queen there would attack
        // (its own column or a diagonal through it): only those rows' look-ahead rises
        let mut hits = [0u32; 32];
        for (k, r) in (row + 1..n).enumerate() {
            let f = self.order[r][node.first[r] as usize].0 as usize;
            let d = k + 1;
            hits[f] |= 1 << k;
            if f >= d {
                hits[f - d] |= 1 << k;
            }
            if f + d < n {
                hits[f + d] |= 1 << k;
            }
        }
        'cells: for &(c, cost) in &cells[first..] {
            if blocked >> c & 1 == 1 {
                continue;
            }
            let b = node.bound + cost;
            let mut sum = b + below;
            if sum >= threshold {
                break;
            }
            let next = node.attacks.place(c);
            for k in bits(hits[c as usize]) {
                let r = row + 1 + k;
                let order = &self.order[r];
                let mut i = node.first[r] as usize;
                let was = order[i].1;
                let blocked = next.at(k);
                i += 1;
                while i < order.len() && blocked >> order[i].0 & 1 == 1 {
                    i += 1;
                }
                if i == order.len() {
                    continue 'cells;
                }
                sum += order[i].1 - was;
                if sum >= threshold {
                    continue 'cells;
                }
            }
            children.push((sum, b, next, parent, c as u8));
        }
    }
}

/// A kept partial board of a beam: its bound without look-ahead, its look-ahead over the
/// rows still open, the attacks on the next row, and per open row the index (in its
/// cheapest-first order) of its cheapest cell left free.
struct Node {
    bound: f64,
    ahead: f64,
    attacks: Attacks,
    first: [u8; 32],
}

/// Keeps the `width` children of lowest bound plus look-ahead; returns the highest kept.
fn cut(children: &mut Vec<Child>, width: usize) -> f64 {
    children.select_nth_unstable_by(width - 1, |a, b| a.0.total_cmp(&b.0));
    children.truncate(width);
    children[width - 1].0
}

#[cfg(test)]
mod tests {
    use super::super::tests::{brute_minimum, is_board, random_case};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    /// A beam wide enough to hold every partial board is exhaustive: it finds the brute-force
    /// minimum; narrow beams find true boards that cost at least that; the anytime search
    /// (beams, then depth first) still ends at the minimum.
    #[test]
    fn a_wide_beam_is_exact_and_narrow_beams_find_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(46);
        let far = || Instant::now() + Duration::from_secs(3600);
        let members: Vec<usize> = (0..7).collect();
        let mut found = 0;
        for case in 0..60 {
            let n = rng.random_range(4..=7);
            let (walls, dist) = random_case(n, &mut rng);
            let want = brute_minimum(n, &walls, &dist);
            let members = &members[..n];
            let best = |width: Option<usize>| {
                let mut search = OneColour::new(n, &walls, members, &dist, 1, far())?;
                match width {
                    Some(width) => assert!(search.beam(width), "case {case}: no deadline"),
                    None => assert!(search.anytime(), "case {case}: no deadline"),
                }
                search.best.into_sorted().into_iter().next()
            };
            // n! partial boards at most: 5040 for n = 7
            let wide = best(Some(1 << 13)).map_or(f64::INFINITY, |b| b.0);
            assert!(
                (wide - want).abs() < 1e-4 || wide == want,
                "case {case}: {wide} vs {want}"
            );
            let anytime = best(None).map_or(f64::INFINITY, |b| b.0);
            assert!(
                (anytime - want).abs() < 1e-4 || anytime == want,
                "case {case}"
            );
            for width in [1, 2, 5] {
                if let Some((cost, cells)) = best(Some(width)) {
                    assert!(cost >= want - 1e-4, "case {case}: {cost} below {want}");
                    assert!(is_board(n, &walls, &cells), "case {case}: {cells:?}");
                    found += 1;
                }
            }
        }
        assert!(found >= 60, "narrow beams found only {found} boards");
    }
}
