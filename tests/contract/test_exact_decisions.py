"""Discrete outcomes never depend on the math library (docs/internals.md, the contract: discrete outcomes; issue 27).

Ints, bools, branch decisions, loop trip counts and exceptions of the NumPy backend must be the
scalar function's on every lane, on every CPU, even where they are decided by exp, log, pow,
`**`, sin... whose NumPy kernels are a few ulp from the C library (analysis/decisions.py,
exactmath.py). Checked three ways: on this machine's NumPy against the scalar oracle; with a
simulated AVX-512 NumPy (tests/perturb.py) that moves results by 1-2 ulp, which must not change
any discrete outcome (and does change them in code lowered without the analysis); and with
Hypothesis on hostile inputs.
"""

from __future__ import annotations

import math

import kernels
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from perturb import PerturbedNumPy, discrete_mismatches, source
from strategies import floats

from vectorizer import vectorize
from vectorizer.api import prepare
from vectorizer.core.types import FLOAT, INT, Val
from vectorizer.options import Options
from vectorizer.pipeline import lower
from vectorizer.runtime.exactmath import c_pow, exact, exact_template


def cube_test(n: int) -> bool:
    v = n ** (1 / 3)
    return v * v * v == n


def exp_log_int(k: int) -> int:
    return int(math.exp(math.log(k)))


def int_of_power(x: float, k: int) -> int:
    return int(x ** k)


def sum_int_products(x: float) -> int:
    s = 0
    for i in range(1, 6):
        s += int(x ** i * x ** 0.5 * 100.0)
    return s


def logistic_trips(x: float) -> int:
    for _ in range(4000):
        x = 3.99 * x - 3.99 * x ** 2
    n = 0
    while x > 0.02 and n < 300:  # the trip count depends on the chaotic value
        x = 3.99 * x - 3.99 * x ** 2
        n += 1
    return n


def logistic_count(x: float) -> int:
    c = 0
    for _ in range(4000):
        x = 3.99 * x - 3.99 * x ** 2
        if x > 0.5:
            c += 1
    return c


def exp_log_loop(x: float) -> int:
    n = 0
    while math.exp(math.log(x)) != x and n < 60:  # exits where exp undoes log to the last bit
        x = x * 1.37 + 0.5
        n += 1
    while math.exp(x / 50.0) > 1.5 and n < 400:  # a well-conditioned test as well
        x = x - 0.01 * math.log(1.0 + x * x) - 0.001
        n += 1
    return n


def trig_loop(x: float) -> int:
    n = 0
    while math.sin(x) ** 2 + math.cos(x) ** 2 != 1.0 and n < 60:
        x = x * 1.1 + 0.1
        n += 1
    while math.sin(x) + math.cos(x) < 1.0 and n < 200:
        x += 0.01 * math.sqrt(abs(math.tanh(x)) + 1.0)
        n += 1
    return n


def branchy(x: float, y: float) -> int:
    r = math.exp(x) - y ** 2
    if r > 0.0 and math.log(r) < 1.5:
        return math.floor(math.log(r) * 10.0)
    if math.atan2(y, x) > 1.0:
        return round(math.hypot(x, y) * 3.0)
    return -1 if math.sin(y) > 0.0 else 2


def domain_of_approx(x: float) -> float:
    # math.log raises where cos(x) - 0.5 is <= 0: decided by an approximate cos
    return math.log(math.cos(x) - 0.5) + math.sqrt(math.exp(x) - 1.0)


INT_ARG = {"n": Val(INT, True)}
rng = np.random.default_rng(27)
UNIFORM = rng.uniform(0.05, 0.95, 150)


# -- (a) this machine's NumPy, against the scalar function ----------------------------------------
def test_perfect_cubes() -> None:
    n = np.arange(0, 3000)
    check(vectorize(cube_test), cube_test, n)
    assert vectorize(cube_test)(np.array([27]))[0]  # Python: 27 ** (1/3) cubed is 27


def test_int_exp_log_200000() -> None:
    k = np.arange(1, 200_001)
    check(vectorize(exp_log_int), exp_log_int, k)


@pytest.mark.parametrize("k", [2, 3, 5, 7])
def test_int_of_power(k: int) -> None:
    x = np.concatenate([rng.uniform(-30, 30, 3000), np.arange(-40.0, 40.0, 0.25)])
    check(vectorize(int_of_power), int_of_power, x, k)


def test_sum_of_int_products() -> None:
    check(vectorize(sum_int_products), sum_int_products, rng.uniform(0.0, 20.0, 2000))


@pytest.mark.parametrize("f", [logistic_trips, logistic_count])
def test_chaotic_logistic_map(f) -> None:
    # x ** 2 is C's pow(x, 2.0) in CPython, not x * x (NumPy's power for a constant 2):
    # 4,000 chaotic steps amplify the difference into other branches and trip counts
    check(vectorize(f), f, UNIFORM)


@pytest.mark.parametrize("f", [exp_log_loop, trig_loop])
def test_while_tests_of_transcendentals(f) -> None:
    check(vectorize(f), f, np.concatenate([rng.uniform(0.1, 30, 2000), [1e-300, 2.5, 1e300]]))


def test_tanh_and_hypot_in_decisions() -> None:
    # np.tanh is not libm's on ~half the inputs here, np.hypot not CPython's on ~0.6%
    x = rng.uniform(-5, 5, 3000)
    y = rng.uniform(-5, 5, 3000)
    check(vectorize(branchy), branchy, x, y)


def test_domain_errors_of_approximate_operands() -> None:
    x = np.concatenate([np.arange(-2000, 2000) * (math.pi / 3000), [math.pi / 3, -math.pi / 3, 0.0]])
    check(vectorize(domain_of_approx), domain_of_approx, np.abs(x) + 0.0, ulps=20)


# -- (b) a simulated AVX-512 NumPy ---------------------------------------------------------------
SIMULATED = [
    (cube_test, INT_ARG, lambda: [np.arange(0, 400)]),
    (exp_log_int, {"k": Val(INT, True)}, lambda: [np.arange(1, 3001)]),
    (int_of_power, {"x": Val(FLOAT, True), "k": Val(INT, False)}, lambda: [rng.uniform(-30, 30, 500), 3]),
    (sum_int_products, {"x": Val(FLOAT, True)}, lambda: [rng.uniform(0.0, 20.0, 300)]),
    (logistic_trips, {"x": Val(FLOAT, True)}, lambda: [UNIFORM[:40]]),
    (exp_log_loop, {"x": Val(FLOAT, True)}, lambda: [rng.uniform(0.1, 30, 300)]),
    (trig_loop, {"x": Val(FLOAT, True)}, lambda: [rng.uniform(0.1, 30, 300)]),
    (branchy, {"x": Val(FLOAT, True), "y": Val(FLOAT, True)}, lambda: [rng.uniform(-5, 5, 500), rng.uniform(-5, 5, 500)]),
]


@pytest.mark.parametrize("f, params, make_args", SIMULATED, ids=[c[0].__name__ for c in SIMULATED])
def test_simulated_avx512(f, params, make_args) -> None:
    args = make_args()
    text = source(f, params)
    for seed in range(3):
        assert discrete_mismatches(f, text, args, PerturbedNumPy(seed)) == []


def test_the_simulation_breaks_code_lowered_without_the_analysis() -> None:
    """The shim has teeth: the same programs lowered on NumPy's functions alone (as before the
    decisions analysis) give other ints, bools and trip counts under it."""
    broken = []
    for f, params, make_args in SIMULATED:
        old = source(f, params, analysis=False)
        assert "_vz_exact" not in old
        if discrete_mismatches(f, old, make_args(), PerturbedNumPy(0)):
            broken.append(f.__name__)
    assert {"cube_test", "exp_log_int", "logistic_trips", "exp_log_loop", "trig_loop"} <= set(broken), broken


def test_kepler_newton_exit_is_exact() -> None:
    """kernels.kepler_eccentric_anomaly leaves its Newton loop when |step| < 1e-12, a test of
    values from sin and cos; from e = pi (ecc >= 0.8) some lanes never converge and wander
    chaotically for 50 steps, so one ulp in a sin changes the trip count and the result (it gave
    5076.4 for -2.96 in test_compaction under VECTORIZER_TEST_LIBM_JITTER=1 before the analysis).
    Every value of e decides the exit, so the whole loop is exact: bit for bit under the simulation,
    and not when lowered without the analysis (the lanes that never converge are now handed to the
    scalar function as a long tail, so those differ by less than they did)."""
    f = kernels.kepler_eccentric_anomaly
    params = {"mean_anomaly": Val(FLOAT, True), "ecc": Val(FLOAT, True)}
    draw = np.random.default_rng(5)  # its own: the last assert needs a lane that never converges
    args = [draw.uniform(-6, 6, 400), draw.uniform(0.0, 0.99, 400)]
    text = source(f, params)
    assert "_vz_exact(math.sin" in text and "_vz_exact(math.cos" in text
    for seed in range(3):
        assert discrete_mismatches(f, text, args, PerturbedNumPy(seed)) == []
    old = discrete_mismatches(f, source(f, params, analysis=False), args, PerturbedNumPy(0))
    assert old  # without the analysis the simulated AVX-512 changes discrete outcomes here


def test_operations_outside_decisions_keep_numpy() -> None:
    def smooth(x: float) -> float:
        y = math.exp(-x * x) * math.sin(x) ** 2
        return y / (1.0 + x * x) if x > 0.0 else y

    text = source(smooth, {"x": Val(FLOAT, True)})  # exact=False
    assert "_vz_exact" not in text and "np.exp(" in text
    parsed, namespace = prepare(smooth)  # the default, exact=True: every one is CPython's
    text = lower(parsed, namespace, {"x": Val(FLOAT, True)}, Options()).source
    assert "np.exp(" not in text and "_vz_exact(math.exp" in text and "_vz_exact(math.sin" in text


# -- the helper ------------------------------------------------------------------------------------
def test_exact_is_cpythons_math() -> None:
    x = np.concatenate([rng.uniform(-50, 50, 5000), [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e308]])
    for fn in (math.exp, math.log, math.sin, math.cos, math.tanh, math.erf, math.erfc, math.atan):
        got = exact(fn, x)
        for v, g in zip(x.tolist(), got.tolist()):
            try:
                want = fn(v)
            except ValueError:
                assert math.isnan(g), (fn, v, g)
                continue
            except OverflowError:
                assert g == math.inf, (fn, v, g)
                continue
            assert math.isnan(want) and math.isnan(g) or math.copysign(1, want) * want == math.copysign(1, g) * g, (fn, v)
    assert isinstance(exact(math.pow, 2.0, 0.5), np.float64)
    assert exact(math.pow, np.array([2.0, -8.0, 0.0]), np.array([0.5, 1 / 3, -1.0])).tolist()[0] == 2.0 ** 0.5


def test_exact_template() -> None:
    assert exact_template("np.power({0}, {1}, dtype=np.float64)") == "_vz_exact(math.pow, {0}, {1})"
    assert exact_template("np.log({0}) / np.log({1})") == "_vz_exact(math.log, {0}) / _vz_exact(math.log, {1})"
    assert exact_template("np.arctan2({0}, {1})") == "_vz_exact(math.atan2, {0}, {1})"
    assert exact_template("_vz_erfc({0})") == "_vz_exact(math.erfc, {0})"
    assert exact_template("np.power({0}, np.maximum({1}, 0))") is None  # an int power is exact
    assert exact_template("np.sqrt({0})") is None


# -- (c) Hypothesis, hostile inputs ----------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(floats(), min_size=1, max_size=12), st.lists(floats(), min_size=1, max_size=12))
def test_hostile_branchy(xs, ys) -> None:
    n = min(len(xs), len(ys))
    x, y = np.array(xs[:n]), np.array(ys[:n])
    check(vectorize(branchy), branchy, x, y)
    assert discrete_mismatches(branchy, source(branchy, {"x": Val(FLOAT, True), "y": Val(FLOAT, True)}),
                               [x, y], PerturbedNumPy(len(xs))) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(floats(), min_size=1, max_size=12), st.integers(-3, 9))
def test_hostile_int_of_power(xs, k) -> None:
    check(vectorize(int_of_power), int_of_power, np.array(xs), k)


@pytest.mark.numba
def test_numba_loops_are_cpythons_math() -> None:
    """The in-process helper (compiled loops over libm) gives `exact`'s bits wherever the Python
    function does not raise (there the lanes are flagged or unread)."""
    from vectorizer.backends.numba.exactloops import FUNCTIONS, NUMBA_MIN_LANES
    from vectorizer.engine.exactcalls import exact_math

    fast_exact = exact_math()
    assert set(fast_exact.loops()) == set(FUNCTIONS), "Numba is installed: the loops must load"
    hostile = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, 1e308, -1e308, 1.0, -1.0, 0.5, 27.0, 2.0, 3.0, 1e154, -1e-160]
    x = np.concatenate([rng.uniform(-20, 20, 20000), rng.standard_normal(5000) * 1e3,
                        np.exp(rng.uniform(-700, 700, 5000)), hostile * 20])
    y = np.concatenate([rng.uniform(-5, 5, x.size - 280), np.resize(np.array(hostile), 280)])
    assert x.size >= NUMBA_MIN_LANES
    for name, (arity, _) in FUNCTIONS.items():
        fn = c_pow if name == "c_pow" else getattr(math, name)
        args = (x,) if arity == 1 else (x, y)
        fast, slow = fast_exact(fn, *args), exact(fn, *args)
        # NaN/inf: where Python raised, or NaN/inf in (c_pow never raises: every lane, inf too)
        settled = ~np.isnan(slow) if fn is c_pow else ~(np.isnan(slow) | np.isinf(slow))
        assert np.array_equal(fast[settled].view(np.int64), slow[settled].view(np.int64)), name
        assert np.array_equal(np.isnan(fast[np.isnan(args[0])]), np.ones(int(np.isnan(args[0]).sum()), bool)), name
    for exponent in (2.0, 3.0, 0.5, -1.0):  # exponents LLVM would simplify: C's pow all the same
        fast, slow = fast_exact(math.pow, x, exponent), exact(math.pow, x, exponent)
        settled = ~(np.isnan(slow) | np.isinf(slow))
        assert np.array_equal(fast[settled].view(np.int64), slow[settled].view(np.int64)), exponent


def erf_gap(x: float) -> float:
    return math.erfc(x) - math.erf(x)


@pytest.mark.numba
def test_erf_and_erfc_in_process_are_cpythons_math() -> None:
    """In process the engine binds a module's `_vz_erf`/`_vz_erfc` to the loops over libm
    (ExactMath.function): CPython's bits on a batch that pays for them, the module's NumPy
    version (within the ulp bound) on anything else."""
    from vectorizer.backends.numba.exactloops import NUMBA_MIN_LANES
    from vectorizer.engine.exactcalls import exact_math
    from vectorizer.runtime import special

    hostile = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, 0.5, -0.5, 0.4999999999999999, 26.0, -6.0]
    x = np.concatenate([rng.uniform(-8, 8, 20000), rng.standard_normal(5000), np.array(hostile * 20)])
    assert x.size >= NUMBA_MIN_LANES
    vf = vectorize(erf_gap, backend="numpy", cache=False)
    check(vf, erf_gap, x)  # ulps=0: every bit (exact=True: `_vz_exact(math.erfc, ...)`)
    assert "_vz_exact(math.erfc" in vf.source
    # exact=False without vector math (as where libmvec is missing) keeps the NumPy helpers, which
    # the engine binds to the same loops in process
    vf = vectorize(erf_gap, backend="numpy", cache=False, exact=False)
    vf.options = Options(backend="numpy", exact=False, vector_math=False)
    check(vf, erf_gap, x)
    assert "_vz_erfc" in vf.source and "_vz_erf(" in vf.source
    fast = exact_math().function("erfc", special._vz_erfc)
    assert fast.__name__ == "_vz_erfc"
    for other in (np.float64(0.3), x[:20]):  # a NumPy scalar, a few lanes
        assert np.array_equal(fast(other), special._vz_erfc(other), equal_nan=True)
    assert np.array_equal(fast(x.reshape(5, -1)), np.array([math.erfc(v) for v in x.tolist()]).reshape(5, -1), equal_nan=True)
