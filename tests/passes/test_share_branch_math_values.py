"""passes/share_branch_math.py: math shared by both branches of a batched `if` runs once, on the
operand each lane selects; the scalar function stays the oracle for values and exceptions."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, numpy_functions

HOSTILE = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.0, -1.0, 709.0, 709.8, -745.2, 800.0, -800.0,
           1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan, 2.0**63]


def softplus(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def log_gap(x: float, y: float) -> float:
    if y >= x:
        s = math.log(y - x) * 2.0
    else:
        s = math.log(x - y)
    return s


def in_loop(x: float, n: int) -> float:
    acc = 0.0
    k = 0
    while k < n:
        if acc > x:
            acc = acc - math.sqrt(math.exp(-acc) + k)
        else:
            acc = acc + math.sqrt(math.exp(acc) + k)
        k += 1
    return acc


def raising_first(x: float, y: float) -> float:
    if y > 1.0:
        u = 1.0 / x + math.exp(y)
    else:
        u = math.exp(x)
    return u


def mixed_types(n: int, x: float) -> float:
    if x > 0.0:
        return math.exp(n)
    return math.exp(x)


def two_operands(x: float, y: float) -> float:
    if x > y:
        return math.atan2(x, y)
    return math.atan2(y, x)


def order(x: float, y: float) -> float:
    # Not shared: atan2 on a selected log would evaluate log(-x) before 1.0 / y. (Flagged lanes
    # are re-run by the scalar function, which raises the right error either way; the pass
    # keeps Python's order regardless, so it stays exact on its own.)
    if x > 0.0:
        return math.atan2(1.0 / y, math.log(x))
    return math.atan2(1.0 / y, math.log(-x))


def _source(f, *args) -> str:
    vf = numpy_functions(f, cache=False)
    vf(*args)
    return vf.source


floats = st.one_of(st.sampled_from(HOSTILE), st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=60, deadline=None)
@given(st.lists(floats, min_size=1, max_size=40))
def test_softplus_matches_the_scalar_function(xs):
    check(numpy_functions(softplus), softplus, np.array(xs), ulps=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(floats, floats), min_size=1, max_size=40))
def test_shared_chain_that_raises_reports_the_first_failing_lane(pairs):
    x, y = (np.array(v) for v in zip(*pairs))
    check(numpy_functions(log_gap), log_gap, x, y, ulps=5)


def test_equal_operands_raise_from_either_branch():
    x = np.array([1.0, 3.0, 2.0])
    with pytest.raises(ValueError, match="math domain error"):
        numpy_functions(log_gap)(x, np.array([2.0, 1.0, 2.0]))
    check(numpy_functions(log_gap), log_gap, x, np.array([2.0, 1.0, 2.0]), ulps=5)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(floats, st.integers(-2, 12)), min_size=1, max_size=30))
def test_inside_a_masked_loop(rows):
    x, n = (np.array(v) for v in zip(*rows))
    check(numpy_functions(in_loop), in_loop, x, n, ulps=5)


def test_the_shared_chain_is_evaluated_once():
    source = _source(softplus, np.linspace(-3, 3, 7))
    assert source.count("np.exp(") == 1 and source.count("np.log1p(") == 1, source
    assert "<= -1" not in source  # log1p of exp cannot leave its domain: no check


@pytest.mark.parametrize("f, args, calls", [
    (raising_first, (np.array([0.5, 2.0]), np.array([3.0, 0.5])), 2),  # 1/x may raise before exp
    (mixed_types, (np.array([1, 2]), np.array([0.5, -0.5])), 2),  # exp of an int vs of a float
    (two_operands, (np.array([1.0, 2.0]), np.array([2.0, 1.0])), 2),  # two operands differ
    (order, (np.array([1.0, -2.0]), np.array([2.0, 1.0])), 2),  # an operand before may raise
])
def test_not_shared(f, args, calls):
    name = "np.arctan2" if f in (two_operands, order) else "np.exp"
    source = _source(f, *args)  # called, or gathered on a branch's lanes: `_vz_masked(m, np.exp, x)`
    assert len(re.findall(rf"{re.escape(name)}\(|_vz_masked\([^,]+, {re.escape(name)},", source)) == calls, source
    check(numpy_functions(f), f, *args, ulps=5)


@pytest.mark.parametrize("x, y", [(np.array([0.0, 2.0, -1.0]), np.array([3.0, 0.5, 2.0])),
                                  (np.array([1e-310, np.inf, np.nan]), np.array([2.0, 2.0, 0.0]))])
def test_not_shared_still_matches(x, y):
    check(numpy_functions(raising_first), raising_first, x, y, ulps=5)


def test_an_operand_that_may_raise_keeps_its_turn():
    x, y = np.array([-1.0, 0.0, 3.0]), np.array([1.0, 0.0, 2.0])  # lane 1: 1 / y raises before log(-x)
    with pytest.raises(ZeroDivisionError):
        numpy_functions(order)(x, y)
    check(numpy_functions(order), order, x, y, ulps=5)
