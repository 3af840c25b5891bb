"""A function of the code or a math function given as an argument to a function of the code
(issue 51, frontend/static_calls.py `passed_function`, passes/specialize_calls.py): the callee's
copy specialized on it calls it, as Python does. Every case against the scalar function lane by
lane (tests/oracle.py) on hostile inputs, values and exceptions, on both backends; what is not
decided (a lambda, a builtin other than math's, `math.f` spelled as an attribute, a local
alias `fn = f`) is refused with
its position, never guessed."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import function_args as c
from vectorizer import VectorizeError, vectorize

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 45.0, 5e-324, -5e-324, 2.2e-308, 1e308, -1e308, 1e301,
                    np.nan, np.inf, -np.inf])
INTS = np.array([0, 1, -1, 7, -3, 2**31, 2**61, 2**62, 2**63 - 1, -(2**63), -(2**62)])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def compiled(f, backend):
    return vectorize(f, backend=backend, fallback="error")


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_and_code_functions_given_as_arguments(backend):
    grid = (HOSTILE[:, None], HOSTILE[None, :])
    for f in (c.atan1, c.atan1d, c.signed):
        check(compiled(f, backend), f, *grid)
    for f in (c.both, c.passed_on, c.maybe):
        check(compiled(f, backend), f, HOSTILE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_exceptions_of_the_function_given(backend):
    check(compiled(c.root, backend), c.root, HOSTILE)  # math.sqrt: ValueError on the first negative lane
    check(compiled(c.root, backend), c.root, np.abs(HOSTILE))
    with pytest.raises(OverflowError, match="too big to halve"):
        compiled(c.passed_on, backend)(np.array([1.0, 1e308]))
    check(compiled(c.counted, backend), c.counted, INTS)  # 3 * n past int64: Python's int, or refused


@pytest.mark.parametrize("f", [c.attribute_passed, c.builtin_passed, c.lambda_passed, c.aliased])
def test_what_is_not_decided_is_refused_with_its_position(f):
    with pytest.raises(VectorizeError) as info:
        compiled(f, "numpy")(HOSTILE)
    assert "function_args.py:" in str(info.value)
