#!/usr/bin/env python
"""Time long-tailed while loops and the re-run of flagged lanes: NumPy backend vs Python loop.

The tests check the mechanism (`tests/runtime/test_long_tails.py`: the batched loop stops early and
hands its last lanes to the scalar function; `tests/engine/test_patch.py`: flagged lanes are re-run in
blocks, one scalar call a lane); this script measures what it costs, side by side in one run:

    long tails    vectorize(f, backend="numpy")(*args) against [f(*lane) for lane in lanes],
                  on batches where a few lanes loop 100-1000x longer than the others
    re-run        vf(flagged) - vf(clean): the extra time of k lanes of x ** y flagged near
                  overflow (10.0 ** 308.1) and re-run, against the loop over those k lanes

Each round times the loop and the batched call back to back; reported: the median time of each
over the rounds and the median over the rounds of their ratio (batched / loop). Values are checked
against the loop first (exit status 1 on a mismatch). Under a minute with the defaults.

    python scripts/bench_tails.py              # 5 rounds
    python scripts/bench_tails.py --rounds 9
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmark this checkout's vectorizer
    sys.path.insert(0, str(ROOT))

from vectorizer import vectorize  # noqa: E402


def smallest_factor(n: int) -> int:
    if n < 2:
        return n
    d = 2
    while n % d != 0:
        d += 1
    return d


def subtractive_gcd(a: int, b: int) -> int:
    if a <= 0 or b <= 0:
        raise ValueError(f"positive integers only, got {a} and {b}")
    while a != b:
        if a > b:
            a -= b
        else:
            b -= a
    return a


def two_squares(n: int) -> int:
    a = 0
    while 2 * a * a <= n:
        b = a
        while a * a + b * b < n:
            b += 1
        if a * a + b * b == n:
            return a
        a += 1
    return -1


def escape_time(cr: float, ci: float, max_iter: int) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def pwf(x: float, y: float) -> float:
    return x ** y


def tail_cases() -> dict[str, tuple[Callable, tuple]]:
    """tests/runtime/test_long_tails.py's batches: a few lanes of each loop for 1e4-2e5 iterations."""
    rng = np.random.default_rng(20261203)
    n = 3000
    gcd_a = rng.integers(1, 3000, n)
    gcd_a[rng.choice(n, 5, replace=False)] = [200_003, 150_001, 99_991, 250_007, 123_457]
    factors = rng.integers(2, 3000, n)
    factors[rng.choice(n, 4, replace=False)] = [99_991, 86_243, 65_537, 70_001]  # primes
    cr, ci = rng.uniform(0.5, 1.0, n), rng.uniform(-1.0, 1.0, n)  # outside the set: a few steps
    cr[:3], ci[:3] = -0.1, 0.1  # inside: max_iter steps
    return {
        "subtractive_gcd": (subtractive_gcd, (gcd_a, rng.integers(1, 40, n))),
        "smallest_factor": (smallest_factor, (factors,)),
        "two_squares": (two_squares, (rng.integers(0, 30_000, 400),)),
        "escape_time": (escape_time, (cr, ci, 200_000)),
    }


def machine() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        np.show_runtime()
    text = out.getvalue()
    start = text.find("'simd_extensions'")
    simd = " ".join(text[start:text.find("}", start) + 1].split()) if start >= 0 else "simd: not reported"
    model = ""
    with contextlib.suppress(OSError):
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), "")
    return (f"{platform.machine()} {model or platform.processor()}, {os.cpu_count()} cores; Python "
            f"{platform.python_version()}, NumPy {np.__version__}\n{simd}")


def seconds(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def loop(f: Callable, args: tuple) -> Callable[[], list]:
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    lanes = list(zip(*(np.broadcast_to(a, shape).tolist() for a in args)))
    return lambda: [f(*lane) for lane in lanes]


def report(name: str, batched: list[float], looped: list[float], lanes: int, unit: str = "ms") -> None:
    scale = 1e3 if unit == "ms" else 1e6 / lanes
    ratio = statistics.median(b / a for b, a in zip(batched, looped))
    print(f"| {name:24} | {lanes:6} | {statistics.median(looped) * scale:10.3f} | "
          f"{statistics.median(batched) * scale:10.3f} | {ratio:6.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per case (default 5)")
    opts = parser.parse_args()
    print(machine())
    print(f"\nmedians over {opts.rounds} rounds; ratio: median over the rounds of batched / loop\n")
    print("| long tails               |  lanes |   loop ms  | NumPy ms   |  ratio |")
    print("|--------------------------|--------|------------|------------|--------|")
    failed = False
    for name, (f, args) in tail_cases().items():
        vf, run_loop = vectorize(f, backend="numpy", fallback="error"), loop(f, args)
        if vf(*args).tolist() != run_loop():  # ints: exact
            print(f"MISMATCH: {name}")
            failed = True
            continue
        looped, batched = [], []
        for _ in range(opts.rounds):
            looped.append(seconds(run_loop))
            batched.append(seconds(vf, *args))
        report(name, batched, looped, len(run_loop()))

    n, k = 50_000, 2_000
    rng = np.random.default_rng(3)
    x, y = rng.uniform(1.0, 2.0, n), rng.uniform(0.0, 2.0, n)
    fx, fy = x.copy(), y.copy()
    flagged = np.sort(rng.choice(n, k, replace=False))
    fx[flagged], fy[flagged] = 10.0, 308.1  # 1.26e308, near overflow: flagged, the scalar function returns it
    vf, run_loop = vectorize(pwf, backend="numpy", fallback="error"), loop(pwf, (fx[flagged], fy[flagged]))
    if vf(fx, fy)[flagged].tolist() != run_loop():
        print("MISMATCH: re-run")
        failed = True
    else:
        looped, extra = [], []
        for _ in range(4 * opts.rounds):  # a few ms each: more rounds
            looped.append(seconds(run_loop))
            clean, dirty = seconds(vf, x, y), seconds(vf, fx, fy)
            extra.append(max(dirty - clean, 1e-9))
        print("\n| flagged-lane re-run      |  lanes | loop µs/ln | extra µs/ln|  ratio |")
        print("|--------------------------|--------|------------|------------|--------|")
        report(f"x ** y, {k} of {n}", extra, looped, k, unit="us")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
