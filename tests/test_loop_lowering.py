"""Loop lowerings that the golden fixtures cannot pin on both backends, checked against the
scalar function lane by lane (NumPy backend)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import floats

from vectorizer import vectorize


def first_above(x: float) -> float:
    # A literal tuple with a return inside: for_to_while reads its items as `a if k == 0 else ...`
    # (the Numba backend does not iterate literal tuples).
    for c in (0.5, 2, 1.5, 8.0):
        if x < c:
            return c - x
    return x


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(floats(), max_size=20))
def test_literal_tuple_loop_with_return(xs):
    check(vectorize(first_above, fallback="error"), first_above, np.array(xs, dtype=np.float64))
