"""passes/select_to_fmax.py: a select of x or a constant on x's own comparison with it is one
np.fmax / np.fmin pass, with the same bits on every lane (-0.0 and NaN included)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, libm_ulps
from passcase import F, I, after, body, on_code

from vectorizer import vectorize
from vectorizer.passes.select_to_fmax import transform


def softplus(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def relu(x: float) -> float:
    return x if x > 0.0 else 0.0


def relu_if(x: float) -> float:
    if x > 0.0:
        return x
    return 0.0


def negative_part(x: float) -> float:
    if 0.0 > x:
        y = x
    else:
        y = 0.0
    return y * 2.0


def at_least(x: float) -> float:
    if x >= 1.5:
        return x
    return 1.5


def at_most(x: float) -> float:
    return x if x < -2.5 else -2.5


def below_zero_or_equal(x: float) -> float:
    # `>=` with 0.0: x = -0.0 gives -0.0 here, which fmax may not: left as a select
    return x if x >= 0.0 else 0.0


def int_result(x: int) -> int:
    # an int select (`0`): fmax would make it a float
    if x > 0.0:
        return x
    return 0


def mask_read_twice(x: float) -> float:
    big = x > 0.0
    y = x if big else 0.0
    return y + (1.0 if big else 2.0)


def _check(vf, f, x):
    """check(), within the derived libm bound for softplus (exact where Numba is installed; NumPy's
    exp/log1p, not CPython's to the last bit on every CPU, without it), exactly for the rest."""
    check(vf, f, x, ulps=libm_ulps(f, x, names=("exp", "log1p")) if f is softplus else 0)


FUSED = [softplus, relu, relu_if, negative_part, at_least, at_most]
KEPT = [below_zero_or_equal, int_result]


def test_softplus_selects_with_fmax_and_its_mask_goes():
    assert body(after("select_to_fmax", softplus, x=F)) == (
        "arg = -np.abs(x)\n"
        "shared = _vz_exact(math.log1p, _vz_exact(math.exp, arg))\n"
        "ret = np.fmax(x, 0.0) + 0.0 + shared\n"
        "return (ret, None)\n")


@pytest.mark.parametrize("f", FUSED + KEPT + [mask_read_twice], ids=lambda f: f.__name__)
def test_which_selects_fuse(f):
    text = after("select_to_fmax", f, x=I if f is int_result else F)
    fused = "np.fmax(" in text or "np.fmin(" in text
    assert fused == (f in FUSED or f is mask_read_twice), text
    if f is mask_read_twice:  # its other reader keeps the mask
        assert "big = x > 0.0" in text and "_vz_where(big" in text


def test_a_mask_of_an_x_assigned_again_is_left_alone():
    text = "\n".join([
        "def f(x):",
        "    m = x > 0.0",
        "    x = x + 1.0",
        "    y = _vz_where(m, x, 0.0)",
        "    return (y, None)",
    ])
    assert on_code(transform, text, None) == text


def test_a_name_bound_again_by_a_tuple_is_no_copy_or_single_value():
    # compaction rebinds a loop's names with a tuple assignment: `ret` there is no longer x, and
    # an x bound after its mask (a loop's next iteration) is not the x the mask compared
    copy_rebound = "\n".join([
        "def f(x):",
        "    m = x > 0.0",
        "    ret = x",
        "    active, ret = lanes.compact(active, ret)",
        "    y = _vz_where(m, ret, 0.0)",
        "    return (y, None)",
    ])
    x_after_mask = "\n".join([
        "def f(v):",
        "    m = x > 0.0",
        "    a, x = g(v)",
        "    y = _vz_where(m, x, 0.0)",
        "    return (y, None)",
    ])
    for text in (copy_rebound, x_after_mask):
        assert on_code(transform, text, None) == text


def test_a_select_in_another_block_than_its_mask_is_left_alone():
    text = "\n".join([
        "def f(x, n):",
        "    if n:",
        "        m = x > 0.0",
        "    y = _vz_where(m, x, 0.0)",
        "    return (y, None)",
    ])
    assert on_code(transform, text, None) == text


HOSTILE = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 5e-324, -5e-324, 2.2250738585072014e-308,
           1.5, -1.5, 2.5, -2.5, np.nextafter(1.5, 2), np.nextafter(-2.5, -3), 1e308, -1e308, 709.0, -746.0]


def test_an_int_select_keeps_its_int_values_near_2_63():
    x = np.array([0, 1, -1, 2**53 + 1, 2**62 + 1, 2**63 - 1, -(2**63), -(2**53) - 1] * 600, dtype=np.int64)
    check(vectorize(int_result, backend="numpy", fallback="error"), int_result, x)


@pytest.mark.parametrize("f", FUSED + [below_zero_or_equal, mask_read_twice], ids=lambda f: f.__name__)
def test_the_same_bits_as_the_scalar_function_on_hostile_inputs(f):
    x = np.array(HOSTILE * 300)  # past the select's 4096-lane threshold too
    _check(vectorize(f, backend="numpy", fallback="error"), f, x)


@pytest.mark.parametrize("f", FUSED, ids=lambda f: f.__name__)
def test_negative_zero_at_every_position(f):
    # NumPy's fmax returns either zero for fmax(-0.0, 0.0), by CPU kind, position and stride
    vf = vectorize(f, backend="numpy", fallback="error")
    zeros = np.full(600, -0.0)
    for n in range(1, 40):
        _check(vf, f, zeros[:n])
    _check(vf, f, zeros[::3])
    _check(vf, f, np.array(HOSTILE * 40)[::7])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(HOSTILE), min_size=1, max_size=50),
       st.sampled_from(FUSED))
def test_the_same_bits_on_any_floats(xs, f):
    _check(_VECTORIZED.setdefault(f, vectorize(f, backend="numpy", fallback="error")), f, np.array(xs, dtype=np.float64))


_VECTORIZED: dict[object, object] = {}
