//! Branch and bound on contested cells for the error-free case (`docs/solver.md`, "Branching
//! on contested cells").
//!
//! Where every colour's minimum over its N-Queens boards is exact, the price climb ends with
//! one cheapest board per colour. A cell `j` on the boards of two colours or more is
//! contested: the prices could not settle it. Every error-free answer either puts a queen of
//! colour `A` (one of them) on `j` — then no other colour is there — or it does not. So the
//! answers split into two regions: `j` forbidden to every colour but `A`, and `j` forbidden to
//! `A`. Each region is bounded by the price climb again with its forbidden pairs left out of
//! the colours' boards and terms (warm-started from the parent's prices); a region is a subset
//! of its parent's, so it keeps the parent's bound when its own is lower. The leaves cover
//! every error-free answer, so the least leaf bound is a bound on all of them: every iterate,
//! cut by the deadline or not, is valid.

use super::floors::{colour_floor, price_climb, Priced};
use super::Problem;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// A region of error-free answers: the (colour, free cell) pairs it forbids, and its bound.
struct Node {
    /// `(colour, free-cell index)` pairs no answer of the region has.
    forbidden: Vec<(usize, usize)>,
    priced: Priced,
    /// Whether its prices were climbed (else they are its parent's).
    climbed: bool,
}

/// What the branch and bound reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Branched {
    /// No error-free answer scores below this (the least open leaf bound).
    pub value: f64,
    /// Regions bounded (children evaluated, leaves whose prices were climbed again).
    pub nodes: usize,
    /// The least leaf's cheapest boards are disjoint: they are an answer of the relaxation
    /// (walls-only matchings onto disjoint N-Queens boards), so `value` is the relaxation's
    /// optimum (less the floors' slack) and no branching can raise it.
    pub solved: bool,
}

/// Raises the error-free bound `root` (the price climb's, every colour exact, at `weights`) by
/// best-first branching on contested cells until the least leaf bound reaches `enough` (the
/// caller takes the smaller of it and another case), the least leaf has no contested cell
/// even after its prices were climbed again (its boards are disjoint: [`Branched::solved`])
/// or `deadline`.
///
/// # Complexity
/// Per child one exact one-colour search for each colour whose cheapest board lost a cell
/// (milliseconds for N ≤ 15); a leaf with disjoint boards takes one price climb. The tree is
/// exponential at worst, cut by `deadline`.
pub(super) fn branch(
    problem: &Problem,
    walls: &[bool],
    weights: &[f64],
    root: Priced,
    enough: f64,
    deadline: Instant,
) -> Branched {
    let mut nodes = vec![Node {
        forbidden: Vec::new(),
        priced: root,
        climbed: true,
    }];
    // leaves by bound, least first (bounds are finite or +∞, so their bits order them)
    let mut open = BinaryHeap::from([Reverse((key(nodes[0].priced.value), 0usize))]);
    let mut evaluated = 0;
    loop {
        let Some(&Reverse((_, at))) = open.peek() else {
            // every region is empty: no error-free answer at all
            return Branched {
                value: f64::INFINITY,
                nodes: evaluated,
                solved: false,
            };
        };
        let value = nodes[at].priced.value;
        let contested = contested(&nodes[at].priced.boards);
        let solved = nodes[at].climbed && contested.is_none();
        if value >= enough || Instant::now() >= deadline || solved {
            let solved = solved && meets_its_boards(&nodes[at].priced);
            return Branched {
                value,
                nodes: evaluated,
                solved,
            };
        }
        open.pop();
        let Some((cell, colour)) = contested else {
            // disjoint boards at the parent's prices: the region's own prices may still rise
            // (the price climb's bound is valid at any prices)
            let table = table(problem, &nodes[at].forbidden);
            let start = &nodes[at].priced.prices;
            let mut priced = price_climb(problem, walls, weights, start, &table, deadline);
            evaluated += 1;
            priced.value = priced.value.max(value);
            (nodes[at].priced, nodes[at].climbed) = (priced, true);
            open.push(Reverse((key(nodes[at].priced.value), at)));
            continue;
        };
        let others: Vec<(usize, usize)> = (0..problem.colours())
            .filter(|&c| c != colour)
            .map(|c| (c, cell))
            .collect();
        for extra in [vec![(colour, cell)], others] {
            let mut forbidden = nodes[at].forbidden.clone();
            forbidden.extend(&extra);
            let priced = child(
                problem,
                walls,
                weights,
                &nodes[at].priced,
                &forbidden,
                &extra,
                deadline,
            );
            evaluated += 1;
            open.push(Reverse((key(priced.value), nodes.len())));
            nodes.push(Node {
                forbidden,
                priced,
                climbed: false,
            });
        }
    }
}

/// The bound of the region `forbidden` (its parent's region less the pairs `extra`) at the
/// parent's prices: the colours whose cheapest board uses a newly forbidden cell search
/// again without it; the others keep their values (a region's minimum is at least its
/// parent's). Never below the parent's bound.
fn child(
    problem: &Problem,
    walls: &[bool],
    weights: &[f64],
    parent: &Priced,
    forbidden: &[(usize, usize)],
    extra: &[(usize, usize)],
    deadline: Instant,
) -> Priced {
    let table = table(problem, forbidden);
    let mut priced = parent.clone();
    let terms = problem.colour_terms(weights, &priced.prices, &table);
    for &(c, j) in extra {
        if priced.boards[c].as_ref().is_some_and(|b| !b.contains(&j)) {
            continue; // its cheapest board avoids the cell: still the cheapest
        }
        let (floor, board) = colour_floor(
            problem,
            walls,
            &priced.prices,
            &table,
            c,
            terms[c],
            deadline,
        );
        priced.values[c] = priced.values[c].max(terms[c].max(floor));
        priced.boards[c] = board;
    }
    let value = priced.values.iter().sum::<f64>() - priced.prices.iter().sum::<f64>();
    // a subset of the parent's region: the parent's bound holds for it too
    priced.value = value.max(parent.value);
    priced
}

/// Whether every colour has an exact board (disjoint ones) and the bound `priced.value` is
/// their cost (less the floors' slack): no priced cell is left unused.
fn meets_its_boards(priced: &Priced) -> bool {
    let Some(boards) = priced
        .boards
        .iter()
        .map(Option::as_ref)
        .collect::<Option<Vec<_>>>()
    else {
        return false; // a leaf without exact boards has no contested cell either
    };
    let used: f64 = boards
        .iter()
        .flat_map(|b| b.iter())
        .map(|&j| priced.prices[j])
        .sum();
    let cost = priced.values.iter().sum::<f64>() - used;
    priced.value >= cost - 1e-6
}

/// The forbidden pairs as a table indexed `colour · M + free cell`.
fn table(problem: &Problem, forbidden: &[(usize, usize)]) -> Vec<bool> {
    let m = problem.cells.len();
    let mut table = vec![false; problem.colours() * m];
    for &(c, j) in forbidden {
        table[c * m + j] = true;
    }
    table
}

/// The order key of a bound (`≥ 0` or `+∞`; negative values order first).
fn key(value: f64) -> u64 {
    if value > 0.0 {
        value.to_bits()
    } else {
        0
    }
}

/// A cell on the cheapest boards of the most colours (at least two), and the first of those
/// colours; `None` when some colour has no exact board or the boards are disjoint.
fn contested(boards: &[Option<Vec<usize>>]) -> Option<(usize, usize)> {
    let mut holders: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (colour, board) in boards.iter().enumerate() {
        for &j in board.as_ref()? {
            holders.entry(j).or_default().push(colour);
        }
    }
    holders
        .into_iter()
        .filter(|(_, colours)| colours.len() >= 2)
        .max_by_key(|(j, colours)| (colours.len(), Reverse(*j)))
        .map(|(j, colours)| (j, colours[0]))
}
