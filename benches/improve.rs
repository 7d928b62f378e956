//! Benchmarks of the post-optimiser's descent (`cargo bench --bench improve`).
//!
//! Input: a contest board and the answer the routing stage gave for it before any
//! post-optimiser ran (`testcases/routed/`, made by `queenattack --time-limit 10 --param
//! improve_share=0 --param polish_share=0 --param improve_early=0 --param
//! improve_early_long=0`). One iteration is a descent to convergence ([`improve`] without a
//! deadline). The descent is the stage that gains the most per second (issue 23: 323 → 276 on
//! seed 208 in the last second of a 10 s run); on the biggest boards it did not converge
//! within a 10 s run until the joint re-plans were limited to pairs in each other's way
//! (2026-11-25: case 2 then converged in 0.65 s instead of 2.13 s); the route searches then
//! became A* (3.5–4.7× faster again on seed 208's routed boards).

use criterion::{criterion_group, criterion_main, Criterion};
use queenattack::solver::board::{Board, Move};
use queenattack::solver::improve;
use queenattack::solver::score::replay;
use queenattack::solver::Params;
use std::hint::black_box;
use std::time::Duration;

/// The board of `testcases/<case>.in` and the moves of `testcases/routed/<case>.out`.
fn case(case: &str) -> (Board, Vec<Move>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let input = std::fs::read_to_string(format!("{root}/testcases/{case}.in")).unwrap();
    let board = Board::parse(&input).unwrap();
    let output = std::fs::read_to_string(format!("{root}/testcases/routed/{case}.out")).unwrap();
    let numbers: Vec<usize> = output
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let n = board.n;
    let moves = numbers[1..]
        .chunks(4)
        .map(|m| Move {
            from: m[0] * n + m[1],
            to: m[2] * n + m[3],
        })
        .collect();
    (board, moves)
}

fn descent(c: &mut Criterion) {
    let params = Params::default();
    let mut group = c.benchmark_group("improve");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for name in ["10", "2"] {
        let (board, moves) = case(name);
        let before = replay(&board, &moves).unwrap().score;
        let after = replay(&board, &improve(&board, moves.clone(), None, &params))
            .unwrap()
            .score;
        eprintln!("case {name}: N = {}, {before:.3} → {after:.3}", board.n);
        group.bench_function(format!("descent to convergence, case {name}"), |b| {
            b.iter(|| improve(&board, black_box(moves.clone()), None, &params))
        });
    }
    group.finish();
}

criterion_group!(benches, descent);
criterion_main!(benches);
