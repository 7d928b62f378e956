//! Several colours chosen together on boards too big to list every N-Queens board: a
//! Lagrangian heuristic with column generation (see `docs/solver.md`, "Colours chosen
//! together").
//!
//! With a price `p[x] ≥ 0` on every cell for the coupling "one piece per cell", the problem
//! splits by colour: each colour's cheapest N-Queens board under `dist + p`
//! ([`super::one_colour`]). Each round
//!
//! 1. prices every colour alone: its best priced board is its *wish*, and the few best boards
//!    the search meets are kept as *columns* (error-free boards of that colour, true cost);
//! 2. repairs the wishes into one error-free board: colours whose wish no other colour
//!    touches keep it, the others in turn keep theirs where the cells are still free, else
//!    search again (priced) on the cells left; these boards are columns too;
//! 3. moves the prices by a subgradient step: up on the cells two or more colours wish, down
//!    on priced cells none wishes (Polyak's step towards the best repaired cost).
//!
//! At the end a master ([`master`]) picks one column per colour, pairwise disjoint, of least
//! total true cost: colours from different rounds combine, which no sequential placement
//! reaches.

use super::{as_kind, one_colour, Best, ExactBoard, Kind, CLOCK_EVERY};
use ahash::AHashSet;
use std::time::{Duration, Instant};

/// The cells of a board of at most 32 × 32 cells, as a bit set.
pub(super) type Cells = [u64; 16];

/// Rounds the time before the master is planned for: each of the `2 · C` searches of a
/// round gets `1 / (2 · C · ROUNDS)` of it (a round's repair searches fewer colours, and
/// rounds go on while time is left, up to [`MAX_ROUNDS`]). The searches are cut short on big
/// boards and lose much by it: seed 2 (N = 30, C = 6) at 3 s, the colours' own boards summed
/// 341.5 with 6 rounds (searches of about 7 ms), 308.3 with 2 and 289.8 with 1 (the old
/// colour-by-colour boards: 302.8). At 10 s on the 33 seeds of 1–100 with C ≥ 4 and N ≥ 14
/// (one run each, side by side, 2 cores shared), 2 rounds: mean per-seed ratio 0.9947 of
/// `d33ae9b` (C = 4 1.003, C = 5 0.990, C = 6 0.992).
const ROUNDS: u32 = 2;
/// Most rounds (on small boards the searches finish early).
const MAX_ROUNDS: usize = 40;
/// Boards kept as columns from every search (the search keeps its best few anyway; the
/// master then has `8 · searches` columns per colour at most).
const COLUMNS_PER_SEARCH: usize = 8;
/// Share of the time kept for the master (it mostly ends in milliseconds; this bounds a
/// search among many columns that fit badly).
const MASTER_SHARE: f64 = 0.1;
/// Polyak's step factor of the price update (the textbook's start value; with two rounds
/// it is never lowered).
const THETA: f64 = 1.0;

/// One error-free board of one colour: the cell of each of its queens (in the colour's
/// order), their set, and the true cost (no prices).
#[derive(Clone, Debug)]
pub(super) struct Column {
    pub(super) cells: Vec<usize>,
    pub(super) mask: Cells,
    pub(super) cost: f64,
}

impl Column {
    fn new(cells: Vec<usize>, cost: f64) -> Column {
        let mut mask = [0; 16];
        for &c in &cells {
            mask[c / 64] |= 1 << (c % 64);
        }
        Column { cells, mask, cost }
    }
}

fn disjoint(a: &Cells, b: &Cells) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y == 0)
}

fn union(a: &Cells, b: &Cells) -> Cells {
    std::array::from_fn(|i| a[i] | b[i])
}

/// The columns of one colour, no cell set twice.
#[derive(Default)]
struct Columns {
    list: Vec<Column>,
    seen: AHashSet<Cells>,
}

impl Columns {
    fn add(&mut self, column: Column) {
        if self.seen.insert(column.mask) {
            self.list.push(column);
        }
    }
}

/// The fixed inputs of one colour's priced search.
struct Pricing<'a> {
    n: usize,
    dist: &'a [f32],
    prices: &'a [f64],
    /// Each search's time.
    slice: Duration,
    /// No search goes past this (the master's time).
    end: Instant,
}

impl Pricing<'_> {
    /// The end of a search starting now; `None` when the rounds' time is over.
    fn search_end(&self) -> Option<Instant> {
        let now = Instant::now();
        (now < self.end).then(|| (now + self.slice).min(self.end))
    }

    /// The best boards of the queens `group` on the cells `taken` leaves, priced
    /// `dist + prices`, until `deadline`: (priced cost, column), cheapest priced first.
    fn boards(&self, taken: &[bool], group: &[usize], deadline: Instant) -> Vec<(f64, Column)> {
        let nn = self.n * self.n;
        let table: Vec<f32> = group
            .iter()
            .flat_map(|&q| (0..nn).map(move |c| self.dist[q * nn + c] + self.prices[c] as f32))
            .collect();
        let local: Vec<usize> = (0..group.len()).collect();
        as_kind(Kind::Priced, || {
            one_colour(self.n, taken, &local, &table, COLUMNS_PER_SEARCH, deadline)
        })
        .into_iter()
        .map(|b| {
            let cost = group
                .iter()
                .zip(&b.cells)
                .map(|(&q, &c)| self.dist[q * nn + c] as f64)
                .sum();
            (b.cost, Column::new(b.cells, cost))
        })
        .collect()
    }
}

/// Up to `keep` error-free boards of several colours (the queens of colour `c` are
/// `members[c]`, `n` each), cheapest first, chosen together until `deadline` (see the module
/// documentation). Empty when some colour finds no board.
pub(super) fn together(
    n: usize,
    walls: &[bool],
    members: &[Vec<usize>],
    dist: &[f32],
    keep: usize,
    deadline: Instant,
) -> Vec<ExactBoard> {
    let colours = members.len();
    let start = Instant::now();
    let total = deadline.saturating_duration_since(start);
    let master_end = deadline - total.mul_f64(MASTER_SHARE);
    let slice = master_end.saturating_duration_since(start) / (ROUNDS * 2 * colours as u32);
    let mut columns: Vec<Columns> = (0..colours).map(|_| Columns::default()).collect();
    let mut upper = f64::INFINITY;
    let mut prices = vec![0.0; n * n];
    for round in 0..MAX_ROUNDS {
        if Instant::now() + slice > master_end {
            break;
        }
        let pricing = Pricing {
            n,
            dist,
            prices: &prices,
            slice,
            end: master_end,
        };
        let Some((wishes, dual)) = wishes(&pricing, walls, members, &mut columns) else {
            break;
        };
        if let Some(cost) = repair(&pricing, walls, members, &wishes, round, &mut columns) {
            upper = upper.min(cost);
        }
        if !step(&mut prices, &wishes, dual, upper) {
            break; // the wishes are disjoint: no price moves
        }
    }
    let lists: Vec<Vec<Column>> = columns
        .into_iter()
        .map(|c| {
            let mut list = c.list;
            list.sort_by(|a, b| a.cost.total_cmp(&b.cost));
            list
        })
        .collect();
    master(&lists, keep, deadline)
        .into_iter()
        .map(|(cost, chosen)| {
            let mut cells = vec![0; dist.len() / (n * n)];
            for (c, &i) in chosen.iter().enumerate() {
                for (&q, &cell) in members[c].iter().zip(&lists[c][i].cells) {
                    cells[q] = cell;
                }
            }
            ExactBoard { cells, cost }
        })
        .collect()
}

/// Every colour priced alone: its best priced board (the wish) and
/// the Lagrangian value `Σ_c priced cost − Σ p` (an estimate: the searches are cut short);
/// all boards found become columns. `None` when some colour finds no board.
fn wishes(
    pricing: &Pricing<'_>,
    walls: &[bool],
    members: &[Vec<usize>],
    columns: &mut [Columns],
) -> Option<(Vec<Column>, f64)> {
    let mut dual = -pricing.prices.iter().sum::<f64>();
    let mut wishes = Vec::with_capacity(members.len());
    for (group, kept) in members.iter().zip(columns.iter_mut()) {
        let found = pricing.boards(walls, group, pricing.search_end()?);
        let (priced, wish) = found.first()?.clone();
        dual += priced;
        wishes.push(wish);
        found.into_iter().for_each(|(_, c)| kept.add(c));
    }
    Some((wishes, dual))
}

/// One error-free board from the wishes: colours whose wish meets no other wish first, then
/// the others from colour `round % C` on; each keeps its wish while its cells are free, else
/// searches again (priced) on the cells left. Its true cost, `None` when a
/// colour finds no board.
fn repair(
    pricing: &Pricing<'_>,
    walls: &[bool],
    members: &[Vec<usize>],
    wishes: &[Column],
    round: usize,
    columns: &mut [Columns],
) -> Option<f64> {
    let colours = members.len();
    let alone =
        |c: usize| (0..colours).all(|d| d == c || disjoint(&wishes[c].mask, &wishes[d].mask));
    let mut order: Vec<usize> = (0..colours).map(|k| (round + k) % colours).collect();
    order.sort_by_key(|&c| !alone(c));
    let mut taken = walls.to_vec();
    let mut used = [0; 16];
    let mut total = 0.0;
    for c in order {
        let column = if disjoint(&wishes[c].mask, &used) {
            wishes[c].clone()
        } else {
            let found = pricing.boards(&taken, &members[c], pricing.search_end()?);
            let (_, best) = found.first()?.clone();
            found.into_iter().for_each(|(_, col)| columns[c].add(col));
            best
        };
        for &cell in &column.cells {
            taken[cell] = true;
        }
        used = union(&used, &column.mask);
        total += column.cost;
    }
    Some(total)
}

/// The subgradient step on the prices: `g[x]` = the wishes on cell `x` less one, on cells
/// wished more than once or priced; `p ← max(0, p + t·g)` with Polyak's step
/// `t = THETA · (upper − dual) / |g|²` (a tenth of `|dual|` for the gap while there is no
/// repaired board, and at least a hundredth of it). `false` when no cell is wished twice.
fn step(prices: &mut [f64], wishes: &[Column], dual: f64, upper: f64) -> bool {
    let mut count = vec![0u32; prices.len()];
    for wish in wishes {
        for &c in &wish.cells {
            count[c] += 1;
        }
    }
    if count.iter().all(|&k| k <= 1) {
        return false;
    }
    let grad = |x: usize| count[x] as f64 - 1.0;
    let moving = |x: &usize| count[*x] > 1 || prices[*x] > 0.0;
    let norm: f64 = (0..prices.len())
        .filter(moving)
        .map(|x| grad(x).powi(2))
        .sum();
    let gap = if upper.is_finite() {
        (upper - dual).max(0.01 * dual.abs())
    } else {
        0.1 * dual.abs()
    };
    let t = THETA * gap / norm;
    for (x, price) in prices.iter_mut().enumerate() {
        *price = (*price + t * grad(x)).max(0.0);
    }
    true
}

/// The best `keep` choices of one column per colour (`columns[c]`, cheapest first), pairwise
/// disjoint, least total cost first: (cost, column index of each colour). A depth-first
/// search, colours with the fewest columns first, bounded by the cheapest column of every
/// colour still open that fits the cells taken; it stops at `deadline` with what it found.
pub(super) fn master(
    columns: &[Vec<Column>],
    keep: usize,
    deadline: Instant,
) -> Vec<(f64, Vec<usize>)> {
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&c| columns[c].len());
    let mut search = Master {
        columns,
        order: &order,
        best: Best::new(keep),
        chosen: vec![0; columns.len()],
        nodes: 0,
        deadline,
        out_of_time: false,
    };
    if keep > 0 {
        search.dfs(0, &[0; 16], 0.0);
    }
    search.best.into_sorted()
}

struct Master<'a> {
    columns: &'a [Vec<Column>],
    /// The colours in search order.
    order: &'a [usize],
    best: Best<Vec<usize>>,
    /// The column chosen for each colour (by colour).
    chosen: Vec<usize>,
    nodes: u32,
    deadline: Instant,
    out_of_time: bool,
}

impl Master<'_> {
    fn dfs(&mut self, depth: usize, used: &Cells, cost: f64) {
        if depth == self.order.len() {
            self.best.offer(cost, self.chosen.clone());
            return;
        }
        // every colour after this one takes at least its cheapest column that fits
        let mut rest = 0.0;
        for &c in &self.order[depth + 1..] {
            match self.columns[c].iter().find(|col| disjoint(&col.mask, used)) {
                Some(col) => rest += col.cost,
                None => return,
            }
        }
        let colour = self.order[depth];
        let columns = self.columns;
        for (i, column) in columns[colour].iter().enumerate() {
            self.nodes = self.nodes.wrapping_add(1);
            if self.nodes % CLOCK_EVERY == 0 && Instant::now() >= self.deadline {
                self.out_of_time = true;
            }
            if self.out_of_time || cost + column.cost + rest >= self.best.threshold() - 1e-9 {
                return; // cheapest first: the rest cost at least as much
            }
            if disjoint(&column.mask, used) {
                self.chosen[colour] = i;
                self.dfs(depth + 1, &union(used, &column.mask), cost + column.cost);
            }
        }
    }
}

#[cfg(test)]
mod tests;
