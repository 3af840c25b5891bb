"""Differential tests of realistic kernels: the batched function against the scalar function run
lane by lane, with hypothesis driving hostile inputs (NaN, inf, -0.0, subnormals, huge values,
ints near 2**63), for values and exceptions."""

from __future__ import annotations

import math

import kernels as K
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, libm_ulps, same_value
from strategies import floats, ints, near

from vectorizer import vectorize
from vectorizer.rules import scalar as rules

HOSTILE = floats()
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def batch(f, *elements, size=(0, 20)):
    """Same-length arrays, one per parameter, with the dtype its annotation names (an empty list
    would otherwise become a float array); `uniform(...)` parameters get one scalar."""
    dtypes = [{"int": np.int64, "bool": np.bool_}.get(getattr(f.__annotations__.get(p), "__name__", ""), np.float64)
              for p in list(f.__code__.co_varnames[: f.__code__.co_argcount])]
    return st.integers(*size).flatmap(lambda n: st.tuples(*[
        e.strategy if isinstance(e, _Uniform) else st.lists(e, min_size=n, max_size=n).map(lambda xs, d=d: np.array(xs, dtype=d))
        for e, d in zip(elements, dtypes)]))


class _Uniform:
    def __init__(self, strategy):
        self.strategy = strategy


def uniform(strategy):
    return _Uniform(strategy)


# kernel -> (argument strategies, comparison tolerance)
CASES = {
    "escape_time": ((floats(-2.5, 1.5), floats(-1.5, 1.5), uniform(st.integers(0, 60))), {}),
    "collatz_steps": ((ints(-5, 10**6),), {}),
    "black_scholes_call": ((floats(1.0, 200.0), floats(1.0, 200.0), floats(0.05, 1.0), floats(-1.0, 3.0), uniform(st.floats(-0.05, 0.1))),
                           {"rel": 1e-9}),
    "great_circle_km": ((HOSTILE, floats(-180.0, 180.0), floats(-90.0, 90.0), floats(-180.0, 180.0)), {"rel": 1e-9}),
    "kepler_eccentric_anomaly": ((floats(-10.0, 10.0), st.one_of(floats(0.0, 0.99), floats())), {"rel": 1e-9}),
    "bisect_sqrt": ((HOSTILE,), {}),
    "softplus": ((st.one_of(HOSTILE, near(30.0, -30.0)),), {"ulps": 8}),
    "clamp": ((HOSTILE, HOSTILE, HOSTILE), {}),
    "quadratic_roots": ((HOSTILE, HOSTILE, HOSTILE), {}),
    "income_tax": ((st.one_of(HOSTILE, near(10000.0, 40000.0, 90000.0)),), {}),
    "gravity_force": ((HOSTILE, HOSTILE, HOSTILE), {}),
    "projectile_range": ((floats(0.0, 100.0), HOSTILE, floats(-10.0, 10.0)), {"rel": 1e-9}),
    "gcd_steps": ((ints(-(10**12), 10**12), ints(-(10**12), 10**12)), {}),
    "digit_sum": ((ints(),), {}),
    "int_power": ((ints(-(2**31), 2**31), ints(-3, 80)), {}),
    "exp_series": ((HOSTILE,), {}),
    "trapezoid_sin": ((floats(-10.0, 10.0), HOSTILE, ints(-2, 40)), {"rel": 1e-9}),
    "polynomial": ((HOSTILE,), {}),
    "piecewise_linear": ((st.one_of(HOSTILE, near(0.0, 1.0, 3.0)),), {}),
    "leaky_relu": ((HOSTILE,), {}),
    "first_passage": ((floats(-5.0, 5.0), floats(-0.5, 0.5), uniform(st.floats(-5.0, 5.0))), {}),
    "is_prime": ((ints(-10, 10**6),), {}),
}


BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_matches_scalar_oracle(name, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    strategies, tolerance = CASES[name]
    f = getattr(K, name)
    vf = vectorize(f, fallback="error", backend=backend)

    @SETTINGS
    @given(batch(f, *strategies))
    def run(args):
        check(vf, f, *args, **tolerance)
        assert vf.backend == backend  # never a silent fallback to the other backend

    run()


@pytest.mark.parametrize("size", [0, 1, 7, 65])
def test_escape_time_sizes_and_dtype(size):
    x = np.linspace(-2, 1, size)
    got = vectorize(K.escape_time)(x, 0.3)
    assert got.dtype == np.int64 and got.shape == (size,)
    assert got.tolist() == [K.escape_time(v, 0.3) for v in x.tolist()]


def test_scalar_call_returns_numpy_scalar():
    got = vectorize(K.softplus)(1.5)
    # log1p(exp(x)): non-decreasing in both results, each within the bound on the NumPy backend
    ulps = libm_ulps(K.softplus, 1.5, names=("exp", "log1p"))
    assert isinstance(got, np.float64) and same_value(K.softplus(1.5), got.item(), ulps), (got, ulps)


def test_broadcasting_lanes():
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    lo = np.array([[-0.5], [0.0]])
    check(vectorize(K.clamp), K.clamp, x, lo, 0.5)


def test_exception_is_first_failing_lane_in_c_order():
    n = np.array([[5, 3], [0, -2]])  # lanes (1, 0) and (1, 1) raise; (1, 0) comes first
    with pytest.raises(ValueError, match="positive start, got 0") as info:
        vectorize(K.collatz_steps)(n)
    assert any("lane (1, 0)" in note for note in info.value.__notes__)


def test_inputs_are_never_written():
    x = np.array([3.0, -1.0, 0.5])
    x.setflags(write=False)
    before = x.copy()
    vectorize(K.softplus)(x)
    vectorize(K.bisect_sqrt)(np.abs(x))
    assert np.array_equal(x, before)


def test_math_erf_kernel_is_within_the_ulp_bound():
    """NumPy has no erf: the NumPy backend's own (vectorizer/runtime/special.py) is within the bound of
    the Class B functions; the Numba backend calls libm's, exactly as math.erf does."""
    x = np.linspace(-8, 8, 1001)
    check(vectorize(erf_only), erf_only, x, ulps=rules.ULP_BOUND)
    # 0.5 * (1 + erf(x)) cancels for x << 0: the error is the bound's in units of 1.0, not of the result
    got = vectorize(K.norm_cdf)(x)
    want = np.array([K.norm_cdf(v) for v in x.tolist()])
    assert np.all(np.abs(got - want) <= rules.ULP_BOUND * np.spacing(1.0)), np.max(np.abs(got - want))
    assert math.isnan(vectorize(K.norm_cdf)(math.nan))


def erf_only(x: float) -> float:
    return math.erf(x)


ZERO = 0.0
SCALE = 4.0


def divide_by_constants(x: float) -> float:
    if x > 1.0:
        return x / ZERO  # the check is decided at transform time: every lane here fails
    return x / SCALE  # and here no lane can: no flag update at all


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_checks_on_module_constants_are_decided_at_transform_time(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    vf = vectorize(divide_by_constants, backend=backend)
    check(vf, divide_by_constants, np.array([0.5, -2.0, 0.0, -0.0, np.nan]))
    check(vf, divide_by_constants, np.array([0.5, 3.0, 7.0]))  # ZeroDivisionError from lane 1
    if backend == "numpy":
        assert "SCALE == 0" not in vf.source and "ZERO == 0" not in vf.source
        assert "flag |= m" in vf.source


def constant_tests(n: int, x: float):
    b = x >= 0
    return (1 and b, 0 or b, b if 1 else n, n if 0 else b, 0 and b, b or 2)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_constant_test_picks_its_side_and_its_type(backend):
    """`1 and b` is `b`, a bool, as the analysis types it: the lowering must not merge in the
    int side that never runs (it used to assert in ops_to_numpy.coerce)."""
    if backend == "numba":
        pytest.importorskip("numba")
    check(vectorize(constant_tests, backend=backend), constant_tests,
          np.array([1, 2, -3, 0, 2**62]), np.array([0.5, -1.0, np.nan, -0.0, np.inf]))
