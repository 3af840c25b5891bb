"""frontend/astype_calls.py's np.int64(x) -> np.int64(int(x)) and rules/array_numbers.py's
np.int64 of an int: NumPy's conversion, with its exceptions (ValueError for NaN, OverflowError
for infinities and values beyond int64, of a Python float) and its value of a NumPy float (the
CPU's cast: NaN is -2**63), by flag and patch. Differential against the scalar function lane by
lane on both backends, hostile floats and ints near 2**63; values and exceptions."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.7, -7.25, 1e18, -9.3e18, 9.3e18])
FINITE = FLOATS[np.isfinite(FLOATS) & (np.abs(FLOATS) < 9e18)]
INTS = np.array(SPECIAL_INTS + [3, -7, 1000], dtype=np.int64)


def truncates(x):
    return np.int64(x) % 7 - 3


def wraps(n):
    return np.int64(n) * np.int64(4) + 1  # NumPy's int64 wraps (with a warning), no error


def of_a_numpy_float(x):
    y = np.float64(x) * 2.0
    return np.int64(y) // 3  # NaN and values out of range: the CPU's cast, no error


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("values", ["floats", "finite", "ints", "bools"])
@pytest.mark.parametrize("f", [truncates, wraps, of_a_numpy_float], ids=lambda f: f.__name__)
def test_int64_is_numpy_s(f, values, backend) -> None:
    arg = {"floats": FLOATS, "finite": FINITE, "ints": INTS, "bools": np.array([True, False])}[values]
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, arg)


def of_an_array(x):
    return np.int64(np.atleast_1d(x)).item()


def with_a_keyword(x):
    return np.int64(x=x)


@pytest.mark.parametrize("f", [of_an_array, with_a_keyword], ids=lambda f: f.__name__)
def test_refused(f) -> None:
    with pytest.raises(VectorizeError):
        vectorize(f, fallback="error")(FLOATS)
