"""`x in (3, 5)` with any left operand (frontend/memberships.py, desugar.py; issue 51): a cheap
pure left operand is written once an item, any other is bound to a variable first, in Python's
order; `not in`, set and frozenset displays, module-level tuples and frozensets; NaN constants
stay refused. Both backends, against the scalar function lane by lane, values and exceptions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
SMALL = (1, 4, 9)
EVENS = frozenset({0, 2, 4, 6})
NANS = (1.0, float("nan"))


def jacobi(a: int, n: int) -> int:  # primefac's idiom: `n & 7 in (3, 5)` is `(n & 7) in (3, 5)`
    if (n % 2 == 0) or (n < 0):
        return 0
    if (a == 0) or (a == 1):
        return a
    a, t = a % n, 1
    while a != 0:
        while not a & 1:
            a //= 2
            if n & 7 in (3, 5):
                t *= -1
        a, n = n, a
        if (a & 3 == 3) and (n & 3) == 3:
            t *= -1
        a %= n
    return t if n == 1 else 0


def arithmetic_left(x: float, k: int) -> float:
    if x * 2.0 not in {2.0, 8.0}:  # a set display: `in` tests equality, as the hash does for numbers
        x = x + 1.0
    if -k in SMALL:  # a unary operator, a module-level tuple
        x = x * 3.0
    if k % 7 in EVENS or k // 3 in [1, 2]:  # a module-level frozenset, a list display
        x = x - 0.5
    while k * 2 in (2, 4, 6):  # a cheap left operand in a while test: written once an item
        k = k + 1
    return x + k


def g(x: float) -> float:
    return 1.0 / x  # ZeroDivisionError at 0.0


def called_left(x: float, y: float) -> float:
    if g(x) not in (1.0, 0.5):  # bound first: g runs once a lane, before the comparison
        return x
    found = int(y) in frozenset((1, 2, 3))  # int(nan) raises ValueError, int(inf) OverflowError
    return y + found


def under_and(x: float, y: float) -> float:
    if y > 0.0 and g(x) in (0.25, 0.5):  # g runs only where y > 0.0, as Python runs it
        return 1.0
    return math.floor(x) in SMALL or x  # `or` gives the operand Python gives


def big_left(n: int) -> int:
    if n * 4 in (4611686018427387904, 8):  # 2**62; n * 4 overflows int64 for large n: Python's int is exact
        return 1
    return 0


def nan_table(x: float) -> float:
    return 1.0 if x in NANS else 0.0  # nan is found by identity in a tuple: refused


INTS = np.array([0, 1, 2, 3, -3, 7, 15, 21, 2**62, -(2**62), 2**63 - 1, -(2**63), 9])
FLOATS = np.array([0.5, 1.0, 4.0, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, 2.0, 3.5, 8.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_jacobi_like_membership_of_a_bitwise_and(backend):
    a = np.concatenate([np.arange(-20, 40), [2**62, -(2**62), 2**63 - 1]])
    n = np.concatenate([np.arange(-9, 111, 2), [3, 2**61 + 1, 2**63 - 1]])
    check(vectorize(jacobi, backend=backend, fallback="error"), jacobi, a, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arithmetic_left_operands_with_hostile_values(backend):
    vf = vectorize(arithmetic_left, backend=backend, fallback="error")
    ks = np.array([1, -4, 3, 6, 0, 2, -9, 14, 3, 1, 5, 2**40, -1])
    check(vf, arithmetic_left, FLOATS, ks)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_left_operand_that_calls_is_evaluated_once_in_order(backend):
    vf = vectorize(called_left, backend=backend, fallback="error")
    ys = np.array([1.0, 2.0, 3.0, 0.0, -1.0, 2.5, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0])
    check(vf, called_left, np.array([2.0, 3.0, 1.0, 0.5, 4.0, 1.0, 1.0]), ys[:7])  # values
    check(vf, called_left, FLOATS, ys)  # ZeroDivisionError at lane 3 (-0.0), as the loop raises
    check(vf, called_left, np.array([1.0, 2.0]), np.array([2.0, math.nan]))  # ValueError from int(nan)
    check(vf, called_left, np.array([1.0, 2.0]), np.array([math.inf, 1.0]))  # OverflowError from int(inf)


@pytest.mark.parametrize("backend", BACKENDS)
def test_membership_under_and_or(backend):
    vf = vectorize(under_and, backend=backend, fallback="error")
    check(vf, under_and, np.array([4.0, 2.0, 0.0, 9.5, 1.0, 4.0]), np.array([1.0, 1.0, -1.0, 0.0, 2.0, -2.0]))
    check(vf, under_and, np.array([4.0, 0.0]), np.array([1.0, 1.0]))  # g(0.0) raises on lane 1
    check(vf, under_and, np.array([math.nan, 1.0]), np.array([-1.0, -1.0]))  # floor(nan) raises ValueError


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_left_operand_that_overflows_int64(backend):
    check(vectorize(big_left, backend=backend, fallback="error"), big_left, np.array([2, 2**60, 2**61, 2**62, -3, 1]))


def test_nan_constants_stay_refused():
    with pytest.raises(VectorizeError, match="'in' comparison"):
        vectorize(nan_table, fallback="error")(np.array([1.0, math.nan]))


def test_a_left_operand_that_calls_is_bound_once_not_written_again():
    vf = vectorize(called_left, backend="numpy", fallback="error")
    vf(np.array([1.0]), np.array([1.0]))
    code = [line for line in vf.source.splitlines() if not line.lstrip().startswith("#")]
    assert sum("1.0 / x" in line for line in code) == 1, vf.source  # g inlined once
    assert sum("np.trunc(y)" in line for line in code) == 1, vf.source  # int(y) once
