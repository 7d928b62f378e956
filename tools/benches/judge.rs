//! Benchmarks of the generator and the judge (`cargo bench -p tools`).
//!
//! Targets (issue 2): 10 000 inputs generated in < 2 s; a 54 000-move output on a 30×30 board
//! judged in < 50 ms.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

use tools::gen::{generate, Ranges};
use tools::input::Input;
use tools::judge::judge;
use tools::output::{format_moves, Move};
use tools::replay::{Replay, DIRECTIONS};

/// `count` random legal moves on `input` (random queen, direction and length), as output text.
fn random_legal_output(input: &Input, count: usize, seed: u64) -> String {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut replay = Replay::new(input);
    let n = input.n as i32;
    let mut moves = Vec::with_capacity(count);
    while moves.len() < count {
        let cell = rng.random_range(0..input.n * input.n);
        if replay.grid()[cell] <= 0 {
            continue;
        }
        let (r, c) = (cell as i32 / n, cell as i32 % n);
        let (dr, dc) = DIRECTIONS[rng.random_range(0..DIRECTIONS.len())];
        // Longest free run in that direction, then a random length within it.
        let mut free = 0;
        while {
            let (rr, cc) = (r + (free + 1) * dr, c + (free + 1) * dc);
            (0..n).contains(&rr)
                && (0..n).contains(&cc)
                && replay.grid()[(rr * n + cc) as usize] == 0
        } {
            free += 1;
        }
        if free == 0 {
            continue;
        }
        let len = rng.random_range(1..=free);
        let mv = Move::new(r, c, r + len * dr, c + len * dc);
        replay.apply(mv).expect("chosen to be legal");
        moves.push(mv);
    }
    format_moves(&moves)
}

fn bench_gen(c: &mut Criterion) {
    let ranges = Ranges::default();
    let mut group = c.benchmark_group("gen");
    group.sample_size(10);
    group.bench_function("10000 inputs (seeds 1..=10000)", |b| {
        b.iter(|| {
            for seed in 1..=10_000u64 {
                black_box(generate(seed, &ranges));
            }
        })
    });
    group.bench_function("10000 inputs as text", |b| {
        b.iter(|| {
            for seed in 1..=10_000u64 {
                black_box(generate(seed, &ranges).input.to_string());
            }
        })
    });
    group.finish();
}

fn bench_judge(c: &mut Criterion) {
    // Seed 2: N = 30, C = 6, P = 0.25 — the largest and most crowded official case.
    let input = generate(2, &Ranges::default()).input;
    assert_eq!(input.n, 30);
    let limit = input.max_moves() as usize;
    assert_eq!(limit, 54_000);
    let random = random_legal_output(&input, limit, 7);
    let verdict = judge(&input, &random);
    assert!(verdict.fatal.is_none() && verdict.moves == limit);
    let mut group = c.benchmark_group("judge");
    group.bench_function("54000 random legal moves, 30x30", |b| {
        b.iter(|| black_box(judge(&input, black_box(&random))))
    });
    // Worst case for the path check: every move is 29 cells long (a lone queen sliding along
    // row 0 and back on an otherwise empty 30×30 board).
    let mut grid = vec![0i8; 900];
    grid[0] = 1;
    let lone = Input::new(30, 1, grid).unwrap();
    let shuttle = format!("{limit}\n{}", "0 0 0 29\n0 29 0 0\n".repeat(limit / 2));
    assert_eq!(judge(&lone, &shuttle).moves, limit);
    group.bench_function("54000 moves of length 29, 30x30", |b| {
        b.iter(|| black_box(judge(&lone, black_box(&shuttle))))
    });
    group.finish();
}

criterion_group!(benches, bench_gen, bench_judge);
criterion_main!(benches);
