"""A module-level sequence of numbers passed to a function of ANOTHER module (issue 51,
frontend/sequence_args.py): the callee's copy is specialized on it as a function of the
vectorized module is, and reads the other names of its own module (fluids' `horner(coeffs, x)`
with fittings' coefficient lists). Values and exceptions against the scalar function lane by
lane on hostile inputs, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import linked_sequences as c
from vectorizer import vectorize

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 45.0, 5e-324, -5e-324, 2.2e-308, 1e308, -1e308, 1e301,
                    np.nan, np.inf, -np.inf])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sequences_passed_to_another_module(backend):
    check(compiled(c.miller, backend), c.miller, HOSTILE[:, None], HOSTILE[None, :])  # ZeroDivisionError at 0
    check(compiled(c.two_fits, backend), c.two_fits, HOSTILE)
    check(compiled(c.two_fits, backend), c.two_fits, np.linspace(-3.0, 3.0, 61))
    check(compiled(c.fit_checked, backend), c.fit_checked, HOSTILE)  # OverflowError past 1e300
    check(compiled(c.fit_checked, backend), c.fit_checked, np.abs(HOSTILE[:6]))
