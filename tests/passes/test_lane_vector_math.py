"""passes/lane_vector_math.py: with exact=False, the libm calls of straight-line lane code go
through libmvec (`_vz_lm`), except in the tests of checks."""

from __future__ import annotations

import math

import pytest
from passcase import UI, F, after

from vectorizer.options import Options


def model(s: float, k: float, t: float) -> float:
    return s * math.exp(-t) - k * math.log(s)


def looped(x: float, n: int) -> float:
    for _ in range(n):
        x = math.exp(-x)
    return x


def test_without_vector_math_the_lane_code_is_unchanged():
    assert after("lane_vector_math", model, lanes=True, s=F, k=F, t=F) == after(
        "ops_to_lanes", model, lanes=True, s=F, k=F, t=F)


@pytest.mark.numba
def test_straight_line_calls_are_renamed_and_checks_stay():
    pytest.importorskip("numba")
    from vectorizer.backends.numba import vecmath

    if vecmath.unavailable():
        pytest.skip(vecmath.unavailable())
    on = Options(exact=False)
    assert after("lane_vector_math", model, lanes=True, options=on, s=F, k=F, t=F) == (
        "def _lane_model(s, k, t):\n"
        "    t_1 = -t\n"
        "    if t_1 > 709.7:\n"
        "        return (0.0, True)\n"
        "    if s <= 0:\n"
        "        return (0.0, True)\n"
        "    return (s * _vz_lm.exp(t_1) - k * _vz_lm.log(s), False)\n"
    )
    # A loop keeps LLVM from vectorizing the driver: the C library's functions stay.
    assert "_vz_lm" not in after("lane_vector_math", looped, lanes=True, options=on, x=F, n=UI)


def powers(x: float, n: int) -> float:
    if x ** 0.5 > 3.0:  # decides a branch: C's pow in every mode
        return 0.0
    total = 0.0
    for i in range(n):
        total += (x + i) ** 2 + 2.0 ** x  # reaches the float result alone
    return total


def test_exact_false_lets_llvm_have_the_pows_that_decide_nothing():
    """exact=False: C's pow (`_vz_pow`, a name LLVM does not simplify) becomes `math.pow` where
    its value decides nothing (LLVM turns it into x * x for `** 2`, exp2 for `2.0 **`), in loops
    too; the pow that decides the branch, and everything with the default, stays C's."""
    exact = after("lane_vector_math", powers, lanes=True, x=F, n=UI)
    assert exact == after("ops_to_lanes", powers, lanes=True, x=F, n=UI) and exact.count("_vz_pow(") == 3
    fast = after("lane_vector_math", powers, lanes=True, options=Options(exact=False, vector_math=False), x=F, n=UI)
    assert fast.count("_vz_pow(") == 1 and fast.count("math.pow(") == 2 and "_vz_fast" not in fast
    assert "if _vz_pow(float(x), float(0.5)) > 3.0:" in fast


@pytest.mark.numba
def test_exact_false_squares_are_within_the_bound():
    """LLVM's x * x for pow(x, 2.0) differs from C's pow on ~0.1% of inputs, by at most one
    rounding (<= 1 ulp); the default gives C's bits."""
    import numpy as np
    from oracle import check

    from vectorizer import vectorize

    def square_sum(x: float) -> float:
        return x ** 2 + (x * 0.37) ** 2

    x = np.random.default_rng(3).uniform(-100, 100, 20000)
    check(vectorize(square_sum, backend="numba"), square_sum, x)  # every bit
    fast = vectorize(square_sum, backend="numba", exact=False)
    check(fast, square_sum, x, ulps=2)  # each square within 1 ulp, then one exact-rounded sum
    assert "math.pow(" in fast.source and "_vz_pow(" not in fast.source
