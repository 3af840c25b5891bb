"""merge_checks: checks whose failing lanes have a NaN or infinite result run only when the
result has such a lane (passes/merge_checks.py, analysis/nonfinite.py).

The claim that matters is the flags: every lane that raises in the scalar function is still
re-run by it. So each function here is checked against the scalar oracle on hostile values, the
functions whose path from a check to the result does not keep ±inf and NaN must keep the check
where it was (and still raise: `1.0 / math.log(t)` is -0.0 at t = 0.0, where Python raises), and
the analysis's own answers are checked against NumPy on every non-finite operand.
"""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, libm_ulps, numpy_functions
from passcase import on_code
from strategies import floats

from vectorizer.analysis import nonfinite
from vectorizer.analysis.names import Namer
from vectorizer.passes import merge_checks


def d1(spot: float, strike: float, vol: float, t: float, r: float) -> float:
    return (math.log(spot / strike) + (r + 0.5 * vol * vol) * t) / (vol * math.sqrt(t))


def scaled_root(x: float, y: float) -> float:
    return math.sqrt(x) * y - 1.0


def ratio_to_zero(a: float, b: float) -> float:
    return (a / b) * 0.0  # inf * 0 is NaN: still a non-finite result


def log_over(x: float, y: float) -> float:
    return -math.log10(x) / (y + 2.0)


def waves(x: float, y: float) -> float:
    return math.sin(x) * y + math.cos(y) - math.tan(0.5 * x)  # inf: NaN, where Python raises


def arc(x: float) -> float:
    return 2.0 * math.asin(x) - math.acos(0.5 * x)  # |x| > 1: NaN, where Python raises


def inverse_log(t: float) -> float:
    return 1.0 / math.log(t)  # log(0) is -inf and 1 / -inf is -0.0: the check must stay


def through_exp(t: float) -> float:
    return math.exp(math.log(t))  # exp(-inf) is 0.0: the check must stay


def tanh_of_log(t: float) -> float:
    return math.tanh(math.log(t)) + 1.0  # tanh(-inf) is -1.0: the check must stay


def atan_of_root(x: float) -> float:
    return math.atan(math.sqrt(x) * 2.0)  # atan(NaN) is NaN, but atan(inf) is finite: the check must stay


def through_select(x: float) -> float:
    r = math.sqrt(x)
    return r if r < 2.0 else 2.0  # a comparison decides: the check must stay


def rebound(x: float, y: float) -> float:
    t = x - 1.0
    r = math.sqrt(t)
    t = y  # `t < 0` after the result would test y
    return r + t


MERGED = [d1, scaled_root, ratio_to_zero, log_over, waves, arc]
KEPT = [inverse_log, through_exp, tanh_of_log, atan_of_root, through_select]
HOSTILE = [0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 1e-310, -1e-310, 1e308, -1e308, math.inf, -math.inf, math.nan]


def _grid(arity: int) -> list[np.ndarray]:
    """Every combination of HOSTILE values for the first two parameters, the rest cycling."""
    pairs = [(a, b) for a in HOSTILE for b in HOSTILE]
    cols = [np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])]
    for k in range(2, arity):
        cols.append(np.roll(np.array(HOSTILE * (len(pairs) // len(HOSTILE) + 1))[:len(pairs)], k))
    return cols[:arity]


def _ulps(f, args) -> int:
    names = ("log", "log10", "sqrt", "exp", "sin", "cos", "tan", "asin", "acos")
    return libm_ulps(f, *args, names=names)


@pytest.mark.parametrize("f", MERGED + KEPT + [rebound], ids=lambda f: f.__name__)
def test_values_and_exceptions_against_the_oracle(f) -> None:
    arity = f.__code__.co_argcount
    args = _grid(arity)
    finite = [np.where(np.isfinite(a) & (a > 0), a, 1.5) for a in args]  # no lane raises: values alone
    check(numpy_functions(f), f, *finite, ulps=_ulps(f, finite))
    check(numpy_functions(f), f, *args, ulps=_ulps(f, args))  # the first failing lane's exception


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(floats(), floats(), floats(), floats(), floats()), min_size=1, max_size=6))
def test_hypothesis_d1(rows: list[tuple[float, ...]]) -> None:
    args = [np.array(col) for col in zip(*rows)]
    check(numpy_functions(d1), d1, *args, ulps=_ulps(d1, args))
    check(numpy_functions(scaled_root), scaled_root, args[0], args[1], ulps=_ulps(scaled_root, args[:2]))


def test_a_failing_lane_raises_when_others_are_finite() -> None:
    """One zero strike among finite lanes: its result is inf, the checks run, the lane raises."""
    spot = np.array([100.0, 90.0, 110.0])
    with pytest.raises(ZeroDivisionError):
        numpy_functions(d1)(spot, np.array([100.0, 0.0, 100.0]), 0.2, np.array([1.0, 1.0, 0.5]), 0.01)
    with pytest.raises(ValueError):
        numpy_functions(d1)(spot, 100.0, 0.2, np.array([1.0, -1.0, 0.5]), 0.01)
    with pytest.raises(ValueError):
        numpy_functions(waves)(np.array([1.0, math.inf, 2.0]), np.array([0.5, 0.5, 0.5]))
    with pytest.raises(ValueError):
        numpy_functions(arc)(np.array([0.5, 1.5, -0.25]))
    for f in (inverse_log, through_exp, tanh_of_log, atan_of_root):
        with pytest.raises(ValueError):
            numpy_functions(f)(np.array([2.0, 0.0 if f is not atan_of_root else -1.0]))


def _source(f) -> str:
    vf = numpy_functions(f)
    vf(*[np.array([0.25, 0.5] if f is arc else [1.5, 2.5])] * f.__code__.co_argcount)  # no lane raises
    return vf.source.split("\ndef _vz")[0]


@pytest.mark.parametrize("f", MERGED, ids=lambda f: f.__name__)
def test_merged_checks_run_after_a_test_of_the_result(f) -> None:
    source = _source(f)
    test = "if not math.isfinite(result.sum()):"  # one number a lane: the method, no dispatch
    assert test in source, source
    body = source.split(test)[0]
    assert "flag |=" not in body, source  # every check moved after the result


@pytest.mark.parametrize("f", KEPT + [rebound], ids=lambda f: f.__name__)
def test_checks_that_do_not_reach_the_result_stay(f) -> None:
    source = _source(f)
    assert "flag |=" in source.split("math.isfinite(")[0], source


def test_d1_text() -> None:
    source = _source(d1)
    assert "    flag = None\n" in source
    assert "        flag |= strike == 0\n        flag |= t_1 <= 0\n        flag |= t < 0\n        flag |= t_3 == 0\n" in source


def test_a_result_of_arrays_a_lane_is_tested_flat() -> None:
    """`result.sum()` is a method of arrays only: where the result may be an array a lane or a
    NumPy scalar (`ctx.flat_result` false) the test is `np.sum`, which reads any shape whole."""
    class Ctx:
        flag = "flag"
        namer = Namer()
        flat_result = False
    text = ("def f(x, y):\n    flag = np.zeros(len(x), dtype=bool)\n    flag |= y == 0\n    t = x / y\n"
            "    return (t, flag)")
    assert "if not math.isfinite(np.sum(result)):" in on_code(merge_checks.transform, text, Ctx)
    Ctx.flat_result, Ctx.namer = True, Namer()
    assert "if not math.isfinite(result.sum()):" in on_code(merge_checks.transform, text, Ctx)


def test_other_shapes_are_left_alone() -> None:
    """A block, a statement that is not an assignment to a name, or a tuple result: unchanged."""
    class Ctx:
        flag = "flag"
    head = "def f(x):\n    flag = np.zeros(len(x), dtype=bool)\n    flag |= x < 0\n"
    for tail in ("    y = np.sqrt(x)\n    if y:\n        y = 1\n    return (y, flag)",
                 "    y = np.sqrt(x)\n    y[0] = 1.0\n    return (y, flag)",
                 "    y = np.sqrt(x)\n    return ((y, y), flag)",
                 "    y = np.sqrt(x)\n    z = flag\n    return (y, flag)"):
        assert on_code(merge_checks.transform, head + tail, Ctx) == head + tail


# -- the test of the result: NumPy's sum --------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -np.nan])
def test_the_sum_is_not_finite_when_a_lane_is_not(bad: float) -> None:
    """The merged checks run when `math.isfinite(r.sum())` (`np.sum(r)` for a result of arrays a
    lane) is false: NumPy's pairwise sum must carry one NaN or ±inf lane to the total wherever it
    sits (its unrolled blocks, its tail), beside the largest finite values of either sign (an inf
    meeting -inf is NaN), in contiguous and strided arrays and arrays of several dimensions."""
    for n in (*range(1, 70), 127, 128, 129, 1000, 4099, 10_000, 20_001, 100_003):
        for where in sorted({0, 1, 7, 8, n // 2, n - 2, n - 1} & set(range(n))):
            for fill in (1.0, 1e-310, -1e300, 1.7e308):  # 1.7e308: partial sums overflow to inf themselves
                r = np.full(n, fill)
                r[where] = bad
                assert not math.isfinite(r.sum()), (n, where, fill)
                assert not math.isfinite(np.sum(r)), (n, where, fill)
                strided = np.repeat(r, 2)[::2]
                assert not math.isfinite(strided.sum()), (n, where, fill)
                if n % 2 == 0:
                    assert not math.isfinite(np.sum(r.reshape(2, -1))), (n, where, fill)
    assert math.isfinite(np.full(1000, 1e300).sum())  # finite lanes, finite sum
    assert not math.isfinite(np.sum(np.float64(bad)))  # a NumPy scalar: one lane


# -- the analysis's claims, against NumPy on every non-finite operand --------------------------
NONFINITE_VALUES = np.array([np.inf, -np.inf, np.nan])
OTHERS = np.array([0.0, -0.0, 1.0, -1.0, 1e-310, 1e308, -1e308, np.inf, -np.inf, np.nan])
EXPRESSIONS = ["a + b", "a - b", "b - a", "a * b", "-a", "a / b", "np.sqrt(a)", "np.log(a)", "np.log2(a)",
               "np.log10(a)", "np.log1p(a)", "np.abs(a)", "np.sin(a)", "np.cos(a)", "np.tan(a)", "np.sinh(a)",
               "np.cosh(a)", "np.cbrt(a)", "np.square(a)", "np.negative(a)",
               # never claimed: each maps some non-finite operand to a finite value
               "b / a", "np.exp(a)", "np.tanh(a)", "np.arctan(a)", "np.expm1(a)", "np.minimum(a, b)"]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_every_claim_holds_on_numpy(text: str) -> None:
    """Where the analysis says `text` is non-finite when `a` is (NONFINITE) or NaN when `a` is
    NaN (NAN), NumPy agrees for every operand `b`; the last six are never claimed."""
    node = ast.parse(text, mode="eval").body
    for kind, values in ((nonfinite.NONFINITE, NONFINITE_VALUES), (nonfinite.NAN, np.array([np.nan]))):
        claim = nonfinite.taint(node, {"a": kind}, "unused", "none")
        if text in EXPRESSIONS[-6:] and kind == nonfinite.NONFINITE:
            assert claim is None, text
        if claim is None:
            continue
        a, b = np.meshgrid(values, OTHERS)
        with np.errstate(all="ignore"):
            got = np.broadcast_to(eval(text, {"np": np, "a": a, "b": b}), a.shape)  # noqa: S307 - our own table
        assert not np.isfinite(got).any(), (text, kind)
        if claim == nonfinite.NAN:
            assert np.isnan(got).all(), (text, kind)
