"""Signs from expression shapes (analysis/signs.py) and the checks they drop.

The claim is checked against Python itself: wherever `sign` answers, evaluating the expression
on hostile values never gives a number of the other sign. Then the functions that lose a check
are run on both backends against the scalar oracle, and the ones that must keep it still raise.
"""

from __future__ import annotations

import math

import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import floats

from vectorizer import vectorize
from vectorizer.analysis.signs import NONNEG, NONPOS, sign
from vectorizer.rules import scalar as rules


def _call_name(node: cst.Call) -> str:
    func = node.func
    return f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else func.value  # type: ignore[union-attr]


def _sign(text: str) -> int | None:
    return sign(cst.parse_expression(text), _call_name)


KNOWN = {
    "-0.5 * x * x": NONPOS, "x * x": NONNEG, "-(x * x)": NONPOS, "x * -2 * x": NONPOS,
    "x * x + y * y": NONNEG, "x * x + 1.0": NONNEG, "-(x * x) - y * y": NONPOS,
    "x * y * x * y": NONNEG, "x / 3.0 * x": NONNEG, "-x * x / (y * y)": NONPOS, "x ** 2": NONNEG,
    "(x - y) ** 4 * 0.5": NONNEG, "math.exp(x) * math.sqrt(y)": NONNEG, "abs(x) + x * x": NONNEG,
    "0.0": NONNEG, "-3": NONPOS, "1.0 - math.exp(x)": None, "math.exp(x) - x * x": None,
    "x * y": None, "-0.5 * x * y": None, "x ** 3": None, "x * x * x": None, "x - y * y": None,
    "math.sin(x) * math.sin(x)": None,  # calls are not names: no pairing (they may differ)
    "x ** 2.0": None, "x": None, "-x": None,
}


@pytest.mark.parametrize("text", sorted(KNOWN))
def test_shapes(text: str) -> None:
    assert _sign(text) == KNOWN[text]


@settings(max_examples=300, deadline=None)
@given(floats(), floats())
def test_every_answer_holds_on_hostile_values(x: float, y: float) -> None:
    env = {"x": x, "y": y, "math": math, "abs": abs}
    for text in KNOWN:
        want = _sign(text)  # the analysis's own answer, not the table's
        if want is None:
            continue
        try:
            value = eval(text, env)  # noqa: S307 - our own table of expressions
        except (OverflowError, ValueError, ZeroDivisionError):
            continue  # Python raised: there is no value to have a sign
        assert math.isnan(value) or (value >= 0 if want == NONNEG else value <= 0), (text, x, y, value)


def test_checks_that_need_the_other_sign_go() -> None:
    exp = rules.CALLS["math.exp"]([rules.Val(rules.FLOAT, True)])
    sqrt = rules.CALLS["math.sqrt"]([rules.Val(rules.FLOAT, True)])
    assert exp.checks and sqrt.checks
    assert rules.without_sign_checks(exp, NONPOS).checks == ()
    assert rules.without_sign_checks(exp, NONNEG).checks == exp.checks
    assert rules.without_sign_checks(exp, None).checks == exp.checks
    assert rules.without_sign_checks(sqrt, NONNEG).checks == ()
    assert rules.without_sign_checks(sqrt, NONPOS).checks == sqrt.checks


# -- the functions that lose a check, and those that must keep it -------------------------------
def gaussian(x: float) -> float:
    return math.exp(-0.5 * x * x)


def simpson(a: float, b: float) -> float:
    h = (b - a) / 8
    total = gaussian(a) + gaussian(b)
    for i in range(1, 8):
        total += (4.0 if i % 2 == 1 else 2.0) * gaussian(a + i * h)
    return total * h / 3.0


def norm(x: float, y: float) -> float:
    return math.sqrt(x * x + y * y)


def grows(x: float) -> float:
    return math.exp(0.5 * x * x)  # overflows from |x| > 37.7: must still raise


def unknown(x: float, y: float) -> float:
    return math.exp(-x * y)  # either sign: the check stays


def calls_both(x: float) -> float:
    return gaussian(x) + grows(x)  # a never-failing callee beside one that can fail


HOSTILE = np.array([0.0, -0.0, 1.5, -2.5, 37.0, -38.0, 1e154, 1e200, -1e308, 5e-324, np.inf, -np.inf, np.nan])


def _backends() -> list[str]:
    from vectorizer.backends.numba import jit

    return ["numpy", "numba"] if jit.available() else ["numpy"]


@pytest.mark.parametrize("backend", _backends())
def test_values_against_the_oracle(backend: str) -> None:
    check(vectorize(gaussian, backend=backend), gaussian, HOSTILE)
    check(vectorize(simpson, backend=backend), simpson, HOSTILE, HOSTILE[::-1].copy())
    check(vectorize(norm, backend=backend), norm, HOSTILE, HOSTILE[::-1].copy())
    check(vectorize(unknown, backend=backend), unknown, np.array([1.0, -2.0]), np.array([3.0, 4.0]))
    check(vectorize(calls_both, backend=backend), calls_both, np.array([0.5, -1.0, 3.0]))


@pytest.mark.parametrize("backend", _backends())
def test_checks_that_can_hold_still_raise(backend: str) -> None:
    check(vectorize(grows, backend=backend), grows, np.array([1.0, 37.0, -38.0, 2.0]))
    check(vectorize(unknown, backend=backend), unknown, np.array([1.0, -30.0]), np.array([3.0, 30.0]))
    check(vectorize(calls_both, backend=backend), calls_both, np.array([0.5, 40.0, 1.0]))
    with pytest.raises(OverflowError):
        vectorize(calls_both, backend=backend)(np.array([0.5, 40.0, 1.0]))


@pytest.mark.parametrize("backend", _backends())
def test_generated_code_has_no_check_where_none_can_hold(backend: str) -> None:
    kept, gone = vectorize(grows, backend=backend), vectorize(gaussian, backend=backend)
    kept(np.ones(3))
    gone(np.ones(3))
    assert "709.7" in kept.source and "709.7" not in gone.source
    if backend == "numba":  # a callee that never fails returns its value alone
        both = vectorize(calls_both, backend=backend)
        both(np.ones(3))
        assert "gaussian_result = _lane_gaussian(x)" in both.source
        assert "grows_result, failed" in both.source


@settings(max_examples=60, deadline=None)
@given(st.lists(floats(), min_size=1, max_size=8), st.sampled_from(_backends()))
def test_hypothesis_simpson_and_norm(xs: list[float], backend: str) -> None:
    a = np.array(xs)
    check(vectorize(simpson, backend=backend), simpson, a, a[::-1].copy())
    check(vectorize(norm, backend=backend), norm, a, a[::-1].copy())
