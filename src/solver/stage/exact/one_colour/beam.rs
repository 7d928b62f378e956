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

use super::{Attacks, OneColour};
use std::time::Instant;

/// Widest beam of [`OneColour::first_board`].
const FIRST_BOARD_WIDTH: usize = 1 << 10;
/// Share of the proof's time [`OneColour::first_board`] may take.
const FIRST_BOARD_SHARE: f64 = 0.05;

/// Width of the first beam: doubled while the next beam fits the time left.
pub(super) const FIRST_WIDTH: usize = 4;
/// Widest beam (seed 3 at 3 s reached 30.57 at width 2¹⁴ and 30.18 at 2¹⁶). A row's
/// children are cut back to the width whenever [`HELD_CHILDREN`] times it are held, so a
/// beam holds at most about 12 MB at this width (N = 32).
pub(super) const MAX_WIDTH: usize = 1 << 16;
/// See [`MAX_WIDTH`].
const HELD_CHILDREN: usize = 4;
/// Complete boards matched between two looks at the clock (each an `N × N` assignment).
const LEAF_CLOCK_EVERY: usize = 16;
/// A beam of twice the width takes about twice as long: the next one starts only while
/// this many times the last one's time is left.
pub(super) const NEXT_BEAM_ROOM: u32 = 3;
/// Frontier nodes expanded between two looks at the clock (each up to N children, each
/// with a look-ahead over the rows below).
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
        // (bound without look-ahead, attacks on the next row, the columns chosen so far)
        let mut frontier: Vec<(f64, Attacks, Vec<u8>)> =
            vec![(self.root - ahead, Attacks::default(), Vec::new())];
        let mut children: Vec<Child> = Vec::new();
        for row in 0..self.n {
            children.clear();
            // children at or above this cannot make the beam any more
            let mut cutoff = f64::INFINITY;
            for (parent, (bound, attacks, _)) in frontier.iter().enumerate() {
                self.expand(row, (*bound, *attacks, parent), cutoff, &mut children);
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
            frontier = children
                .iter()
                .map(|&(_, bound, next, parent, column)| {
                    let mut columns = Vec::with_capacity(self.n);
                    columns.extend_from_slice(&frontier[parent].2);
                    columns.push(column);
                    (bound, next, columns)
                })
                .collect();
        }
        // the most promising boards first: a deadline in the matchings loses the others
        frontier.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (i, (_, _, columns)) in frontier.iter().enumerate() {
            if i % LEAF_CLOCK_EVERY == LEAF_CLOCK_EVERY - 1 && Instant::now() >= self.deadline {
                self.out_of_time = true;
                break;
            }
            self.cells.clear();
            let n = self.n;
            self.cells
                .extend(columns.iter().enumerate().map(|(r, &c)| r * n + c as usize));
            self.leaf();
        }
        self.cells.clear();
        !self.out_of_time
    }

    /// The children of one node of row `row` (its bound, its attacks, its index in the
    /// frontier) that can still beat the threshold and `cutoff`, pushed onto `children`.
    fn expand(
        &self,
        row: usize,
        (bound, attacks, parent): (f64, Attacks, usize),
        cutoff: f64,
        children: &mut Vec<Child>,
    ) {
        let blocked = attacks.at(0);
        let threshold = (self.threshold() - 1e-9).min(cutoff);
        for &(c, cost) in &self.order[row] {
            if blocked >> c & 1 == 1 {
                continue;
            }
            let b = bound + cost;
            let next = attacks.place(c);
            match self.look_ahead(row + 1, next) {
                Some(rest) if b + rest < threshold => {
                    children.push((b + rest, b, next, parent, c as u8))
                }
                _ => {}
            }
        }
    }
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
