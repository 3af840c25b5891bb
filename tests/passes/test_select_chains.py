"""passes/select_chains.py: an if/else nested in a batched branch, whose arms only assign values
that cannot fail, becomes selects on its raw test; the scalar function stays the oracle."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from passcase import F, I, after

from vectorizer import vectorize

HOSTILE = [0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0, 2.5, -3.0, 1e308, -1e308, math.inf, -math.inf, math.nan]
INTS = [0, 1, -1, 3, -3, 2**53 + 1, -(2**53) - 1, 2**62, 2**63 - 1, -(2**63)]


def clamp(x: float, lo: float, hi: float) -> float:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def band(x: float, lo: float, hi: float) -> float:
    if x < lo:
        y = -x
        z = 1.0
    elif x > hi:
        y = x * 2 - lo
        z = 2.0
    else:
        y = x
        z = 3
    return y + z


def pick(n: int, k: int) -> int:
    if n < 0:
        return -1
    elif n == k:
        return n
    else:
        return k


def divides(x: float, y: float) -> float:  # an arm that may raise: keeps its mask
    if x < 0:
        return 0.0
    elif y > 1:
        return x / y
    else:
        return x


def piecewise(x: float, a: float) -> float:  # an elif chain of four arms that cannot fail
    if x < 0.0:
        y = 0.0
    elif x < a:
        y = x
    elif x < 3.0:
        y = 1.0 + 0.5 * (x - a)
    else:
        y = 2.0
    return y


def piecewise_raising(x: float, a: float) -> float:  # its middle arm may raise
    if x < 0.0:
        y = 0.0
    elif x < a:
        y = x / a
    elif x < 3.0:
        y = 1.0 + 0.5 * (x - a)
    else:
        y = 2.0
    return y


def test_an_elif_chain_folds_into_nested_selects() -> None:
    """Each elif's else arm is already the selects of the ones after it: the whole chain under the
    first test is one nested select, no `~m`, no `&` of masks (issue 33's elif chains)."""
    vf = vectorize(piecewise, backend="numpy", fallback="error")
    vf(np.zeros(2), np.ones(2))
    body = vf.source.split("def _vz_")[0]
    assert "~" not in body and " & " not in body, body
    assert body.count("_vz_where(") == 3, body
    text = after("select_chains", piecewise_raising, x=F, a=F)
    assert "y = x / a if" not in text.replace("(", "").replace(")", "")  # the raising arm keeps its mask
    assert "1.0 + 0.5 * x - a if x < 3.0 else 2.0" in text.replace("(", "").replace(")", "")


def test_clamp_is_two_selects_on_raw_tests() -> None:
    text = after("select_chains", clamp, x=F, lo=F, hi=F)
    assert "ret = hi if x > hi else x" in text.replace("(", "").replace(")", "")
    vf = vectorize(clamp, backend="numpy", fallback="error")
    vf(np.zeros(2), np.zeros(2), np.ones(2))
    body = vf.source.split("def _vz_")[0]
    assert "~" not in body and " & " not in body  # no masks of its own


def test_an_arm_that_may_raise_keeps_its_mask() -> None:
    assert " if y > 1 else " not in after("select_chains", divides, x=F, y=F)


def test_an_int_and_a_float_arm_keep_the_merge() -> None:
    assert "z = 2.0 if" not in after("select_chains", band, x=F, lo=F, hi=F)


def test_values_on_hostile_inputs() -> None:
    grid = np.array(np.meshgrid(HOSTILE, HOSTILE, HOSTILE)).reshape(3, -1)
    for f in (clamp, band):
        check(vectorize(f, fallback="error"), f, *grid)
    ints = np.array(np.meshgrid(INTS, INTS)).reshape(2, -1)
    check(vectorize(pick, fallback="error"), pick, *ints)
    check(vectorize(divides, fallback="error"), divides, *grid[:2])
    for f in (piecewise, piecewise_raising):
        check(vectorize(f, fallback="error"), f, *grid[:2])
    assert "ret = n if n == k else k" in after("select_chains", pick, n=I, k=I)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(), st.floats(), st.floats()), min_size=1, max_size=40))
def test_hypothesis_clamp_and_band(rows: list[tuple[float, float, float]]) -> None:
    cols = [np.array(c) for c in zip(*rows)]
    check(vectorize(clamp, fallback="error"), clamp, *cols)
    check(vectorize(band, fallback="error"), band, *cols)
    check(vectorize(piecewise, fallback="error"), piecewise, *cols[:2])
    check(vectorize(piecewise_raising, fallback="error"), piecewise_raising, *cols[:2])
    big = [np.resize(c, 5000) for c in cols]  # _vz_where selects bits from 4096 lanes on
    check(vectorize(clamp, fallback="error"), clamp, *big)
