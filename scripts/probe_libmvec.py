#!/usr/bin/env python
"""Measure glibc's vector math (libmvec) against the scalar C library: speed and ulp distance.

    python scripts/probe_libmvec.py [--lanes 131072] [--rounds 31]

vectorizer's kernels are bound by `exp`, `log`, `erfc`, `pow`... called once per element: NumPy's
SIMD versions need AVX-512, and this llvmlite has no SVML. glibc's libmvec has 4-lane AVX2 versions
(`_ZGVdN4v_exp`...), which LLVM does not call by itself here (docs/performance.md). This script
calls them explicitly from a Numba loop (an intrinsic that loads 4 doubles, calls the symbol with
a `<4 x double>` and stores the result), and reports, per function, on one thread:

* ns a lane: libmvec, NumPy's ufunc, and a Numba loop of `math.<fn>` (what the Numba backend does);
* how far libmvec's results are from CPython's `math.<fn>` (ulp: units in the last place), over
  uniform samples of a typical range and hostile values (0, -0.0, subnormals, huge, inf, NaN),
  counting lanes CPython raises on separately (vectorizer flags those lanes anyway).

It needs Numba and a glibc with libmvec (2.22+; erfc and the others from 2.35). vectorizer's
`vector_math=True` (vectorizer/vecmath.py) calls the same symbols the same way; this script
measures them alone.
"""

from __future__ import annotations

import argparse
import ctypes.util
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


def libmvec_path() -> str | None:
    for name in ("libmvec.so.1", "/lib/x86_64-linux-gnu/libmvec.so.1", ctypes.util.find_library("mvec")):
        if name:
            try:
                ctypes.CDLL(name)
                return name
            except OSError:
                continue
    return None


def build(name: str, arity: int):
    """A Numba function (x[, y], out) that fills out with libmvec's `name`, 4 lanes a call."""
    from llvmlite import ir
    from numba import njit, types
    from numba.extending import intrinsic

    symbol = f"_ZGVdN4{'v' * arity}_{name}"

    def typed(ins, index, out):
        def codegen(context, builder, signature, llargs):
            *in_vals, idx, out_val = llargs
            vec = ir.VectorType(ir.DoubleType(), 4)

            def pointer(ty, value):
                data = context.make_array(ty)(context, builder, value).data
                return builder.bitcast(builder.gep(data, [idx]), vec.as_pointer())

            operands = [builder.load(pointer(t, v), align=8) for t, v in zip(ins, in_vals)]
            try:
                fn = builder.module.get_global(symbol)
            except KeyError:
                fn = ir.Function(builder.module, ir.FunctionType(vec, [vec] * len(operands)), symbol)
            builder.store(builder.call(fn, operands), pointer(out, out_val), align=8)
            return context.get_dummy_value()

        return types.void(*ins, index, out), codegen

    if arity == 1:
        @intrinsic
        def four(typingctx, x, index, out):
            return typed([x], index, out)
    else:
        @intrinsic
        def four(typingctx, x, y, index, out):
            return typed([x, y], index, out)

    scalar = getattr(math, name)
    if arity == 1:
        @njit
        def run(x, out):
            n, i = x.size, 0
            while i + 4 <= n:
                four(x, i, out)
                i += 4
            while i < n:
                out[i] = scalar(x[i])
                i += 1
    else:
        @njit
        def run(x, y, out):
            n, i = x.size, 0
            while i + 4 <= n:
                four(x, y, i, out)
                i += 4
            while i < n:
                out[i] = scalar(x[i], y[i])
                i += 1
    return run


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
    path = libmvec_path()
    if path is None:
        print("no libmvec on this machine")
        return 1
    import llvmlite.binding as llvm
    import numba

    llvm.load_library_permanently(path)
    print(f"{path}; numba {numba.__version__}; numpy {np.__version__}; python {sys.version.split()[0]}")
    print(f"{args.lanes} lanes, one thread, median of {args.rounds} interleaved rounds\n")
    print("| function | libmvec ns | NumPy ns | Numba math ns | lanes differing from CPython | max ulp "
          "(typical) | max ulp (wide) | max ulp (hostile, where CPython returns) |")
    print("| :-- | --: | --: | --: | --: | --: | --: | --: |")
    rng = np.random.default_rng(20261202)
    for name, arity, (lo, hi), (wide_lo, wide_hi), ufunc in FUNCTIONS:
        vector, scalar = build(name, arity), build_scalar(name, arity)
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
        padded = [np.concatenate([c, np.ones(-c.size % 4)]) for c in hostile_cols]
        got = np.empty(padded[0].size)
        vector(*padded, got)
        want_h, raised = reference(name, padded)
        hostile = ulps(got, want_h)[~raised]
        per = {k: 1e9 * statistics.median(v) / args.lanes for k, v in times.items()}
        numpy_ns = f"{per['numpy']:.2f}" if ufunc is not None else "–"
        print(f"| {name} | {per['libmvec']:.2f} | {numpy_ns} | {per['numba']:.2f} | "
              f"{np.mean(typical > 0):.1%} | {typical.max():.0f} | {wide.max():.0f} | {hostile.max():.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
