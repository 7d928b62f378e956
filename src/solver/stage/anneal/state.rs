//! The annealing state of stage 3: the target of every queen, who owns each cell, the line
//! counts, and the moves (column swap, three-cycle, relocation, assignment swap), each `O(1)`.

use super::TargetBoard;
use crate::solver::board::Queen;
use crate::solver::score::LineCounts;
use std::sync::OnceLock;

/// The problem as the annealer reads it in its inner loop: plain slices, one of the
/// distance tables chosen.
#[derive(Clone, Copy, Debug)]
pub(super) struct View<'a> {
    /// Side of the board.
    pub(super) n: usize,
    /// Number of colours.
    pub(super) colours: usize,
    /// The queens.
    pub(super) queens: &'a [Queen],
    /// Wall flags per cell.
    pub(super) walls: &'a [bool],
    /// `dist[q * n² + cell]`: walls-only path cost from queen `q`'s start to `cell`.
    pub(super) dist: &'a [f32],
}

/// Annealing state.
pub(super) struct State<'a> {
    pub(super) p: View<'a>,
    pub(super) nn: usize,
    pub(super) target: Vec<usize>,
    /// `owner[cell]`: 1 + queen whose target it is, 0 if none.
    pub(super) owner: Vec<u32>,
    pub(super) lines: LineCounts,
    pub(super) move_cost: f64,
}

impl<'a> State<'a> {
    pub(super) fn new(p: View<'a>, target: &[usize]) -> State<'a> {
        let nn = p.n * p.n;
        let mut owner = vec![0; nn];
        let mut lines = LineCounts::new(p.n, p.colours);
        let mut move_cost = 0.0;
        for (q, &cell) in target.iter().enumerate() {
            owner[cell] = q as u32 + 1;
            lines.add(cell, p.queens[q].colour);
            move_cost += p.dist[q * nn + cell] as f64;
        }
        State {
            p,
            nn,
            target: target.to_vec(),
            owner,
            lines,
            move_cost,
        }
    }

    #[inline]
    fn d(&self, q: usize, cell: usize) -> f64 {
        self.p.dist[q * self.nn + cell] as f64
    }

    /// Moves the target of `q` to `cell`; returns the change in errors.
    #[inline]
    fn set(&mut self, q: usize, cell: usize) -> i64 {
        let k = self.p.queens[q].colour;
        let old = self.target[q];
        let lost = self.lines.remove(old, k) as i64;
        self.owner[old] = 0;
        let gained = self.lines.add(cell, k) as i64;
        self.owner[cell] = q as u32 + 1;
        self.move_cost += self.d(q, cell) - self.d(q, old);
        self.target[q] = cell;
        gained - lost
    }

    pub(super) fn board(&self) -> TargetBoard {
        TargetBoard {
            cells: self.target.clone(),
            errors: self.lines.errors,
            move_cost: self.move_cost,
        }
    }
}

/// `-ln(u)` for `u` at the centres of 4 096 equal steps of `(0, 1)`: a move that raises the
/// cost by `delta` is accepted when `delta <= -T ln(u)`, and a table lookup replaces the
/// logarithm of every iteration (the logarithm was 15 % of the annealing's time on seed 44).
pub(super) fn neg_ln_table() -> &'static [f64; NEG_LN_SIZE] {
    static TABLE: OnceLock<[f64; NEG_LN_SIZE]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| -((i as f64 + 0.5) / NEG_LN_SIZE as f64).ln()))
}
pub(super) const NEG_LN_SIZE: usize = 4096;

/// `x` (32 random bits) scaled into `0..len`.
#[inline]
fn below(x: u32, len: usize) -> usize {
    ((x as u64 * len as u64) >> 32) as usize
}

impl State<'_> {
    /// Keeps a move whose cost change `delta` is at most `threshold`, else undoes the target
    /// changes `undo` (latest first) and restores the path cost `before`.
    #[inline]
    fn settle(&mut self, delta: f64, threshold: f64, undo: &[(usize, usize)], before: f64) {
        if delta > threshold {
            for &(q, cell) in undo {
                self.set(q, cell);
            }
            self.move_cost = before;
        }
    }

    /// The N-Queens column swap of the targets of `q` and `q2` (same colour): the two new
    /// cells go to the two queens the cheaper way round.
    fn column_swap(&mut self, q: usize, q2: usize, w: f64, threshold: f64) {
        let n = self.p.n;
        let (t1, t2) = (self.target[q], self.target[q2]);
        let (r1, c1, r2, c2) = (t1 / n, t1 % n, t2 / n, t2 % n);
        if r1 == r2 || c1 == c2 {
            return;
        }
        let (a, b) = (r1 * n + c2, r2 * n + c1);
        if self.p.walls[a] || self.p.walls[b] || self.owner[a] != 0 || self.owner[b] != 0 {
            return;
        }
        let (qa, qb) = if self.d(q, a) + self.d(q2, b) <= self.d(q, b) + self.d(q2, a) {
            (q, q2)
        } else {
            (q2, q)
        };
        if !(self.d(qa, a) + self.d(qb, b)).is_finite() {
            return;
        }
        let before = self.move_cost;
        let (old_a, old_b) = (self.target[qa], self.target[qb]);
        let de = self.set(qa, a) + self.set(qb, b);
        let delta = w * de as f64 + self.move_cost - before;
        self.settle(delta, threshold, &[(qb, old_b), (qa, old_a)], before);
    }

    /// A three-cycle of the columns of the targets of `q`, `q2`, `q3` (same colour): valid
    /// boards are often connected only through it.
    fn three_cycle(&mut self, q: usize, q2: usize, q3: usize, w: f64, threshold: f64) {
        let n = self.p.n;
        if q2 == q || q3 == q || q2 == q3 {
            return;
        }
        let (t1, t2, t3) = (self.target[q], self.target[q2], self.target[q3]);
        let (r1, c1, r2, c2, r3, c3) = (t1 / n, t1 % n, t2 / n, t2 % n, t3 / n, t3 % n);
        if r1 == r2 || r1 == r3 || r2 == r3 || c1 == c2 || c1 == c3 || c2 == c3 {
            return;
        }
        let (a, b, c) = (r1 * n + c2, r2 * n + c3, r3 * n + c1);
        let blocked = |x: usize| self.p.walls[x] || self.owner[x] != 0;
        if blocked(a) || blocked(b) || blocked(c) {
            return;
        }
        if !(self.d(q, a) + self.d(q2, b) + self.d(q3, c)).is_finite() {
            return;
        }
        let before = self.move_cost;
        let de = self.set(q, a) + self.set(q2, b) + self.set(q3, c);
        let delta = w * de as f64 + self.move_cost - before;
        self.settle(delta, threshold, &[(q3, t3), (q2, t2), (q, t1)], before);
    }

    /// Two same-colour queens exchange targets: only the path costs change.
    fn assignment_swap(&mut self, q: usize, q2: usize, threshold: f64) {
        let (t1, t2) = (self.target[q], self.target[q2]);
        let delta = self.d(q, t2) + self.d(q2, t1) - self.d(q, t1) - self.d(q2, t2);
        if delta <= threshold {
            self.target[q] = t2;
            self.target[q2] = t1;
            self.owner[t2] = q as u32 + 1;
            self.owner[t1] = q2 as u32 + 1;
            self.move_cost += delta;
        }
    }

    /// The target of `q` moves to `cell`; when the cell is another queen's target (of the
    /// colour `only` when set), the two queens exchange targets.
    fn relocate(&mut self, q: usize, cell: usize, only: Option<usize>, w: f64, threshold: f64) {
        let t = self.target[q];
        if cell == t || self.p.walls[cell] || !self.d(q, cell).is_finite() {
            return;
        }
        let other = self.owner[cell];
        let before = self.move_cost;
        if other == 0 {
            let de = self.set(q, cell);
            let delta = w * de as f64 + self.move_cost - before;
            self.settle(delta, threshold, &[(q, t)], before);
            return;
        }
        let q2 = other as usize - 1;
        let (k, k2) = (self.p.queens[q].colour, self.p.queens[q2].colour);
        if !self.d(q2, t).is_finite() || only.is_some_and(|o| o != k2) {
            return;
        }
        // q2 to a parking cell is avoided: exchange via the colour counters directly
        let de = self.lines.remove(t, k) as i64 + self.lines.remove(cell, k2) as i64;
        let dg = self.lines.add(cell, k) as i64 + self.lines.add(t, k2) as i64;
        let dcost = self.d(q, cell) + self.d(q2, t) - self.d(q, t) - self.d(q2, cell);
        let delta = w * (dg - de) as f64 + dcost;
        if delta <= threshold {
            self.target[q] = cell;
            self.target[q2] = t;
            self.owner[cell] = q as u32 + 1;
            self.owner[t] = q2 as u32 + 1;
            self.move_cost = before + dcost;
        } else {
            self.lines.remove(cell, k);
            self.lines.remove(t, k2);
            self.lines.add(t, k);
            self.lines.add(cell, k2);
        }
    }

    /// One proposed move drawn from two random words: which queen, which kind of move (40 %
    /// column swaps, 5 % three-cycles, 35 % relocations, 20 % assignment swaps), the partners
    /// and the acceptance threshold.
    #[inline]
    pub(super) fn propose(&mut self, x: u64, y: u64, moves: &Moves<'_>, w: f64, temp: f64) {
        let q = moves.movers[below(x as u32, moves.movers.len())];
        let kind = (((x >> 32) & 0xffff) * 100) >> 16;
        let threshold = temp * moves.neg_ln[(x >> 52) as usize];
        let mates = &moves.by_colour[self.p.queens[q].colour];
        let mate = |bits: u32| mates[below(bits, mates.len())];
        match kind {
            40..45 => {
                if mates.len() >= 3 {
                    self.three_cycle(q, mate(y as u32), mate((y >> 32) as u32), w, threshold);
                }
            }
            45..80 => {
                let n = self.p.n;
                let t = self.target[q];
                let cell = match kind % 3 {
                    0 => (t / n) * n + below(y as u32, n),
                    1 => below(y as u32, n) * n + t % n,
                    _ => self.p.queens[q].start,
                };
                self.relocate(q, cell, moves.only, w, threshold);
            }
            _ => {
                let q2 = mate(y as u32);
                if q2 == q {
                } else if kind >= 80 {
                    self.assignment_swap(q, q2, threshold);
                } else {
                    self.column_swap(q, q2, w, threshold);
                }
            }
        }
    }
}

/// What a run may move: the queens it re-plans, every colour's queens (to draw partners),
/// the colour it is limited to, and the threshold table.
pub(super) struct Moves<'a> {
    pub(super) movers: Vec<usize>,
    pub(super) by_colour: Vec<Vec<usize>>,
    pub(super) only: Option<usize>,
    pub(super) neg_ln: &'a [f64; NEG_LN_SIZE],
}
