"""Recursion by flag and patch: the batched call against the Python loop at 1e5 lanes.

    PYTHONPATH=$PWD python scripts/bench_recursion.py [--lanes 100000] [--repeat 7]

(a) gcd where every lane recurses (each lane is re-run by the scalar function: the batched call
can only cost more than the loop); (b) a function where 1% of the lanes recurse (the rest are
computed batched). Prints the median of `--repeat` timed calls (after one warm-up call).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from vectorizer import vectorize


def gcd(a: int, b: int) -> int:
    if b == 0:
        return a
    return gcd(b, a % b)


def rare(x: float) -> float:
    if x <= 100.0:
        return x * 0.5 + 1.0
    return rare(x / 3.0) + 1.0


def median_time(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lanes", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.lanes
    a = rng.integers(1, 10**12, n)
    b = rng.integers(1, 10**12, n)  # never 0: every lane reaches the recursive call
    x = rng.uniform(0.0, 100.0, n)
    x[rng.choice(n, n // 100, replace=False)] = rng.uniform(100.0, 1e6, n // 100)  # 1% recurse
    cases = {"gcd, every lane recurses": (gcd, (a, b)), "rare, 1% of lanes recurse": (rare, (x,))}
    print(f"{n} lanes, median of {args.repeat}")
    for label, (f, arrays) in cases.items():
        lists = [arr.tolist() for arr in arrays]
        loop = median_time(lambda f=f, lists=lists: [f(*lane) for lane in zip(*lists)], args.repeat)
        line = f"{label:28s} loop {loop * 1e3:8.1f} ms"
        for backend in ("numpy", "numba"):
            vf = vectorize(f, backend=backend, fallback="error")
            assert vf(*arrays).tolist() == [f(*lane) for lane in zip(*lists)]
            t = median_time(lambda vf=vf, arrays=arrays: vf(*arrays), args.repeat)
            line += f" | {backend} {t * 1e3:8.1f} ms ({loop / t:5.2f}x)"
        print(line)


if __name__ == "__main__":
    main()
