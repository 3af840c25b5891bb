"""VECTORIZER_TEST_LIBM_JITTER=1: NumPy's exp/log/pow/sin/... as another CPU's SIMD kernels give them.

On a CPU with AVX-512, NumPy's transcendental functions are not the C library's: they differ from
CPython's math module by a few ulp on some inputs (within rules.ULP_BOUND), where an AVX2 CPU
gives the same bits. A test that compares such results bit for bit passes here and fails there.
This switch makes those functions differ here too: each float64 result that is finite, nonzero
and not an integer moves by one ulp up or down, by a hash of the arguments' bits (so a lane's
value depends on its arguments alone, as a SIMD kernel's does), on about two lanes in three.
Exact cases (exp(0), log(1), 2.0 ** 3, inf, nan, 0) keep their values, and NumPy's own answers
to integral exponents are kept (its scalar fast paths square or multiply exactly).
VECTORIZER_TEST_LIBM_JITTER=2, 3, ... hash with another start: other lanes move, so a test that
passes by luck under one (its few libm results unmoved) fails under another.

It replaces the functions in the `numpy` module, after Numba has registered the real ones
(tests/conftest.py imports numba.np.npyimpl first): lane code that calls a replaced function fails
to compile and runs on the NumPy route; the default (exact) configuration's `math` functions are
the C library's on both routes and must not move. `.ci/run` runs it with and without Numba.
"""

from __future__ import annotations

import functools

import numpy as np

JITTERED = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "power", "float_power", "sin", "cos", "tan",
            "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt")


def _jitter(ufunc: np.ufunc, seed: int):
    integral_exponent = ufunc.__name__ in ("power", "float_power")

    @functools.wraps(ufunc)
    def call(*args, **kwargs):
        out = ufunc(*args, **kwargs)
        if not isinstance(out, np.ndarray | np.floating) or np.asarray(out).dtype != np.float64:
            return out
        arrays = [np.asarray(a) for a in args[: ufunc.nin]]
        if any(a.dtype.kind not in "biuf" for a in arrays):
            return out
        value = np.asarray(out)
        shape = value.shape
        with np.errstate(all="ignore"):  # the hash wraps around; inf and nan compare quietly
            key = np.full(shape, seed - 1, dtype=np.uint64)
            for a in arrays:
                bits = np.broadcast_to(a.astype(np.float64), shape).copy().view(np.uint64)
                key = (key ^ bits) * np.uint64(0x9E3779B97F4A7C15)
            key = key ^ (key >> np.uint64(29))
            step = (key % np.uint64(3)).astype(np.int64) - 1  # -1, 0 or +1 ulp
            movable = np.isfinite(value) & (value != 0.0) & (np.floor(value) != value)
            if integral_exponent:
                exponent = np.broadcast_to(arrays[1].astype(np.float64), shape)
                movable &= np.floor(exponent) != exponent
            moved = np.where(movable & (step != 0), np.nextafter(value, np.where(step > 0, np.inf, -np.inf)), value)
        if isinstance(out, np.ndarray):
            out[...] = moved  # keep `out=` and the array's identity
            return out
        return np.float64(moved)

    return _Jittered(ufunc, call)


class _Jittered:
    """The jittered function, which answers for the ufunc's attributes too (nin, nout, types...):
    Numba's typing of `x ** y` reads `numpy.power` at compile time and asks it for them. Numba
    cannot call it from compiled code (a typing error there: the NumPy route runs that code)."""

    jittered = True

    def __init__(self, ufunc: np.ufunc, call) -> None:
        self._ufunc, self._call = ufunc, call
        self.__name__, self.__doc__ = ufunc.__name__, ufunc.__doc__

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._ufunc, name)


def install(seed: int = 1) -> None:
    """Replace NumPy's functions (once per process); `seed` picks the lanes that move. The engine
    is told NumPy's kernels are SIMD ones here (`chunks.simd_math`), as on an AVX-512 CPU: a user's
    `np.exp(x)` then takes the NumPy route, whose value is NumPy's (engine/costmodel.py)."""
    from vectorizer.engine import chunks

    chunks._simd_found = True
    for name in JITTERED:
        current = getattr(np, name)
        if not getattr(current, "jittered", False):
            setattr(np, name, _jitter(current, seed))
