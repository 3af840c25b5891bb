#!/usr/bin/env python
"""Measure glibc's vector math (libmvec) against the scalar C library: speed and ulp distance.

    python scripts/probe_libmvec.py [--lanes 131072] [--rounds 31]

vectorizer's kernels are bound by `exp`, `log`, `erfc`, `pow`... called once per element: NumPy's
SIMD versions need AVX-512, and this llvmlite has no SVML. glibc's libmvec has 4-lane AVX2 versions
(`_ZGVdN4v_exp`...), which LLVM does not call by itself here (docs/performance.md). This script
times the Numba loops of vectorizer's `vector_math=True` (vectorizer/backends/numba/vecmath.py: an intrinsic that
loads 4 doubles, calls the symbol with a `<4 x double>` and stores the result) alone, and reports,
per function, on one thread:

* ns a lane: libmvec, NumPy's ufunc, and a Numba loop of `math.<fn>` (what the Numba backend does);
* how far libmvec's results are from CPython's `math.<fn>` (ulp: units in the last place), over
  uniform samples of a typical range and hostile values (0, -0.0, subnormals, huge, inf, NaN),
  counting lanes CPython raises on separately (vectorizer flags those lanes anyway).

It needs Numba, an AVX2 CPU and a glibc with libmvec (2.22+; erfc and the others from 2.35).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import numpy as np

# name, libmvec arity, typical range (timed and checked), wide range (checked), NumPy ufunc
FUNCTIONS = (
    ("exp", 1, (-30.0, 30.0), (-745.5, 709.7), np.exp),
    ("log", 1, (1e-3, 1e3), (0.0, 1.7e308), np.log),
    ("log1p", 1, (-0.5, 50.0), (-1.0, 1e300), np.log1p),
    ("sin", 1, (-10.0, 10.0), (-1e6, 1e6), np.sin),
    ("cos", 1, (-10.0, 10.0), (-1e6, 1e6), np.cos),
    ("erfc", 1, (-4.0, 10.0), (-6.0, 27.3), None),
    ("pow", 2, (0.01, 100.0), (0.0, 1e6), np.power),
)
HOSTILE = (0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-300, 1.0, -1.0, 0.5, 709.78, 709.79, -745.1, -745.2,
           1e300, -1e300, 1.7976931348623157e308, math.inf, -math.inf, math.nan)


def build_scalar(name: str, arity: int):
    from numba import njit

    scalar = getattr(math, name)
    if arity == 1:
        @njit
        def run(x, out):
            for i in range(x.size):
                out[i] = scalar(x[i])
    else:
        @njit
        def run(x, y, out):
            for i in range(x.size):
                out[i] = scalar(x[i], y[i])
    return run


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in representable doubles; 0 for NaN against NaN; huge for NaN against a number."""
    ia, ib = a.view(np.int64).astype(object), b.view(np.int64).astype(object)
    ia = np.where(ia >= 0, ia, -(2**63) - ia)
    ib = np.where(ib >= 0, ib, -(2**63) - ib)
    d = np.abs(ia - ib).astype(float)
    both_nan = np.isnan(a) & np.isnan(b)
    d[both_nan] = 0.0
    d[np.isnan(a) ^ np.isnan(b)] = np.inf
    return d


def reference(name: str, columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """CPython's math.<name> lane by lane, and the lanes where it raises."""
    fn = getattr(math, name)
    values, raised = [], []
    for args in zip(*(c.tolist() for c in columns)):
        try:
            values.append(fn(*args))
            raised.append(False)
        except (ValueError, OverflowError):
            values.append(math.nan)
            raised.append(True)
    return np.array(values), np.array(raised)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=1 << 17)
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    from vectorizer.backends.numba import vecmath

    why = vecmath.unavailable()
    if why:
        print(why)
        return 1
    import numba

    path, _ = vecmath.libmvec()
    loops = vecmath.kernels()
    print(f"{path}; numba {numba.__version__}; numpy {np.__version__}; python {sys.version.split()[0]}")
    print(f"{args.lanes} lanes, one thread, median of {args.rounds} interleaved rounds\n")
    print("| function | libmvec ns | NumPy ns | Numba math ns | lanes differing from CPython | max ulp "
          "(typical) | max ulp (wide) | max ulp (hostile, where CPython returns) |")
    print("| :-- | --: | --: | --: | --: | --: | --: | --: |")
    rng = np.random.default_rng(20261202)
    for name, arity, (lo, hi), (wide_lo, wide_hi), ufunc in FUNCTIONS:
        vector, scalar = loops[name], build_scalar(name, arity)
        columns = [rng.uniform(lo, hi, args.lanes) for _ in range(arity)]
        if name == "pow":
            columns[1] = rng.uniform(-4.0, 4.0, args.lanes)
        out, out2 = np.empty(args.lanes), np.empty(args.lanes)
        vector(*columns, out)
        scalar(*columns, out2)
        times: dict[str, list[float]] = {"libmvec": [], "numpy": [], "numba": []}
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            vector(*columns, out)
            t1 = time.perf_counter()
            if ufunc is not None:
                ufunc(*columns)
            t2 = time.perf_counter()
            scalar(*columns, out2)
            t3 = time.perf_counter()
            times["libmvec"].append(t1 - t0)
            times["numpy"].append(t2 - t1)
            times["numba"].append(t3 - t2)
        want, _ = reference(name, columns)
        typical = ulps(out, want)
        wide_cols = [rng.uniform(wide_lo, wide_hi, args.lanes)] + [rng.uniform(-40.0, 40.0, args.lanes)] * (arity - 1)
        vector(*wide_cols, out2)
        want_w, raised_w = reference(name, wide_cols)
        wide = ulps(out2, want_w)[~raised_w]
        grid = np.array(HOSTILE)
        hostile_cols = [grid.repeat(grid.size), np.tile(grid, grid.size)][:arity] if arity == 2 else [grid]
        got = np.empty(hostile_cols[0].size)
        vector(*hostile_cols, got)
        want_h, raised = reference(name, hostile_cols)
        hostile = ulps(got, want_h)[~raised]
        per = {k: 1e9 * statistics.median(v) / args.lanes for k, v in times.items()}
        numpy_ns = f"{per['numpy']:.2f}" if ufunc is not None else "–"
        print(f"| {name} | {per['libmvec']:.2f} | {numpy_ns} | {per['numba']:.2f} | "
              f"{np.mean(typical > 0):.1%} | {typical.max():.0f} | {wide.max():.0f} | {hostile.max():.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
