"""frontend/none_ends.py (issue 51): a function that returns None on some inputs (an if/elif chain
with no else, a bare `return`) is batched on every other lane; the first lane that gets None is
refused at run time with an error naming it, unless a lane raises first (as the loop raises),
on both backends, against the scalar function lane by lane (tests/oracle.py's NotANumber)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeValueError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def band(x: float) -> float:
    if x < 0.0:
        return -1.0
    elif x >= 0.0:
        return 1.0 + x  # a NaN takes neither branch: None


def early(x: float, n: int) -> float:
    if n == 3:
        return  # a bare return: None
    return 1.0 / x  # raises ZeroDivisionError at 0.0


def loop_end(n: int) -> int:
    k = 0
    while k < 10:
        k += 1
        if n % k == 7:
            return k


def helper(x: float) -> float:
    if x > 1.0:
        return x - 1.0


def caller(x: float) -> float:
    y = helper(x)  # None on the lanes x <= 1.0: the caller's `* 2.0` raises TypeError there
    return y * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_lanes_that_get_none_are_refused_at_run_time(backend):
    vf = vectorize(band, backend=backend, fallback="error")
    xs = np.array([1.0, -2.0, 0.0, -0.0, math.inf, 5e-324])
    check(vf, band, xs)  # no lane gets None: every lane batched
    with_nan = np.array([1.0, -2.0, math.nan, 3.0, math.nan])
    check(vf, band, with_nan)  # refused, naming lane (2,)
    with pytest.raises(VectorizeValueError, match=r"band returned None on lane \(2,\)"):
        vf(with_nan)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raising_lane_wins_over_an_earlier_none(backend):
    vf = vectorize(early, backend=backend, fallback="error")
    xs, ns = np.array([1.0, 2.0, 0.0, 4.0]), np.array([1, 3, 1, 3])
    check(vf, early, xs, ns)  # lane 1 gets None, lane 2 raises ZeroDivisionError: that is raised
    check(vf, early, np.array([1.0, 2.0, 5.0]), np.array([1, 3, 3]))  # refused at lane (1,)
    check(vf, early, np.array([1.0, 2.0, -0.5]), np.array([1, 2, 0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_and_a_callee_that_get_none(backend):
    ns = np.array([7, 15, 8, 23, 0, -7, 2**62, 99])
    check(vectorize(loop_end, backend=backend, fallback="error"), loop_end, ns)
    check(vectorize(loop_end, backend=backend, fallback="error"), loop_end, np.array([7, 15, 23]))
    vc = vectorize(caller, backend=backend, fallback="error")
    check(vc, caller, np.array([2.0, 3.5, math.inf]))
    check(vc, caller, np.array([2.0, 0.5, 3.0]))  # TypeError from the re-run, as the loop raises
