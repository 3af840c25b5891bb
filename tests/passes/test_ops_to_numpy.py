"""passes/ops_to_numpy/: scalar operations become NumPy operations, with a flag array marking the
lanes where Python would raise, masked by the lanes that evaluate each check."""

from __future__ import annotations

import math

import numpy as np
from oracle import check
from passcase import F, after, body

from vectorizer import vectorize


def root(x: float, s: float) -> float:
    y = -x
    if s > 0:
        y = math.sqrt(x)
    return y


def ratio(a: float, b: float) -> float:
    y = a / b if a > 0 else 0.0
    return y


def halvings(x: float) -> int:
    n = 0
    while x > 1.0:
        x = x / 2.0
        n = n + 1
    return n


def double(x: float) -> float:
    return x * 2.0 + 1.0


def test_a_check_under_a_mask_flags_only_the_lanes_in_it():
    assert body(after("ops_to_numpy", root, x=F, s=F)) == (
        "flag = np.zeros(len(x), dtype=bool)\n"
        "y = -x\n"
        "m = s > 0\n"
        "flag |= m & (x < 0)\n"
        "y = _vz_where(m, np.sqrt(x), y)\n"
        "return (y, flag)\n"
    )


def test_a_batched_choice_is_a_where_with_the_lazy_side_flagged_on_its_lanes():
    assert body(after("ops_to_numpy", ratio, a=F, b=F)) == (
        "flag = np.zeros(len(a), dtype=bool)\n"
        "c = a > 0\n"
        "flag |= c & (b == 0)\n"
        "y = _vz_where(c, a / b, 0.0)\n"
        "return (y, flag)\n"
    )


def test_a_masked_loop_runs_while_any_lane_is_active_and_drops_flagged_lanes():
    assert body(after("ops_to_numpy", halvings, x=F)) == (
        "flag = np.zeros(len(x), dtype=bool)\n"
        "n = 0\n"
        "active = (x > 1.0) & ~flag\n"
        "n = np.int64(n)\n"
        "while np.any(active):\n"
        "    x = x / 2.0\n"
        "    n = _vz_where(active, n + 1, n)\n"
        "    active = active & (x > 1.0) & ~flag\n"
        "return (n, flag)\n"
    )


def test_without_checks_there_is_no_flag_array():
    # float arithmetic never raises (inf, nan): nothing to flag, and the flag slot is None
    assert body(after("ops_to_numpy", double, x=F)) == "return (x * 2.0 + 1.0, None)\n"


def test_the_array_code_keeps_the_contract():
    x = np.array([4.0, -4.0, 0.0, -0.0, 5e-324, np.inf, -np.inf, np.nan, 1e308])
    s = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 0.0])
    check(vectorize(root, fallback="error"), root, x, s)
    check(vectorize(ratio, fallback="error"), ratio, x, s[::-1].copy() * 0.0)
    check(vectorize(halvings, fallback="error"), halvings, np.abs(x[np.isfinite(x) | np.isnan(x)]))  # inf never halves
