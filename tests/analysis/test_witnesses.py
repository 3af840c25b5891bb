"""analysis/witnesses.py: a sqrt's sign check made on NumPy's values where a witness settles it.

The witness rests on one measured fact, that NumPy's values of SIGN_FAITHFUL functions have
CPython's sign (checked here on hostile, random and near-zero inputs, on whatever CPU runs the
tests: AVX-512 kernels, AVX2 with NPY_DISABLE_CPU_FEATURES, and the jitter leg's moved values),
and is tested against the scalar function where the sign of the operand is a rounding error away
from flipping (points near the poles, antipodal longitudes).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, numpy_functions

from vectorizer.analysis.witnesses import SIGN_FAITHFUL
from vectorizer.core.types import FLOAT, Val
from vectorizer.rules import scalar as rules
from vectorizer.runtime import special

EARTH_RADIUS_KM = 6371.0


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(20261205)
    magnitudes = 2.0 ** rng.uniform(-1074, 1024, 40_000)
    near = np.concatenate([k * np.pi / 2 + np.linspace(-1e-12, 1e-12, 41) for k in range(-8, 9)])
    near = np.concatenate([near, 1.0 + np.arange(-40, 41) * 2.0**-52, -1.0 + np.arange(-40, 41) * 2.0**-53,
                           np.arange(-40, 41) * 5e-324, np.arange(-40, 41) * 1e-300])
    hostile = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308, 1e-8, -1e-8,
                        0.5, -0.5, 1.0, -1.0, 709.7, -745.1, -745.2, 1e22, -1e22, 1e300, -1e300, 1.7976931348623157e308,
                        -1.7976931348623157e308])
    values = np.concatenate([magnitudes, -magnitudes, rng.uniform(-50, 50, 40_000), near, hostile])
    with np.errstate(over="ignore"):  # the next float after the largest is inf
        return np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, -np.inf)])


def _numpy(name: str, x: np.ndarray) -> np.ndarray:
    """What the NumPy backend computes for `name` (its rule's expression)."""
    expr = rules.CALLS[name]([Val(FLOAT, True)]).expr.format("x")
    with np.errstate(all="ignore"):
        return eval(expr, {"np": np, "_vz_erf": special._vz_erf, "_vz_erfc": special._vz_erfc, "x": x})  # noqa: S307


def _scalar(name: str, x: float) -> float:
    try:
        return getattr(math, name.removeprefix("math."))(x)
    except (ValueError, OverflowError):
        return math.nan  # the lane raises: no sign to keep


@pytest.mark.parametrize("name", sorted(SIGN_FAITHFUL))
def test_numpy_values_have_cpythons_sign(name):
    x = _inputs()
    fast = _numpy(name, x)
    exact = np.array([_scalar(name, v) for v in x.tolist()])
    negative, positive = exact < 0, exact > 0
    bit, nan = np.signbit(fast), np.isnan(fast)
    assert not np.any(negative & ~bit & ~nan), x[negative & ~bit & ~nan][:5]
    assert not np.any(positive & bit & ~nan), x[positive & bit & ~nan][:5]


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    phi1 = math.radians(lat1)
    phi2 = math.radians(lat2)
    dphi = phi2 - phi1
    dlam = math.radians(lon2 - lon1)
    h = math.sin(dphi / 2.0) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlam / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * math.asin(math.sqrt(min(h, 1.0)))


def positive_part(x: float, y: float) -> float:
    return math.sqrt(x - math.sin(y) ** 2)  # a term that may be positive under a minus: no witness


def shifted(x: float) -> float:
    h = math.exp(x) - 2.0  # a constant under a minus: no witness
    return math.sqrt(min(h, 1.0))


def approximate_operand(x: float) -> float:
    return math.sqrt(math.sin(math.exp(x)) + 1.0)  # sin's sign follows exp's last bits: no witness


def product_plus_one(a: float, b: float) -> float:
    return math.sqrt(math.cos(a) * math.tanh(b) + 1.0)


def exact_operand(x: float, y: float) -> float:
    return math.sqrt(x * x - y)


def scaled(x: float, y: float) -> float:
    return math.sqrt(EARTH_RADIUS_KM * math.sin(x) * math.sin(y) + y + x * x)


def _source(f, *args) -> str:
    vf = numpy_functions(f, cache=False)
    vf(*args)
    return vf.source


def test_haversine_computes_no_value_exactly_and_checks_the_product_sign():
    lat = np.array([10.0, 20.0])
    source = _source(haversine_km, lat, lat, lat, lat)
    assert "_vz_exact" not in source and "np.sin(" in source and "np.cos(" in source, source
    assert "flag |= np.signbit(t_4) | np.isnan(t_4)" in source, source
    assert "np.abs(" not in source.split("h = r + t_4")[1], source  # asin's check went


@pytest.mark.parametrize("f", [positive_part, shifted, approximate_operand])
def test_no_witness_keeps_the_exact_values(f):
    args = (np.array([1.5, 2.0]), np.array([0.1, 0.2]))[: f.__code__.co_argcount]
    source = _source(f, *args)
    assert "_vz_exact" in source and "signbit" not in source, source


def test_an_exact_operand_keeps_its_own_test():
    source = _source(exact_operand, np.array([1.0, 2.0]), np.array([0.5, 3.0]))
    assert "signbit" not in source and "< 0" in source, source


@pytest.mark.parametrize("f, terms", [(product_plus_one, 1), (scaled, 2)])
def test_witness_terms(f, terms):
    source = _source(f, np.array([1.0, 2.0]), np.array([0.5, 9.0]))
    assert "_vz_exact" not in source and source.count("np.signbit(") + source.count(" < 0)") == terms, source


def _near_zero_h(n: int) -> tuple[np.ndarray, ...]:
    """Points mirrored about a pole 180 degrees of longitude apart: h is a rounding error from 0,
    of either sign (Python raises where it is negative), and cos(phi1) * cos(phi2) < 0."""
    k = np.linspace(0.001, 30.0, n)
    return 90.0 + k, np.zeros(n), 90.0 - k, np.full(n, 180.0)


def test_lanes_a_rounding_error_from_a_negative_sqrt_operand():
    lat1, lon1, lat2, lon2 = _near_zero_h(2000)
    outcomes = []
    for i in range(len(lat1)):
        try:
            haversine_km(lat1[i], lon1[i], lat2[i], lon2[i])
            outcomes.append(True)
        except ValueError:
            outcomes.append(False)
    assert 0 < sum(outcomes) < len(outcomes)  # both outcomes occur: the test can fail
    vf = numpy_functions(haversine_km)
    check(vf, haversine_km, lat1, lon1, lat2, lon2, rel=1e-7)  # the first lane that raises
    fine = np.array(outcomes)
    check(vf, haversine_km, lat1[fine], lon1[fine], lat2[fine], lon2[fine], rel=1e-7)  # every value


latitudes = st.one_of(st.floats(-200.0, 200.0), st.sampled_from([90.0, -90.0, 0.0, -0.0, math.nan, math.inf, 1e300]))
longitudes = st.one_of(st.floats(-360.0, 360.0), st.sampled_from([180.0, -180.0, 0.0, math.nan, -math.inf]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(latitudes, longitudes, latitudes, longitudes), min_size=1, max_size=30))
def test_haversine_matches_the_scalar_function(rows):
    # rel: asin near 1 turns an ulp of h into ~1e-8 of the distance (antipodal points).
    check(numpy_functions(haversine_km), haversine_km, *(np.array(c) for c in zip(*rows)), rel=1e-7)


floats = st.one_of(st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 5e-324, -5e-324, math.nan, math.inf, -math.inf]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(floats, floats), min_size=1, max_size=30))
@pytest.mark.parametrize("f", [product_plus_one, scaled])
def test_witnessed_functions_match_the_scalar_function(f, pairs):
    check(numpy_functions(f), f, *(np.array(c) for c in zip(*pairs)), rel=1e-9)


@pytest.mark.numba
@pytest.mark.parametrize("name", sorted(SIGN_FAITHFUL))
def test_vector_math_values_have_cpythons_sign(name):
    """With vector_math=True the witnessed values are glibc's vector functions'."""
    from vectorizer.backends.numba import vecmath

    expr = rules.CALLS[name]([Val(FLOAT, True)]).expr
    numpy_name = expr.split("(")[0].removeprefix("np.")
    numpy_name = vecmath.ALIASES.get(numpy_name, numpy_name)
    mvec = vecmath.FUNCTIONS[numpy_name][0]
    assert mvec in vecmath.kernels(), f"libmvec's {mvec} did not load: this would check NumPy's function"
    x = _inputs()
    with np.errstate(all="ignore"):
        fast = getattr(vecmath, numpy_name)(x)
    exact = np.array([_scalar(name, v) for v in x.tolist()])
    bit, nan = np.signbit(fast), np.isnan(fast)
    assert not np.any((exact < 0) & ~bit & ~nan), x[(exact < 0) & ~bit & ~nan][:5]
    assert not np.any((exact > 0) & bit & ~nan), x[(exact > 0) & bit & ~nan][:5]
