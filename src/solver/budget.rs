//! The time of one run: the compute budget cut from the time limit, and every share of it
//! the stages get, in one place. A stage takes a single deadline `Instant` from here.
//!
//! ```text
//! started ── first answer ── exact boards ── annealed boards ── reordering ── end ── polish ── improve
//!            first_end()     exact_end()     boards_end()       reorder_end() end()  polish_end() improve_end()
//! ```
//!
//! The polish and the post-optimiser run a little past `end()` (their own small shares of
//! the compute budget); the rest of the time limit covers output, process start and exit.

use super::params::Params;
use std::time::{Duration, Instant};

/// The compute budget of one run and its shares ([`Params`] holds the shares).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    started: Instant,
    /// The search ends at `started + compute`.
    compute: Duration,
    end: Instant,
    params: Params,
}

impl Budget {
    /// The budget of a run of `time_limit` seconds that began at `started`: a share of the
    /// limit (`compute_share_short`, `compute_share` or `compute_share_long` by its length).
    pub(crate) fn new(time_limit: f64, started: Instant, params: &Params) -> Budget {
        let share = params.compute_share_for(time_limit);
        let compute = Duration::from_secs_f64((time_limit * share).max(0.0));
        Budget {
            started,
            compute,
            end: started + compute,
            params: *params,
        }
    }

    /// The instant when `share` of the compute budget has passed.
    fn at(&self, share: f64) -> Instant {
        self.started + self.compute.mul_f64(share)
    }

    /// The length of the compute budget.
    pub(crate) fn compute(&self) -> Duration {
        self.compute
    }

    /// The end of the compute budget: the search stops here.
    pub(crate) fn end(&self) -> Instant {
        self.end
    }

    /// Time left of the compute budget at `now`.
    pub(crate) fn left(&self, now: Instant) -> Duration {
        self.end.saturating_duration_since(now)
    }

    /// The end of the first answer's descent (`first_share`, `first_share_big` on big
    /// boards).
    pub(crate) fn first_end(&self, big: bool) -> Instant {
        let p = &self.params;
        self.at(if big {
            p.first_share_big
        } else {
            p.first_share
        })
    }

    /// How long the distance rows may take, from `now` (`paths_share` of the time left).
    pub(crate) fn paths_room(&self, now: Instant) -> Duration {
        self.left(now).mul_f64(self.params.paths_share)
    }

    /// The end of the exact search (`exact_share`; with one colour `exact_share_one_colour`,
    /// but at most `exact_cap_one_colour` seconds after `now`).
    pub(crate) fn exact_end(&self, one_colour: bool, now: Instant) -> Instant {
        let p = &self.params;
        if one_colour {
            self.at(p.exact_share_one_colour)
                .min(now + Duration::from_secs_f64(p.exact_cap_one_colour))
        } else {
            self.at(p.exact_share)
        }
    }

    /// The end of the exact search that lists every N-Queens board for several colours
    /// (`exact_share_listing`).
    pub(crate) fn exact_end_listing(&self) -> Instant {
        self.at(self.params.exact_share_listing)
    }

    /// Whether the compute budget is long enough for listing every exact board at N = 14
    /// with several colours (`exact_n14_budget`).
    pub(crate) fn lists_n14(&self) -> bool {
        self.compute.as_secs_f64() >= self.params.exact_n14_budget
    }

    /// Whether the polish and improver run on several boards (`multi_start_budget`; boards of
    /// several colours only).
    pub(crate) fn multi_start(&self, colours: usize) -> bool {
        self.compute.as_secs_f64() >= self.params.multi_start_budget && colours >= 2
    }

    /// Whether the first annealing runs are the crowded boards' longer ones
    /// (`crowded_budget`).
    pub(crate) fn crowded(&self) -> bool {
        self.compute < Duration::from_secs_f64(self.params.crowded_budget)
    }

    /// The end of the board phase (`board_share`).
    pub(crate) fn boards_end(&self) -> Instant {
        self.at(self.params.board_share)
    }

    /// The board phase's time when routing is fast (`board_share` of the compute budget):
    /// what re-plans are measured against.
    pub(crate) fn boards_time(&self) -> Duration {
        self.compute.mul_f64(self.params.board_share)
    }

    /// The end of the board phase lengthened once when a simulation of `per_sim` is slow at
    /// `now` (`slow_simulations`, `board_share_slow`), or `None` when it is not slow.
    pub(crate) fn boards_end_slow(&self, per_sim: Duration, now: Instant) -> Option<Instant> {
        let slow =
            per_sim.as_secs_f64() * self.params.slow_simulations > self.left(now).as_secs_f64();
        slow.then(|| self.at(self.params.board_share_slow))
    }

    /// The end of a second board phase started at `now` (`second_round_share` of the time
    /// left, not reaching into the share of the polish and the post-optimiser); `None` when
    /// that share has begun (a second round would have no time for boards and would only
    /// reorder the same boards again: 0.3 s of a 10 s run on seed 208).
    pub(crate) fn second_round_end(&self, now: Instant, multi_start: bool) -> Option<Instant> {
        let end = now + self.left(now).mul_f64(self.params.second_round_share);
        let end = end.min(self.reorder_end(multi_start));
        (end > now).then_some(end)
    }

    /// The length of one annealing run of a board phase that ends at `boards_end`, from
    /// `now` (`runs_per_phase`).
    pub(crate) fn run_slice(&self, boards_end: Instant, now: Instant) -> Duration {
        boards_end
            .saturating_duration_since(now)
            .div_f64(self.params.runs_per_phase)
    }

    /// The time of the next annealing run at `now`: `slice`, at least `first_board_share` of
    /// the time left when no board is made yet, at most `run_share_max` of it.
    pub(crate) fn run_time(&self, slice: Duration, first: bool, now: Instant) -> Duration {
        let left = self.left(now);
        let slice = if first {
            slice.max(left.mul_f64(self.params.first_board_share))
        } else {
            slice
        };
        slice.min(left.mul_f64(self.params.run_share_max))
    }

    /// The first reordering round at `now` over the best `have` boards, with simulations of
    /// `per_sim`: how many boards can get `top_round_sims` simulations each in
    /// `1/top_round_parts` of the time left (at least `top_boards_min`, at most `pool_size`,
    /// at most `have`), and the time of each.
    pub(crate) fn top_round(
        &self,
        per_sim: Duration,
        have: usize,
        now: Instant,
    ) -> (usize, Duration) {
        let p = &self.params;
        let left = self.left(now);
        let affordable = left.as_secs_f64()
            / p.top_round_parts
            / (per_sim.as_secs_f64() * p.top_round_sims).max(1e-9);
        let most = p.pool_size.max(p.top_boards_min);
        let boards = (affordable as usize)
            .clamp(p.top_boards_min, most)
            .min(have);
        (
            boards,
            left.div_f64(p.top_round_parts * boards.max(1) as f64),
        )
    }

    /// The end of the reordering of the winner: the post-optimiser starts a little before
    /// the end (`improve_early`, `improve_early_long` when it runs on several boards).
    pub(crate) fn reorder_end(&self, multi_start: bool) -> Instant {
        let p = &self.params;
        let early = if multi_start {
            p.improve_early_long
        } else {
            p.improve_early
        };
        self.end - self.compute.mul_f64(early)
    }

    /// The end of the polish (`polish_share` past the compute budget).
    pub(crate) fn polish_end(&self) -> Instant {
        self.at(1.0 + self.params.polish_share)
    }

    /// The end of the post-optimiser (`improve_share` past the polish).
    pub(crate) fn improve_end(&self) -> Instant {
        self.at(1.0 + self.params.polish_share + self.params.improve_share)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(limit: f64) -> (Budget, Instant) {
        let started = Instant::now();
        (Budget::new(limit, started, &Params::default()), started)
    }

    #[test]
    fn the_compute_share_follows_the_limit() {
        for (limit, share) in [
            (1.0, 0.70),
            (2.0, 0.70),
            (3.0, 0.80),
            (5.0, 0.88),
            (10.0, 0.88),
        ] {
            let (b, started) = budget(limit);
            assert_eq!(b.compute, Duration::from_secs_f64(limit * share), "{limit}");
            assert_eq!(b.end(), started + b.compute);
        }
    }

    #[test]
    fn the_phases_come_in_order() {
        let (b, started) = budget(10.0);
        let p = Params::default();
        assert!(b.first_end(false) < b.first_end(true));
        assert!(b.exact_end(false, started) < b.boards_end());
        assert!(b.boards_end() < b.reorder_end(false));
        assert!(b.reorder_end(true) <= b.reorder_end(false));
        assert!(b.reorder_end(false) < b.end());
        assert!(b.end() < b.polish_end() && b.polish_end() < b.improve_end());
        assert_eq!(b.boards_end(), started + b.compute.mul_f64(p.board_share));
        // one colour: its share of the budget, at most `exact_cap_one_colour` seconds after
        // the search starts (the cap binds on long limits)
        let share = b.compute.mul_f64(p.exact_share_one_colour);
        let cap = Duration::from_secs_f64(p.exact_cap_one_colour);
        assert_eq!(b.exact_end(true, started), started + share.min(cap));
        let (long, long_started) = budget(60.0);
        assert_eq!(long.exact_end(true, long_started), long_started + cap);
        // at 1 s with one colour the lift search shares the exact search's work: the search
        // stops at `exact_share_one_colour` of the 0.7 s, before half of it
        let (short, started) = budget(1.0);
        let end = short.exact_end(true, started);
        assert_eq!(
            end,
            started + short.compute.mul_f64(p.exact_share_one_colour)
        );
        assert!(end < started + short.compute.mul_f64(0.5));
        assert!(b.multi_start(2) && !b.multi_start(1));
        // the 1 s limit's 0.7 s runs it; half a second's 0.35 s does not
        assert!(budget(1.0).0.multi_start(5) && !budget(0.5).0.multi_start(5));
        assert!(budget(1.0).0.crowded() && !budget(2.0).0.crowded());
    }

    #[test]
    fn the_first_reordering_round_shares_a_third_of_the_time_left() {
        let (b, started) = budget(10.0);
        // slow simulations: the fewest boards
        let (boards, each) = b.top_round(Duration::from_secs(1), 40, started);
        assert_eq!(boards, 3);
        assert_eq!(each, b.compute.div_f64(9.0));
        // fast ones: as many as the pool holds
        let (boards, _) = b.top_round(Duration::from_micros(1), 100, started);
        assert_eq!(boards, 40);
        // never more than there are
        let (boards, each) = b.top_round(Duration::from_secs(1), 2, started);
        assert_eq!(boards, 2);
        assert_eq!(each, b.compute.div_f64(6.0));
    }

    #[test]
    fn a_second_board_phase_leaves_the_post_optimiser_its_share() {
        // late second rounds (one board or several for the post-optimiser, short and long
        // limits) end by the reordering's end: at 1 s the post-optimiser's descent gains
        // most per second and had 35 ms on seed 208 (N = 29, C = 5) when they did not
        for limit in [1.0, 10.0] {
            let (b, started) = budget(limit);
            for late in [0.5, 0.9] {
                let now = started + b.compute.mul_f64(late);
                for multi_start in [false, true] {
                    let end = b.second_round_end(now, multi_start);
                    let reorder_end = b.reorder_end(multi_start);
                    match end {
                        Some(end) => assert!(end > now && end <= reorder_end),
                        // none only once the post-optimiser's share has begun
                        None => assert!(now >= reorder_end, "{limit} s, at {late}"),
                    }
                }
            }
            // from the reordering's end on, no second round
            let now = b.reorder_end(true);
            assert_eq!(b.second_round_end(now, true), None, "{limit} s");
            assert!(b.second_round_end(started, true).is_some(), "{limit} s");
        }
    }
}
