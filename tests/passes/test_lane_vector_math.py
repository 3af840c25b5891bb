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
        "    t_1 = (-t)\n"
        "    if t_1 > 709.7:\n"
        "        return (0.0, True)\n"
        "    if s <= 0:\n"
        "        return (0.0, True)\n"
        "    return ((s * _vz_lm.exp(t_1) - k * _vz_lm.log(s)), False)\n"
    )
    # A loop keeps LLVM from vectorizing the driver: the C library's functions stay.
    assert "_vz_lm" not in after("lane_vector_math", looped, lanes=True, options=on, x=F, n=UI)
