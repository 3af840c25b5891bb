"""`return None` (and `return None if c else e`) on some lanes (frontend/none_ends.py, issue 51):
every other lane is batched, and the first lane that gets None is refused at run time with a
VectorizeValueError naming the lane and the source line that returned it (engine/none_lines.py),
unless a lane raises first, as the loop raises. None flowing into a variable stays refused when
the code is generated. Both backends, against the scalar function lane by lane."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, VectorizeValueError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def odd_only(a: int, n: int) -> int:  # primefac.jacobi's guard
    if (n % 2 == 0) or (n < 0): return None  # noqa: E701
    return a % n


def either(x: float, y: float) -> float:
    if x > 0.0: return None if y < 0.0 else x * y  # noqa: E701
    return 1.0 / x if y > 1.0 else None  # ZeroDivisionError at x == 0.0 where y > 1.0


def nested(x: float) -> float:
    return None if x < 0.0 else (x + 1.0 if x < 10.0 else None)


def procedure(x: float) -> None:
    if x > 0.0:
        return None
    return


def calls_procedure(x: float) -> float:
    procedure(x)
    return x + 1.0


def maybe(x: float) -> float:
    if x > 1.0:
        return x - 1.0
    return None


def caller(x: float) -> float:
    return maybe(x) * 2.0  # TypeError from the re-run on the lanes that get None


def pair(x: float) -> tuple:
    if x < 0.0:
        return None
    return x, x * 2.0


def none_value(x: float) -> float:
    y = None if x > 0.0 else x
    return y


def uses_procedure(x: float) -> float:
    return procedure(x) + x


INTS_A = np.array([3, 10, -7, 2**62, -(2**63), 5, 0])
INTS_N = np.array([5, 7, 9, 2**63 - 1, 3, 1, 11])


@pytest.mark.parametrize("backend", BACKENDS)
def test_return_none_is_refused_at_run_time_on_the_first_lane_naming_the_line(backend):
    vf = vectorize(odd_only, backend=backend, fallback="error")
    check(vf, odd_only, INTS_A, INTS_N)  # no lane gets None: batched
    n = INTS_N.copy()
    n[3], n[5] = 4, -1
    check(vf, odd_only, INTS_A, n)  # the oracle: refused at lane (3,)
    with pytest.raises(VectorizeValueError, match=r"odd_only returned None on lane \(3,\)") as info:
        vf(INTS_A, n)
    assert "test_none_returns.py:21: `if (n % 2 == 0) or (n < 0): return None" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_none_in_a_conditional_expression(backend):
    vf = vectorize(either, backend=backend, fallback="error")
    check(vf, either, np.array([1.0, 2.5, -1.0, -0.5, math.inf]), np.array([2.0, 0.0, 2.0, 3.0, 1.0]))
    check(vf, either, np.array([1.0, 2.5, -1.0]), np.array([2.0, -0.0, 2.0]))  # None at lane 1
    check(vf, either, np.array([1.0, -1.0]), np.array([2.0, 0.5]))  # None at lane 1 (the else arm)
    check(vf, either, np.array([1.0, 2.0, 0.0, -2.0]), np.array([2.0, -1.0, 3.0, 1.0]))  # lane 2 raises first
    check(vf, either, np.array([math.nan, 1.0]), np.array([math.nan, 1.0]))  # nan: neither test holds: None
    with pytest.raises(VectorizeValueError, match=r"either returned None on lane \(1,\)") as info:
        vf(np.array([1.0, -1.0]), np.array([2.0, 0.5]))
    assert "`return 1.0 / x if y > 1.0 else None  # ZeroDivisionError" in str(info.value)
    vn = vectorize(nested, backend=backend, fallback="error")
    check(vn, nested, np.array([0.0, 9.5, -0.0, 5e-324]))
    check(vn, nested, np.array([0.0, 10.0, -1.0]))
    check(vn, nested, np.array([0.0, -1.0, 10.0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_callees_that_return_none(backend):
    check(vectorize(calls_procedure, backend=backend, fallback="error"), calls_procedure, np.array([1.0, -1.0, math.nan]))
    vc = vectorize(caller, backend=backend, fallback="error")
    check(vc, caller, np.array([2.0, 3.5, math.inf]))
    check(vc, caller, np.array([2.0, 0.5, 3.0]))  # TypeError from the re-run, as the loop raises


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_returning_a_tuple_or_none(backend):
    vf = vectorize(pair, backend=backend, fallback="error")
    check(vf, pair, np.array([1.0, 0.0, math.inf]))
    check(vf, pair, np.array([1.0, -1.0, 2.0]))


def test_none_into_a_variable_or_a_value_of_none_stays_refused_when_generated():
    with pytest.raises(VectorizeError, match="'None' is not a number"):
        vectorize(none_value, fallback="error")(np.array([1.0]))
    with pytest.raises(VectorizeError, match="'procedure' returns None"):
        vectorize(uses_procedure, fallback="error")(np.array([1.0]))
