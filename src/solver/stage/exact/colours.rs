//! Several colours: pairwise disjoint N-Queens boards, one per colour (see [`super`]).

use super::{matching, nearest_queen, Best, ExactBoard, Keep, CLOCK_EVERY};
use std::time::Instant;

/// A set of cells of a board of at most [`super::MAX_CELLS_COLOURS`] cells.
pub(super) type Mask = [u64; 4];

pub(super) fn disjoint(a: &Mask, b: &Mask) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y == 0)
}

/// Every N-Queens board of an `n × n` board avoiding the walls: a cell mask and the cells
/// (one per row) of each.
pub(super) struct Listing {
    n: usize,
    pub(super) masks: Vec<Mask>,
    cells: Vec<u8>,
}

impl Listing {
    /// The cells of board `i`, one per row.
    pub(super) fn cells(&self, i: usize) -> Vec<usize> {
        self.cells[i * self.n..(i + 1) * self.n]
            .iter()
            .map(|&c| c as usize)
            .collect()
    }
}

/// Lists every N-Queens board avoiding the walls, in lexicographic order of their columns row
/// by row; `None` when the deadline passes first.
///
/// # Complexity
/// One step per partial placement: the free columns of a row are one mask (columns, both
/// diagonals and walls taken out), so only legal columns are visited. At N = 13 about 4 times
/// faster than testing every column (seed 12: 0.30 s of a 1 s run went to testing them).
pub(super) fn all_boards(n: usize, walls: &[bool], deadline: Instant) -> Option<Listing> {
    struct Lister {
        n: usize,
        /// Columns holding a wall, per row.
        wall_rows: Vec<u64>,
        row_cells: Vec<u8>,
        out: Listing,
        deadline: Instant,
    }
    impl Lister {
        /// `down_right` / `down_left`: columns of this row attacked along the two diagonals.
        fn dfs(
            &mut self,
            row: usize,
            used: u64,
            down_right: u64,
            down_left: u64,
            cells: Mask,
        ) -> bool {
            let n = self.n;
            if row == n {
                self.out.masks.push(cells);
                self.out.cells.extend_from_slice(&self.row_cells);
                return self.out.masks.len() % CLOCK_EVERY as usize != 0
                    || Instant::now() < self.deadline;
            }
            let all = (1u64 << n) - 1;
            let mut free = all & !(used | down_right | down_left | self.wall_rows[row]);
            while free != 0 {
                let c = free.trailing_zeros() as usize;
                let bit = free & free.wrapping_neg();
                free &= free - 1;
                let cell = row * n + c;
                let mut with = cells;
                with[cell / 64] |= 1 << (cell % 64);
                self.row_cells[row] = cell as u8;
                let (right, left) = ((down_right | bit) << 1, (down_left | bit) >> 1);
                if !self.dfs(row + 1, used | bit, right & all, left, with) {
                    return false;
                }
            }
            true
        }
    }
    let wall_rows = (0..n)
        .map(|r| {
            (0..n)
                .filter(|&c| walls[r * n + c])
                .fold(0u64, |m, c| m | 1 << c)
        })
        .collect();
    let mut lister = Lister {
        n,
        wall_rows,
        row_cells: vec![0; n],
        out: Listing {
            n,
            masks: Vec::new(),
            cells: Vec::new(),
        },
        deadline,
    };
    lister.dfs(0, 0, 0, 0, [0; 4]).then_some(lister.out)
}

/// Several colours: disjoint N-Queens boards, one per colour.
pub(super) fn several_colours(
    n: usize,
    walls: &[bool],
    members: &[Vec<usize>],
    dist: &[f32],
    keep: Keep,
    deadline: Instant,
) -> Vec<ExactBoard> {
    let nn = n * n;
    let Some(all) = all_boards(n, walls, deadline) else {
        return Vec::new();
    };
    // per colour: the boards cheapest by a lower bound, matched exactly
    let mut chosen_boards: Vec<usize> = Vec::new();
    let mut picked: Vec<Vec<(f64, usize)>> = Vec::with_capacity(members.len());
    for group in members {
        let Some(costs) = colour_options(keep, &all, group, dist, deadline) else {
            return Vec::new();
        };
        chosen_boards.extend(costs.iter().map(|&(_, i)| i));
        picked.push(costs);
    }
    // the boards some colour may take, numbered afresh
    chosen_boards.sort_unstable();
    chosen_boards.dedup();
    let boards: Vec<Mask> = chosen_boards.iter().map(|&i| all.masks[i]).collect();
    let options: Vec<Vec<(f64, usize)>> = picked
        .into_iter()
        .map(|costs| {
            let index = |i: usize| chosen_boards.binary_search(&i).expect("chosen above");
            costs.into_iter().map(|(c, i)| (c, index(i))).collect()
        })
        .collect();
    // colours with the fewest options first: the disjointness prunes most there
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&k| options[k].len());
    let mut rest = vec![0.0; order.len() + 1];
    for i in (0..order.len()).rev() {
        rest[i] = rest[i + 1] + options[order[i]].first().map_or(f64::INFINITY, |o| o.0);
    }
    let words = boards.len().div_ceil(64);
    let Some(compatible) = compatibility(&boards, words, deadline) else {
        return Vec::new();
    };
    let mut search = Tuples {
        options: &options,
        order: &order,
        rest,
        compatible: &compatible,
        words,
        best: Best::new(keep.boards),
        chosen: Vec::with_capacity(order.len()),
        nodes: 0,
        deadline,
        out_of_time: false,
    };
    let mut everything = vec![u64::MAX; words];
    if boards.len() % 64 != 0 {
        everything[words - 1] = (1 << (boards.len() % 64)) - 1;
    }
    if search.clique(&everything, order.len()) {
        search.dfs(0, &everything, 0.0);
    }
    search
        .best
        .into_sorted()
        .into_iter()
        .map(|(cost, chosen)| {
            let mut cells = vec![0; dist.len() / nn];
            for (i, &b) in chosen.iter().enumerate() {
                let group = &members[order[i]];
                let (_, assigned) = matching(group, &all.cells(chosen_boards[b]), dist, nn);
                for (&q, cell) in group.iter().zip(assigned) {
                    cells[q] = cell;
                }
            }
            ExactBoard { cells, cost }
        })
        .collect()
}

/// The boards of `all` the colour of the queens `group` may take, with their exact matching
/// cost, cheapest first: every board up to `keep.options_all` of them, beyond only the
/// `keep.options_per_colour` cheapest by a lower bound (each cell costs at least the distance of
/// the colour's nearest queen). `None` when `deadline` passes.
fn colour_options(
    keep: Keep,
    all: &Listing,
    group: &[usize],
    dist: &[f32],
    deadline: Instant,
) -> Option<Vec<(f64, usize)>> {
    let (n, nn) = (all.n, all.n * all.n);
    let nearest = nearest_queen(group, dist, nn);
    let mut bounds: Vec<(f64, usize)> = (0..all.masks.len())
        .map(|i| {
            let cells = &all.cells[i * n..(i + 1) * n];
            (cells.iter().map(|&c| nearest[c as usize]).sum(), i)
        })
        .collect();
    if bounds.len() > keep.options_all {
        let kept = keep.options_per_colour;
        bounds.select_nth_unstable_by(kept, |a, b| a.0.total_cmp(&b.0));
        bounds.truncate(kept);
    }
    let mut costs = Vec::with_capacity(bounds.len());
    for (k, &(_, i)) in bounds.iter().enumerate() {
        if k % 64 == 0 && Instant::now() >= deadline {
            return None;
        }
        let (cost, _) = matching(group, &all.cells(i), dist, nn);
        if cost.is_finite() {
            costs.push((cost, i));
        }
    }
    costs.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(costs)
}

/// `compatible[a * words + b / 64]`: bit set of the boards disjoint from board `a`; `None`
/// when `deadline` passes. Each pair is tested once (disjointness is symmetric; a board is
/// never disjoint from itself).
fn compatibility(boards: &[Mask], words: usize, deadline: Instant) -> Option<Vec<u64>> {
    let mut compatible = vec![0u64; boards.len() * words];
    for (a, ma) in boards.iter().enumerate() {
        if a % 64 == 0 && Instant::now() >= deadline {
            return None;
        }
        for (b, mb) in boards.iter().enumerate().skip(a + 1) {
            if disjoint(ma, mb) {
                compatible[a * words + b / 64] |= 1 << (b % 64);
                compatible[b * words + a / 64] |= 1 << (a % 64);
            }
        }
    }
    Some(compatible)
}

struct Tuples<'a> {
    options: &'a [Vec<(f64, usize)>],
    /// The colours in search order.
    order: &'a [usize],
    /// `rest[i]`: Σ of the cheapest option of the colours `order[i..]`.
    rest: Vec<f64>,
    /// `compatible[b * words..]`: bit set of the boards disjoint from board `b`.
    compatible: &'a [u64],
    words: usize,
    /// The best tuples: board index of each colour in search order.
    best: Best<Vec<usize>>,
    chosen: Vec<usize>,
    nodes: u32,
    deadline: Instant,
    out_of_time: bool,
}

impl Tuples<'_> {
    fn tick(&mut self) -> bool {
        self.nodes = self.nodes.wrapping_add(1);
        if self.nodes % CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
            self.out_of_time = true;
        }
        self.out_of_time
    }

    fn narrow(&self, allowed: &[u64], b: usize) -> Vec<u64> {
        let row = &self.compatible[b * self.words..(b + 1) * self.words];
        allowed.iter().zip(row).map(|(x, y)| x & y).collect()
    }

    /// Whether `need` pairwise disjoint boards exist among `allowed` (a quick proof that a
    /// crowded board has no error-free target board; `false` also when out of time).
    fn clique(&mut self, allowed: &[u64], need: usize) -> bool {
        if need == 0 {
            return true;
        }
        let count: u32 = allowed.iter().map(|w| w.count_ones()).sum();
        if (count as usize) < need || self.tick() {
            return false;
        }
        // boards in increasing order: each set of boards is met once
        let mut left = allowed.to_vec();
        for w in 0..self.words {
            while left[w] != 0 {
                let b = w * 64 + left[w].trailing_zeros() as usize;
                left[w] &= left[w] - 1;
                if self.clique(&self.narrow(&left, b), need - 1) {
                    return true;
                }
                if self.out_of_time {
                    return false;
                }
            }
        }
        false
    }

    fn dfs(&mut self, depth: usize, allowed: &[u64], cost: f64) {
        if depth == self.order.len() {
            self.best.offer(cost, self.chosen.clone());
            return;
        }
        let count: u32 = allowed.iter().map(|w| w.count_ones()).sum();
        if (count as usize) < self.order.len() - depth {
            return;
        }
        let options = self.options;
        for &(c, b) in &options[self.order[depth]] {
            if self.tick() || cost + c + self.rest[depth + 1] >= self.best.threshold() - 1e-9 {
                return; // options are sorted: the rest cost at least as much
            }
            if allowed[b / 64] >> (b % 64) & 1 == 0 {
                continue;
            }
            let next = self.narrow(allowed, b);
            self.chosen.push(b);
            self.dfs(depth + 1, &next, cost + c);
            self.chosen.pop();
        }
    }
}
