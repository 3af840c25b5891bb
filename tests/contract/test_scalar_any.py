"""`(np.asarray(x) < 0).any()` and `.all()` of NumPy values of numbers (issue 51: the fence lets a
method of a comparison or a unary operation through to the analysis, which types the receiver;
passes/ops_to_lanes/calls.py lowers it on a lane, where the receiver is one number: whether it
is nonzero, NaN included). Values and exceptions against the scalar function lane by lane on
hostile inputs, on both backends; `.any()` of a Python bool is refused, as Python raises
AttributeError there."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import scalar_any as c
from vectorizer import VectorizeError, vectorize

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 45.0, 5e-324, -5e-324, 1e308, -1e308, np.nan, np.inf, -np.inf])
INTS = np.array([0, 1, -1, 7, 2**62, 2**63 - 1, -(2**63)])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_any_and_all_of_numpy_numbers(backend):
    grid = (HOSTILE[:, None, None], HOSTILE[None, :, None], HOSTILE[None, None, :])
    check(compiled(c.aer2enu, backend), c.aer2enu, *grid)  # ValueError on the first negative range
    check(compiled(c.aer2enu, backend), c.aer2enu, *grid[:2], np.abs(HOSTILE)[None, None, :])
    check(compiled(c.negated_all, backend), c.negated_all, HOSTILE)
    check(compiled(c.negated_all, backend), c.negated_all, INTS)
    check(compiled(c.both, backend), c.both, HOSTILE[:, None], HOSTILE[None, :])


def test_any_of_a_python_bool_is_refused():
    with pytest.raises((VectorizeError, AttributeError)):
        compiled(c.python_bool, "numpy")(HOSTILE)
