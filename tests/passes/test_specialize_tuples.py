"""passes/specialize.py: a parameter given a tuple of numbers (passed, or left at its default
tuple) is a table the code is generated for, as a module-level tuple is: `for p in tb`, `tb[i]`
(IndexError where Python raises it), `a, b, c = tb`; each tuple its own specialization. primefac's
`isprime(n, tb=(3, 5, 7, ...))` trial division. Differential against the scalar function lane by
lane (oracle.check: values and exceptions) on both backends, hostile ints and floats."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [3.0, 15.0, 49.0, -21.0])
INTS = np.array(SPECIAL_INTS + [3, 5, 9, 15, 25, 49, 77, 221, -35, 1000], dtype=np.int64)


def trial_division(n, tb=(3, 5, 7, 11, 13)):
    if n % 2 == 0 or n < 3:
        return n == 2
    for p in tb:
        if n % p == 0:
            return n == p
    return True


def weighted(x, w=(0.5, -0.0, float("nan"), 2.0, -1e308)):
    s = 0.0
    for c in w:
        s = s * x + c
    return s


def items(x, i, t=(1.5, -2.0, 4.0)):
    a, b, c = t
    return t[i] * x + a - b * c


def flags(x, t=(True, False, True)):
    k = 0
    for f in t:
        if f:
            k += 1
    return x + k


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("values", ["ints", "floats"])
def test_loop_over_a_default_tuple(values, backend) -> None:
    arg = INTS if values == "ints" else FLOATS
    check(vectorize(trial_division, fallback="error", backend=backend), trial_division, arg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_passed_tuple_is_its_own_specialization(backend) -> None:
    vf = vectorize(trial_division, fallback="error", backend=backend)
    for tb in ((3,), (3, 5, 7, 11, 13, 17, 19, 23), (-3, 0)):
        check(lambda n, tb=tb: vf(n, tb=tb), lambda n, tb=tb: trial_division(n, tb), INTS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_items_nan_and_signed_zero(backend) -> None:
    check(vectorize(weighted, fallback="error", backend=backend), weighted, FLOATS)
    check(vectorize(weighted, fallback="error", backend=backend), weighted, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_items_and_unpacking(backend) -> None:
    x, i = np.meshgrid(FLOATS, np.array([0, 1, 2, -1, -3]))
    check(vectorize(items, fallback="error", backend=backend), items, x, i)
    check(vectorize(items, fallback="error", backend=backend), items, FLOATS, np.array([3]))  # IndexError


@pytest.mark.parametrize("backend", BACKENDS)
def test_bools(backend) -> None:
    check(vectorize(flags, fallback="error", backend=backend), flags, INTS)


def passed_on(n, tb=(3, 5)):
    return trial_division(n, tb)


def test_passed_on_is_refused() -> None:
    with pytest.raises(VectorizeError, match="passed on to trial_division"):
        vectorize(passed_on, fallback="error")(INTS)
