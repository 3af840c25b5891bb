"""`x is G` / `x is not G` with G any object a module binds (issue 51; frontend/static_checks.py
`fresh`, analysis/lane_args.py): a float argument's lane is a float made for the call (the
oracle's `.item()`), never an object that existed before it, so the test is False (`is not`:
True), in the vectorized function and in the callees it passes that argument to by name. Values
and exceptions against the scalar function lane by lane on hostile inputs, on both backends;
what is not decided (an int lane, a reassigned or computed value, a global passed, a defaulted
parameter, a local of G's name) is refused with its position, never guessed."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import identity as c
from vectorizer import VectorizeError, vectorize

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -3.0, 5e-324, -5e-324, 2.2e-308, 1e308, -1e308,
                    np.nan, -np.nan, np.inf, -np.inf])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_lane_is_no_module_object(backend):
    for f in (c.acos1, c.asin1, c.keyword_chain):
        check(compiled(f, backend), f, HOSTILE)
    check(compiled(c.direct, backend), c.direct, HOSTILE[:, None], HOSTILE[None, :])  # ZeroDivisionError lanes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args", [
    (c.reassigned, (HOSTILE,)), (c.expression, (HOSTILE,)), (c.global_passed, (HOSTILE,)),
    (c.ints, (np.array([0, 1, 2, 2**63 - 1]),)), (c.defaulted, (HOSTILE,)), (c.defaulted, (HOSTILE, HOSTILE)), (c.defaulted_callee, (HOSTILE,)),
    (c.local_named, (HOSTILE,)),
])
def test_what_is_not_decided_is_refused_with_its_position(backend, f, args):
    with pytest.raises(VectorizeError) as info:
        compiled(f, backend)(*args)
    assert "identity.py:" in str(info.value)
