"""backend="auto": the static choice of backend (vectorizer/engine/costmodel.py) on the shapes of code
the benchmark measured (docs/performance.md). The choice itself needs no Numba (without it,
"auto" runs on NumPy whatever the choice)."""

from __future__ import annotations

import math
from math import exp

import numpy as np
import pytest

from vectorizer.api import prepare
from vectorizer.engine.costmodel import choose, numpy_has_simd_math


def arithmetic(x: float) -> float:
    return (2.0 * x - 1.0) * x + 3.0


def branches(x: float) -> float:
    if x < 0.0:
        return -x
    return x * x


def simd_math(x: float) -> float:
    return math.log1p(math.exp(x))


def branches_and_simd_math(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(exp(x))  # `from math import exp` counts too


def while_loop(x: float) -> int:
    n = 0
    while x > 1.0 and n < 50:
        x = math.sqrt(x)
        n += 1
    return n


def uniform_for_with_math(x: float) -> float:
    total = 0.0
    for i in range(8):
        total += math.exp(-x * i)
    return total


STEPS = 16


def fixed_for_with_pow(s: float) -> float:
    total = 0.0
    for k in range(1, STEPS + 1):
        total += k ** -s
    return total


def gaussian(x: float) -> float:
    return exp(-0.5 * x * x)


def fixed_for_calling_math(a: float, b: float) -> float:
    h = (b - a) / STEPS
    total = 0.0
    for i in range(STEPS):
        total += gaussian(a + i * h)
    return total * h


def for_over_a_parameter(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):  # the trip count may differ per lane
        total += math.exp(-x * i)
    return total


def fixed_for_of_squares(x: float) -> float:
    total = 0.0
    for i in range(STEPS):
        total += (x + i) ** 2
    return total


def fixed_for_and_a_while(x: float) -> float:
    return uniform_for_with_math(x) + float(while_loop(x))


def for_that_returns_early(x: float) -> int:
    for i in range(8):
        if math.sin(x * i) > 0.5:
            return i
    return -1


def calls_a_while_loop(x: float) -> float:
    return float(while_loop(x)) + math.exp(x)


def calls_simd_math(x: float) -> float:
    return simd_math(x) * 2.0


def erfc_user(x: float) -> float:
    return math.erfc(x) + math.exp(x)


def gamma_user(x: float) -> float:
    return math.gamma(x) if x > 0.5 else 1.0


def calls_gamma(x: float) -> float:
    return gamma_user(x) + 1.0


@pytest.mark.parametrize(("func", "expected"), [
    # Measured on the benchmark's kernels: the per-lane Numba backend is as fast or faster for
    # every shape of code, transcendental math included (docs/performance.md) ...
    (arithmetic, "numba"),
    (branches, "numba"),
    (simd_math, "numba"),
    (branches_and_simd_math, "numba"),
    (while_loop, "numba"),
    (for_that_returns_early, "numba"),
    (for_over_a_parameter, "numba"),
    (fixed_for_of_squares, "numba"),
    (fixed_for_and_a_while, "numba"),
    (calls_simd_math, "numba"),
    (calls_a_while_loop, "numba"),
    (erfc_user, "numba"),
    # ... except where SIMD exp/log/pow repeat in a loop of a fixed trip count ...
    (uniform_for_with_math, "numpy"),
    (fixed_for_with_pow, "numpy"),
    (fixed_for_calling_math, "numpy"),
    # ... and where it refuses the function: gamma/lgamma, here or in a callee.
    (gamma_user, "numpy"),
    (calls_gamma, "numpy"),
], ids=lambda v: v.__name__ if callable(v) else v)
def test_auto_choice(func, expected):
    assert choose(*prepare(func), simd_math=True) == expected
    # Without NumPy's AVX-512 exp/log (an AVX2 CPU) the loops run faster per lane on Numba too.
    assert choose(*prepare(func), simd_math=False) == ("numpy" if func in (gamma_user, calls_gamma) else "numba")


def test_simd_math_follows_this_cpu():
    features = np._core._multiarray_umath.__cpu_features__
    assert numpy_has_simd_math() is (features["AVX512F"] and features["AVX512_SKX"])
    func = uniform_for_with_math
    assert choose(*prepare(func)) == ("numpy" if numpy_has_simd_math() else "numba")
