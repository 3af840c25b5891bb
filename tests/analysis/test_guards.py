"""Checks a mask's own test rules out are not emitted (vectorizer/analysis/guards.py).

The analysis is checked against Python's comparisons on hostile values (a fact may drop a check
only if no value, NaN included, satisfies both), then the NumPy backend against the scalar oracle
on functions whose guards the analysis reads, or must not read: a guarded name assigned again,
a guard set in a uniform branch, a guard in a loop.

PYTEST_DONT_REWRITE: the scalar functions' own messages must not be rewritten.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check

from vectorizer import vectorize
from vectorizer.analysis import guards
from vectorizer.rules import scalar as rules

OPS = ["<", "<=", ">", ">=", "==", "!="]
COMPARE = {"<": lambda x, c: x < c, "<=": lambda x, c: x <= c, ">": lambda x, c: x > c,
           ">=": lambda x, c: x >= c, "==": lambda x, c: x == c, "!=": lambda x, c: x != c}
CONSTANTS = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-308, 5e-324, -5e-324, 1e308, math.inf, -math.inf]
HOSTILE = CONSTANTS + [math.nan, 2.0, -2.0, 0.25, 1e-300, -1e300, math.nextafter(1.0, 2.0), math.nextafter(0.0, -1.0)]


def _satisfies(x: float, key: guards.Key) -> bool:
    _, op, c = key
    return COMPARE[op](x, c)


@settings(max_examples=3000, deadline=None)
@given(op=st.sampled_from(OPS), c=st.sampled_from(CONSTANTS), holds=st.booleans(),
       check_op=st.sampled_from(OPS), k=st.sampled_from(CONSTANTS))
def test_a_ruled_out_check_holds_on_no_value_the_fact_allows(op, c, holds, check_op, k):
    fact, check_key = (("x", op, c), holds), ("x", check_op, k)
    if not guards.rules_out(fact, check_key):
        return
    candidates = sorted({*HOSTILE, c, k, math.nextafter(c, math.inf), math.nextafter(c, -math.inf),
                         math.nextafter(k, math.inf), math.nextafter(k, -math.inf)}, key=repr)
    for x in candidates:
        if _satisfies(x, fact[0]) == holds:
            assert not _satisfies(x, check_key), (fact, check_key, x)


@given(x=st.floats(allow_nan=True, allow_infinity=True), c=st.sampled_from(CONSTANTS),
       op=st.sampled_from(OPS), check_op=st.sampled_from(OPS), k=st.sampled_from(CONSTANTS))
def test_rules_out_against_any_float(x, c, op, check_op, k):
    for holds in (True, False):
        fact = (("x", op, c), holds)
        if guards.rules_out(fact, ("x", check_op, k)) and COMPARE[op](x, c) == holds:
            assert not COMPARE[check_op](x, k)


def test_what_is_ruled_out():
    assert guards.rules_out((("a", "==", 0.0), False), ("a", "==", 0.0))
    assert guards.rules_out((("d", "<", 0.0), False), ("d", "<", 0.0))
    assert guards.rules_out((("x", ">", 0.0), True), ("x", "<=", 0.0))
    assert not guards.rules_out((("x", ">", 0.0), False), ("x", "<", 0.0))  # x may be -1
    assert not guards.rules_out((("x", "==", 0.0), False), ("x", "!=", 0.0))  # NaN != 0
    assert not guards.rules_out((("x", ">", 0.0), True), ("y", "<=", 0.0))
    assert guards.check_key("(b == 0)") == ("b", "==", 0.0) and guards.check_key("0 > x") == ("x", "<", 0.0)
    assert guards.check_key("np.abs(x) > 1") is None and guards.check_key("x == y") is None


def _bench_kernels():
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "scripts"))
    try:
        import bench_kernels
    finally:
        sys.path.remove(str(root / "scripts"))
    return bench_kernels


quadratic_root = _bench_kernels().quadratic_root  # every branch guards the division after it


def log_positive(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    return 0.0


def guard_then_reassigned(x: float) -> float:
    """The guard tested x, then x changed: the check on the new x must stay."""
    if x != 0.0:
        x = x - 1.0
        return 1.0 / x
    return 0.0


def guard_in_uniform_branch(x: float, flip: bool) -> float:
    """The mask m is set in either branch of a uniform if: which test it holds is not known (the
    branch emitted last, `x == 0.0`, would rule out the division's check)."""
    if flip:
        m = x == 1.0
    else:
        m = x == 0.0
    if not m:
        return 1.0 / x
    return -1.0


def guard_in_loop(x: float, n: int) -> float:
    total = 0.0
    for _ in range(n):
        if x != 0.0:
            total += 1.0 / x
        x = x - 1.0
    return total


def _hostile(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, np.nan, np.inf, -np.inf, 5e-324, 1e308]), size)
    return np.where(rng.random(size) < 0.5, x, rng.normal(0.0, 3.0, size))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_guarded_functions_match_the_scalar_function(backend):
    vf = vectorize(quadratic_root, backend=backend)
    check(vf, quadratic_root, _hostile(5000, 1), _hostile(5000, 2), _hostile(5000, 3))  # + - * / sqrt: exact
    # math.log: NumPy's differs from the C library's by CPU (AVX-512: SIMD kernels), within the bound
    check(vectorize(log_positive, backend=backend), log_positive, _hostile(5000, 4),
          ulps=0 if backend == "numba" else rules.ULP_BOUND)
    check(vectorize(guard_then_reassigned, backend=backend), guard_then_reassigned, _hostile(5000, 4))
    x = _hostile(5000, 5)
    for flip in (True, False):
        check(vectorize(guard_in_uniform_branch, backend=backend), guard_in_uniform_branch, x, flip)
    check(vectorize(guard_in_loop, backend=backend), guard_in_loop, x, 3)


def test_the_numpy_backend_drops_only_the_checks_guards_rule_out():
    def flags(fn, *args):
        vf = vectorize(fn, backend="numpy")
        vf(*args)
        return [line.strip() for line in vf.source.splitlines() if "|=" in line and "flag" in line]

    x = np.array([-2.5, -0.5, 0.25, 1.5, 3.0])  # no lane raises
    assert flags(quadratic_root, x, x, x) == []  # every check is ruled out by its branch's test
    assert flags(log_positive, x) == []
    assert any("== 0" in line for line in flags(guard_then_reassigned, x))
    assert any("== 0" in line for line in flags(guard_in_uniform_branch, x, True))
    assert any("== 0" in line for line in flags(guard_in_loop, x, 3))
