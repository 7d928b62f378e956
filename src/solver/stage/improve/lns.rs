//! Large-neighbourhood search on a finished answer: once [`improve`](super::improve) gains
//! nothing more, lift the moves of a few queens that end near each other, plan them again one
//! by one among the other moves (each to its cheapest final cell, even when the answer gets
//! worse for a moment), re-plan them and their neighbours alone while that gains, and keep the
//! result when it is no worse (or, with `lns_slack`, not much worse early on).
//!
//! The descent alone stops in a local optimum and leaves the rest of the budget idle; the
//! lifted queens may exchange targets and change their order in ways no single-queen or pair
//! move reaches. Measured, the rounds rarely find such a change (at most 0.3 % below the
//! descent's optimum on six routed answers; see `lns_queens` in `params.rs`). Every few
//! rounds (`lns_colour_every`) the lifted queens are of one colour: they may then trade rows
//! and columns, a new board for their colour, which no move of the descent reaches.

use super::{Breadth, Improver, EPS, NONE};
use crate::solver::board::{Board, Move};
use crate::solver::checkpoint;
use crate::solver::params::Params;
use crate::solver::score::replay;
use rand::seq::SliceRandom;
use rand::Rng;
use std::time::Instant;

/// What a [`search`] did: where its first descent ended, and its rounds (lifts tried, kept).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rounds {
    /// Score after the first descent (`NaN`: the answer given was not legal).
    pub descended: f64,
    /// Lift-and-replan rounds tried.
    pub tried: usize,
    /// Rounds whose result was kept (no worse than the answer before them, up to the
    /// `lns_slack`).
    pub kept: usize,
}

/// Improves a legal move list until `deadline`: a descent ([`improve`](super::improve)),
/// then rounds of lifting `lns_queens` queens that end near each other (every
/// `lns_colour_every`-th round `lns_colour_queens` queens of one colour), planning them anew
/// and re-planning them and `lns_around` queens around them while that gains; a round is
/// kept when its score is at most the current one (so the search drifts over plateaus) plus a
/// slack of `lns_slack` × the descent's score, shrinking linearly to 0 at `deadline`.
///
/// Returns the best legal move list found (never worse than `moves`; `moves` itself when it
/// is not legal) and what the rounds did.
///
/// # Complexity
/// A round costs one plan per lifted queen plus a few passes of single-queen plans over
/// `lns_queens + lns_around` queens (see [`improve`](super::improve) for a plan's cost).
pub fn search(
    board: &Board,
    moves: Vec<Move>,
    deadline: Instant,
    params: &Params,
    rng: &mut impl Rng,
) -> (Vec<Move>, Rounds) {
    let Ok(outcome) = replay(board, &moves) else {
        let rounds = Rounds {
            descended: f64::NAN,
            ..Rounds::default()
        };
        return (moves, rounds);
    };
    let mut rounds = Rounds::default();
    let mut state = Improver::new(board, moves, outcome.score, Breadth::of(params));
    let out_of_time = || Instant::now() >= deadline;
    state.descend(&out_of_time);
    rounds.descended = state.score;
    let lift = params.lns_queens.min(state.starts.len());
    let began = Instant::now();
    let span = deadline.saturating_duration_since(began);
    let mut best = (state.score, state.moves.clone());
    while !out_of_time() && lift > 0 {
        let (kept_moves, kept_score) = (state.moves.clone(), state.score);
        rounds.tried += 1;
        // every few rounds, queens of one colour only: re-planned together they may trade
        // rows and columns, a new board for that colour that no pair move reaches
        let every = params.lns_colour_every;
        let one_colour = every > 0 && rounds.tried % every == 0;
        let count = if one_colour {
            params.lns_colour_queens.min(state.starts.len())
        } else {
            lift
        };
        let queens = state.near_each_other(count, one_colour, rng);
        let replanned = state.replan(&queens, rng, &out_of_time);
        if replanned {
            // only the lifted queens and their neighbours: a full descent costs hundreds of
            // plans, and the rest of the answer was a local optimum already
            let around = state.near_each_other_of(&queens, params.lns_around);
            state.descend_some(&around, &out_of_time);
        }
        // a little worse is accepted early on (less and less until the deadline): an
        // answer the rounds cannot leave otherwise
        let left = 1.0 - began.elapsed().as_secs_f64() / span.as_secs_f64().max(1e-9);
        let slack = params.lns_slack * rounds.descended * left.max(0.0);
        if replanned && state.score <= kept_score + slack + EPS {
            rounds.kept += 1;
            if state.score < best.0 - EPS {
                checkpoint::keep(board, &state.moves, state.score);
                best = (state.score, state.moves.clone());
            }
        } else {
            state.moves = kept_moves;
            state.score = kept_score;
        }
    }
    (best.1, rounds)
}

impl Improver<'_> {
    /// `count` queens: a random queen, then the queens (with `same_colour`, of its colour)
    /// whose final cells are nearest to its final cell (Chebyshev distance; ties at random).
    fn near_each_other(&self, count: usize, same_colour: bool, rng: &mut impl Rng) -> Vec<usize> {
        let q = rng.random_range(0..self.starts.len());
        let colour = same_colour.then_some(self.colours[q]);
        let mut near = self.nearest(&[q], count, colour, rng.random());
        near.insert(0, q);
        near.truncate(count);
        near
    }

    /// `queens` and the `count` other queens whose final cells are nearest to one of theirs.
    fn near_each_other_of(&self, queens: &[usize], count: usize) -> Vec<usize> {
        let mut near = queens.to_vec();
        near.extend(self.nearest(queens, count, None, 0));
        near
    }

    /// The `count` queens not in `queens` (and of `colour`, if given) whose final cells are
    /// nearest (Chebyshev distance) to a final cell of `queens`; ties broken by a hash of
    /// `salt` and the queen.
    fn nearest(
        &self,
        queens: &[usize],
        count: usize,
        colour: Option<usize>,
        salt: u64,
    ) -> Vec<usize> {
        let (_, _, last) = self.paid();
        let n = self.n as i64;
        let at = |cell: usize| (cell as i64 / n, cell as i64 % n);
        let centres: Vec<(i64, i64)> = queens.iter().map(|&q| at(last[q])).collect();
        let mut by_distance: Vec<(i64, u64, usize)> = (0..last.len())
            .filter(|&q| !queens.contains(&q) && colour.is_none_or(|c| self.colours[q] == c))
            .map(|q| {
                let (r, c) = at(last[q]);
                let d = centres
                    .iter()
                    .map(|&(r0, c0)| (r - r0).abs().max((c - c0).abs()))
                    .min()
                    .unwrap_or(0);
                let tie = (q as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (d, tie, q)
            })
            .collect();
        by_distance.sort_unstable();
        by_distance.into_iter().take(count).map(|t| t.2).collect()
    }

    /// Re-plans each of `queens` alone while one of them gains (no pairs).
    fn descend_some(&mut self, queens: &[usize], out_of_time: &impl Fn() -> bool) {
        loop {
            let mut gained = false;
            for &q in queens {
                if out_of_time() {
                    return;
                }
                gained |= self.improve_queen(q, out_of_time);
            }
            if !gained {
                return;
            }
        }
    }

    /// Lifts every move of `queens` and plans them again in a random order, each to its
    /// cheapest final cell among the moves planned so far (the queens not yet planned are off
    /// the board). The result replaces the answer whatever its score; `false` (answer
    /// unchanged) when a queen finds no plan or the result is not legal.
    fn replan(
        &mut self,
        queens: &[usize],
        rng: &mut impl Rng,
        out_of_time: &impl Fn() -> bool,
    ) -> bool {
        let owners = self.owners(&self.moves);
        let lifted: Vec<bool> = {
            let mut l = vec![false; self.starts.len()];
            queens.iter().for_each(|&q| l[q] = true);
            l
        };
        let mut moves: Vec<Move> = self
            .moves
            .iter()
            .zip(&owners)
            .filter(|&(_, &o)| o == NONE || !lifted[o])
            .map(|(m, _)| *m)
            .collect();
        let mut order = queens.to_vec();
        order.shuffle(rng);
        for (i, &q) in order.iter().enumerate() {
            let absent: Vec<usize> = order[i + 1..].iter().map(|&p| self.starts[p]).collect();
            match self.plan(q, &moves, &absent, None, f64::INFINITY, out_of_time) {
                Some(planned) => moves = planned,
                None => return false,
            }
        }
        match replay(self.board, &moves) {
            Ok(o) => {
                self.moves = moves;
                self.score = o.score;
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_case;
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Duration;

    #[test]
    fn the_answer_stays_legal_and_never_gets_worse() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
        let params = Params {
            lns_slack: 0.05, // accepted worse rounds must not leak into the answer
            ..Params::default()
        };
        let mut rounds_run = 0;
        for _ in 0..150 {
            let (board, moves) = random_case(&mut rng);
            let before = replay(&board, &moves).unwrap().score;
            let deadline = Instant::now() + Duration::from_millis(20);
            let (after, rounds) = search(&board, moves, deadline, &params, &mut rng);
            let o = replay(&board, &after).expect("legal");
            assert!(
                o.score <= rounds.descended + EPS,
                "{} > {}",
                o.score,
                rounds.descended
            );
            assert!(rounds.descended <= before + EPS);
            rounds_run += rounds.tried;
        }
        assert!(rounds_run > 0, "no neighbourhood round ran");
    }

    #[test]
    fn lifting_every_queen_still_plans_a_legal_answer() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut replanned = 0;
        for _ in 0..100 {
            let (board, moves) = random_case(&mut rng);
            let score = replay(&board, &moves).unwrap().score;
            let breadth = Breadth::of(&Params::default());
            let mut state = Improver::new(&board, moves.clone(), score, breadth);
            let all: Vec<usize> = (0..state.starts.len()).collect();
            if state.replan(&all, &mut rng, &|| false) {
                replanned += 1;
                let o = replay(&board, &state.moves).expect("legal");
                assert!((o.score - state.score).abs() < 1e-9);
            } else {
                assert_eq!(state.moves, moves, "a failed round leaves the answer");
            }
        }
        assert!(replanned > 50, "only {replanned} of 100 replanned");
    }

    #[test]
    fn an_illegal_answer_comes_back_unchanged() {
        let board = Board::parse("3 1  1 0 0  0 0 0  0 0 1").unwrap();
        let moves = vec![Move { from: 0, to: 8 }]; // onto the other queen
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let far = Instant::now() + Duration::from_millis(10);
        let (after, rounds) = search(&board, moves.clone(), far, &Params::default(), &mut rng);
        assert_eq!(after, moves);
        assert!(rounds.descended.is_nan() && rounds.tried == 0);
    }

    #[test]
    fn neighbours_are_the_nearest_final_cells() {
        // one colour on a 5×5 board, queens on (0,0), (0,4), (4,4) and (2,2), no moves
        let board =
            Board::parse("5 1  1 0 0 0 1  0 0 0 0 0  0 0 1 0 0  0 0 0 0 0  0 0 0 0 1").unwrap();
        let state = Improver::new(&board, Vec::new(), 0.0, Breadth::of(&Params::default()));
        // queens in row-major order of their starts: (0,0)=0, (0,4)=1, (2,2)=2, (4,4)=3
        assert_eq!(state.nearest(&[0], 1, None, 7), vec![2]);
        // from (4,4): (2,2) at 2 first, then (0,0) or (0,4), both at 4
        let two = state.nearest(&[3], 2, None, 7);
        assert_eq!(two[0], 2, "{two:?}");
        assert!(two[1] == 0 || two[1] == 1, "{two:?}");
        assert_eq!(state.near_each_other_of(&[0], 1), vec![0, 2]);
    }

    #[test]
    fn one_colour_neighbours_are_of_that_colour() {
        // colour 1 on (0,0) and (4,4), colour 2 on (0,1) and (2,2): queens in row-major order
        // of their starts, (0,0)=0, (0,1)=1, (2,2)=2, (4,4)=3
        let board =
            Board::parse("5 2  1 2 0 0 0  0 0 0 0 0  0 0 2 0 0  0 0 0 0 0  0 0 0 0 1").unwrap();
        let state = Improver::new(&board, Vec::new(), 0.0, Breadth::of(&Params::default()));
        let colour = Some(state.colours[0]);
        assert_eq!(state.nearest(&[0], 1, None, 7), vec![1]);
        assert_eq!(state.nearest(&[0], 1, colour, 7), vec![3]);
        assert_eq!(
            state.nearest(&[0], 3, colour, 7),
            vec![3],
            "only one other queen"
        );
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for _ in 0..20 {
            let lifted = state.near_each_other(2, true, &mut rng);
            assert_eq!(lifted.len(), 2);
            assert_eq!(
                state.colours[lifted[0]], state.colours[lifted[1]],
                "{lifted:?}"
            );
        }
    }
}
