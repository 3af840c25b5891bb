"""analysis/zeros.py: its tables of calls, checked against CPython's math on hostile floats, and
the shapes it proves never -0.0."""

from __future__ import annotations

import math

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vectorizer.analysis import zeros

HOSTILE = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308, 1e-300, -1e-300,
           1e-8, -1e-8, 0.5, -0.5, 1.0, -1.0, 2.0, 709.0, -745.2, 800.0, -800.0, 1e308, -1e308,
           math.inf, -math.inf, math.nan]


def _call(name: str, *args: float) -> float | None:
    func = abs if name == "abs" else getattr(math, name.removeprefix("math."))
    try:
        return func(*args)
    except (ValueError, OverflowError):
        return None  # a lane that raises has no value to be -0.0


def _negative_zero(v: float | None) -> bool:
    return v == 0.0 and math.copysign(1.0, v) < 0


@pytest.mark.parametrize("name", sorted(zeros._NEVER_NEGATIVE_ZERO))
def test_calls_that_never_give_negative_zero(name):
    args = [(x, y) for x in HOSTILE for y in HOSTILE] if name == "math.hypot" else [(x,) for x in HOSTILE]
    assert not any(_negative_zero(_call(name, *a)) for a in args)


@pytest.mark.parametrize("name", sorted(zeros._KEEPS_ZERO_SIGN))
def test_calls_that_give_negative_zero_only_at_negative_zero(name):
    for x in HOSTILE:
        assert _negative_zero(_call(name, x)) == _negative_zero(x), x


@pytest.mark.parametrize("name", sorted(zeros.ZERO_SIGN_BLIND))
def test_calls_blind_to_the_sign_of_zero(name):
    assert math.copysign(1.0, _call(name, 0.0)) == math.copysign(1.0, _call(name, -0.0))
    assert _call(name, 0.0) == _call(name, -0.0)


def _math_name(node: cst.Call) -> str | None:
    func = node.func
    return f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else None


@pytest.mark.parametrize("text, never", [
    ("math.log1p(math.exp(a))", True), ("1.0 - a", True), ("a + math.exp(b)", True),
    ("math.exp(a) - 1.0", True), ("math.sqrt(a)", False), ("-math.exp(a)", False), ("a * 0.0", False),
    ("a - math.exp(b)", False), ("f(a)", False), ("math.sin(math.cosh(a))", True), ("a", False),
])
def test_shapes(text, never):
    assert zeros.never_negative_zero(cst.parse_expression(text), _math_name) is never


floats = st.floats(allow_nan=True, allow_infinity=True)


@given(floats, floats)
def test_sums_with_a_term_never_negative_zero(a, b):
    # The rule the shapes rest on: rounded to nearest, a sum is -0.0 only if both terms are, and
    # a difference only if its left side is -0.0 and its right +0.0.
    if _negative_zero(a + b):
        assert _negative_zero(a) and _negative_zero(b)
    if _negative_zero(a - b):
        assert _negative_zero(a) and b == 0.0 and not _negative_zero(b)
