"""frontend/count_loops.py: `for v in itertools.count(start, step)` is a `while True` loop with a
counter of its own, CPython's count: `start` first, then one `step` added at a time (a body that
rebinds the loop variable changes nothing), floats added as Python adds them, ints checked for
int64 overflow. Differential against the scalar function lane by lane on both backends; values
and exceptions."""

from __future__ import annotations

import itertools
from itertools import count

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
SMALL = np.arange(-5, 150, dtype=np.int64)
INTS = np.array(SPECIAL_INTS + [3, 21, 45, 221], dtype=np.int64)
FLOATS = np.array(SPECIAL_FLOATS + [3.0, 0.25, -7.5, 123.0])


def lucas_d(n):  # primefac's isprime, step 3, with the Jacobi symbol replaced by a small rule
    for D in count(5, 4):
        if n % D == 0:
            return D
        if D > n:
            break
        D = -2 - D  # rebinding the loop variable: the count goes on from its own counter
        if (n + D) % 7 == 0:
            break
    return D


def steps(x, step):
    k = 0
    for v in itertools.count(start=-1.5, step=step):
        k += 1
        if v >= x or k > 40:
            return v * k
    return 0.0


def from_zero(n):
    total = 0
    for i in count():
        if i * i > n:
            break
        total += i
    else:
        total = -1  # never: count never ends
    return total


def huge(n):
    k = 0
    for v in count(9223372036854775800, n):
        k += 1
        if v % 1000 == 7 or k > 30:
            return v
    return 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_ints(backend) -> None:
    check(vectorize(lucas_d, fallback="error", backend=backend), lucas_d, SMALL)
    check(vectorize(from_zero, fallback="error", backend=backend), from_zero, SMALL)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_steps(backend) -> None:
    x, step = np.meshgrid(np.array([-2.0, 0.0, 0.3, 7.0, np.nan, np.inf]), np.array([0.1, 0.5, 1.0, 3.0, 1e-300]))
    check(vectorize(steps, fallback="error", backend=backend), steps, x, step)
    check(vectorize(steps, fallback="error", backend=backend), steps, np.array([1.0, 5.0]), np.array([1, 2]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_overflow_is_never_wrapped(backend) -> None:
    vf = vectorize(huge, fallback="error", backend=backend)
    check(vf, huge, np.array([-1, -3, 0]))  # no overflow
    check(vf, huge, np.array([-1, 1]))  # 1: the counter passes 2**63 - 1 (Python: a big int)
    check(vf, huge, np.array([-1, -2**62]))  # below -2**63


def bool_start(n, s=True):
    for v in count(s):
        if v > n:
            return v
    return 0


def test_a_start_that_is_no_literal_is_refused() -> None:
    with pytest.raises(VectorizeError, match="'for' loops must iterate"):
        vectorize(bool_start, fallback="error")(SMALL)
