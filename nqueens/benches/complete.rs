//! Benchmarks and the false-negative experiment of `nqueens complete` (harness-free: one run
//! at n = 10^8 takes a minute, far from criterion's model).
//!
//! ```text
//! cargo bench -p nqueens --bench complete -- speed --n 1000 --runs 1000
//! cargo bench -p nqueens --bench complete -- speed --n 100000000 --runs 1 --time-limit 120
//! cargo bench -p nqueens --bench complete -- speed --n 10000 --k 5000 --nightrider --runs 20
//! cargo bench -p nqueens --bench complete -- quality --count 10000
//! ```
//!
//! `speed`: random compositions (seed 004 §7: K queens of a random full board, K uniform in
//! 1..N−1 unless `--k` is given); only the completion is timed (not the generation, not the
//! text I/O). `quality`: compositions with N uniform in `--min-n..=--max-n` (default 10..=1000)
//! completed at the default budget; every one is completable, so any NO is a false negative
//! (with `--nightrider`, K is uniform in 0..=N/2 as in seed 000).

use nqueens::complete::{complete, Options, Verdict};
use nqueens::composition::random_composition;
use nqueens::Placement;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

struct Args {
    mode: String,
    n: usize,
    k: Option<usize>,
    runs: usize,
    count: usize,
    min_n: usize,
    max_n: usize,
    seed: u64,
    nightrider: bool,
    /// Budget of each completion in seconds (the library's default 10 s unless given): the
    /// budget is kept, so a board larger than 10 s of work needs more for a speed run.
    time_limit: u64,
}

fn parse_args() -> Args {
    let mut a = Args {
        mode: "speed".into(),
        n: 1000,
        k: None,
        runs: 100,
        count: 10_000,
        min_n: 10,
        max_n: 1000,
        seed: 1,
        nightrider: false,
        time_limit: 10,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let num = |i: usize| -> u64 {
        argv.get(i + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{} needs a number", argv[i]))
    };
    while i < argv.len() {
        match argv[i].as_str() {
            "speed" | "quality" => a.mode = argv[i].clone(),
            "--n" => a.n = num(i) as usize,
            "--k" => a.k = Some(num(i) as usize),
            "--runs" => a.runs = num(i) as usize,
            "--count" => a.count = num(i) as usize,
            "--min-n" => a.min_n = num(i) as usize,
            "--max-n" => a.max_n = num(i) as usize,
            "--seed" => a.seed = num(i),
            "--time-limit" => a.time_limit = num(i),
            "--nightrider" => {
                a.nightrider = true;
                i += 1;
                continue;
            }
            _ => {
                i += 1; // `--bench` from cargo, and anything else
                continue;
            }
        }
        i += if argv[i].starts_with("--") { 2 } else { 1 };
    }
    a
}

fn main() {
    let a = parse_args();
    match a.mode.as_str() {
        "quality" => quality(&a),
        _ => speed(&a),
    }
}

fn speed(a: &Args) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let mut times = Vec::new();
    let (mut yes, mut no) = (0, 0);
    for run in 0..a.runs {
        let k = a.k.unwrap_or_else(|| rng.random_range(1..a.n.max(2)));
        let seed = a.seed * 1_000_003 + run as u64;
        let tg = Instant::now();
        let queens = random_composition(a.n, k, a.nightrider, seed, Duration::from_secs(3600))
            .expect("random full board");
        let gen = tg.elapsed();
        let p = Placement::Pairs { n: a.n, queens };
        let opts = Options {
            nightrider: a.nightrider,
            seed,
            time_limit: Duration::from_secs(a.time_limit),
            ..Options::default()
        };
        let t = Instant::now();
        let done = complete(&p, &opts).expect("consistent");
        let el = t.elapsed();
        match done.verdict {
            Verdict::Yes(_) => yes += 1,
            _ => no += 1,
        }
        if a.runs <= 20 {
            println!(
                "run {run}: n={} k={k} complete {:.3} s (generation {:.3} s) restarts {} tails {} nodes {}",
                a.n,
                el.as_secs_f64(),
                gen.as_secs_f64(),
                done.stats.restarts,
                done.stats.tail_searches,
                done.stats.nodes
            );
        }
        times.push(el.as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "n={} nightrider={} runs={} k={}: mean {:.6} s, median {:.6} s, max {:.6} s; YES {yes}, NO {no}",
        a.n,
        a.nightrider,
        a.runs,
        a.k.map_or("uniform 1..n-1".to_string(), |k| k.to_string()),
        mean,
        times[times.len() / 2],
        times[times.len() - 1],
    );
}

fn quality(a: &Args) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let (mut yes, mut proven_no, mut not_found) = (0, 0, 0);
    let mut total = 0.0f64;
    let mut worst = 0.0f64;
    let start = Instant::now();
    for i in 0..a.count {
        let n = rng.random_range(a.min_n..=a.max_n);
        // Seed 000 gives nightriders K <= N/2.
        let k = if a.nightrider {
            rng.random_range(0..=n / 2)
        } else {
            rng.random_range(1..n)
        };
        let seed = a.seed * 1_000_003 + i as u64;
        let tg = Instant::now();
        let queens = random_composition(n, k, a.nightrider, seed, Duration::from_secs(3600))
            .expect("random full board");
        if tg.elapsed() > Duration::from_secs(5) {
            eprintln!(
                "slow generation: n={n} seed={seed} {:.1} s",
                tg.elapsed().as_secs_f64()
            );
        }
        let p = Placement::Pairs { n, queens };
        let opts = Options {
            nightrider: a.nightrider,
            seed,
            ..Options::default()
        };
        let done = complete(&p, &opts).expect("consistent");
        let el = done.stats.total_time.as_secs_f64();
        total += el;
        worst = worst.max(el);
        match done.verdict {
            Verdict::Yes(_) => yes += 1,
            Verdict::Proven(proof) => {
                proven_no += 1;
                println!(
                    "BUG: proven NO on a completable composition n={n} k={k} seed={seed}: {proof}"
                );
            }
            Verdict::NotFound => {
                not_found += 1;
                println!("false NO (not found): n={n} k={k} seed={seed}");
            }
        }
        if (i + 1) % 1000 == 0 || (a.count <= 1000 && (i + 1) % 50 == 0) {
            eprintln!(
                "{} / {} done, {:.1} s",
                i + 1,
                a.count,
                start.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "quality: {} compositions, n uniform in {}..={}, k uniform in {}, nightrider={}: \
         YES {yes}, false NO {not_found} (not found), proven NO {proven_no}; \
         mean {:.6} s, max {:.3} s",
        a.count,
        a.min_n,
        a.max_n,
        if a.nightrider { "0..=n/2" } else { "1..n-1" },
        a.nightrider,
        total / a.count as f64,
        worst
    );
}
