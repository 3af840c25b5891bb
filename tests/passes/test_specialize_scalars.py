"""A parameter given a Python scalar compiles wherever the same call with an array does (issue
49, row 11).

A Python `bool` given to a flag parameter and a Python `int` given as `round`'s `ndigits` are
specialized on (engine/statics.py): the parameter leaves the kernel and every read of it becomes
its value (passes/specialize.py). Two things made such a call refuse, with messages about the
user's code that were not true ("the name 'x' is not a local variable", "'x' is used before it is
assigned", "'f' takes no parameters"), where the same call with an array compiled:

* a read inside the side of `a if c else b`, or of `c and d`, that the specialization decided
  (`(x + k) if method == "a" else 0.0`) kept the parameter's name: the decided side replaced the
  whole expression without the replacements inside it;
* an int parameter was taken for `round`'s ndigits by a guess from the bytecode (any parameter
  passed last of two arguments, `max(y, n)`, in a function that calls `round` somewhere), also
  when the function rebinds it (`n += 1`, in a loop, in one branch), whose reads then lost track.

Each function here is called with the parameter as an array, then as a Python scalar (first
argument, second, both): every call the array form compiles must compile too
(`fallback="error"`) and give the scalar function's values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

TABLE = (1.0, 2.0, 3.0, 4.0, 5.0)


def helper(a, b):
    return a * b


def flag_inside_a_decided_choice(x, method="a", k=False):
    return (x + k) if method == "a" else 0.0


def flag_inside_a_decided_and(x, method="a", k=False):
    return method == "a" and (x > 0) == k


def ndigits_inside_a_decided_choice(y, n):
    return round(y, 2) + ((-(n | 100)) if True else 0) + max(y, n)


def last_of_two_arguments_then_augmented(y, n):
    z = round(max(y, n))
    n += 1
    return z + n


def last_of_two_arguments_rebound_in_a_loop(y, n):
    for _ in range(3):
        n = n * 2
    return round(y, 2) + max(y, n)


def last_of_two_arguments_rebound_in_a_branch(y, n):
    if y > 0:
        n = 0
    return round(y, 2) + max(y, n)


def every_argument_last_of_two(y, n):
    z = round(helper(n, y) * 1.5)
    return z + helper(y, n)


def range_bound_in_a_function_that_rounds(y, n):
    t = 0.0
    for i in range(n):
        t += round(y * i, 1) + max(y, n)
    return t


def table_index_in_a_function_that_rounds(y, n):
    return round(TABLE[n] * y, 3) + min(y, n)


def ndigits_read_elsewhere_too(y, n):
    return round(y, n) + n * 2 + max(y, n)


def ndigits_by_keyword(y, n):
    return round(y, ndigits=n) + math.copysign(1.0, n)


def flag_rebound_in_a_branch(x, k=False):
    if x > 0:
        k = True
    return x + k


def flag_augmented(x, k=False):
    k += 1
    return x + k


def flag_rebound_in_a_loop(x, k=False):
    for _ in range(3):
        k = not k
    return x + k


FUNCTIONS = [ndigits_inside_a_decided_choice, last_of_two_arguments_then_augmented,
             last_of_two_arguments_rebound_in_a_loop, last_of_two_arguments_rebound_in_a_branch,
             every_argument_last_of_two, range_bound_in_a_function_that_rounds, table_index_in_a_function_that_rounds,
             ndigits_read_elsewhere_too, ndigits_by_keyword]
Y = np.array([1.25, -2.5, 0.0, 3.0])
N = np.array([2, 2, 2, 2])


def compiles(f, *args) -> bool:
    try:
        vectorize(f, fallback="error")(*args)
    except Exception:  # noqa: BLE001 - a refusal, or the function's own exception: not compiled here
        return False
    return True


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_an_int_argument_compiles_where_an_int_array_does(f) -> None:
    calls = [(Y, 2), (2.5, 2), (3, 2), (3, N), (-1.5, 4)]
    if compiles(f, Y, N):  # the same function, with both as arrays
        calls.append((Y, 3))
    for y, n in calls:
        vf = vectorize(f, fallback="error")
        if f in (ndigits_read_elsewhere_too, ndigits_by_keyword) and np.ndim(n):
            continue  # a batched ndigits is refused, as documented (test_specialize.py)
        check(vf, f, y, n)
        if np.ndim(n) == 0 and np.ndim(y) == 0:
            assert np.ndim(vf(y, n)) == 0


@pytest.mark.parametrize("f", [flag_inside_a_decided_choice, flag_inside_a_decided_and], ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [True, False])
def test_a_bool_flag_compiles_where_a_bool_array_does(f, k) -> None:
    x = np.array([1.0, -2.0, 0.0, np.nan])
    assert compiles(f, x, "a", np.array([k] * 4))
    vf = vectorize(f, fallback="error")
    np.testing.assert_array_equal(vf(x, "a", k), [f(v, "a", k) for v in x.tolist()])
    np.testing.assert_array_equal(vf(x, "b", k), [f(v, "b", k) for v in x.tolist()])


@pytest.mark.parametrize("f", [flag_rebound_in_a_branch, flag_augmented, flag_rebound_in_a_loop], ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [True, False])
def test_a_rebound_bool_flag_is_an_ordinary_argument(f, k) -> None:
    x = np.array([1.0, -2.0, 0.0, np.nan])
    assert compiles(f, x, np.array([k] * 4))
    check(vectorize(f, fallback="error"), f, x, k)
    check(vectorize(f, fallback="error"), f, 1.5, k)
