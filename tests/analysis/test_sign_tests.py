"""Signs under tests (analysis/signs.py, `Env`): `exp(-x if x > 0.0 else x)` cannot overflow.

share_branch_math turns the numerically stable forms (softplus, the logistic function) into one
call on a selected operand, `arg = -x if c else x` with `c = x > 0.0`; each arm's sign follows
from the test, so exp's overflow check goes. The analysis's answers are checked against Python
on hostile values, the functions that lose the check against the scalar oracle, and the ones
whose arms have the other sign (or whose tested name is bound again) must still raise.
"""

from __future__ import annotations

import math
import textwrap

import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings
from oracle import check, libm_ulps
from strategies import floats

from vectorizer import vectorize
from vectorizer.analysis.signs import NONNEG, NONPOS, sign, sign_env

from .test_signs import _backends, _call_name, has_sign


def _function(body: str) -> cst.FunctionDef:
    return cst.parse_module(f"def f(x, y):\n{textwrap.indent(textwrap.dedent(body), '    ')}").body[0]  # type: ignore[return-value]


def _sign_of_arg(body: str) -> int | None:
    func = _function(body)
    env = sign_env(func, ["x", "y"])
    value = env.values.get("arg")
    return None if value is None else sign(value, _call_name, env)


UNDER_TESTS = {  # a body binding `arg` -> the sign the analysis gives it
    "c = x > 0.0\narg = -x if c else x": NONPOS,
    "arg = -x if x > 0.0 else x": NONPOS,
    "arg = x if x > 0.0 else -x": NONNEG,
    "arg = -x if 0.0 < x else x": NONPOS,
    "arg = -x if x >= 0 else x": NONPOS,
    "arg = x if x < 0.0 else -x": NONPOS,
    "c = x <= 0.0\narg = x if c else -x": NONPOS,
    "arg = -x if not x <= 0.0 else x": NONPOS,
    "arg = -x * x * x if x > 0.0 else x * x * x": NONPOS,
    "arg = -x if x == 0.0 else -x * x": NONPOS,
    "c = x > 0.0\nt = -x\narg = t if c else x": NONPOS,
    # the test tells nothing that fixes the arms' signs: no answer
    "arg = -x if x > -1.0 else x": None,
    "arg = x if x > 0.0 else -x - 3.0": None,
    "arg = -y if x > 0.0 else y": None,
    "arg = -x if x != 0.0 else x": None,
    "arg = -x if x > y else x": None,
    "arg = -x if 0.0 < x < 1.0 else x": None,
    # x is bound again: a test of it may describe another value
    "c = x > 0.0\nx = 2.0 - x\narg = -x if c else x": None,
    "arg = -x if x > 0.0 else x\nx += 1.0": None,
    "for i in range(2):\n    c = x > 0.0\narg = -x if c else x": None,
    "c = x > 0.0\nc = x < 0.0\narg = -x if c else x": None,
    "(x, z) = (y, y)\narg = -x if x > 0.0 else x": None,
}


@pytest.mark.parametrize("body", sorted(UNDER_TESTS))
def test_signs_under_tests(body: str) -> None:
    assert _sign_of_arg(body) == UNDER_TESTS[body]


@settings(max_examples=300, deadline=None)
@given(floats(), floats())
def test_every_answer_holds_on_hostile_values(x: float, y: float) -> None:
    for body in UNDER_TESTS:
        want = _sign_of_arg(body)  # the analysis's own answer, not the table's
        if want is None:
            continue
        namespace: dict[str, object] = {"x": x, "y": y}
        exec(textwrap.dedent(body), {}, namespace)  # noqa: S102 - our own table of statements
        value = namespace["arg"]
        assert has_sign(value, want), (body, x, y, value)  # type: ignore[arg-type]


# -- the functions that lose the check, and those that must keep it ------------------------------
def softplus(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def logistic(x: float) -> float:
    if x >= 0.0:
        z = math.exp(-x)
        return 1.0 / (1.0 + z)
    z = math.exp(x)
    return z / (1.0 + z)


def arms_swapped(x: float) -> float:  # exp of |x|: overflows from |x| > 709.78
    if x > 0.0:
        return math.log1p(math.exp(x))
    return math.log1p(math.exp(-x))


def moved_after_test(x: float) -> float:  # the test describes x before it is moved
    c = x > 0.0
    x = x - 1000.0
    if c:
        return math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def below_a_negative_edge(x: float) -> float:  # x > -800 says nothing of -x's sign
    if x > -800.0:
        return math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


HOSTILE = np.array([0.0, -0.0, 1.5, -2.5, 709.7, 709.8, -709.8, 745.2, -745.2, 1000.0, -1000.0, 1e308, -1e308,
                    5e-324, -5e-324, np.inf, -np.inf, np.nan])


def _ulps(backend: str, f, x: np.ndarray) -> int:
    """0 on Numba (the C library's exp and log1p, as CPython's); on NumPy a bound derived for f
    from rules.ULP_BOUND on each exp and log1p (oracle.libm_ulps)."""
    return 0 if backend == "numba" else libm_ulps(f, x, names=("exp", "log1p"))


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("f", [softplus, logistic])
def test_values_against_the_oracle(f, backend: str) -> None:
    check(vectorize(f, backend=backend), f, HOSTILE, ulps=_ulps(backend, f, HOSTILE))


@settings(max_examples=60, deadline=None)
@given(floats())
def test_hypothesis_softplus_and_logistic(x: float) -> None:
    a = np.array([x, -x])
    for f in (softplus, logistic):
        check(vectorize(f), f, a, ulps=_ulps("numpy", f, a))


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("f", [arms_swapped, moved_after_test, below_a_negative_edge])
def test_checks_that_can_hold_still_raise(f, backend: str) -> None:
    check(vectorize(f, backend=backend), f, np.array([0.5, -1.0, 2.0]), ulps=_ulps(backend, f, np.array([0.5, -1.0, 2.0])))
    with pytest.raises(OverflowError):
        vectorize(f, backend=backend)(HOSTILE)


def test_generated_code_has_no_check_where_none_can_hold() -> None:
    for f in (softplus, logistic):
        vf = vectorize(f, backend="numpy")
        vf(np.ones(3))
        assert "shared" in vf.source or "arg" in vf.source, vf.source  # one exp on a selected operand
        assert "709.7" not in vf.source, vf.source
    for f in (arms_swapped, moved_after_test, below_a_negative_edge):
        vf = vectorize(f, backend="numpy")
        vf(np.full(3, -2000.0 if f is moved_after_test else 1.0))
        assert "709.7" in vf.source, vf.source
