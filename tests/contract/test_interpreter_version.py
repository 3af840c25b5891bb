"""`(3, 8) <= sys.version_info < (3, 10)` and other comparisons of `sys.version_info` with tuples
(issue 51, frontend/static_calls.py): the version of the interpreter that runs the code is the
same for every lane and every call in the process, and the disk cache's key holds it
(core/cachekey.py), so the test is decided when the code is generated and only the branch it
takes is vectorized. Values and exceptions against the scalar function lane by lane on hostile
inputs, both backends; other reads of `sys` (an item, a number, sys.platform) are refused with
their position."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import interpreter_version as c
from vectorizer import VectorizeError, vectorize

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 5e-324, -5e-324, 2.2e-308, 1e308, -1e308, 1e-300,
                    np.nan, np.inf, -np.inf])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_version_tests_are_decided_now(backend):
    check(compiled(c.norm, backend), c.norm, HOSTILE[:, None], HOSTILE[None, :])  # ZeroDivisionError at (0, 0)
    check(compiled(c.norm, backend), c.norm, HOSTILE[:, None], np.array([2.0, -1e-300, np.nan])[None, :])
    check(compiled(c.branch, backend), c.branch, HOSTILE)


@pytest.mark.parametrize("f", [c.indexed, c.as_number, c.platform])
def test_other_reads_of_sys_are_refused(f):
    with pytest.raises(VectorizeError) as info:
        compiled(f, "numpy")(HOSTILE)
    assert "interpreter_version.py:" in str(info.value) and "sys." in str(info.value)
