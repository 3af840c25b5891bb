"""passes/one_d_stores.py, analysis/one_d_masks.py: boolean-mask reads and writes of one-element
arrays (`mon[E < 14] = E[E < 14] - 1`, `K = np.ones_like(y); K[:] = 2; K[mask] = 1`), as code
written for scalars and arrays alike has them (astronomia.calendar). Differential against the
scalar function lane by lane on `.tolist()` values, both backends, hostile floats and ints near
2**63, values and exceptions, NumPy's assignment casts (float into int truncates, the CPU's cast
for NaN and out of range; int into float rounds; anything into bool is its truth). What cannot be
reproduced (a masked read used otherwise, a shared array, NaN constants into ints) is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.core import numpy_ints

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 13.9, 14.0, 1e154, -1e155, 2451545.0, 2460000.5, 2299160.5])
INTS = np.array(SPECIAL_INTS + [3, -7, 13, 14, 15, 1000, 1900, 2000, 2024, 2100, -4], dtype=np.int64)


def _scalar_if_one(solution):
    if np.isscalar(solution):
        return solution
    return solution.item() if solution.size == 1 else solution


def leap(year, gregorian=True):
    year = np.atleast_1d(year).astype(np.int64)
    x = year % 4
    if gregorian:
        return _scalar_if_one((x == 0) & ((year % 100 != 0) | (year % 400 == 0)))
    return _scalar_if_one(x == 0)


def masked_shift(n):  # int64 arithmetic wraps near 2**63, as NumPy's
    n = np.atleast_1d(n)
    m = n * 3 - 13
    m[n < 14] = n[n < 14] - 1
    m[m > 2] = -m[m > 2] + 7
    return _scalar_if_one(m)


def k_idiom(year, n, gregorian=True):  # astronomia.calendar.day_of_year_to_cal's K
    year = np.atleast_1d(year)
    n = np.atleast_1d(n)
    K = np.ones_like(n)
    K[:] = 2.9  # a float constant into an int array truncates
    K[np.atleast_1d(leap(year, gregorian))] = 1
    mon = K + n
    mon[n < 32] = 1
    return _scalar_if_one(mon), _scalar_if_one(K * 10 + np.zeros_like(n) + np.full_like(n, 3))


def julian_k(year, n):  # the static flag False
    return k_idiom(year, n, False)


def float_into_int(n, x):  # NumPy's cast (CPU's for NaN, inf, out of range: core/numpy_ints.py)
    k = np.atleast_1d(n) * 2
    k[np.atleast_1d(x) > 0.0] = np.atleast_1d(x) * 2.0
    return _scalar_if_one(k)


def int_into_float(x, n):  # int64 into float64 rounds
    f = np.atleast_1d(x) * 1.0
    f[np.atleast_1d(n) > 0] = np.atleast_1d(n) + 1
    f[np.atleast_1d(n) == 2] = 7  # an int constant into a float array
    return _scalar_if_one(f)


def into_bool(x):  # anything into bool is its truth (NaN is True)
    b = np.atleast_1d(x) > 1.0
    b[np.atleast_1d(x) < 0.5] = np.atleast_1d(x)
    b[np.atleast_1d(x) == 3.0] = 0
    return _scalar_if_one(b)


def float_masked(x):
    y = np.atleast_1d(x)
    z = y * 0.5
    z[y > 1.0] = y[y > 1.0] / 3.0 - 1.0
    z[:] = z * 2.0
    return _scalar_if_one(z)


def value_raises_everywhere(x):  # Python evaluates the value on every lane, the mask after it
    y = np.atleast_1d(x) * 1.0
    y[np.atleast_1d(x) > 1e300] = math.sqrt(x)
    return _scalar_if_one(y)


def in_a_branch(x):
    y = np.atleast_1d(x) + 1.0
    if x > 2.0:
        y[y > 4.0] = 4.0
    return _scalar_if_one(y) + 1.0


def day_of_year(mon, day):  # astronomia's cal_to_day_of_year: an argument over several lines, inlined
    mon = np.atleast_1d(mon).astype(np.int64)
    day = np.atleast_1d(day).astype(np.int64)
    K = np.ones_like(mon)
    return _scalar_if_one(
        (275 * mon // 9)
        - (K * ((mon + 9) // 12))
        + day
        - 30
    )


def in_a_loop(x):  # a batched while loop: the store runs on the lanes still looping
    y = np.atleast_1d(x) + 1.0
    k = 0
    while x > 0.0 and k < 5:
        y[y > 2.0] = y[y > 2.0] * 0.5
        x = x - 100.0
        k += 1
    return _scalar_if_one(y)


def unpacked_copies(x, y):  # astronomia's `year, day = list(map(np.array, np.broadcast_arrays(...)))`
    year = np.atleast_1d(x)
    day = np.atleast_1d(0.0).astype(np.float64)
    year, day = list(map(np.array, np.broadcast_arrays(year, day)))
    fyear = year - year.astype(np.int64)  # astronomia: .astype("i") (int32: refused)
    mask = fyear > 0
    day[mask] = fyear[mask] * y
    year[mask] = 0.5
    return _scalar_if_one(year + day)


FLOAT_CASES = [float_masked, into_bool, value_raises_everywhere, in_a_branch, in_a_loop, unpacked_copies]
# Numba refuses NumPy's float-to-int cast where it has no one value for NaN, inf and out of range
# here (core/numpy_ints.py; tests/passes/test_numba_numpy_ints.py)
NUMPY_ONLY = {"float_into_int"} if numpy_ints.cast_constant("int64") is None else set()


def _run(f, backend, *args) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    if backend == "numba" and f.__name__ in NUMPY_ONLY:
        with pytest.raises(VectorizeError) as info:
            vf(*args)
        assert "Numba backend" in str(info.value), info.value
        return
    check(vf, f, *args)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", FLOAT_CASES, ids=lambda f: f.__name__)
def test_floats(f, backend) -> None:
    _run(f, backend, *[FLOATS, FLOATS[::-1]][:f.__code__.co_argcount])


@pytest.mark.parametrize("backend", BACKENDS)
def test_ints(backend) -> None:
    _run(masked_shift, backend, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [k_idiom, julian_k, day_of_year], ids=lambda f: f.__name__)
def test_k_idiom(f, backend) -> None:
    _run(f, backend, INTS, INTS[::-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_casts(backend) -> None:
    ints = np.resize(INTS, FLOATS.size)
    _run(float_into_int, backend, ints, FLOATS)
    _run(int_into_float, backend, FLOATS, ints)


def read_elsewhere(x):
    y = np.atleast_1d(x)
    return _scalar_if_one(y[y > 0.0] + 1.0)  # an empty array on some lanes


def other_mask(x):
    y = np.atleast_1d(x) + 1.0
    y[y > 0.0] = y[y > 1.0] - 1.0  # NumPy raises on shape mismatch on some lanes
    return _scalar_if_one(y)


def read_through_a_call(x):
    y = np.atleast_1d(x) + 1.0
    y[y > 0.0] = np.sum(y[y > 0.0])
    return _scalar_if_one(y)


def shared(x):
    y = np.atleast_1d(x) + 1.0
    z = y
    y[y > 0.0] = 0.0  # changes z too
    return _scalar_if_one(z)


def into_a_parameter_copy(x):
    y = np.atleast_1d(x)
    w = np.atleast_1d(y)  # the same array
    w[w > 0.0] = 0.0
    return _scalar_if_one(y)


def nan_into_int(n):
    k = np.atleast_1d(n) + 1
    k[k > 0] = math.nan  # NumPy raises ValueError
    return _scalar_if_one(k)


def python_float_into_int(n, x):
    k = np.atleast_1d(n) + 1
    k[k > 0] = x * 2.0  # a Python float: NumPy's int(x) conversion raises for NaN
    return _scalar_if_one(k)


def augmented(x):
    y = np.atleast_1d(x) + 1.0
    y[y > 2.0] -= 1.0
    return _scalar_if_one(y)


def unpacked_alias(x):
    y = np.atleast_1d(x) + 1.0
    p, q = np.array(y), y  # q is y's array
    q[q > 2.0] = 0.0  # changes y too
    return _scalar_if_one(y + p)


def int_index(x):
    y = np.atleast_1d(x) + 1.0
    y[0] = 2.0
    return _scalar_if_one(y)


@pytest.mark.parametrize("f", [read_elsewhere, other_mask, read_through_a_call, shared, into_a_parameter_copy,
                               nan_into_int, python_float_into_int, augmented, unpacked_alias, int_index],
                         ids=lambda f: f.__name__)
def test_refused(f) -> None:
    args = [FLOATS] * f.__code__.co_argcount
    if f.__code__.co_varnames[0] == "n":
        args[0] = np.resize(INTS, FLOATS.size)
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(*args)
    assert info.value.location is not None, info.value
    if f is augmented:
        assert "augmented assignment" in str(info.value), info.value
