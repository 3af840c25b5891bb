"""`operator.index(n)` (`from operator import index as _index`: CPython's pure-Python datetime;
issue 51, rules/calls.py): an int lane is itself, a bool lane its int; of a float it raises
TypeError on every lane, so it is refused where it is. Values and exceptions (the field checks'
ValueError, the int64 overflow of `n * 2`) against the scalar function lane by lane, on hostile
ints near 2**63 and bools, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import int_index as c
from vectorizer import VectorizeError, vectorize

YEARS = np.array([1, 2000, 1900, 2024, 9999, 0, -1, 10000, 2**62, 2**63 - 1, -(2**63)])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_of_ints_and_bools(backend):
    vf = compiled(c._check_date_fields, backend)
    check(vf, c._check_date_fields, YEARS[:, None, None], np.array([0, 1, 2, 12, 13])[None, :, None],
          np.array([0, 1, 28, 29, 31, 32])[None, None, :])
    check(vf, c._check_date_fields, np.array([2000, 2001, 2024, 2100]), np.array([2]), np.array([29]))
    check(vf, c._check_date_fields, np.array([True, False]), np.array([True]), np.array([True]))
    check(compiled(c.plain, backend), c.plain, YEARS)
    check(compiled(c.plain, backend), c.plain, np.array([True, False]))


def test_index_of_a_float_is_refused_with_its_position():
    with pytest.raises(VectorizeError) as info:
        compiled(c.of_a_float, "numpy")(np.array([1.0, 2.5]))
    assert "int_index.py:" in str(info.value) and "operator.index()" in str(info.value)
