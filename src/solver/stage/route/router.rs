//! The routing simulator of stage 5: the current board, the queens' positions, the moves
//! played and the search workspaces (see [`super`] for the rules of thumb it follows).

use super::{Limits, Plan};
use crate::solver::board::{line_cells, Move, DIRS};
use crate::solver::paths::{sqrt_table, Search};
use std::time::Instant;

/// What stands on a cell while routing, besides a queen's index: nothing, or a wall (the
/// router's own copy of [`Plan::walls`], one `u32` per cell so that a look at a cell is one
/// load).
const NO_PIECE: u32 = u32::MAX;
const WALL_PIECE: u32 = u32::MAX - 1;
/// Two path costs closer than this are equal (sums of square roots in `f32`).
const EPS: f32 = 1e-3;

/// One way out of a blocked situation.
#[derive(Clone, Debug)]
enum Action {
    /// Move the queen along this route (cells where the moves start and end).
    Detour(Vec<usize>),
    /// Move the blockers aside, then the queen along this walls-only route.
    Clear(Vec<usize>),
}

/// The routing simulator: current board, positions, emitted moves and search workspaces.
pub(super) struct Router<'a> {
    plan: Plan<'a>,
    sqrt: Vec<f32>,
    board: Vec<u32>,
    pos: Vec<usize>,
    /// `wanted[cell]`: 1 + queen whose target the cell is, 0 if none.
    wanted: Vec<u32>,
    moves: Vec<Move>,
    search: Search,
    mark: Vec<u32>,
    stamp: u32,
    parent: Vec<u32>,
    weight: Vec<u32>,
    stack: Vec<usize>,
    forbidden: Vec<u32>,
    forbid_stamp: u32,
    /// `traffic[cell]`: how many planned routes of travelling queens cross the cell.
    traffic: Vec<u32>,
    /// The cells of each travelling queen's planned route (empty once it has arrived).
    planned: Vec<Vec<usize>>,
    /// Extra cost of a step aside onto another queen's target.
    park_penalty: f32,
    /// Weight of a blocker on its target.
    arrived_weight: u32,
}

impl<'a> Router<'a> {
    /// A simulator at the start position of `plan` (its costs from `limits`).
    pub(super) fn new(plan: Plan<'a>, limits: &Limits) -> Router<'a> {
        let nn = plan.n * plan.n;
        let mut board: Vec<u32> = plan
            .walls
            .iter()
            .map(|&w| if w { WALL_PIECE } else { NO_PIECE })
            .collect();
        let mut wanted = vec![0; nn];
        for (q, (&s, &t)) in plan.starts.iter().zip(plan.targets).enumerate() {
            board[s] = q as u32;
            wanted[t] = q as u32 + 1;
        }
        Router {
            plan,
            sqrt: sqrt_table(plan.n),
            board,
            pos: plan.starts.to_vec(),
            wanted,
            moves: Vec::new(),
            search: Search::new(plan.n),
            mark: vec![0; nn],
            stamp: 0,
            parent: vec![u32::MAX; nn],
            weight: vec![0; nn],
            stack: Vec::new(),
            forbidden: vec![0; nn],
            forbid_stamp: 0,
            traffic: vec![0; nn],
            planned: vec![Vec::new(); plan.starts.len()],
            park_penalty: limits.park_penalty,
            arrived_weight: limits.arrived_weight,
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    #[inline]
    fn done(&self, q: usize) -> bool {
        self.pos[q] == self.plan.targets[q]
    }

    /// Plays one move (legal by construction; checked in debug builds).
    fn play(&mut self, from: usize, to: usize) {
        let q = self.board[from];
        debug_assert!(q < WALL_PIECE && self.board[to] == NO_PIECE);
        self.board[to] = q;
        self.board[from] = NO_PIECE;
        self.pos[q as usize] = to;
        self.moves.push(Move { from, to });
        if self.done(q as usize) {
            for cell in std::mem::take(&mut self.planned[q as usize]) {
                self.traffic[cell] -= 1;
            }
        }
    }

    fn play_route(&mut self, route: &[usize]) {
        for w in route.windows(2) {
            self.play(w[0], w[1]);
        }
    }

    /// Cells where the moves of `route` start and end, from the parent links of a search.
    fn unwind(&self, end: usize) -> Vec<usize> {
        let mut route = vec![end];
        let mut at = end;
        while self.parent[at] != u32::MAX {
            at = self.parent[at] as usize;
            route.push(at);
        }
        route.reverse();
        route
    }

    /// A cheapest walls-only route of `q` that is clear on the current board, if any.
    fn free_route(&mut self, q: usize) -> Option<Vec<usize>> {
        let t = self.plan.targets[q];
        if self.board[t] != NO_PIECE {
            return None;
        }
        let home = self.plan.home[q];
        let n = self.plan.n as i32;
        let stamp = self.next_stamp();
        let start = self.pos[q];
        self.mark[start] = stamp;
        self.parent[start] = u32::MAX;
        self.stack.clear();
        self.stack.push(start);
        while let Some(u) = self.stack.pop() {
            let hu = home[u];
            let (ur, uc) = ((u / self.plan.n) as i32, (u % self.plan.n) as i32);
            for &(dr, dc) in &DIRS {
                let (mut r, mut c, mut len) = (ur + dr, uc + dc, 1);
                while r >= 0 && r < n && c >= 0 && c < n {
                    let v = (r * n + c) as usize;
                    if self.board[v] != NO_PIECE {
                        break;
                    }
                    if self.mark[v] != stamp && (hu - self.sqrt[len] - home[v]).abs() < EPS {
                        self.mark[v] = stamp;
                        self.parent[v] = u as u32;
                        if v == t {
                            return Some(self.unwind(t));
                        }
                        self.stack.push(v);
                    }
                    r += dr;
                    c += dc;
                    len += 1;
                }
            }
        }
        None
    }

    /// Weight of a piece on a route being cleared: a queen that still travels costs less to
    /// push aside than one that has arrived.
    #[inline]
    fn blocker_weight(&self, cell: usize) -> u32 {
        match self.board[cell] {
            NO_PIECE => 0,
            WALL_PIECE => 1 << 20,
            p if self.done(p as usize) => self.arrived_weight,
            _ => 1,
        }
    }

    /// A cheapest walls-only route of `q` with the fewest (weighted) blockers.
    fn clear_route(&mut self, q: usize) -> Option<Vec<usize>> {
        let t = self.plan.targets[q];
        let home = self.plan.home[q];
        let n = self.plan.n as i32;
        let stamp = self.next_stamp();
        let start = self.pos[q];
        // Dijkstra on small integer weights over the tight (shortest-route) edges only:
        // a bucket queue indexed by weight.
        let mut buckets: Vec<Vec<usize>> = vec![vec![start]];
        self.mark[start] = stamp;
        self.weight[start] = 0;
        self.parent[start] = u32::MAX;
        let mut level = 0;
        while level < buckets.len() {
            while let Some(u) = buckets[level].pop() {
                if self.weight[u] != level as u32 {
                    continue;
                }
                if u == t {
                    return Some(self.unwind(t));
                }
                let hu = home[u];
                let (ur, uc) = ((u / self.plan.n) as i32, (u % self.plan.n) as i32);
                for &(dr, dc) in &DIRS {
                    let (mut r, mut c, mut len) = (ur + dr, uc + dc, 1);
                    let mut w = level as u32;
                    while r >= 0 && r < n && c >= 0 && c < n {
                        let v = (r * n + c) as usize;
                        if self.board[v] == WALL_PIECE {
                            break;
                        }
                        w += self.blocker_weight(v);
                        if (hu - self.sqrt[len] - home[v]).abs() < EPS
                            && (self.mark[v] != stamp || w < self.weight[v])
                        {
                            self.mark[v] = stamp;
                            self.weight[v] = w;
                            self.parent[v] = u as u32;
                            if buckets.len() <= w as usize {
                                buckets.resize(w as usize + 1, Vec::new());
                            }
                            buckets[w as usize].push(v);
                        }
                        r += dr;
                        c += dc;
                        len += 1;
                    }
                }
            }
            level += 1;
        }
        None
    }

    /// Marks every cell crossed by `route` (ends included) as forbidden for blockers.
    fn forbid_route(&mut self, route: &[usize]) {
        self.forbid_stamp = self.forbid_stamp.wrapping_add(1);
        if self.forbid_stamp == 0 {
            self.forbidden.fill(0);
            self.forbid_stamp = 1;
        }
        let fs = self.forbid_stamp;
        let n = self.plan.n;
        for w in route.windows(2) {
            let (r0, c0) = ((w[0] / n) as i64, (w[0] % n) as i64);
            let (r1, c1) = ((w[1] / n) as i64, (w[1] % n) as i64);
            let (dr, dc) = ((r1 - r0).signum(), (c1 - c0).signum());
            let len = (r1 - r0).abs().max((c1 - c0).abs());
            for s in 0..=len {
                self.forbidden[((r0 + dr * s) * n as i64 + c0 + dc * s) as usize] = fs;
            }
        }
    }

    /// The cells crossed by `route` after its start, in order.
    fn route_cells(&self, route: &[usize]) -> Vec<usize> {
        let n = self.plan.n;
        route
            .windows(2)
            .flat_map(|w| line_cells(n, w[0], w[1]))
            .collect()
    }

    /// Best single step aside for the piece of queen `p`, avoiding forbidden cells:
    /// `(cell, excess)` where excess is the step plus what it adds to `p`'s own way home.
    fn step_aside(&self, p: usize) -> Option<(usize, f32)> {
        let from = self.pos[p];
        let home = self.plan.home[p];
        let n = self.plan.n as i32;
        let (fr, fc) = ((from / self.plan.n) as i32, (from % self.plan.n) as i32);
        let mut best: Option<(usize, f32)> = None;
        for &(dr, dc) in &DIRS {
            let (mut r, mut c, mut len) = (fr + dr, fc + dc, 1);
            while r >= 0 && r < n && c >= 0 && c < n {
                let v = (r * n + c) as usize;
                if self.board[v] != NO_PIECE {
                    break;
                }
                if self.forbidden[v] != self.forbid_stamp {
                    // parking on another queen's target will cost that queen later
                    let parked = match self.wanted[v] {
                        0 => 0.0,
                        w if w as usize - 1 == p => 0.0,
                        _ => self.park_penalty,
                    };
                    let excess = self.sqrt[len] + home[v] - home[from] + parked;
                    if best.is_none_or(|(_, e)| excess < e) {
                        best = Some((v, excess));
                    }
                }
                r += dr;
                c += dc;
                len += 1;
            }
        }
        best
    }

    /// Estimated excess of clearing `route` for its queen, or `None` if a blocker cannot
    /// step aside.
    fn clear_excess(&mut self, route: &[usize]) -> Option<f32> {
        self.forbid_route(route);
        let mut total = 0.0;
        for cell in self.route_cells(route) {
            let p = self.board[cell];
            if p < WALL_PIECE {
                total += self.step_aside(p as usize)?.1;
            }
        }
        Some(total)
    }

    /// The cheapest way out of a blocked situation, over the pending queens.
    fn best_action(&mut self, order: &[usize], max_considered: usize) -> Option<Action> {
        let mut best: Option<(f32, Action)> = None;
        let mut considered = 0;
        for &q in order {
            if self.done(q) {
                continue;
            }
            // on big boards, the first travelling queens of the order are enough
            considered += 1;
            if considered > max_considered && best.is_some() {
                break;
            }
            let (t, home) = (self.plan.targets[q], self.plan.home[q]);
            let lower = home[self.pos[q]];
            if let Some(route) = self.clear_route(q) {
                if let Some(excess) = self.clear_excess(&route) {
                    if best.as_ref().is_none_or(|(e, _)| excess < *e - EPS) {
                        best = Some((excess, Action::Clear(route)));
                    }
                }
            }
            if self.board[t] == NO_PIECE {
                let board = &self.board;
                // A* guided by the walls-only way home
                self.search.run_guided(
                    self.pos[q],
                    |c| board[c] != NO_PIECE,
                    home,
                    |u, _, _| u == t,
                );
                if self.search.settled(t) {
                    let excess = self.search.dist(t) - lower;
                    if best.as_ref().is_none_or(|(e, _)| excess < *e - EPS) {
                        best = Some((excess, Action::Detour(self.search.route(t))));
                    }
                }
            }
        }
        best.map(|(_, a)| a)
    }

    /// Plays an action; returns `false` if it could not be completed.
    fn apply(&mut self, action: Action) -> bool {
        match action {
            Action::Detour(route) => {
                self.play_route(&route);
                true
            }
            Action::Clear(route) => {
                self.forbid_route(&route);
                for cell in self.route_cells(&route) {
                    let p = self.board[cell];
                    if p < WALL_PIECE {
                        match self.step_aside(p as usize) {
                            Some((to, _)) => self.play(cell, to),
                            None => return false,
                        }
                    }
                }
                self.play_route(&route);
                true
            }
        }
    }

    /// Moves every queen that has a clear cheapest route, in `order`, until none has.
    ///
    /// A queen whose target lies on the planned route of another travelling queen waits while
    /// other free moves exist: arriving early would wall the other one off.
    fn free_moves(&mut self, order: &[usize], limits: Limits) {
        loop {
            if limits.deadline.is_some_and(|d| Instant::now() >= d) {
                return;
            }
            let mut moved = false;
            let mut waiting = None;
            for &q in order {
                if self.moves.len() >= limits.max_moves
                    || limits.deadline.is_some_and(|d| Instant::now() >= d)
                {
                    return;
                }
                if !self.done(q) {
                    if let Some(route) = self.free_route(q) {
                        let t = self.plan.targets[q];
                        let own = u32::from(!self.planned[q].is_empty());
                        if self.traffic[t] > own {
                            if waiting.is_none() {
                                waiting = Some(route);
                            }
                            continue;
                        }
                        self.play_route(&route);
                        moved = true;
                    }
                }
            }
            if !moved {
                // nothing moved in this pass, so the waiting route is still clear
                match waiting {
                    Some(route) => self.play_route(&route),
                    None => return,
                }
            }
        }
    }

    /// Plans a route per travelling queen (cheapest, fewest blockers) and counts the traffic.
    fn plan_routes(&mut self, deadline: Option<Instant>) {
        for q in 0..self.pos.len() {
            if self.done(q) {
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return; // unplanned queens simply never wait for others
            }
            if let Some(route) = self.clear_route(q) {
                let cells = self.route_cells(&route);
                for &cell in &cells {
                    self.traffic[cell] += 1;
                }
                self.planned[q] = cells;
            }
        }
    }

    /// Runs the whole routing with queens tried in `order`; returns the moves played.
    /// The sequence may stop short of the targets when a limit is hit.
    pub(super) fn run(mut self, order: &[usize], limits: Limits) -> Vec<Move> {
        let mut stuck = 0;
        self.plan_routes(limits.deadline);
        loop {
            self.free_moves(order, limits);
            if self.moves.len() >= limits.max_moves
                || stuck >= limits.max_stuck
                || limits.deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            if order.iter().all(|&q| self.done(q)) {
                break;
            }
            stuck += 1;
            match self.best_action(order, limits.max_considered) {
                Some(action) => {
                    if !self.apply(action) {
                        break;
                    }
                }
                None => break,
            }
        }
        self.moves.truncate(limits.max_moves);
        self.moves
    }
}
