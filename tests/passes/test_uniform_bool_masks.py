"""A uniform truth value meeting a batched mask (issue 49, row 10; ops_to_numpy/choices.py).

`v not in (4, 6, 9, -11) or x == x` with `v` the same for every lane picks the uniform left side
when it is true: the whole `or` is then that one value for every lane, else the batched right
side. A comparison of Python ints (a local `v = 5`, a module constant) is Python's `True`, and
the mask's complement `~m` of a later branch is then -2, an int: `flag |= ~m & (x == 0)` raised
"Cannot cast ufunc 'bitwise_or' output from int64 to bool" (VEC-BUG), and `not c` returned -2 or
-1 (true) where Python returns False. Each form here, uniform side first and second, and/or/not,
in/not in, is checked against the scalar function on both backends; the engine must not fall
back (`oracle.check` turns the VEC-BUG warning into a failure).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

TABLE = (4, 6, 9, -11)


def or_uniform_first_guards_a_division(x: float, n: int) -> float:
    v = 5
    if v not in (4, 6, 9, -11) or x == x:
        return 1.0
    return 1 / x


def or_uniform_second_guards_a_division(x: float, n: int) -> float:
    v = 5
    if x == x or v not in (4, 6, 9, -11):
        return 1.0
    return 1 / x


def and_uniform_first_false(x: float, n: int) -> float:
    v = 5
    if v in (4, 6) and x > 0:
        return 2.0
    return 1 / x


def and_uniform_first_true(x: float, n: int) -> float:
    v = 4
    if v in (4, 6) and x > 0:
        return 2.0
    return 1 / x


def and_uniform_second(x: float, n: int) -> float:
    v = 5
    if x > 0 and v in (4, 6):
        return 2.0
    return 1 / x


def or_negated(x: float, n: int) -> bool:
    v = 5
    c = v not in (4, 6, 9, -11) or x > 0
    return not c


def and_negated(x: float, n: int) -> bool:
    v = 9
    c = v not in TABLE and x > 0
    return not c


def and_negated_uniform_second(x: float, n: int) -> bool:
    v = 9
    c = x > 0 and v not in TABLE
    return not c


def not_in_parentheses_negated(x: float, n: int) -> bool:
    v = 5
    c = not (v in (4, 6)) or x > 0  # noqa: E713 - the `not` form, as written
    return not c


def picked_by_a_uniform_test(x: float, n: int) -> bool:
    v = 5
    c = (v > 3) if n > 0 else (x > 0)
    return not c


def nested_and_of_ors(x: float, n: int) -> int:
    v = 6
    if (v in (4, 6) or x > 0) and (v not in (4, 6) or x < 0):
        return 1
    return 2 + int(1 // x) if x == x and x != 0 and abs(x) < 1e300 else 3


def uniform_parameter(x: float, n: int) -> bool:
    c = n not in (4, 6, 9, -11) or x == x
    return not c


def loop_variable(x: float, n: int) -> float:
    t = 0.0
    for v in range(3, 7):
        if v not in (4, 6) or x > 0:
            t += 1.0
        else:
            t += 1 / x
    return t


def while_test(x: float, n: int) -> int:
    v, k = 4, 0
    while k < 5 and (v not in (4, 6) or x > k):
        k += 1
    return k


def python_bool_from_a_call(x: float, n: int) -> bool:
    v = 5.0
    c = math.isinf(v) and x > 0
    return not c


def int_picked_where_batched_then_overflows(x: float, n: int) -> int:
    """The same class with an int: Python's 2**62 * 4 never wraps, so the int64 checks missed it
    and the result raised a raw OverflowError instead of the contract's VectorizeOverflowError."""
    v = 2**62
    c = v or int(x > 0)
    return c * 4


FORMS = [or_uniform_first_guards_a_division, or_uniform_second_guards_a_division, and_uniform_first_false,
         and_uniform_first_true, and_uniform_second, or_negated, and_negated, and_negated_uniform_second,
         not_in_parentheses_negated, picked_by_a_uniform_test, nested_and_of_ors, uniform_parameter,
         loop_variable, while_test, python_bool_from_a_call, int_picked_where_batched_then_overflows]
X = np.array([0.0, 1.0, -2.5, np.nan, np.inf, -0.0, 3.0])


@pytest.fixture(params=["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def backend(request) -> str:
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_a_uniform_truth_value_in_a_batched_and_or(f, backend) -> None:
    vf = vectorize(f, backend=backend, fallback="error")
    for n in (0, 4, 5):
        check(vf, f, X, n)
        check(vf, f, X[X != 0], n)  # no lane raises: the values themselves
    assert vf.backend == backend
