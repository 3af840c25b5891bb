"""`try: e[abs(e) < 1e-3] = 0.0 ... except TypeError: <code for numbers>` (issue 51,
frontend/try_blocks.py `item_fallback`): a number has no item assignment, so on a number the
first statement raises TypeError (its value and index cannot raise first) and the handler runs;
the test `np.isscalar(e)` is decided per call from the argument's kind, in the vectorized
function and in callees. Values and exceptions against the scalar function lane by lane on
hostile inputs, on both backends; an index that may raise first is not rewritten (refused)."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import item_fallbacks as c
from vectorizer import VectorizeError, vectorize

HOSTILE = np.array([0.0, -0.0, 1e-3, -1e-3, 9.999e-4, 1.0, -1.0, 0.5, -3.0, 5e-324, 2.2e-308, 1e308, -1e308,
                    np.nan, np.inf, -np.inf])
INTS = np.array([0, 1, -1, 7, 2**62, 2**63 - 1, -(2**63)])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_assignment_into_a_number_runs_the_handler(backend):
    grid = (HOSTILE[:, None, None], HOSTILE[None, :, None], HOSTILE[None, None, :])
    check(compiled(c.enu2aer, backend), c.enu2aer, *grid)
    check(compiled(c.shifted, backend), c.shifted, HOSTILE[:, None], HOSTILE[None, :])
    check(compiled(c.guarded, backend), c.guarded, HOSTILE)
    check(compiled(c.guarded, backend), c.guarded, INTS)


def test_numpy_scalars_too():
    check(compiled(c.numpy_scalar, "numpy"), c.numpy_scalar, HOSTILE)


def test_an_index_that_may_raise_first_is_refused():
    with pytest.raises(VectorizeError) as info:
        compiled(c.raising_index, "numpy")(HOSTILE)
    assert "item_fallbacks.py:" in str(info.value)
