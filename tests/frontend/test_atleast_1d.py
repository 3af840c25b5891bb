"""analysis/one_d.py, rules/array_one_d.py: code written for scalars and arrays alike
(`x = np.atleast_1d(x)`, `np.isscalar`, `.size`, `.item()`, `.astype(np.int64)`), and a callee's
kind checks decided per call from its arguments (np.isscalar of a one-element array is False, of
a number True). Differential against the scalar function lane by lane on both backends, hostile
floats (NaN, ±inf, -0.0, subnormals, huge) and ints near 2**63; values and exceptions. What a
one-element array does not do as its number (indexing, round(), being returned) is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core import numpy_ints
from vectorizer.core.numpy_kernels import differs_from_libm

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 1e154, -1e155, 2451545.0, 2460000.5])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000, 1900, 2000, 2024, 2100], dtype=np.int64)


def _scalar_if_one(solution):
    """Returns a scalar if array size is 1 (astronomia.util's)."""
    if np.isscalar(solution):
        return solution
    if solution.size == 1:
        return solution.item()
    return solution


def jcent(julian_day):
    julian_day = np.atleast_1d(julian_day)
    return _scalar_if_one((julian_day - 2451545.0) / 36525.0)


def uses_jcent(jd):
    t = jcent(jd)
    return (0.5 * t - 1.25) * t + 3.0


def scalar_passed_on(x):
    return _scalar_if_one(x * 2.0) + 1.0  # a number: np.isscalar is True, the number comes back


def easter_like(year):
    year = np.atleast_1d(year)
    a = year % 19
    b = year // 100
    c = year % 100
    h = (19 * a + b - b // 4 + 15) % 30
    tmp = h + c % 7 + 114
    return _scalar_if_one(tmp // 31), _scalar_if_one(tmp % 31 + 1)


def signs(deg, minute):
    deg = np.atleast_1d(deg)
    minute = np.atleast_1d(minute)
    result = abs(deg) + abs(minute) / 60.0
    if deg < 0 or minute < 0:
        result = -result
    return _scalar_if_one(result)


def elementwise(x):
    y = np.atleast_1d(x)
    z = np.sqrt(np.abs(y)) + y / 3.0
    return z.item() + len(y) + y.size + np.sum(z > 1.0) + bool(y)


def array_power(x):
    y = np.atleast_1d(x)
    return (np.abs(y) ** 2.5 + y ** 2).item()


def day_of_week(julian_day):
    julian_day = np.atleast_1d(julian_day)
    i = (julian_day + 1.5).astype(np.int64)
    return _scalar_if_one(i % 7)


def leap(year):
    year = np.atleast_1d(year).astype(np.int64)
    x = np.fmod(year, 4)
    y = np.fmod(year, 100)
    z = np.fmod(year, 400)
    return _scalar_if_one(np.logical_and(np.logical_not(x), np.logical_or(y, np.logical_not(z))))


def isscalar_of_parameter(x):
    if np.isscalar(x):
        return x * 2.0
    return np.sum(x)  # an array: not this function's lanes (the branch goes)


FLOAT_CASES = [jcent, uses_jcent, scalar_passed_on, signs, elementwise, array_power, day_of_week,
               isscalar_of_parameter]
INT_CASES = [jcent, easter_like, day_of_week, leap, elementwise]
# What the Numba backend refuses, clearly: np.sum of a bool, NumPy's array `**` kernel on this CPU
# where lane code cannot call NumPy's power loop (backends/numba/ufuncloops.py); NumPy's
# float-to-int cast and np.fmod of ints where core/numpy_ints.py's measurements fail (not here:
# tests/passes/test_numba_numpy_ints.py).
NUMBA_REFUSED = {"elementwise"} | ({"day_of_week"} if numpy_ints.cast_constant("int64") is None else set()) | (
    {"leap"} if numpy_ints.fmod_unavailable() else set()) | (
    {"array_power"} if differs_from_libm("power") and ufuncloops.unavailable("power") else set())


def _run(f, backend, *args) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    if backend == "numba" and f.__name__ in NUMBA_REFUSED:
        with pytest.raises(VectorizeError) as info:
            vf(*args)
        assert "Numba backend" in str(info.value), info.value  # refused with the reason
        return
    check(vf, f, *args)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", FLOAT_CASES, ids=lambda f: f.__name__)
def test_floats(f, backend) -> None:
    n = f.__code__.co_argcount
    _run(f, backend, *[FLOATS, FLOATS[::-1]][:n])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", INT_CASES, ids=lambda f: f.__name__)
def test_ints(f, backend) -> None:
    _run(f, backend, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [jcent, day_of_week, leap], ids=lambda f: f.__name__)
def test_bools(f, backend) -> None:
    _run(f, backend, np.array([True, False, True]))


def returns_the_array(x):
    return np.atleast_1d(x) * 2.0


def indexes_it(x):
    y = np.atleast_1d(x)
    return y[0] + 1.0


def rounds_it(x):
    return round(np.atleast_1d(x))


def floats_it(x):
    return float(np.atleast_1d(x)) + math.sin(np.atleast_1d(x))  # NumPy 2: TypeError on every lane


def int32_cast(x):
    return np.atleast_1d(x).astype("i").item()


def _kind(v):
    if isinstance(v, float):
        return 1.0
    return 2.0


def isinstance_of_it(x):
    return _kind(np.atleast_1d(x))


def one_path_only(x):
    y = x
    if x > 0:
        y = np.atleast_1d(x)
    return _scalar_if_one(y)


def item_of_a_number(x):
    return (x * 2.0).item()


def np_item(x):
    return np.item(np.atleast_1d(x))


@pytest.mark.parametrize("f", [returns_the_array, indexes_it, rounds_it, floats_it, int32_cast, isinstance_of_it, one_path_only,
                               item_of_a_number, np_item], ids=lambda f: f.__name__)
def test_what_a_one_element_array_is_not_is_refused(f) -> None:
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(FLOATS)
    assert info.value.location is not None, info.value
