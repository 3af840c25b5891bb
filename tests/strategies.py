"""Hypothesis strategies for hostile inputs: NaN, +-inf, -0.0, subnormals, huge values, ints near
the ends of int64, and values next to the constants a kernel compares against."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

SPECIAL_FLOATS = [
    0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5,
    709.78, 709.79, 710.47, 710.48, 1 - 2**-53, -(1 - 2**-53), 2.0**53, 2.0**53 + 2, 2.0**63, -(2.0**63),
]
SPECIAL_INTS = [0, 1, -1, 2, -2, 2**31, -(2**31), 2**53, 2**53 + 1, -(2**53) - 1, 2**62, 2**63 - 1, -(2**63), -(2**63) + 1]


def floats(lo: float | None = None, hi: float | None = None) -> st.SearchStrategy[float]:
    if lo is None:
        return st.one_of(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                         st.sampled_from(SPECIAL_FLOATS))
    return st.one_of(st.floats(lo, hi), st.sampled_from([v for v in SPECIAL_FLOATS if lo <= v <= hi] or [lo]))


def ints(lo: int = -(2**63), hi: int = 2**63 - 1) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(lo, hi), st.sampled_from([v for v in SPECIAL_INTS if lo <= v <= hi] or [lo]))


def arrays(elements: st.SearchStrategy, dtype=np.float64, min_size: int = 0, max_size: int = 24):
    return st.lists(elements, min_size=min_size, max_size=max_size).map(lambda xs: np.array(xs, dtype=dtype))


def near(*constants: float) -> st.SearchStrategy[float]:
    """Floats at and next to the constants a kernel branches on."""
    values = []
    for c in constants:
        values += [c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf)]
    return st.sampled_from(values)
