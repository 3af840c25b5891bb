"""NumPy's integer results lane code (the Numba backend) must reproduce where C's or Numba's own
operation would give another value: measured in this process, never assumed.

* `np.fmod` of int64 truncates like C's `%` (np.fmod(-7, 4) == -3, the sign of the dividend). NumPy
  gives 0 for a zero divisor (with a "divide by zero" RuntimeWarning, which batched code does
  not give: it runs under np.errstate(all="ignore"), engine/execute.py) and 0 for INT64_MIN by -1
  (C's undefined case: the x86 division traps). Lane code computes `FMOD_INT` (Python's, that is
  Numba's, floor `%` of the guarded pair, moved to the dividend's sign); `fmod_unavailable()`
  evaluates that very text on a table of hostile pairs (0, ±1, INT64_MIN, INT64_MAX, random) and
  compares it with np.fmod of the same pairs as arrays and as numbers: any difference, and the
  construct is refused.
* `x.astype(np.int64)` of a float64: in range, truncation toward zero (Numba's `int(x)`). For
  NaN, ±inf and values out of range NumPy's value is the CPU's conversion (x86: the "integer
  indefinite", INT64_MIN), through loops that differ with the SIMD level (AVX-512 or AVX2, a
  vector body or a scalar tail, contiguous or strided). `cast_constant(dtype)` casts those values
  each way NumPy may (arrays of several lengths with the value at several places, strided, 0-d,
  NumPy scalars): if every one gives one constant, lane code returns it there (`CAST_RANGE`
  decides where); otherwise None, and the cast is refused. NumPy's RuntimeWarning ("invalid value
  encountered in cast") is not given, as on the NumPy backend (np.errstate, above).

What decides both (NumPy's version, the CPU features its dispatch uses, NPY_DISABLE_CPU_FEATURES)
is in the disk cache's key (core/numpy_kernels.py's simd_state): lane code that embeds a measured
value is not reused where it could differ.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# Lane code of np.fmod(x, y) of ints ({0}: x, {1}: y, both names; {2}: a temporary holding the
# guarded floor remainder, which has the divisor's sign and a magnitude below the divisor's, so
# `m - y` cannot overflow). Python's int `%` is Numba's for int64 (tests/passes/test_numba_numpy_ints.py).
FMOD_GUARD = "0 if {1} == 0 or {1} == -1 else {0} % {1}"
FMOD_SIGN = "{2} - {1} if {2} != 0 and ({2} < 0) != ({0} < 0) else {2}"

# float64 -> intN: the floats whose truncation fits (NaN fails both comparisons), as lane code tests them
CAST_RANGE = {"int64": "{0} >= -9.223372036854775808e18 and {0} < 9.223372036854775808e18",
              "int32": "{0} > -2147483649.0 and {0} < 2147483648.0"}


def fmod_lane(x: int, y: int) -> int:
    """The lane code's value, evaluated from its very text with Python ints."""
    m = eval(FMOD_GUARD.format("x", "y"), {}, {"x": x, "y": y})  # noqa: S307 - our own template
    return eval(FMOD_SIGN.format("x", "y", "m"), {}, {"x": x, "y": y, "m": m})  # noqa: S307


def _hostile_pairs() -> list[tuple[int, int]]:
    edges = [0, 1, -1, 2, -2, 3, -3, 4, -4, 7, -7, 100, -400, 2**31, -(2**31), 2**62, INT64_MIN, INT64_MIN + 1,
             INT64_MAX, INT64_MAX - 1]
    rng = np.random.default_rng(20261206)  # fixed: the same pairs in every process
    wide = [int(v) for v in rng.integers(INT64_MIN, INT64_MAX, 64, dtype=np.int64, endpoint=True)]
    small = [int(v) for v in rng.integers(-1000, 1000, 64)]
    pairs = [(x, y) for x in edges for y in edges]
    pairs += list(zip(wide, small)) + list(zip(small, wide)) + list(zip(wide, wide[::-1])) + list(zip(small, small[::-1]))
    return pairs


@functools.cache
def fmod_unavailable() -> str | None:
    """Why lane code's `FMOD_INT` does not give np.fmod's int64 values here (None: it does)."""
    pairs = _hostile_pairs()
    xs = np.array([x for x, _ in pairs], dtype=np.int64)
    ys = np.array([y for _, y in pairs], dtype=np.int64)
    with np.errstate(all="ignore"):
        arrays = np.fmod(xs, ys).tolist()
        singles = [np.fmod(np.int64(x), np.int64(y)).item() for x, y in pairs]
    for (x, y), a, s in zip(pairs, arrays, singles):
        mine = fmod_lane(x, y)
        if not (a == s == mine):
            return f"np.fmod({x}, {y}) is {a} (of numbers: {s}), lane code's formula gives {mine}"
    return None


# Floats each target cannot hold (those in CAST_RANGE are dropped), and in-range ones at its edges
_OUTSIDE = [float("nan"), -float("nan"), float("inf"), -float("inf"), 2.0**63, -(2.0**63) - 2048.0, 2.0**64, 1e19, -1e19,
            1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 2.0**31, -(2.0**31) - 1.0, 3e9, -3e9,
            2147483648.5, -2147483649.5]
_EDGES = {"int64": [-0.0, 2.9, -2.9, 4503599627370495.5, 9223372036854774784.0, -(2.0**63)],
          "int32": [-0.0, 2.9, -2.9, 2147483647.9, -2147483648.9, -(2.0**31)]}


def _inside(dtype: str, x: float) -> bool:
    return eval(CAST_RANGE[dtype].format("x"), {}, {"x": x})  # noqa: S307 - our own template


def _casts(value: float, kind: type) -> tuple[list[int], bool]:
    """NumPy's cast of `value` each way it may run (arrays of several lengths with the value at
    several places, so that vector bodies and scalar tails both run; strided; 0-d; a NumPy
    scalar), and whether the in-range 1.5 around it came out as 1 every time."""
    values, neighbours = [], True
    for n in (1, 2, 3, 4, 7, 8, 9, 16, 17, 33, 64):
        for at in sorted({0, n // 2, n - 1}):
            arr = np.full(n, 1.5)
            arr[at] = value
            cast = arr.astype(kind).tolist()
            values.append(cast[at])
            neighbours &= all(c == 1 for i, c in enumerate(cast) if i != at)
            strided = np.full(2 * n, 1.5)
            strided[2 * at] = value
            values.append(strided[::2].astype(kind).tolist()[at])
    values += [np.asarray(value).astype(kind).item(), np.float64(value).astype(kind).item()]
    return values, neighbours


@functools.cache
def cast_constant(dtype: str) -> int | None:
    """NumPy's one value for every float64 that `dtype` ("int64", "int32") cannot hold (NaN, ±inf,
    out of range), where every cast of them gives that value and every in-range edge its
    truncation; None otherwise (then the cast is refused)."""
    kind = getattr(np, dtype)
    seen: set[int] = set()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # NumPy's scalar casts warn through the warnings module
        for value in [v for v in _OUTSIDE if not _inside(dtype, v)]:
            values, neighbours = _casts(value, kind)
            if not neighbours:
                return None
            seen.update(values)
        for value in _EDGES[dtype]:
            values, neighbours = _casts(value, kind)
            if not neighbours or any(v != int(value) for v in values):
                return None
    return next(iter(seen)) if len(seen) == 1 else None
