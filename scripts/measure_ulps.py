"""Measure, per transcendental function, how far exact=False's values are from CPython's.

    python scripts/measure_ulps.py [--lanes N] [--json PATH]

For each `math` function the engine computes (rules/calls.py), the largest distance in ulp between
CPython's value and (a) NumPy's function on this CPU (what exact=False's NumPy route, generated
modules and a process without Numba compute; run it again under NPY_DISABLE_CPU_FEATURES for the
other kernels), (b) glibc's vector math (vecmath.py: exact=False's vector math, where it runs),
(c) LLVM's transformations of lane code with exact=False (x * x for x ** 2; exp2 for 2.0 ** x).
Inputs: uniform samples over each function's typical domain and over wide ranges, and hostile
values. Lanes where CPython raises are left out (they are flagged and re-run). The bound the
contract states, rules.ULP_BOUND per operation, is enforced by tests/rules/test_rules.py and
tests/backends/test_vecmath.py; this prints the measured maxima for docs/contract.md.
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vectorizer.runtime import helpers, special  # noqa: E402

# math name -> (NumPy's function as the NumPy route calls it, arguments, typical domain)
FUNCTIONS = {
    "exp": (np.exp, 1, (-700, 700)), "expm1": (np.expm1, 1, (-50, 700)), "exp2": (np.exp2, 1, (-1000, 1000)),
    "log": (np.log, 1, (1e-300, 1e300)), "log2": (np.log2, 1, (1e-300, 1e300)), "log10": (np.log10, 1, (1e-300, 1e300)),
    "log1p": (np.log1p, 1, (-0.999, 1e10)), "sin": (np.sin, 1, (-1e4, 1e4)), "cos": (np.cos, 1, (-1e4, 1e4)),
    "tan": (np.tan, 1, (-1e4, 1e4)), "asin": (np.arcsin, 1, (-1, 1)), "acos": (np.arccos, 1, (-1, 1)),
    "atan": (np.arctan, 1, (-1e6, 1e6)), "sinh": (np.sinh, 1, (-700, 700)), "cosh": (np.cosh, 1, (-700, 700)),
    "tanh": (np.tanh, 1, (-20, 20)), "asinh": (np.arcsinh, 1, (-1e6, 1e6)), "acosh": (np.arccosh, 1, (1, 1e6)),
    "atanh": (np.arctanh, 1, (-0.999999, 0.999999)), "cbrt": (np.cbrt, 1, (-1e6, 1e6)),
    "erf": (special._vz_erf, 1, (-6, 6)), "erfc": (special._vz_erfc, 1, (-6, 27)),
    "atan2": (np.arctan2, 2, (-1e3, 1e3)), "hypot": (np.hypot, 2, (-1e3, 1e3)),
    "pow": (lambda x, y: helpers.power(x, y), 2, (0, 100)),
}


def ulps(a: float, b: float) -> int:
    ia, ib = (struct.unpack("<q", struct.pack("<d", v))[0] for v in (a, b))
    ia = ia if ia >= 0 else -(2**63) - ia
    ib = ib if ib >= 0 else -(2**63) - ib
    return abs(ia - ib)


def inputs(name: str, arity: int, domain: tuple[float, float], lanes: int, rng) -> list[np.ndarray]:
    lo, hi = domain
    typical = rng.uniform(lo, hi, lanes)
    wide = np.exp(rng.uniform(-20, 20, lanes // 4)) * rng.choice([-1.0, 1.0], lanes // 4)
    x = np.concatenate([typical, wide, [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-310, 5e-324]])
    if arity == 1:
        return [x]
    y = rng.uniform(-5, 5, x.size) if name == "pow" else rng.uniform(lo, hi, x.size)
    if name == "pow":
        x = np.abs(x)
    return [x, y]


def worst(fn_math, values: np.ndarray, args: list[np.ndarray]) -> int:
    out = 0
    for lane, got in zip(zip(*(a.tolist() for a in args)), values.tolist()):
        try:
            want = fn_math(*lane)
        except (ValueError, OverflowError):
            continue
        if math.isnan(want) and math.isnan(got):
            continue
        if math.isinf(want) or math.isinf(got) or math.isnan(want) or math.isnan(got):
            out = max(out, 0 if want == got else 1 << 62)
            continue
        out = max(out, ulps(want, got))
    return out


def measure(lanes: int) -> dict[str, dict[str, int | None]]:
    rng = np.random.default_rng(2026)
    try:
        from vectorizer.backends.numba import vecmath

        mvec = vecmath if not vecmath.unavailable() else None
    except ImportError:
        mvec = None
    table: dict[str, dict[str, int | None]] = {}
    with np.errstate(all="ignore"):
        for name, (numpy_fn, arity, domain) in FUNCTIONS.items():
            args = inputs(name, arity, domain, lanes, rng)
            fn_math = getattr(math, name)
            row: dict[str, int | None] = {"numpy": worst(fn_math, np.asarray(numpy_fn(*args), dtype=np.float64), args)}
            vm_name = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
                       "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}.get(name, name)
            vm_fn = getattr(mvec, vm_name, None) if mvec is not None and vm_name in vecmath.FUNCTIONS else None
            row["vector_math"] = worst(fn_math, np.asarray(vm_fn(*args), dtype=np.float64), args) if vm_fn else None
            table[name] = row
    squares = rng.uniform(-1e3, 1e3, lanes)
    table["pow"]["llvm_square"] = worst(lambda v: math.pow(v, 2.0), squares * squares, [squares])
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=200_000)
    parser.add_argument("--json", help="also write the table here")
    args = parser.parse_args(argv)
    from numpy._core._multiarray_umath import __cpu_features__ as features

    simd = bool(features.get("AVX512F") and features.get("AVX512_SKX"))
    table = measure(args.lanes)
    print(f"NumPy {np.__version__}, AVX-512 kernels {'on' if simd else 'off'}, {args.lanes:,} typical lanes a function")
    print("| function | NumPy | vector math |")
    print("| :-- | --: | --: |")
    for name, row in table.items():
        vm = row["vector_math"]
        print(f"| `{name}` | {row['numpy']} | {'-' if vm is None else vm} |")
    print(f"x * x for pow(x, 2.0): {table['pow']['llvm_square']} ulp")
    if args.json:
        Path(args.json).write_text(json.dumps({"avx512": simd, "lanes": args.lanes, "table": table}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
