#!/usr/bin/env python
"""Time lane code's call of NumPy's own float64 ufunc loop, one element a call.

    python scripts/probe_ufuncloops.py [--lanes 200000] [--rounds 15] [names...]

The Numba backend computes `np.sin(x)` of a number with NumPy's loop where NumPy runs its own
SIMD kernel (vectorizer/backends/numba/ufunclane.py: the loop called with n = 1 from a stack
buffer). Per function, on one thread, ns a lane of:

* a Numba loop calling NumPy's loop once a lane (what lane code does),
* a Numba loop calling the C library's `math.<fn>` (what lane code does where NumPy calls it),
* NumPy's ufunc on the whole array (the loop on n = lanes: what the NumPy backend does),

and whether the first gives the ufunc's bits on the array (it must: `same`).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

MATH = {"exp": "exp", "log": "log", "log10": "log10", "log2": "log2", "expm1": "expm1", "log1p": "log1p",
        "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
        "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
        "arctanh": "atanh", "arctan2": "atan2", "hypot": "hypot", "cbrt": "cbrt", "exp2": "exp2"}
DOMAIN = {"log": (1e-3, 1e3), "log10": (1e-3, 1e3), "log2": (1e-3, 1e3), "log1p": (-0.5, 50.0),
          "arcsin": (-1.0, 1.0), "arccos": (-1.0, 1.0), "arccosh": (1.0, 100.0), "arctanh": (-0.99, 0.99),
          "exp": (-30.0, 30.0), "expm1": (-30.0, 30.0)}


def best(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) if rounds < 5 else statistics.median(sorted(times)[: max(3, rounds // 2)])


def drivers(call, libm, nin: int):
    """Two Numba loops: NumPy's loop through lane code's intrinsic, and the C library's function."""
    import numba

    if nin == 1:
        @numba.njit
        def ours(a, b, out):
            for i in range(out.size):
                out[i] = call(a[i])

        @numba.njit
        def theirs(a, b, out):
            for i in range(out.size):
                out[i] = libm(a[i])
    else:
        @numba.njit
        def ours(a, b, out):
            for i in range(out.size):
                out[i] = call(a[i], b[i])

        @numba.njit
        def theirs(a, b, out):
            for i in range(out.size):
                out[i] = libm(a[i], b[i])
    return ours, theirs


def measure(name: str, lanes: int, rounds: int, rng: np.random.Generator) -> str:
    import math

    from vectorizer.backends.numba import ufuncloops
    from vectorizer.backends.numba.ufunclane import lane_loop

    loop = ufuncloops.find(name)
    if loop is None or name not in MATH:
        return f"{name:10} unavailable: {ufuncloops.unavailable(name) or 'no C library twin to time'}"
    low, high = DOMAIN.get(name, (-10.0, 10.0))
    x, y = rng.uniform(low, high, lanes), rng.uniform(low, high, lanes)
    ours, theirs = drivers(lane_loop(name, bool(loop.data)), getattr(math, MATH[name]), loop.nin)
    ufunc = getattr(np, name)
    out, ref = np.empty(lanes), np.empty(lanes)
    ours(x, y, out)
    theirs(x, y, ref)
    operands = (x,) if loop.nin == 1 else (x, y)
    same = bool((out.view(np.int64) == ufunc(*operands).view(np.int64)).all())
    per = [1e9 * best(lambda f=f: f(x, y, out), rounds) / lanes for f in (ours, theirs)]
    whole = 1e9 * best(lambda: ufunc(*operands, out=ref), rounds) / lanes
    return f"{name:10} {per[0]:13.2f} ns {per[1]:7.2f} ns {whole:10.2f} ns  {same}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lanes", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("names", nargs="*", default=["sin", "cos", "exp", "log", "log10", "tanh", "arctan2"])
    args = parser.parse_args()
    import numba

    numba.set_num_threads(1)
    rng = np.random.default_rng(1)
    print(f"{'function':10} {'numpy loop/lane':>16} {'libm/lane':>10} {'ufunc(array)':>13}  same")
    for name in args.names:
        print(measure(name, args.lanes, args.rounds, rng))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
