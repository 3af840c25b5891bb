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
from oracle import check, numpy_functions, same_value
from strategies import floats

from vectorizer import vectorize
from vectorizer.analysis.signs import NONNEG, NONPOS, sign, within_unit
from vectorizer.rules import scalar as rules


def _call_name(node: cst.Call) -> str:
    func = node.func
    return f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else func.value  # type: ignore[union-attr]


def has_sign(value: float, want: int) -> bool:
    """`value` has the sign `want` the analysis claims: NaN has every sign, and so has -0.0."""
    return math.isnan(value) or (value >= 0 if want == NONNEG else value <= 0)


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
        assert has_sign(value, want), (text, x, y, value)


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


def _vec(f, backend: str, **options):
    """The NumPy backend with NumPy's own exp, log... (what the sign analysis reasons about: a
    generated module's, or a process's without Numba), or the Numba backend."""
    return numpy_functions(f, **options) if backend == "numpy" else vectorize(f, backend=backend, **options)


def _backends() -> list[str]:
    from vectorizer.backends.numba import jit

    return ["numpy", "numba"] if jit.available() else ["numpy"]


def _steps(x: np.ndarray, n: int, toward: float) -> np.ndarray:
    for _ in range(n):
        x = np.nextafter(x, toward)
    return x


def _simpson_with_exp_moved(a: np.ndarray, b: np.ndarray, ulps: int) -> np.ndarray:
    """The scalar simpson, lane by lane, with every exp `ulps` ulp higher (or lower)."""
    def moved(x: float) -> float:
        return _steps(np.float64(math.exp(-0.5 * x * x)), abs(ulps), math.copysign(math.inf, ulps)).item()

    saved = globals()["gaussian"]
    globals()["gaussian"] = moved  # simpson reads its callee from this module's globals at each call
    try:
        return np.array([simpson(x, y) for x, y in zip(a.tolist(), b.tolist())])
    finally:
        globals()["gaussian"] = saved


def check_simpson(backend: str, a: np.ndarray, b: np.ndarray) -> None:
    """On Numba, bit for bit (the C library's exp, as CPython's). On NumPy, whose exp differs by CPU
    within rules.ULP_BOUND: simpson grows with every gaussian when h > 0 and shrinks when h < 0 (the
    weights are positive), so each lane lies between the scalar function's values with every exp
    ULP_BOUND ulp lower and higher, subnormal and zero terms included, give or take the roundings of
    the 17 operations after the exps: 2 ulp of the result each."""
    vf = _vec(simpson, backend)
    if backend == "numba":
        check(vf, simpson, a, b)
        return
    got = np.asarray(vf(a, b))
    want = np.array([simpson(x, y) for x, y in zip(a.tolist(), b.tolist())])
    ends = np.stack([_simpson_with_exp_moved(a, b, -rules.ULP_BOUND), _simpson_with_exp_moved(a, b, rules.ULP_BOUND)])
    lo, hi = _steps(ends.min(axis=0), 34, -math.inf), _steps(ends.max(axis=0), 34, math.inf)
    assert got.dtype == np.float64 and got.shape == want.shape
    for x, y, w, g, low, high in zip(a.tolist(), b.tolist(), want.tolist(), got.tolist(), lo.tolist(), hi.tolist()):
        if math.isfinite(w) and w != 0.0:
            assert low <= g <= high, (x, y, w, g, low, high)
        else:  # inf, nan, zeros (signs included): no libm result moves them
            assert same_value(w, g), (x, y, w, g)


@pytest.mark.parametrize("backend", _backends())
def test_values_against_the_oracle(backend: str) -> None:
    exact = backend == "numba"  # the C library's exp, as CPython's: bit for bit
    check(_vec(gaussian, backend), gaussian, HOSTILE, ulps=0 if exact else rules.ULP_BOUND)
    check_simpson(backend, HOSTILE, HOSTILE[::-1].copy())
    check(_vec(norm, backend), norm, HOSTILE, HOSTILE[::-1].copy())  # sqrt: exact
    check(_vec(unknown, backend), unknown, np.array([1.0, -2.0]), np.array([3.0, 4.0]),
          ulps=0 if exact else rules.ULP_BOUND)
    # two positive exps and their sum: twice the bound in ulps of the sum, and one rounding
    check(_vec(calls_both, backend), calls_both, np.array([0.5, -1.0, 3.0]),
          ulps=0 if exact else 2 * rules.ULP_BOUND + 1)


@pytest.mark.parametrize("backend", _backends())
def test_checks_that_can_hold_still_raise(backend: str) -> None:
    check(_vec(grows, backend), grows, np.array([1.0, 37.0, -38.0, 2.0]))
    check(_vec(unknown, backend), unknown, np.array([1.0, -30.0]), np.array([3.0, 30.0]))
    check(_vec(calls_both, backend), calls_both, np.array([0.5, 40.0, 1.0]))
    with pytest.raises(OverflowError):
        _vec(calls_both, backend)(np.array([0.5, 40.0, 1.0]))


@pytest.mark.parametrize("backend", _backends())
def test_generated_code_has_no_check_where_none_can_hold(backend: str) -> None:
    kept, gone = _vec(grows, backend), _vec(gaussian, backend)
    kept(np.ones(3))
    gone(np.ones(3))
    assert "709.7" in kept.source and "709.7" not in gone.source
    if backend == "numba":  # a callee that never fails returns its value alone
        both = _vec(calls_both, backend)
        both(np.ones(3))
        assert "gaussian_result = _lane_gaussian(x)" in both.source
        assert "grows_result, failed" in both.source


@settings(max_examples=60, deadline=None)
@given(st.lists(floats(), min_size=1, max_size=8), st.sampled_from(_backends()))
def test_hypothesis_simpson_and_norm(xs: list[float], backend: str) -> None:
    a = np.array(xs)
    check_simpson(backend, a, a[::-1].copy())
    check(_vec(norm, backend), norm, a, a[::-1].copy())


# -- divisors that are never zero ---------------------------------------------------------------
NEVER_ZERO = {
    "1.0 + math.exp(x)": True, "2 + x * x": True, "math.exp(-x * x) + 0.5": True, "+3.0": True,
    "1.0 - (-x * x)": True, "0.5 + abs(x) + y * y": True,
    "math.exp(x)": False,  # underflows to 0.0 from x < -745
    "1.0 + x": False, "1.0 - math.exp(x)": False, "0.0 + x * x": False, "x * x + 1e-300 * y * y": False,
    "-1.0 - x * x": False, "1e-300 * 1e-300": False,
}


def _positive(text: str) -> bool:
    from vectorizer.analysis.signs import positive

    return positive(cst.parse_expression(text), _call_name)


@pytest.mark.parametrize("text", sorted(NEVER_ZERO))
def test_never_zero_shapes(text: str) -> None:
    assert _positive(text) == NEVER_ZERO[text]


@settings(max_examples=300, deadline=None)
@given(floats(), floats())
def test_never_zero_holds_on_hostile_values(x: float, y: float) -> None:
    env = {"x": x, "y": y, "math": math, "abs": abs}
    for text in NEVER_ZERO:
        if not _positive(text):
            continue
        try:
            value = eval(text, env)  # noqa: S307 - our own table of expressions
        except (OverflowError, ValueError, ZeroDivisionError):
            continue
        assert math.isnan(value) or value > 0, (text, x, y, value)


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def shifted_mod(n: int, k: int) -> int:
    return n % (1 + k * k) + n // (2 + abs(k))


@pytest.mark.parametrize("backend", _backends())
def test_positive_divisor_has_no_zero_check(backend: str) -> None:
    """The divisor `1.0 + exp(-x)` is never 0: no ZeroDivisionError test, and exp is not computed
    exactly for one (the NumPy backend's exact path is for values that decide something)."""
    vf = _vec(logistic, backend, fallback="error")
    exact = backend == "numba"
    check(vf, logistic, HOSTILE, ulps=0 if exact else rules.ULP_BOUND + 1)
    assert "_vz_exact" not in vf.source and "== 0" not in vf.source.split("def _vz_")[0]
    ints = np.array([0, 1, -1, 7, -7, 3037000499, -3037000500, 2**62, -(2**63), 2**63 - 1, 12345])
    check(_vec(shifted_mod, backend, fallback="error"), shifted_mod, ints, ints[::-1].copy())


# -- within_unit: asin's and acos's domain checks ------------------------------------------------
UNIT = {
    "math.sqrt(min(x, 1.0))": True, "math.sqrt(min(1.0, x, y))": True, "-math.sqrt(min(x, 0.5))": True,
    "math.sqrt(min(x, 1.0)) * 0.5": True, "abs(math.sqrt(min(x, 1)))": True, "0.75": True,
    "min(math.sqrt(min(x, 1.0)), -1.0)": True, "math.sqrt(min(x, 1.5))": False, "math.sqrt(x)": False,
    "min(x, 1.0)": False, "math.sqrt(max(x, 1.0))": False, "math.sin(x)": False,  # NumPy's sin is not trusted to stay within 1
    "math.sqrt(min(x, 1.0)) + 0.0": False, "math.sqrt(min(x, 1.0)) * 2.0": False,
}


@pytest.mark.parametrize("text", sorted(UNIT))
def test_within_unit_shapes(text: str) -> None:
    assert within_unit(cst.parse_expression(text), _call_name) is UNIT[text]


@settings(max_examples=300, deadline=None)
@given(floats(), floats())
def test_within_unit_holds_on_hostile_values(x: float, y: float) -> None:
    env = {"x": x, "y": y, "math": math, "abs": abs, "min": min, "max": max}
    for text, unit in UNIT.items():
        if not unit:
            continue
        try:
            value = eval(text, env)  # noqa: S307 - our own table of expressions
        except (OverflowError, ValueError):
            continue
        assert math.isnan(value) or -1.0 <= value <= 1.0, (text, x, y, value)


def clamped_arcsin(h: float) -> float:
    return math.asin(math.sqrt(min(h, 1.0))) + math.acos(-math.sqrt(min(1.0, h)))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_asin_of_a_clamped_sqrt_has_no_domain_check(backend: str) -> None:
    vf = _vec(clamped_arcsin, backend, cache=False)
    vf(np.array([0.5]))
    assert "> 1" not in vf.source, vf.source
    check(vf, clamped_arcsin, np.array([0.0, -0.0, 0.25, 1.0, 1.0000000000000002, 1e300, np.inf, np.nan, 5e-324]),
          ulps=rules.ULP_BOUND + 1)
    with pytest.raises(ValueError, match="math domain error"):
        vf(np.array([0.5, -1e-300]))  # sqrt's own check stays
