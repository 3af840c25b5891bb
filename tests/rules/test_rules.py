"""Every math rule of rules.py against CPython's math module, one operation at a time.

Class A rules (exact=True) must be bit-identical to CPython; Class B rules (libm-dependent: NumPy's
SIMD kernels vs the C library) must stay within rules.ULP_BOUND ulp, measured here on random and
special inputs, on both backends (the Numba backend calls the C library: 0 ulp expected). Domain
errors must be CPython's exceptions. Every math rule must appear below (no untested rule).
"""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from oracle import Raised, oracle, same_value, ulp_distance
from oracle import check as oracle_check

from vectorizer import VectorizeError, VectorizeOverflowError, vectorize
from vectorizer.passes.ops_to_lanes.exprs import NOT_CPYTHONS
from vectorizer.rules import scalar as rules

RNG = np.random.default_rng(7)
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, math.pi, math.inf, -math.inf, math.nan, 5e-324, 1e-300, 1e300,
            709.7, 709.8, -745.2, 710.5, 1e16, -1e16]

# rule -> (input sampler, whether it takes two arguments)
DOMAINS = {
    "math.sqrt": lambda: RNG.uniform(0, 1e6, 3000), "math.exp": lambda: RNG.uniform(-740, 709, 3000),
    "math.expm1": lambda: RNG.uniform(-40, 700, 3000), "math.exp2": lambda: RNG.uniform(-1000, 1000, 3000),
    "math.log": lambda: np.exp(RNG.uniform(-700, 700, 3000)), "math.log2": lambda: np.exp(RNG.uniform(-50, 50, 3000)),
    "math.log10": lambda: np.exp(RNG.uniform(-50, 50, 3000)), "math.log1p": lambda: RNG.uniform(-0.999, 1e5, 3000),
    "math.sin": lambda: RNG.uniform(-1e3, 1e3, 3000), "math.cos": lambda: RNG.uniform(-1e3, 1e3, 3000),
    "math.tan": lambda: RNG.uniform(-10, 10, 3000), "math.asin": lambda: RNG.uniform(-1, 1, 3000),
    "math.acos": lambda: RNG.uniform(-1, 1, 3000), "math.atan": lambda: RNG.uniform(-1e3, 1e3, 3000),
    "math.sinh": lambda: RNG.uniform(-700, 700, 3000), "math.cosh": lambda: RNG.uniform(-700, 700, 3000),
    "math.tanh": lambda: RNG.uniform(-20, 20, 3000), "math.asinh": lambda: RNG.uniform(-1e5, 1e5, 3000),
    "math.acosh": lambda: RNG.uniform(1, 1e5, 3000), "math.atanh": lambda: RNG.uniform(-1, 1, 3000),
    "math.cbrt": lambda: RNG.uniform(-1e5, 1e5, 3000), "math.fabs": lambda: RNG.normal(0, 1e3, 3000),
    "math.floor": lambda: RNG.normal(0, 1e6, 3000), "math.ceil": lambda: RNG.normal(0, 1e6, 3000),
    "math.trunc": lambda: RNG.normal(0, 1e6, 3000), "math.degrees": lambda: RNG.normal(0, 1e3, 3000),
    "math.radians": lambda: RNG.normal(0, 1e3, 3000), "math.isnan": lambda: RNG.normal(0, 1, 300),
    "math.isinf": lambda: RNG.normal(0, 1, 300), "math.isfinite": lambda: RNG.normal(0, 1, 300),
    "math.erf": lambda: RNG.uniform(-6, 6, 2000), "math.erfc": lambda: RNG.uniform(-6, 30, 2000),
    "math.gamma": lambda: RNG.uniform(-20, 170, 2000), "math.lgamma": lambda: RNG.uniform(-50, 1e4, 2000),
    "abs": lambda: RNG.normal(0, 1e3, 300), "float": lambda: RNG.normal(0, 1e3, 300), "bool": lambda: RNG.normal(0, 1, 300),
    "int": lambda: RNG.normal(0, 1e6, 300), "round": lambda: RNG.normal(0, 1e6, 300),
}
BINARY = {
    "math.atan2": lambda: (RNG.normal(0, 10, 3000), RNG.normal(0, 10, 3000)),
    "math.hypot": lambda: (RNG.normal(0, 1e3, 3000), RNG.normal(0, 1e3, 3000)),
    "math.copysign": lambda: (RNG.normal(0, 1, 300), RNG.normal(0, 1, 300)),
    "math.nextafter": lambda: (RNG.normal(0, 1, 300), RNG.normal(0, 1, 300)),
    "math.fmod": lambda: (RNG.normal(0, 1e3, 3000), RNG.normal(0, 10, 3000)),
    "math.pow": lambda: (RNG.uniform(0, 10, 3000), RNG.uniform(-30, 30, 3000)),
    "math.log": lambda: (np.exp(RNG.uniform(-50, 50, 3000)), RNG.uniform(1.5, 100, 3000)),
}
EXACT_ANYWAY = {"math.sqrt", "math.fabs", "math.floor", "math.ceil", "math.trunc", "math.copysign", "math.nextafter",
                "math.fmod", "math.isnan", "math.isinf", "math.isfinite", "math.degrees", "math.radians",
                "math.gamma", "math.lgamma", "abs", "float", "bool", "int", "round"}


def _module(tmp: Path, name: str, two: bool) -> object:
    """A real file with `def f(x[, y]): return <rule>(x[, y])` (vectorizer reads source files)."""
    call = f"{name}(x, y)" if two else f"{name}(x)"
    path = tmp / f"rule_{name.replace('.', '_')}_{int(two)}.py"
    path.write_text(textwrap.dedent(f"""
        import math


        def f(x{', y' if two else ''}):
            return {call}
    """))
    sys.path.insert(0, str(tmp))
    try:
        return __import__(path.stem)
    finally:
        sys.path.pop(0)


def _max_ulps(f, vf, *args) -> int:
    want = oracle(f, *args)
    assert not isinstance(want, Raised), want.exc
    got = np.asarray(vf(*args)).tolist()
    worst = 0
    for w, g in zip(want[1], got):
        if isinstance(w, float) and not (math.isnan(w) and math.isnan(g)):
            worst = max(worst, 0 if w == g and math.copysign(1, w) == math.copysign(1, g) else ulp_distance(w, float(g)))
        else:
            assert w == g or (isinstance(w, float) and math.isnan(w)), (w, g)
    return worst


BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_unary_rule_accuracy(name, backend, tmp_path):
    if backend == "numba":
        pytest.importorskip("numba")
    module = _module(tmp_path, name, False)
    vf = vectorize(module.f, fallback="error", backend=backend)
    x = DOMAINS[name]()
    if backend == "numba" and name in NOT_CPYTHONS:
        with pytest.raises(VectorizeError, match=f"{name} on the Numba backend"):
            vf(x)
        auto = vectorize(module.f, fallback="error", backend="auto")
        assert _max_ulps(module.f, auto, x) == 0  # CPython's own function, per element
        assert auto.backend == "numpy"
        return
    if backend == "numba" and rules.NOT_LIBM_IN_CPYTHON.get(name):
        _within_relative(module.f, vf(x), x, rules.NOT_LIBM_IN_CPYTHON[name])
        return
    worst = _max_ulps(module.f, vf, x)
    assert vf.backend == backend
    exact = (name in EXACT_ANYWAY or backend == "numba") and name not in rules.NOT_LIBM_IN_CPYTHON
    bound = 0 if exact else rules.ULP_BOUND
    assert worst <= bound, f"{name}: {worst} ulp (bound {bound})"


def _within_relative(f, got, x, rel):
    for v, g in zip(x.tolist(), np.asarray(got).tolist()):
        w = f(v)
        assert math.isclose(w, g, rel_tol=rel, abs_tol=1e-300), (v, w, g)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_rule_accuracy(name, backend, tmp_path):
    if backend == "numba":
        pytest.importorskip("numba")
    module = _module(tmp_path, name, True)
    vf = vectorize(module.f, fallback="error", backend=backend)
    x, y = BINARY[name]()
    exact = (name in EXACT_ANYWAY or backend == "numba") and name not in rules.NOT_LIBM_IN_CPYTHON
    bound = 0 if exact else rules.ULP_BOUND
    assert _max_ulps(module.f, vf, x, y) <= bound
    assert vf.backend == backend


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_special_values_give_cpythons_values_or_exceptions(name, tmp_path):
    """Domain and range errors: the same exception (type and message) as CPython, lane by lane."""
    module = _module(tmp_path, name, False)
    vf = vectorize(module.f, fallback="error")
    for v in SPECIALS:
        try:
            want = module.f(v)
            if isinstance(want, int) and not isinstance(want, bool) and not -(2**63) <= want < 2**63:
                with pytest.raises(VectorizeOverflowError):  # exact, but int64 cannot hold it
                    vf(np.array([v]))
                continue
        except Exception as exc:  # the expected outcome for this special value
            with pytest.raises(type(exc)) as info:
                vf(np.array([1.0, v]))
            assert str(info.value) == str(exc)
            continue
        got = vf(np.array([v]))[0].item()
        assert (isinstance(want, float) and math.isnan(want) and math.isnan(got)) or \
            ulp_distance(float(want), float(got)) <= (0 if name in EXACT_ANYWAY else rules.ULP_BOUND), (v, want, got)


def test_every_math_rule_is_tested():
    tested = set(DOMAINS) | set(BINARY) | {"math.isclose", "min", "max", "pow", "divmod"}
    tested |= {"operator.index"}  # exact on ints and bools: tests/contract/test_int_index.py
    from vectorizer.rules.mathcalls import MATH_CALLS

    tested |= set(MATH_CALLS)  # exact ones: tests/rules/test_mathcalls.py
    missing = sorted(set(rules.CALLS) | set(rules.KEYWORD_CALLS) - tested)
    assert not [m for m in missing if m not in tested], f"rules without accuracy tests: {missing}"


def test_affine_range_is_exact():
    lo, hi = -(2**63), 2**63 - 1
    for c in (1, 2, 3, 7, -1, -2, -3, 10**9, -(10**9)):
        for d in (0, 1, -1, 5, -5, 2**40):
            a, b = rules.affine_range(c, d)
            for x in (a - 1, a, b, b + 1):
                assert (a <= x <= b) == (lo <= c * x <= hi and lo <= c * x + d <= hi), (c, d, x)


def test_erf_and_erfc_approximations_stay_within_the_bound_everywhere():
    """vectorizer/runtime/special.py on every part of its tables and the edges between them (the DOMAINS
    test samples uniformly), against math.erf/erfc; the subnormal range is flagged instead."""
    from vectorizer.runtime import special

    rng = np.random.default_rng(7)
    edges = np.array([2.0**e * (1 + j / 4) for e in range(-1, 5) for j in range(4)] + [0.5, 26.5, 27.3])
    near = np.concatenate([np.nextafter(edges, -np.inf), edges, np.nextafter(edges, np.inf)])
    # the low 27 bits all set: |x| - h, and the argument of exp(-e)'s series, at their largest
    tails = (rng.uniform(0.5, 27.3, 1000).view(np.int64) | ((1 << 27) - 1)).view(np.float64)
    x = np.concatenate([near, -near, tails, rng.uniform(-0.5, 0.5, 3000), np.exp(rng.uniform(-745.0, 3.4, 3000)),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e300, -1e300]])
    with np.errstate(all="ignore"):
        got_erf, got_erfc = special._vz_erf(x), special._vz_erfc(x)
    flagged = special.erfc_subnormal(x)
    assert flagged.tolist() == eval(special.ERFC_SUBNORMAL.format("x")).tolist()  # noqa: S307
    for v, e, c, f in zip(x.tolist(), got_erf.tolist(), got_erfc.tolist(), flagged.tolist()):
        assert same_value(math.erf(v), e, rules.ULP_BOUND), ("erf", v, math.erf(v), e)
        assert f or same_value(math.erfc(v), c, rules.ULP_BOUND), ("erfc", v, math.erfc(v), c)
    assert math.erfc(27.3) == 0.0 and math.erfc(26.5) > 2.2250738585072014e-308  # the flagged range


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("exponent", ["0.0", "0.5", "0.687", "0.99", "1.0", "1.01", "-0.5", "3"])
def test_constant_powers_overflow_exactly_where_python_does(exponent, backend, tmp_path):
    """`x ** c`: a constant exponent in [0, 0.99] cannot overflow (|x| ** c < 1e306), so its
    check is not emitted; every other exponent keeps it. Each lane agrees with CPython either way,
    DBL_MAX, inf, NaN and subnormals included, and negative bases under integral exponents."""
    if backend == "numba":
        pytest.importorskip("numba")
    path = tmp_path / f"const_pow_{exponent.replace('.', '_').replace('-', 'm')}.py"
    path.write_text(f"def f(x: float) -> float:\n    return x ** {exponent}\n")
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(path.stem)
    finally:
        sys.path.pop(0)
    vf = vectorize(module.f, fallback="error", backend=backend)
    big = [1.7976931348623157e308, 1e308, 1e300, 5e-324, 0.0, -0.0, 1.0, math.inf, math.nan, 2.5, 1e-300]
    negative = [-2.0, -1e308] if float(exponent).is_integer() else []  # else complex: refused, tested above
    ulps = 0 if backend == "numba" else rules.ULP_BOUND  # NumPy's pow differs by CPU, within the bound
    for values in (big, [*negative, *big], [*big, 1.7976931348623157e308 * 0.5]):
        oracle_check(vf, module.f, np.array(values), ulps=ulps)
    if backend == "numpy":
        assert ("1e+308" in vf.source) == (not 0 <= float(exponent) <= 0.99)


POW_SPECIALS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 4.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324,
                1e-300, 1e300, 1.7976931348623157e308, -1.7976931348623157e308, 3.0, -3.0]


@pytest.mark.parametrize("y", [0.0, -0.0, 0.25, -0.25, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 1 / 3, 0.687, 1.5, math.nan])
def test_numpys_scalar_exponents_are_cs_pow_except_one_half(y):
    """rules.py emits np.power for a constant exponent other than 0.5: with one exponent for every
    element NumPy may take a fast path (x ** 0.5 is sqrt: -0.0 at -0.0, NaN at -inf), so each
    such exponent must give pow's values on every special base: the same zeros (signs included),
    infinities and NaNs, and finite values within the bound (the two calls may take different
    SIMD kernels on some CPUs). (An exponent array takes no fast path.)"""
    x = np.array(POW_SPECIALS)
    with np.errstate(all="ignore"):
        scalar = np.power(x, y, dtype=np.float64)
        elementwise = np.power(x, np.full(x.size, y), dtype=np.float64)
    for base, s, e in zip(x.tolist(), scalar.tolist(), elementwise.tolist()):
        assert same_value(e, s, rules.ULP_BOUND), (base, y, e, s)


def _pow_module(tmp: Path, stem: str, body: str):
    (tmp / f"{stem}.py").write_text("import math\n\n\n" + textwrap.dedent(body))
    sys.path.insert(0, str(tmp))
    try:
        return __import__(stem)
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_exponent_of_one_half_is_cs_pow_at_minus_zero_and_minus_inf(backend, tmp_path):
    """NumPy computes x ** 0.5 as sqrt(x) when the exponent is one number for every element:
    -0.0 at -0.0 and NaN at -inf, where Python gives 0.0 and inf. Literal, uniform and batched
    exponents, through `**`, pow() and math.pow, lane by lane against CPython."""
    if backend == "numba":
        pytest.importorskip("numba")
    module = _pow_module(tmp_path, f"half_{backend}", """
        def star(x: float) -> float:
            return x ** 0.5


        def call(x: float) -> float:
            return pow(x, 0.5)


        def math_pow(x: float) -> float:
            return math.pow(x, 0.5)


        def two(x: float, y: float) -> float:
            return x ** y


        def two_math(x: float, y: float) -> float:
            return math.pow(x, y)
        """)
    x = np.array([-0.0, -math.inf, 0.0, math.inf, math.nan, 4.0, 2.0, 5e-324, 1.7976931348623157e308])
    ulps = 0 if backend == "numba" else rules.ULP_BOUND  # NumPy's pow differs by CPU, within the bound
    for name in ("star", "call", "math_pow"):
        f = getattr(module, name)
        vf = vectorize(f, fallback="error", backend=backend)
        oracle_check(vf, f, x, ulps=ulps)  # zeros (their signs), infinities and NaNs exactly
        assert vf(np.array([-0.0])).tobytes() == np.array([0.0]).tobytes()
    for name in ("two", "two_math"):
        f = getattr(module, name)
        vf = vectorize(f, fallback="error", backend=backend)
        for y in (0.5, np.array([0.5]), np.full(x.size, 0.5), np.array(0.5)):
            oracle_check(vf, f, x, y, ulps=ulps)
        oracle_check(vf, f, -0.0, 0.5)  # both uniform: NumPy scalars take the fast path too
        oracle_check(vf, f, np.float64(-math.inf), 0.5)
    with pytest.raises(ValueError, match="math domain error"):  # a negative base: flagged, re-run
        vectorize(module.math_pow, backend=backend)(np.array([4.0, -4.0]))
