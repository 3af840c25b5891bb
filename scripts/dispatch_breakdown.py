#!/usr/bin/env python
"""Where a NumPy-backend short call's time goes, piece by piece (issue 33).

For each call named (default: mul_add(x, y) and mul_add(x, 0.5) at 1e3 lanes) it times, in a
tight loop on the CPU clock, the fastest of 7 repeats of 20,000 calls: the whole call, the plans'
dispatch (`fastpath.run(Plans, args)`), the plan alone, the kernel under `_quietly` (NumPy's
quiet error state), the kernel alone, the flag test and `fresh_result` on its result, and the
expression written with NumPy by hand. Differences between rows are the cost of each layer.
Complements scripts/dispatch_overhead.py (interleaved candidates, medians over rounds).

    python scripts/dispatch_breakdown.py                    # mul_add mul_add_s
    python scripts/dispatch_breakdown.py clamp clamp3 d1
"""

from __future__ import annotations

import os
import sys
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
for path in (str(ROOT.parent), str(ROOT)):  # this checkout's vectorizer, and dispatch_overhead beside this file
    if path not in sys.path:
        sys.path.insert(0, path)

import dispatch_overhead as d  # noqa: E402

from vectorizer import vectorize  # noqa: E402
from vectorizer.engine import fastpath  # noqa: E402

CALLS = 20_000


def per_call_us(fn) -> float:
    return min(timeit.repeat(fn, number=CALLS, repeat=7, timer=time.process_time)) / CALLS * 1e6


def cases() -> dict[str, tuple]:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-0.5, 1.5, 1000), rng.uniform(-0.5, 1.5, 1000)
    return {"mul_add": (d.mul_add, d._np_mul_add, (x, y)),
            "clamp": (d.clamp, d._np_clamp, (x,)),
            "gauss": (d.gauss, d._np_gauss, (x,)),
            "mul_add_s": (d.mul_add, d._np_mul_add, (x, 0.5)),
            "clamp3": (d.clamp3, d._np_clamp3, (x, 0.0, 1.0)),
            "d1": (d.d1, d._np_d1, (rng.uniform(50, 150, 1000), 100.0, 0.2, rng.uniform(0.1, 2.0, 1000), 0.01))}


def breakdown(name: str, f, hand, args: tuple) -> None:
    vf = vectorize(f, backend="numpy")
    vf(*args)
    vf(*args)  # the second general call's plan answers the next ones
    plans = vf._fast
    mixed = any(not isinstance(a, np.ndarray) for a in args)
    sub = plans.mixed if mixed else plans.arrays
    kargs = d.kernel_args(args)
    result, flag = sub.fn(*kargs)
    dtype = np.dtype(np.float64)
    rows = [("vf(*args)", lambda: vf(*args)),
            ("fastpath.run(Plans, args)", lambda: fastpath.run(plans, args)),
            ("the plan alone", (lambda: sub.call(args)) if mixed else (lambda: fastpath.run(sub, args))),
            ("_quietly(kernel, args)", lambda: fastpath._quietly(sub.fn, kargs)),
            ("kernel(*args)", lambda: sub.fn(*kargs)),
            ("any_flagged(flag)", lambda: flag is not None and fastpath.any_flagged(flag)),
            ("fresh_result", lambda: fastpath.fresh_result(result, dtype, 1000, args, [])),
            ("NumPy by hand", lambda: hand(*args))]
    print(name)
    for label, fn in rows:
        print(f"  {label:28s} {per_call_us(fn):6.2f} µs")


def main(names: list[str]) -> None:
    table = cases()
    print(f"# load average {os.getloadavg()[0]:.2f} at start; CPU clock, fastest of 7 x {CALLS} calls")
    for name in names or ["mul_add", "mul_add_s"]:
        breakdown(name, *table[name])
    print(f"# load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main(sys.argv[1:])
