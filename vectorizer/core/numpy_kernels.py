"""Which of NumPy's float64 functions give the C library's bits on this machine.

Lane code (the Numba backend) computes `np.exp(x)` of a number, and `s ** T` of a table inside
`np.sum`, with the C library's function: what NumPy's own loop calls where it has no kernel of its
own for the CPU. On CPUs with AVX2 or AVX-512, NumPy dispatches its own SIMD exp, log, sin,
power... with other last bits, on some inputs only (a sample can miss them: np.log differs from
the C library on about one input in ten thousand on AVX-512). Where the user's code asked for
NumPy, the value must be NumPy's on every CPU kind, so lane code may stand in for a NumPy function
only where both hold:

* NumPy's own dispatch table says its float64 loop for the function runs the baseline target
  here (`__cpu_targets_info__`): the generic C loop, which calls the C library;
* on a fixed set of arguments (spread over the domain, with its edges), NumPy's results for one
  element and for a contiguous array equal the C library's (`math`'s) bit for bit: this catches a
  baseline loop that is not the C library's function (np.hypot's is not CPython's hypot).

The answer is per process, cached (~10 ms once); `simd_state()` names what decides it, for the
disk cache's key.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

# NumPy function -> the C library's (math's) function of the same arguments
LIBM_TWINS = {
    "exp": math.exp, "expm1": math.expm1, "log": math.log, "log2": math.log2, "log10": math.log10,
    "log1p": math.log1p, "sin": math.sin, "cos": math.cos, "tan": math.tan, "arcsin": math.asin,
    "arccos": math.acos, "arctan": math.atan, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "arcsinh": math.asinh, "arccosh": math.acosh, "arctanh": math.atanh, "arctan2": math.atan2,
    "hypot": math.hypot, "power": math.pow, "sqrt": math.sqrt,
}
for _name in ("cbrt", "exp2"):  # Python 3.11+
    if hasattr(math, _name):
        LIBM_TWINS[_name] = getattr(math, _name)
_DOMAIN = {"log": (1e-300, 1e300), "log2": (1e-300, 1e300), "log10": (1e-300, 1e300), "log1p": (-0.999, 1e300),
           "arcsin": (-1.0, 1.0), "arccos": (-1.0, 1.0), "arccosh": (1.0, 1e300), "arctanh": (-0.999, 0.999),
           "sqrt": (0.0, 1e300), "exp": (-700.0, 700.0), "expm1": (-700.0, 700.0), "sinh": (-700.0, 700.0),
           "cosh": (-700.0, 700.0), "power": (1e-3, 1e3), "exp2": (-1000.0, 1000.0)}


def _arguments(name: str, count: int = 3000) -> list[float]:
    low, high = _DOMAIN.get(name, (-1e4, 1e4))
    rng = np.random.default_rng(20261205)  # fixed: the same arguments in every process
    if low > 0 and high / low > 1e6:  # a log scale for wide positive domains
        values = np.exp(rng.uniform(math.log(low), math.log(high), count))
    else:
        values = rng.uniform(low, high, count)
    return [float(v) for v in values] + [low, high, (low + high) / 2]


@functools.cache
def differs_from_libm(name: str) -> bool:
    """NumPy's `np.<name>` may give, on some argument, other bits than the C library's function."""
    twin = LIBM_TWINS.get(name)
    if twin is None or not _baseline_loop(name):
        return True  # not measured, or NumPy's own SIMD kernel on this CPU
    ufunc = getattr(np, name)
    xs = _arguments(name)
    if name in ("arctan2", "hypot", "power"):
        ys = _arguments("power" if name == "power" else "atan2")[::-1]
        ys = [y if name != "power" else math.copysign(min(abs(y), 30.0), y) for y in ys]
        expected = [twin(x, y) for x, y in zip(xs, ys)]
        arrays = ufunc(np.array(xs), np.array(ys)).tolist()
        singles = [ufunc(x, y).item() for x, y in zip(xs[:64], ys[:64])]
    else:
        expected = [twin(x) for x in xs]
        arrays = ufunc(np.array(xs)).tolist()
        singles = [ufunc(x).item() for x in xs[:64]]
    same = all(_bits(a) == _bits(b) for a, b in zip(arrays, expected))
    return not (same and all(_bits(a) == _bits(b) for a, b in zip(singles, expected)))


def _baseline_loop(name: str) -> bool:
    """NumPy runs its generic C loop (the C library's function) for float64 `np.<name>` here."""
    try:
        from numpy._core._multiarray_umath import __cpu_targets_info__ as targets
    except ImportError:  # a NumPy without the table: assume its own kernels
        return False
    loops = targets.get(name)
    if loops is None:  # not dispatched by CPU at all: one generic loop
        return True
    found = [info.get("current", "") for sig, info in loops.items() if sig in ("dd", "ddd")]
    return bool(found) and all(current.startswith("baseline") for current in found)


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def simd_state() -> str:
    """What decides `differs_from_libm` on this machine: NumPy's version and the CPU features its
    dispatch uses (NPY_DISABLE_CPU_FEATURES included)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    enabled = ",".join(sorted(k for k, v in features.items() if v))
    return f"{np.__version__}:{enabled}:{os.environ.get('NPY_DISABLE_CPU_FEATURES', '')}"
