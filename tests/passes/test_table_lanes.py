"""passes/table_lanes.py: the lanes' refusals of what they cannot do with uniform tables, at the
user's line and column; supported code passes through unchanged (ops_to_lanes lowers it)."""

from __future__ import annotations

import numpy as np
import pytest
from contract_cases import tables as T
from passcase import F, I, after

from vectorizer import VectorizeError
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import differs_from_libm

N = np.array([1.5, -2.0, 0.25])


def supported(s):
    n = N
    return np.sum(n * (s - 1.0) ** T.I3) + len(N)


def local(s):
    t = N * s
    return np.sum(t)


def largest(s):
    return np.max(N * s)


def indexed(i):
    return N[i] * 2.0


# Where NumPy runs its own power kernel (AVX-512) and its loop cannot be called from lane code
# (backends/numba/ufuncloops.py), lane code cannot give NumPy's bits for `**` of a table: the Numba
# backend refuses it there and the NumPy backend runs it (issue 49 row 17).
LOOP = ufuncloops.unavailable("power", stepped=True)
OWN_POWER = differs_from_libm("power") and bool(LOOP)


def test_supported_code_is_unchanged() -> None:
    if OWN_POWER:
        with pytest.raises(VectorizeError, match="NumPy's own power kernel on this CPU gives other last bits"):
            after("table_lanes", supported, lanes=True, s=F)
        return
    text = after("table_lanes", supported, lanes=True, s=F)
    assert "return np.sum(n * (s - 1.0) ** T_I3) + len(N)" in text  # T.I3 linked (frontend/linking.py)


def test_lowered_by_ops_to_lanes() -> None:
    if OWN_POWER:
        with pytest.raises(VectorizeError, match="NumPy's own power kernel on this CPU gives other last bits"):
            after("ops_to_lanes", supported, lanes=True, s=F)
        return
    text = after("ops_to_lanes", supported, lanes=True, s=F)
    assert "_vz_table_sum(n, s - 1.0, T_I3) + 3" in text and "_vz_pairwise_sum(out, 0, 3)" in text
    if not LOOP:  # NumPy's own loop, called as on an array exponent (every step 8)
        assert "_vz_ufunc_stepped_power(p1, float(p2[k]))" in text
    else:
        assert "_vz_libm_pow(p1, float(p2[k]))" in text  # C's pow, as NumPy's float power calls it


@pytest.mark.parametrize(("f", "column", "words"), [(local, 9, "array-valued expression"),
                                                   (largest, 12, "np.max of an array")])
def test_refused_at_the_array(f, column: int, words: str) -> None:
    with pytest.raises(VectorizeError, match=words) as info:
        after("table_lanes", f, lanes=True, s=F)
    assert "test_table_lanes.py:" in str(info.value) and f":{column}:" in str(info.value), str(info.value)


def test_indexing_a_table_is_refused_by_the_fence() -> None:
    """Both backends: a table is read whole (a tuple is the way to index), with the location."""
    with pytest.raises(VectorizeError, match="indexing is only supported on module-level tuples") as info:
        after("table_lanes", indexed, lanes=True, i=I)
    assert "test_table_lanes.py:" in str(info.value)
