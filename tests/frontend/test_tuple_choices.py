"""frontend/tuple_choices.py: `a, b = (x, y) if c else (u, v)` and `return (x, y) if c else (u, v)`
are the if statements they stand for (the test, then only the chosen items, left to right).
primefac's Lucas-chain step on one line with its `for`. Differential against the scalar function
lane by lane on both backends; values and exceptions."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(7)
V, M, N = RNG.integers(0, 100, 200), RNG.integers(0, 12, 200), RNG.integers(1, 100, 200)
FLOATS = np.array(SPECIAL_FLOATS + [3.0, 0.25, -7.5])


def chain(v, m, n):
    v1, v2 = v, (v**2 - 2) % n
    for k in range(m): v1, v2 = ((v1**2 - 2) % n, (v1*v2 - v) % n) if (m >> k) & 1 == 0 else ((v1*v2 - v) % n, (v2**2 - 2) % n)  # noqa: E501, E701
    return v1


def ordered(x, y):
    return (x, y) if x < y else (y, x)


def three_ways(x, y):
    a, b = (x, 1.0 / y) if x > 0 else (y, x) if y > 0 else (0.0, x / y)  # only the chosen side divides
    lo = 0.0; hi, mid = (a, b) if a < b else (b, a)  # noqa: E702
    return lo + hi - mid


@pytest.mark.parametrize("backend", BACKENDS)
def test_lucas_chain(backend) -> None:
    check(vectorize(chain, fallback="error", backend=backend), chain, V, M, N)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_and_exceptions(backend) -> None:
    x, y = np.meshgrid(FLOATS, FLOATS)
    check(vectorize(ordered, fallback="error", backend=backend), ordered, x, y)
    check(vectorize(three_ways, fallback="error", backend=backend), three_ways, x, y)  # ZeroDivisionError
    keep = (x > 0) | (y > 0)
    check(vectorize(three_ways, fallback="error", backend=backend), three_ways, x[keep & (y != 0)], y[keep & (y != 0)])
