"""runtime.masked (`_vz_masked` in generated modules): a costly call in a batched branch computed
on the branch's lanes alone. On those lanes it is the call itself, bit for bit; end to end, the
functions that use it keep the contract against the scalar function on batches large enough for
the gather (4096 lanes and more), with hostile values and lanes that raise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, numpy_functions

from vectorizer.rules import scalar as rules
from vectorizer.runtime import special
from vectorizer.runtime.helpers import masked

HOSTILE = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1.7976931348623157e308,
                    -1.7976931348623157e308, 709.8, -745.2, 1.5, 2.0, 0.5])
CALLS = {
    "exp": (np.exp, 1, {}), "log": (np.log, 1, {}), "sin": (np.sin, 1, {}), "erfc": (special._vz_erfc, 1, {}),
    "power": (np.power, 2, {"dtype": np.float64}), "arctan2": (np.arctan2, 2, {}),
}


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([0, 1, 100, 4095, 4096, 5000, 20000]),
       density=st.sampled_from([0.0, 0.01, 0.3, 0.5, 0.51, 0.97, 1.0]), call=st.sampled_from(sorted(CALLS)),
       uniform_second=st.booleans())
def test_the_lanes_of_the_mask_are_the_call_itself(seed, n, density, call, uniform_second):
    fn, arity, kwargs = CALLS[call]
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < density
    args = [np.where(rng.random(n) < 0.2, rng.choice(HOSTILE, n), rng.normal(0.0, 30.0, n)) for _ in range(arity)]
    if arity == 2 and uniform_second:
        args[1] = 0.687
    with np.errstate(all="ignore"):
        got = masked(mask, fn, *args, **kwargs)
        want = fn(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert _bits(got[mask]) == _bits(want[mask])
    gathered = n >= 4096 and 2 * np.count_nonzero(mask) <= n
    if gathered:  # the other lanes are not computed: zeros, whatever the call would give there
        assert not np.any(got[~mask]) and not np.signbit(got[~mask]).any()
    else:
        assert _bits(got) == _bits(want)


def test_it_is_the_plain_call_where_gathering_does_not_apply():
    x = np.linspace(-3.0, 3.0, 5000)
    few = np.zeros(5000, dtype=bool)
    few[::7] = True
    for mask, args in [(True, (x,)), (few.astype(np.int8), (x,)), (few.reshape(50, 100), (x.reshape(50, 100),)),
                       (few, (x[:100],))]:
        assert _bits(masked(mask, np.exp, *args)) == _bits(np.exp(*args))


def test_no_lane_taken_computes_nothing():
    calls = []

    def spy(a):
        calls.append(a.size)
        return np.exp(a)

    out = masked(np.zeros(8192, dtype=bool), spy, np.ones(8192))
    assert calls == [0] and out.dtype == np.float64 and not out.any()


# -- end to end: piecewise functions, 6,000 lanes, a third of them or fewer in each costly branch --

def drag(r: float) -> float:
    if r < 1.0:
        return 24.0 / r
    elif r < 1000.0:
        return 24.0 / r * (1.0 + 0.15 * r ** 0.687)
    elif r < 2.0e5:
        return 0.44
    return 0.1


def log_branch(x: float) -> float:
    if x > 100.0:
        return math.log(x - 200.0)  # a math domain error on (100, 200]
    return x


def exp_branch(x: float) -> float:
    if x > 600.0:
        return math.exp(x)  # OverflowError from 709.78
    if x < -50.0:
        return math.erfc(-x) + math.sin(x)
    return 2.0 * x


def int_branch(n: int, x: float) -> float:
    if n % 3 == 0:
        return math.exp(n) + math.atan2(x, n)
    return float(n)


def _gathered_calls(vf) -> int:
    """`_vz_masked(` calls in the generated function (its helpers come after it)."""
    return vf.source.split("\ndef _vz_")[0].count("_vz_masked(")


def _floats(rng, n, lo, hi, hostile=True):
    x = rng.uniform(lo, hi, n)
    if hostile:
        spots = rng.random(n) < 0.05
        x[spots] = rng.choice(HOSTILE, int(spots.sum()))
    return x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_drag_matches_the_scalar_function(seed):
    rng = np.random.default_rng(seed)
    r = 10.0 ** rng.uniform(-3.0, 6.0, 6000)
    r[rng.random(6000) < 0.03] = np.nan
    vf = numpy_functions(drag)
    # r ** 0.687 within the bound (NumPy's pow differs by CPU), then *, + and *, /: a relative error
    # of ULP_BOUND ulp is at most twice as many ulp of another value, and each operation may round
    # the other way once (nothing cancels: every term is positive)
    check(vf, drag, r, ulps=2 * rules.ULP_BOUND + 3)
    assert "_vz_masked(m_2, np.power" in vf.source and _gathered_calls(vf) == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_a_raising_lane_in_a_gathered_branch_raises_as_the_loop_would(seed):
    rng = np.random.default_rng(seed)
    x = _floats(rng, 6000, -1000.0, 150.0)  # ~10% of the lanes take the branch
    vf = numpy_functions(log_branch)
    check(vf, log_branch, x)  # raises ValueError where a lane lands in (100, 200]
    assert _gathered_calls(vf) == 1
    x[x > 100.0] = 250.0 + np.arange(np.count_nonzero(x > 100.0))  # no lane raises
    check(vf, log_branch, x, ulps=rules.ULP_BOUND)  # NumPy's log: within the bound of the C library's


@pytest.mark.parametrize("hi", [700.0, 720.0])
def test_overflow_and_chains_in_gathered_branches(hi):
    rng = np.random.default_rng(int(hi))
    x = _floats(rng, 6000, -200.0, hi)
    vf = numpy_functions(exp_branch)
    check(vf, exp_branch, x)
    assert _gathered_calls(vf) == 3  # exp, erfc, sin


def test_int_operands_of_a_gathered_call():
    rng = np.random.default_rng(5)
    n = rng.integers(-700, 700, 6000)
    x = _floats(rng, 6000, -5.0, 5.0)
    vf = numpy_functions(int_branch)
    # exp(n) + atan2(x, n), each within the bound (NumPy's differ by CPU). Worst at n = 0: 1 - pi/2,
    # the two terms' errors (ulps of values in [1, 2)) in ulps of a value in [0.5, 1): four times the
    # bound, and one rounding (n > 0: exp(n) >= 20 > |atan2|; n < 0: |atan2| >= pi/2 > 20 exp(n))
    check(vf, int_branch, n, x, ulps=4 * rules.ULP_BOUND + 1)
    assert _gathered_calls(vf) == 2  # exp, atan2


def two_sided(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    return math.exp(x)


def test_both_sides_of_an_even_split_are_gathered():
    rng = np.random.default_rng(7)
    x = np.abs(_floats(rng, 6000, 0.0, 50.0))
    x[1::2] *= -1.0  # exactly half the lanes on each side (NaN, -0.0 and 0.0 lanes take the else)
    x[:2] = [np.nan, -0.0]
    vf = numpy_functions(two_sided)
    check(vf, two_sided, x, ulps=rules.ULP_BOUND)  # NumPy's log and exp: within the bound
    assert _gathered_calls(vf) == 2


def pow_branch(x: float, y: float) -> float:
    if x > 5.0:
        return x ** y
    return x


@pytest.mark.parametrize("y", [0.5, 1.5, "lanes"])
def test_a_gathered_helper_is_defined_in_the_module(y):
    """`_vz_masked(m, _vz_power, x, y)` passes the helper without calling it: the module must
    still define it (a NameError once, found by the fuzzer's tiled check)."""
    rng = np.random.default_rng(11)
    x = _floats(rng, 6000, -20.0, 10.0)
    exponent = rng.uniform(-3.0, 3.0, 6000) if y == "lanes" else y
    vf = numpy_functions(pow_branch)
    check(vf, pow_branch, x, exponent, ulps=rules.ULP_BOUND)  # x ** 0.5 is sqrt: 1 ulp from glibc's pow at times
    assert _gathered_calls(vf) == 1 and "def _vz_power(" in vf.source
