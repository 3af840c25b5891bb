"""min/max as one NumPy ufunc where it is Python's min/max bit for bit (ops_to_numpy,
`choices.min_max_ufunc`): ints, and floats against a constant other than 0.0 and NaN.

Checked against the scalar oracle on hostile floats (NaN first or second, -0.0 and 0.0, +-inf,
subnormals, ties with the constant) and ints near 2**63, and on the generated source: the
constant 0.0 keeps the compare and select (NumPy's SIMD and scalar loops choose differently
between -0.0 and 0.0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.core.types import FLOAT, INT, Val
from vectorizer.passes.ops_to_numpy.choices import min_max_ufunc


def clamp_unit(x: float) -> float:
    return min(max(x, -1.0), 1.0)


def constant_first(x: float) -> float:
    return max(2.5, min(-0.5, x) * 4.0)


def three_items(x: float, y: float) -> float:
    return min(x, 1.5, y)  # the running min of x and 1.5 may be NaN: no fmin for y after it


def zero_bound(x: float) -> float:
    return max(x, 0.0) + min(x, -0.0)


def ints(n: int, k: int) -> int:
    return max(min(n, k), -7) - min(3, n)


def _hostile(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    special = np.array([0.0, -0.0, 1.0, -1.0, 1.5, 2.5, -0.5, math.nan, -math.nan, math.inf, -math.inf,
                        5e-324, -5e-324, 1e308, np.nextafter(1.0, 2.0), np.nextafter(-1.0, -2.0)])
    return np.where(rng.random(size) < 0.6, rng.choice(special, size), rng.normal(0.0, 2.0, size))


@pytest.mark.parametrize("fn", [clamp_unit, constant_first, zero_bound])
def test_values_match_the_scalar_function_bit_for_bit(fn):
    vf = vectorize(fn)
    for size in (50, 5000):  # under and over runtime.where's bit-select threshold
        check(vf, fn, _hostile(size, size))


def test_three_items_and_ints():
    check(vectorize(three_items), three_items, _hostile(5000, 1), _hostile(5000, 2))
    big = np.array([0, 3, -7, -8, 2**63 - 1, -(2**63), 5, 2], dtype=np.int64)
    check(vectorize(ints), ints, big, big[::-1].copy())


def _source(fn, *args) -> str:
    vf = vectorize(fn, backend="numpy")
    vf(*args)
    return vf.source


def test_which_min_max_become_ufuncs():
    x = _hostile(100, 3)
    assert "np.maximum(x, -1.0)" in _source(clamp_unit, x) and "np.minimum(" in _source(clamp_unit, x)
    assert "np.fmax(2.5," in _source(constant_first, x) and "np.fmin(-0.5, x)" in _source(constant_first, x)
    zero = _source(zero_bound, x)
    assert "np.maximum" not in zero and "np.minimum" not in zero
    three = _source(three_items, x, x)
    assert "np.minimum(x, 1.5)" in three and "np.fmin" not in three
    f, k, i = Val(FLOAT, True), Val(FLOAT, False, 2.0), Val(INT, True)
    assert min_max_ufunc("min", f, k, FLOAT) == "np.minimum" and min_max_ufunc("max", k, f, FLOAT) == "np.fmax"
    assert min_max_ufunc("min", f, Val(FLOAT, False, math.nan), FLOAT) is None
    assert min_max_ufunc("min", f, f, FLOAT) is None and min_max_ufunc("max", i, i, INT) == "np.maximum"
    assert min_max_ufunc("max", i, k, FLOAT) is None  # an int against a float: compare and select
