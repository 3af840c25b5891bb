"""A bitwise operator or shift with a float operand (rules/operators.py `_float_operand`): Python
raises TypeError on every lane that gets there, so those lanes are flagged and re-run by the
scalar function, which raises its own exception (after whatever the line raises first); lanes
that never get there keep their values. Both backends, against the scalar function lane by
lane, values and exceptions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def low_bit(x, k):
    if x < 0:
        return 0
    return (x & 1) + k


def shifted(x, k):
    if k > 5:
        return (x >> k) * 2
    return 1.5 * x


def halvings(n):
    j = 1
    while n & 1 == 0:
        n = n / 2
        j += 1
    return j


def inverted(x, k):
    return ~x if k else x + 1.0


def divides_first(x, d):
    return (1 / d) + (x | 2)  # ZeroDivisionError before the TypeError where d == 0


HOSTILE = np.array([-1.0, -0.0, -5e-324, -1e308, -math.inf])


@pytest.mark.parametrize("backend", BACKENDS)
def test_lanes_that_never_reach_the_operator_keep_their_values(backend):
    vf = vectorize(low_bit, backend=backend, fallback="error")
    check(vf, low_bit, HOSTILE, np.arange(5))
    vg = vectorize(shifted, backend=backend, fallback="error")
    check(vg, shifted, np.array([1.0, math.nan, math.inf, -0.0, 1e308]), np.array([0, 5, -3, 2**62, -2**63]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_first_lane_that_reaches_it_raises_pythons_type_error(backend):
    check(vectorize(low_bit, backend=backend, fallback="error"), low_bit,
          np.array([-1.0, 2.0, math.nan]), np.array([1, 2, 3]))
    check(vectorize(shifted, backend=backend, fallback="error"), shifted,
          np.array([1.0, 2.0]), np.array([3, 9]))
    check(vectorize(halvings, backend=backend, fallback="error"), halvings, np.array([math.inf, 3.0, math.nan]))
    vi = vectorize(inverted, backend=backend, fallback="error")
    check(vi, inverted, HOSTILE, np.zeros(5, dtype=bool))
    check(vi, inverted, HOSTILE, np.array([False, False, True, True, False]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_the_line_raises_first_is_raised_first(backend):
    vf = vectorize(divides_first, backend=backend, fallback="error")
    check(vf, divides_first, np.array([1.0, 2.0]), np.array([0.0, 1.0]))  # ZeroDivisionError at lane 0
    check(vf, divides_first, np.array([1.0, 2.0]), np.array([4.0, 0.0]))  # TypeError at lane 0
