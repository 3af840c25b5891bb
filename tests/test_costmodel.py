"""backend="auto": the static choice of backend (vectorizer/costmodel.py) on the shapes of code
the benchmark measured (docs/performance.md). The choice itself needs no Numba."""

from __future__ import annotations

import math
from math import exp

import pytest

from vectorizer.api import prepare
from vectorizer.costmodel import choose


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


@pytest.mark.parametrize(("func", "expected"), [
    (arithmetic, "numba"),              # compiled straight-line code
    (branches, "numba"),                # no evaluation of both sides
    (simd_math, "numpy"),               # NumPy's SIMD exp/log vs scalar libm calls
    (branches_and_simd_math, "numpy"),
    (while_loop, "numba"),              # per-lane trip counts: no work on finished lanes
    (uniform_for_with_math, "numpy"),   # every lane runs every iteration anyway
    (for_that_returns_early, "numba"),  # lanes leave at different iterations
    (calls_a_while_loop, "numba"),      # a callee's loop counts
    (calls_simd_math, "numpy"),         # and so does a callee's math
    (erfc_user, "numba"),               # NumPy has no erfc ufunc: per element there
    (gamma_user, "numpy"),              # the Numba backend refuses gamma
], ids=lambda v: v.__name__ if callable(v) else v)
def test_auto_choice(func, expected):
    assert choose(*prepare(func)) == expected
