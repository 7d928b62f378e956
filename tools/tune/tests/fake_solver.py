#!/usr/bin/env python3
"""A stand-in solver for tools/tune/optuna_study.py's tests, until queenattack has
--list-params: it obeys `--list-params`, `--param NAME=VALUE` and `--time-limit SECS`.

It reads a QueenAttack case on stdin and plays `moves` moves: one queen stepped to a free
neighbouring cell and back, again and again. Each step costs a penalty of 1, so the score is the
case's errors times N plus `moves` (when `moves` is even; an odd count leaves the queen moved)
and depends on a parameter, as the tuner needs. `spread` changes nothing; it gives the study a
float to sample. `[DATA] moves = K` goes to stderr.
"""
import sys

PARAMS = [
    ("moves", "2", "[0..=8] how many single steps to play (each costs 1)"),
    ("spread", "0.5", "[0..=0.8] unused: a float for the sampler"),
    ("flag", "1", "[0..=1] unused: a switch, as the solver's 0/1 parameters"),
]


def main():
    values = {name: default for name, default, _ in PARAMS}
    args = sys.argv[1:]
    i = 0
    while i < len(args):
        if args[i] == "--list-params":
            for name, default, doc in PARAMS:
                print(f"{name} = {default}  # {doc}")
            return 0
        if args[i] in ("--param", "--time-limit") and i + 1 < len(args):
            if args[i] == "--param":
                name, _, value = args[i + 1].partition("=")
                if name not in values:
                    print(f"unknown parameter {name}", file=sys.stderr)
                    return 2
                values[name] = value
            i += 2
            continue
        print(f"unknown option {args[i]}", file=sys.stderr)
        return 2
    moves = int(values["moves"])
    float(values["spread"])
    # Read the board only: like the official tester, tester keeps stdin open until the end.
    numbers = []
    for line in sys.stdin:
        numbers += line.split()
        if numbers and len(numbers) >= 2 + int(numbers[0]) ** 2:
            break
    n = int(numbers[0])
    grid = [int(x) for x in numbers[2 : 2 + n * n]]
    step = None
    for r in range(n):
        for c in range(n):
            if grid[r * n + c] > 0:
                for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < n and 0 <= cc < n and grid[rr * n + cc] == 0:
                        step = (r, c, rr, cc)
                        break
            if step:
                break
        if step:
            break
    lines = []
    if step:
        a, b = (step[0], step[1]), (step[2], step[3])
        for k in range(moves):
            src, dst = (a, b) if k % 2 == 0 else (b, a)
            lines.append(f"{src[0]} {src[1]} {dst[0]} {dst[1]}")
    print(len(lines))
    print("\n".join(lines))
    print(f"[DATA] moves = {len(lines)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
