//! Benchmarks of the N-Queens engine: search, writing a solution, and verification (parse
//! and check measured separately). `cargo bench -p nqueens --bench nqueens`.
//!
//! Boards up to 10^7 here; the 10^8 figures in the README come from the `nqueens` binary's
//! own timing summary (see the commands there), since one run takes seconds.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::explicit::{explicit_fill, explicit_solution};
use nqueens::output::write_cols;
use nqueens::search::search;
use nqueens::verify::peaceful_text;
use nqueens::{find_conflict, parse_placement};
use std::time::Duration;

const SIZES: [usize; 3] = [100_000, 1_000_000, 10_000_000];

fn bench_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    for n in SIZES {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("search", n), &n, |b, &n| {
            b.iter(|| search(n, 1).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("explicit", n), &n, |b, &n| {
            b.iter(|| explicit_solution(n).unwrap())
        });
    }
    group.finish();
}

fn bench_write(c: &mut Criterion) {
    let mut group = c.benchmark_group("write_cols");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    for n in SIZES {
        group.throughput(Throughput::Elements(n as u64));
        // Formatting and handing blocks over, without a disk: the writer is io::sink().
        group.bench_with_input(BenchmarkId::new("explicit", n), &n, |b, &n| {
            b.iter(|| {
                write_cols(
                    &mut std::io::sink(),
                    n,
                    |s, out| explicit_fill(n, s, out),
                    |_| {},
                )
                .unwrap()
            })
        });
        let cols = search(n, 1).unwrap();
        group.bench_with_input(BenchmarkId::new("search", n), &n, |b, &n| {
            b.iter(|| {
                write_cols(
                    &mut std::io::sink(),
                    n,
                    |s, out| out.copy_from_slice(&cols[s..s + out.len()]),
                    |_| {},
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

fn bench_verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("verify");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    for n in SIZES {
        // A random solution: its columns hit the checker's bitsets at random.
        let cols = search(n, 1).unwrap();
        let mut text = Vec::new();
        write_cols(
            &mut text,
            n,
            |s, out| out.copy_from_slice(&cols[s..s + out.len()]),
            |_| {},
        )
        .unwrap();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", n), &text, |b, text| {
            b.iter(|| parse_placement(text).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("stream", n), &text, |b, text| {
            b.iter(|| assert_eq!(peaceful_text(text), Some((n, n))))
        });
        let placement = parse_placement(&text).unwrap();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("check", n), &placement, |b, p| {
            b.iter(|| assert!(find_conflict(p, false).is_none()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_solve, bench_write, bench_verify);
criterion_main!(benches);
