#!/usr/bin/env python
"""Time vmap over pytrees: the compiled path (the function specialized on its leaves, run as
generated code) against the per-example path (the loop vmap falls back to, vmap_loop.loop_vmap,
which is what every pytree call ran before issue 31).

For each kernel below, on a batch of --rows examples: both paths are run once and compared leaf
by leaf (bit for bit: the kernels use only correctly rounded operations, so anything else is a
MISMATCH and the exit status is 1); then each is timed, the median of --repeats calls (the
first compiled call, which generates the code, is reported apart). Output: a Markdown table.

    python scripts/bench_vmap_pytrees.py                  # 100_000 examples
    python scripts/bench_vmap_pytrees.py --rows 1000      # smoke run
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import warnings
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vectorizer import FallbackWarning, vmap  # noqa: E402
from vectorizer.faces.pytree import flatten  # noqa: E402
from vectorizer.faces.vmap_loop import loop_vmap  # noqa: E402

Quote = namedtuple("Quote", "bid ask")


@dataclass
class Particle:
    x: float
    v: float


def spread_model(p):
    """A dict in (one leaf shared), a dict out, a branch."""
    mid = (p["bid"] + p["ask"]) / 2.0
    width = p["ask"] - p["bid"]
    if width < 0.0:
        width = -width
    return {"mid": mid, "rel": width / (mid + p["eps"]), "wide": width > p["limit"]}


def quote_step(q, tick):
    """A namedtuple in and out, tuple unpacking of a second pytree."""
    lo, hi = tick
    return Quote(max(q.bid, lo), min(q.ask, hi)), math.sqrt(hi - lo if hi > lo else 0.0)


def integrate(s, dt):
    """A dataclass in and out, a loop with a per-example trip count."""
    x, v = s.x, s.v
    n = 0
    while x > 0.0 and n < 50:
        v = v - 9.81 * dt
        x = x + v * dt
        n += 1
    return Particle(x, v)


def cases(rows: int, rng: np.random.Generator) -> list[tuple[str, Any, Any, tuple]]:
    bid = rng.uniform(90.0, 110.0, rows)
    p = {"bid": bid, "ask": bid + rng.normal(0.5, 1.0, rows), "eps": 1e-9, "limit": 1.5}
    q = Quote(rng.uniform(0, 1, rows), rng.uniform(1, 2, rows))
    tick = (rng.uniform(0, 1.5, rows), rng.uniform(0.5, 2, rows))
    s = Particle(rng.uniform(0, 5, rows), rng.uniform(-1, 3, rows))
    return [
        ("dict -> dict, branch", spread_model, ({"bid": 0, "ask": 0, "eps": None, "limit": None},), (p,)),
        ("namedtuple + tuple -> (namedtuple, number)", quote_step, (0, 0), (q, tick)),
        ("dataclass -> dataclass, while loop", integrate, (0, None), (s, 0.01)),
    ]


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def same(a: Any, b: Any) -> bool:
    la, lb = flatten(a)[0], flatten(b)[0]
    return len(la) == len(lb) and all(
        np.asarray(x).shape == np.asarray(y).shape and np.array_equal(x, y, equal_nan=True) for (_, x), (_, y) in zip(la, lb))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--loop-repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(31)
    print(f"vmap over pytrees, {args.rows} examples (median of {args.repeats} compiled calls, "
          f"{args.loop_repeats} per-example runs)\n")
    print("| kernel | per-example path | compiled path | first compiled call | speed-up | same values |")
    print("|---|---|---|---|---|---|")
    status = 0
    for name, fun, in_axes, call_args in cases(args.rows, rng):
        vm = vmap(fun, in_axes)
        with warnings.catch_warnings():
            warnings.simplefilter("error", FallbackWarning)  # the compiled path, or this fails
            t0 = time.perf_counter()
            got = vm(*call_args)
            first = time.perf_counter() - t0
            fast = best(lambda: vm(*call_args), args.repeats)  # noqa: B023
        names = list(fun.__code__.co_varnames[:fun.__code__.co_argcount])
        loop = lambda: loop_vmap(fun, names, call_args, {}, in_axes, 0, None)  # noqa: B023, E731
        want = loop()
        slow = best(loop, args.loop_repeats)
        ok = same(got, want)
        status |= not ok
        print(f"| {name} | {slow * 1e3:.0f} ms | {fast * 1e3:.2f} ms | {first * 1e3:.0f} ms | {slow / fast:.0f}x | "
              f"{'exact' if ok else 'MISMATCH'} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
