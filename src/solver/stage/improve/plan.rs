//! Planning one queen anew among the other queens' moves: final cell, insertion time, route.

use super::{length, line_cells, Candidate, Improver, EPS, NONE};
use crate::solver::board::{Move, EMPTY};
use crate::solver::score::LineCounts;

impl Improver<'_> {
    /// A new move list where `q`'s moves in `moves` are replaced by a cheapest plan found, if
    /// its estimated score is below `limit`. `absent`: the starts of queens that have no moves
    /// in `moves` and are left off the board; `only`: the one final cell allowed for `q`.
    pub(super) fn plan(
        &mut self,
        q: usize,
        moves: &[Move],
        absent: &[usize],
        only: Option<usize>,
        limit: f64,
        out_of_time: &impl Fn() -> bool,
    ) -> Option<Vec<Move>> {
        let n = self.n;
        let (s, colour) = (self.starts[q], self.colours[q]);
        let owners = self.owners(moves);
        let (rest, first_time, last_time) = others(moves, &owners, q);
        let rest_cost: f64 = rest.iter().map(|m| length(n, m.from, m.to).sqrt()).sum();

        // Play the other moves on the board without q. `first_touch[c]`: first move that
        // crosses or enters c; `last_touch[c]`: last move that crosses, enters or leaves c.
        let mut initial = self.board.cells.clone();
        initial[s] = EMPTY;
        for &a in absent {
            initial[a] = EMPTY;
        }
        let Touches {
            mut cells,
            first_touch,
            last_touch,
        } = touches(n, &initial, &rest);
        // q may stay on its start until the first move that needs it
        let latest = if first_touch[s] == NONE {
            rest.len()
        } else {
            first_touch[s]
        };
        let mut counts = LineCounts::new(n, self.board.colours);
        for (c, &v) in cells.iter().enumerate().filter(|(_, &v)| v > 0) {
            counts.add(c, v as usize - 1);
        }

        // Final cells ranked by lower bound: free from some time on, reachable in time.
        let spot = Spot {
            start: s,
            colour,
            latest,
            only,
        };
        let targets = self.final_cells(&spot, &cells, &last_touch, &mut counts, rest_cost, limit);
        if targets.is_empty() {
            return None;
        }

        let mut best: Option<Candidate> = None;
        for (rank, &(bound, g, earliest, fixed)) in targets.iter().enumerate() {
            if best.as_ref().is_some_and(|b| b.total <= bound) || out_of_time() {
                break;
            }
            if g == s {
                // drop: q never moves (its start is untouched, since earliest <= latest)
                best = Some(Candidate {
                    total: fixed,
                    blocks: Vec::new(),
                });
                continue;
            }
            let single = if earliest <= latest {
                insertion_times(earliest, latest, first_time, self.breadth.times_per_target)
            } else {
                Vec::new()
            };
            let target = (s, g, bound, fixed);
            let to = Timeline {
                initial: &initial,
                rest: &rest,
                cells: &mut cells,
            };
            self.single_block(to, target, &single, limit, &mut best, out_of_time);
            // a stop on the way costs at least the walls-only distance too (triangle
            // inequality): when the single block meets it, two blocks cannot do better
            let met = best.as_ref().is_some_and(|b| b.total <= bound + EPS);
            if rank < self.breadth.two_phase_targets && !met {
                let times = Times {
                    earliest,
                    latest,
                    first: first_time,
                    last: last_time,
                };
                let cap = cap(&best, limit, fixed);
                let found = self.two_phase(&initial, &rest, (s, g), fixed, cap, times, out_of_time);
                if let Some(c) = found {
                    if best.as_ref().is_none_or(|b| c.total < b.total) {
                        best = Some(c);
                    }
                }
            }
        }
        let best = best.filter(|b| b.total < limit - EPS)?;
        // the bookkeeping above is checked by the referee before anything is kept
        Some(splice(&rest, &best.blocks))
    }

    /// The best single-block plan from `s` to `g` (`target`: `(s, g, lower bound, fixed
    /// part of the score)`) at one of the `times`, into `best` when it beats it.
    fn single_block(
        &mut self,
        to: Timeline<'_>,
        (s, g, bound, fixed): (usize, usize, f64, f64),
        times: &[usize],
        limit: f64,
        best: &mut Option<Candidate>,
        out_of_time: &impl Fn() -> bool,
    ) {
        let n = self.n;
        // A* towards g: only cells on routes that could meet the cap are settled
        let guide = self.paths.row(g);
        for &time in times {
            if out_of_time() {
                break;
            }
            board_at(to.initial, &to.rest[..time], to.cells);
            let board = &*to.cells;
            // routes that cannot beat the best plan (or the limit) are not finished
            let cap = cap(best, limit, fixed);
            self.search
                .run_guided(s, |c| board[c] != EMPTY, guide, |u, _, f| u == g || f > cap);
            if !self.search.settled(g) {
                continue;
            }
            let route = self.search.route(g);
            let cost: f64 = route.windows(2).map(|w| length(n, w[0], w[1]).sqrt()).sum();
            let total = fixed + cost;
            if best.as_ref().is_none_or(|b| total < b.total) {
                *best = Some(Candidate {
                    total,
                    blocks: vec![(time, route)],
                });
            }
            if cost <= bound - fixed + EPS {
                break; // the walls-only distance: no other time does better
            }
        }
    }

    /// The cells `q` may end on (at most `targets_per_queen`, cheapest lower bound first)
    /// as (lower bound, cell, earliest time, score without q's moves): free from some time on
    /// (`last_touch`), reachable through the walls, and with a bound below `limit`.
    fn final_cells(
        &mut self,
        spot: &Spot,
        cells: &[i8],
        last_touch: &[usize],
        counts: &mut LineCounts,
        rest_cost: f64,
        limit: f64,
    ) -> Vec<(f64, usize, usize, f64)> {
        let (n, s, colour) = (self.n, spot.start, spot.colour);
        let walls_dist = self.paths.row(s);
        let base_errors = counts.errors;
        let mut targets = Vec::new();
        for g in 0..n * n {
            if cells[g] != EMPTY || spot.only.is_some_and(|o| o != g) {
                continue; // a wall, or another queen ends there
            }
            let earliest = if last_touch[g] == NONE {
                0
            } else {
                last_touch[g] + 1
            };
            if (g == s && earliest > spot.latest) || !walls_dist[g].is_finite() {
                continue;
            }
            let errors = base_errors + counts.add(g, colour);
            counts.remove(g, colour);
            let fixed = rest_cost + (errors * n) as f64;
            let bound = fixed + walls_dist[g] as f64;
            if bound < limit - EPS {
                targets.push((bound, g, earliest, fixed));
            }
        }
        targets.sort_by(|a, b| a.0.total_cmp(&b.0));
        targets.truncate(self.breadth.targets_per_queen);
        targets
    }

    /// Two blocks for `q`: from its start `s` to a parking cell `m` at time `t1` (while `s`
    /// is still untouched), then from `m` to `g` at time `t2 >= t1` (once `g` is free for
    /// good), with `m` empty and untouched by the other moves between the two. Covers the
    /// queens that must leave their start before their final cell frees up. Only plans whose
    /// route costs at most `cap` are looked for.
    #[allow(clippy::too_many_arguments)]
    fn two_phase(
        &mut self,
        initial: &[i8],
        rest: &[Move],
        (s, g): (usize, usize),
        fixed: f64,
        cap: f32,
        times: Times,
        out_of_time: &impl Fn() -> bool,
    ) -> Option<Candidate> {
        let (n, nn) = (self.n, self.n * self.n);
        let mut t1s = vec![times.latest];
        if times.first != NONE {
            t1s.push(times.first.min(times.latest));
        }
        t1s.sort_unstable();
        t1s.dedup();
        let (mut at1, mut at2) = (initial.to_vec(), initial.to_vec());
        let (to_s_walls, to_g_walls) = self.paths.rows(s, g);
        let mut from_s = vec![0f32; nn];
        // distances to g on the board at t2 do not depend on t1: computed once per t2
        let mut to_g: Vec<(usize, Vec<f32>)> = Vec::new();
        let mut touched = vec![false; nn];
        let mut best: Option<(f32, usize, usize, usize)> = None;
        for &t1 in &t1s {
            board_at(initial, &rest[..t1], &mut at1);
            let board = &at1;
            // a parking cell farther than `cap` from the two ends together cannot give a
            // better plan: A* towards `g` settles only the others
            self.search
                .run_guided(s, |c| board[c] != EMPTY, to_g_walls, |_, _, f| f > cap);
            self.search.copy_dist(&mut from_s);
            let mut t2s = vec![times.earliest.max(t1), rest.len()];
            if times.last != NONE {
                t2s.push(times.last.max(times.earliest).max(t1));
            }
            t2s.sort_unstable();
            t2s.dedup();
            for &t2 in &t2s {
                if out_of_time() {
                    return None;
                }
                let k = match to_g.iter().position(|(t, _)| *t == t2) {
                    Some(k) => k,
                    None => {
                        board_at(initial, &rest[..t2], &mut at2);
                        let board = &at2;
                        self.search.run_guided(
                            g,
                            |c| board[c] != EMPTY,
                            to_s_walls,
                            |_, _, f| f > cap,
                        );
                        let mut dist = vec![0f32; nn];
                        self.search.copy_dist(&mut dist);
                        to_g.push((t2, dist));
                        to_g.len() - 1
                    }
                };
                let from_g = &to_g[k].1;
                touched.fill(false);
                for mv in &rest[t1..t2] {
                    touched[mv.from] = true;
                    for c in line_cells(n, mv.from, mv.to) {
                        touched[c] = true;
                    }
                }
                for m in 0..nn {
                    if at1[m] != EMPTY || touched[m] {
                        continue;
                    }
                    let cost = from_s[m] + from_g[m];
                    if cost.is_finite() && best.is_none_or(|b| cost < b.0) {
                        best = Some((cost, m, t1, t2));
                    }
                }
            }
        }
        let (_, m, t1, t2) = best?;
        self.two_routes(initial, rest, (s, m, g), (t1, t2), fixed)
    }

    /// The plan of [`Improver::two_phase`] once it chose the parking cell `m` and the times
    /// `t1`, `t2`: its two routes searched again (the search keeps only its last run).
    fn two_routes(
        &mut self,
        initial: &[i8],
        rest: &[Move],
        (s, m, g): (usize, usize, usize),
        (t1, t2): (usize, usize),
        fixed: f64,
    ) -> Option<Candidate> {
        let mut board = initial.to_vec();
        board_at(initial, &rest[..t1], &mut board);
        self.search.run(s, |c| board[c] != EMPTY, Some(m));
        let first = self.search.route(m);
        board_at(initial, &rest[..t2], &mut board);
        self.search.run(m, |c| c != m && board[c] != EMPTY, Some(g));
        let second = self.search.route(g);
        if first.is_empty() || second.is_empty() {
            return None;
        }
        let cost: f64 = first
            .windows(2)
            .chain(second.windows(2))
            .map(|w| length(self.n, w[0], w[1]).sqrt())
            .sum();
        Some(Candidate {
            total: fixed + cost,
            blocks: vec![(t1, first), (t2, second)],
        })
    }
}

/// The board of a plan: the initial board without the queen, the other queens' moves, and a
/// workspace for the board after some of them.
struct Timeline<'a> {
    initial: &'a [i8],
    rest: &'a [Move],
    cells: &'a mut [i8],
}

/// The window of one queen and one final cell: `q` may stay on its start until `latest`, the
/// final cell is free for good from `earliest` on; `first`/`last`: where `q`'s own moves were.
#[derive(Clone, Copy)]
struct Times {
    earliest: usize,
    latest: usize,
    first: usize,
    last: usize,
}

/// The most a route may cost to beat both `best` and `limit` after `fixed` (a little more, for
/// the `f32` distances of the search).
fn cap(best: &Option<Candidate>, limit: f64, fixed: f64) -> f32 {
    let bar = best.as_ref().map_or(limit, |b| b.total.min(limit));
    (bar - fixed) as f32 + 1e-3
}

/// `out` = the board `initial` after `moves`.
fn board_at(initial: &[i8], moves: &[Move], out: &mut [i8]) {
    out.copy_from_slice(initial);
    for mv in moves {
        out[mv.to] = out[mv.from];
        out[mv.from] = EMPTY;
    }
}

/// Times to try in the window `earliest..=latest`: both ends, the original time and `spread`
/// evenly spread ones, ascending and distinct.
pub(super) fn insertion_times(
    earliest: usize,
    latest: usize,
    original: usize,
    spread: usize,
) -> Vec<usize> {
    let mut times = vec![earliest, latest];
    if original != NONE {
        times.push(original.clamp(earliest, latest));
    }
    let span = latest - earliest;
    for k in 1..=spread {
        times.push(earliest + span * k / (spread + 1));
    }
    times.sort_unstable();
    times.dedup();
    times
}

/// The moves of every queen but `q` (by `owners`), and how many of them come before `q`'s
/// first and last move (`NONE` when `q` has none).
fn others(moves: &[Move], owners: &[usize], q: usize) -> (Vec<Move>, usize, usize) {
    let mut rest = Vec::with_capacity(moves.len());
    let (mut first_time, mut last_time) = (NONE, NONE);
    for (mv, &o) in moves.iter().zip(owners) {
        if o == q {
            if first_time == NONE {
                first_time = rest.len();
            }
            last_time = rest.len();
        } else {
            rest.push(*mv);
        }
    }
    (rest, first_time, last_time)
}

/// `rest` with each block's route inserted as moves before the `time`-th move of `rest`
/// (blocks in time order).
fn splice(rest: &[Move], blocks: &[(usize, Vec<usize>)]) -> Vec<Move> {
    let mut moves = Vec::with_capacity(rest.len() + 8);
    let mut done = 0;
    for (time, route) in blocks {
        moves.extend_from_slice(&rest[done..*time]);
        done = *time;
        moves.extend(route.windows(2).map(|w| Move {
            from: w[0],
            to: w[1],
        }));
    }
    moves.extend_from_slice(&rest[done..]);
    moves
}

/// The board after the other queens' moves, and per cell the first move that crosses or
/// enters it and the last move that crosses, enters or leaves it (`NONE`: no move does).
struct Touches {
    cells: Vec<i8>,
    first_touch: Vec<usize>,
    last_touch: Vec<usize>,
}

/// Plays `rest` from `initial` (see [`Touches`]).
fn touches(n: usize, initial: &[i8], rest: &[Move]) -> Touches {
    let mut cells = initial.to_vec();
    let mut first_touch = vec![NONE; n * n];
    let mut last_touch = vec![NONE; n * n];
    for (i, mv) in rest.iter().enumerate() {
        for c in line_cells(n, mv.from, mv.to) {
            if first_touch[c] == NONE {
                first_touch[c] = i;
            }
            last_touch[c] = i;
        }
        last_touch[mv.from] = i;
        cells[mv.to] = cells[mv.from];
        cells[mv.from] = EMPTY;
    }
    Touches {
        cells,
        first_touch,
        last_touch,
    }
}

/// The queen being re-planned: its start, colour, the last time it may still leave its start,
/// and the one final cell allowed (if any).
struct Spot {
    start: usize,
    colour: usize,
    latest: usize,
    only: Option<usize>,
}
