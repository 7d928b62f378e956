#!/usr/bin/env python3
"""Random nightrider compositions through `nqueens complete --nightrider`, each YES checked by
`nqueens verify --nightrider` and against the given queens (docs/benchmarks.md, issue 12).

    python3 nqueens/benches/nightrider_compositions.py target/release/nqueens --count 1000 --seed 2026

N is uniform in 10..=2000 and K uniform in 0..=N/2 (seed 000's range); `--hard` draws N in
40..=250 and keeps only 40..=120 free rows, where the heavy tails were. Prints every input not
answered YES and one summary line (counts, YES time quantiles in seconds).
"""
import argparse
import random
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor


def draw(rng, hard):
    while True:
        if hard:
            n = rng.randint(40, 250)
            k = rng.randint(0, n // 2)
            if 40 <= n - k <= 120:
                return n, k, rng.randint(1, 10**9)
        else:
            n = rng.randint(10, 2000)
            return n, rng.randint(0, n // 2), rng.randint(1, 10**9)


def one(nq, n, k, s, limit):
    gen = [nq, 'gen-composition', str(n), '--k', str(k), '--seed', str(s), '--nightrider']
    g = subprocess.run(gen, capture_output=True)
    if g.returncode != 0:
        return 'GENFAIL', 0.0
    t = time.time()
    c = subprocess.run([nq, 'complete', '--nightrider', '--time-limit', str(limit)],
                       input=g.stdout, capture_output=True)
    dt = time.time() - t
    if not c.stdout.startswith(b'YES'):
        return 'NO', dt
    v = subprocess.run([nq, 'verify', '--nightrider'], input=c.stdout, capture_output=True)
    cols = c.stdout.split()[1:]
    given = [tuple(map(int, l.split())) for l in g.stdout.decode().splitlines()[1:] if l]
    kept = all(int(cols[r - 1]) == col for r, col in given)
    return ('YES' if v.returncode == 0 and kept else 'BAD'), dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('nqueens')
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=2026)
    ap.add_argument('--time-limit', type=float, default=10)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--hard', action='store_true')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [draw(rng, a.hard) for _ in range(a.count)]
    with ThreadPoolExecutor(a.jobs) as pool:
        res = list(pool.map(lambda c: one(a.nqueens, *c, a.time_limit), cases))
    counts = {}
    for (n, k, s), (verdict, dt) in zip(cases, res):
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict != 'YES':
            print(f'{verdict} N={n} K={k} seed={s} {dt:.2f}s')
    yes = sorted(dt for v, dt in res if v == 'YES')
    q = lambda p: yes[min(len(yes) - 1, int(p * len(yes)))] if yes else 0.0
    print(counts, f'YES median {q(.5):.3f} p90 {q(.9):.3f} p99 {q(.99):.3f}',
          f'max {yes[-1] if yes else 0:.3f} over 1 s {sum(t > 1 for t in yes)}')


if __name__ == '__main__':
    main()
