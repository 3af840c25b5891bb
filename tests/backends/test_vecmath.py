"""vector_math=True: the NumPy backend's exp, log, pow, erfc... through glibc's libmvec (vecmath.py).

The oracle is CPython's math module, lane by lane: every vector function within rules.ULP_BOUND
on typical, wide and hostile inputs, NaN where CPython gives NaN, the same sign of zero; the
generated function against the scalar function (values and exceptions) with hypothesis.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from oracle import check, same_value
from strategies import SPECIAL_FLOATS, arrays, floats, ints

from vectorizer import vectorize, vmap
from vectorizer.backends.numba import vecmath
from vectorizer.options import Options
from vectorizer.rules import scalar as rules


@pytest.fixture(autouse=True)
def _vector_math_for_every_function(monkeypatch):
    """These tests are about vector math on the NumPy route: as on a CPU without NumPy's AVX-512
    kernels, where exact=False sends exp, log and power there too (passes/vector_math.py)."""
    monkeypatch.setattr(vecmath, "numpy_simd", lambda: False)


def priced(spot, strike, vol, t):
    if t <= 0.0:
        return max(spot - strike, 0.0)
    d = math.log(spot / strike) / (vol * math.sqrt(t))
    return 0.5 * math.erfc(-d)


def piecewise(x, y):
    if x < 0.0:
        return math.exp(x) * 0.5
    elif x < 3.0:
        return x ** 2 * math.sin(y)
    elif x < 50.0:
        return x ** 0.687
    return math.atan2(x, y) + math.hypot(x, y)


def int_power(a: int, b: int):
    return a ** b


def needs_numba_and_libmvec():
    pytest.importorskip("numba")
    why = vecmath.unavailable()
    if why:
        pytest.skip(why)
    assert vecmath.kernels(), "glibc's vector math did not load: these tests would check NumPy's functions"


# -- the generated code (no Numba needed) --------------------------------------------------------
def test_generated_code_calls_vector_math_except_in_checks_and_cheap_powers():
    vf = vectorize(piecewise, backend="numpy", exact=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vf(np.array([-1.0, 1.0, 10.0, 100.0]), np.ones(4))
    source = vf.source
    assert "from vectorizer.backends.numba import vecmath as _vz_vm" in source
    for name in ("exp", "sin", "power", "arctan2"):
        assert f"_vz_vm.{name}" in source, name
    assert "np.power, x, 2," in source  # NumPy squares: exact, and cheaper than any pow
    assert "np.hypot" in source  # its overflow check reads the result at DBL_MAX exactly
    flags = [line for line in source.splitlines() if line.lstrip().startswith("flag |=")]
    assert flags and not any("_vz_vm" in line for line in flags)
    default = vectorize(piecewise)
    default(np.array([-1.0, 1.0, 10.0, 100.0]), np.ones(4))
    assert "_vz_vm" not in default.source and "from vectorizer import" not in default.source


def test_an_int_power_stays_numpy_int_power():
    vf = vectorize(int_power, backend="numpy", exact=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vf(np.array([3, 2]), np.array([2, -1]))
    assert "np.power(a, np.maximum(b, 0))" in vf.source  # int64 in NumPy; libmvec's pow is a float one
    # A negative exponent gives a float, but the returned value may be an int on other lanes: the
    # decisions analysis computes that power with CPython's math (exactmath), not libmvec's pow.
    assert "_vz_exact(math.pow, a, b)" in vf.source


def test_erfc_helper_is_replaced_not_copied():
    vf = vectorize(priced, backend="numpy", exact=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vf(np.array([100.0]), np.array([90.0]), np.array([0.2]), np.array([1.0]))
    assert "_vz_vm.erfc" in vf.source and "_vz_vm.log" in vf.source
    assert "def _vz_erfc" not in vf.source  # the NumPy helper is not carried along unused


def test_option_is_keyed():
    assert Options(exact=False).key() != Options().key()
    assert Options(backend="numba", exact=False).key() != Options(backend="numba").key()
    assert Options(backend="auto", exact=False).vector_math is True


def test_vector_math_keyword_is_a_deprecated_alias_of_exact_false():
    with pytest.warns(DeprecationWarning, match="exact=False") as caught:
        vf = vectorize(piecewise, backend="numpy", vector_math=True)
    assert caught[0].filename == __file__  # it points at the caller's line
    assert vf.options == Options(backend="numpy", exact=False)
    with pytest.warns(DeprecationWarning):
        assert vmap(piecewise, backend="numpy", vector_math=False)._vf.options == Options(backend="numpy")


NO_NUMBA_SCRIPT = """
import sys, warnings
sys.path.insert(0, {tests!r})
import conftest  # hides numba and llvmlite, as .ci/run's second run does
import numpy as np
from vectorizer import vectorize, vmap
from vectorizer.backends.numba.jit import JitWarning
from backends.test_vecmath import piecewise
x, y = np.linspace(-5.0, 80.0, 5000), np.linspace(3.0, -2.0, 5000)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    got = vectorize(piecewise, backend="numpy", exact=False)(x, y)
    got = vectorize(piecewise, backend="numpy", exact=False)(x, y)
mine = [w for w in caught if issubclass(w.category, JitWarning)]
assert len(mine) == 1 and "needs Numba" in str(mine[0].message), [str(w.message) for w in caught]
assert got.tobytes() == vectorize(piecewise)(x, y).tobytes()  # NumPy's functions: the same bits
assert "numba" not in sys.modules
print("OK")
"""


def test_without_numba_numpy_functions_run_after_one_warning(tmp_path):
    env = {**os.environ, "VECTORIZER_BLOCK_NUMBA": "1", "VECTORIZER_CACHE_DIR": str(tmp_path / "cache")}
    script = textwrap.dedent(NO_NUMBA_SCRIPT.format(tests=str(Path(__file__).resolve().parents[1])))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("OK")


# -- the vector functions against CPython ---------------------------------------------------------
REFERENCE = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
             "arctanh": "atanh", "power": "pow", "arctan2": "atan2"}
HOSTILE = sorted(set(SPECIAL_FLOATS + [-2.0, 2.0, 1e-300, -1e-300, 1e300, 26.5, 27.3, -745.2, 0.1, -0.1]),
                 key=lambda v: (math.isnan(v), v))


def _inputs(arity: int, rng: np.random.Generator) -> list[np.ndarray]:
    typical = rng.uniform(-10.0, 10.0, 4000)
    wide = np.ldexp(rng.uniform(-1.0, 1.0, 4000), rng.integers(-1074, 1024, 4000))
    unit = rng.uniform(-1.0, 1.0, 2000)
    if arity == 1:
        with np.errstate(over="ignore"):
            after = np.nextafter(np.array(HOSTILE), np.inf)
        return [np.concatenate([typical, wide, unit, 1.0 + np.abs(typical[:2000]), HOSTILE, after])]
    grid = np.array(HOSTILE)
    x, y = np.meshgrid(grid, grid)
    pos = rng.uniform(0.0, 100.0, 4000)
    xs = np.concatenate([pos, typical, wide[:2000], x.ravel(), rng.uniform(-9, 9, 1000).round()])
    ys = np.concatenate([rng.uniform(-30.0, 30.0, 4000), typical[::-1], wide[2000:], y.ravel(),
                         rng.uniform(-20, 20, 1000).round()])
    return [xs, ys]


@pytest.mark.numba
@pytest.mark.parametrize("name", sorted(vecmath.FUNCTIONS))
def test_each_function_is_within_the_ulp_bound_of_cpython(name):
    needs_numba_and_libmvec()
    mvec, arity, _ = vecmath.FUNCTIONS[name]
    assert mvec in vecmath.kernels(), f"libmvec's {mvec} is missing: this glibc is older than 2.35"
    if not hasattr(math, REFERENCE.get(name, name)):
        pytest.skip(f"this Python has no math.{REFERENCE.get(name, name)}")
    reference = getattr(math, REFERENCE.get(name, name))
    columns = _inputs(arity, np.random.default_rng(sorted(vecmath.FUNCTIONS).index(name)))
    got = getattr(vecmath, name)(*columns).tolist()
    checked = 0
    for i, lane in enumerate(zip(*(c.tolist() for c in columns))):
        try:
            expected = reference(*lane)
        except (ValueError, OverflowError):
            continue  # a lane CPython raises on is flagged by the generated code's checks
        assert same_value(expected, got[i], rules.ULP_BOUND), (name, lane, expected, got[i])
        checked += 1
    assert checked >= 2000  # each function's domain holds at least `unit` or 1 + |typical|


@pytest.mark.numba
def test_a_lane_value_does_not_depend_on_batch_size_shape_or_layout():
    needs_numba_and_libmvec()
    x = np.random.default_rng(7).uniform(-20.0, 20.0, 1003)
    whole = vecmath.exp(x)
    for i in (0, 1, 998, 999, 1000, 1001, 1002):
        assert vecmath.exp(x[i:i + 1])[0] == whole[i]
    assert vecmath.exp(x[:1000].reshape(10, 100)).tobytes() == whole[:1000].tobytes()
    assert vecmath.exp(x[::3]).tobytes() == whole[::3].tobytes()  # a strided view
    assert vecmath.exp(x.astype(np.int64)).tobytes() == vecmath.exp(x.astype(np.int64).astype(float)).tobytes()
    y = np.abs(x)
    full = vecmath.power(y, np.full(x.shape, 1.7))
    assert vecmath.power(y, 1.7).tobytes() == full.tobytes()
    assert vecmath.power(y[:, None], np.array([1.7])).ravel().tobytes() == full.tobytes()
    assert vecmath.power(2.5, y).tobytes() == vecmath.power(np.full(y.shape, 2.5), y).tobytes()
    assert vecmath.exp(np.empty(0)).shape == (0,)
    for i in (0, 500, 1002):  # one number (a value uniform across lanes) gets the same value, a NumPy scalar
        one = vecmath.exp(float(x[i]))
        assert isinstance(one, np.float64) and one == whole[i]
        assert vecmath.power(float(y[i]), 1.7) == full[i] and isinstance(vecmath.power(float(y[i]), 1.7), np.float64)


@pytest.mark.numba
@settings(max_examples=60, deadline=None)
@given(arrays(floats()), arrays(floats()))
def test_generated_function_keeps_the_contract_on_hostile_inputs(x, y):
    needs_numba_and_libmvec()
    n = min(len(x), len(y))
    # Each lane's value is one vector function of exact operations, times or plus a term that
    # cannot cancel it: within the bound, plus one rounding.
    check(vectorize(piecewise, backend="numpy", exact=False), piecewise, x[:n], y[:n], ulps=rules.ULP_BOUND + 1)


@pytest.mark.numba
def test_large_batches_run_masked_calls_and_raise_the_first_lane():
    needs_numba_and_libmvec()
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-10.0, 100.0, 20000), rng.uniform(-5.0, 5.0, 20000)
    vf = vectorize(piecewise, backend="numpy", exact=False)
    check(vf, piecewise, x, y, ulps=rules.ULP_BOUND + 1)
    spot, strike = rng.uniform(50, 150, 20000), rng.uniform(50, 150, 20000)
    vol, t = rng.uniform(0.05, 0.6, 20000), np.maximum(rng.uniform(-0.25, 2.0, 20000), 0.0)
    # erfc(-d) magnifies log's few ulp by up to 2 d**2 (the formula's condition number): a relative bound.
    check(vectorize(priced, backend="numpy", exact=False), priced, spot, strike, vol, t, rel=1e-12)
    strike[1234] = 0.0  # ZeroDivisionError on that lane, as the scalar function raises
    check(vectorize(priced, backend="numpy", exact=False), priced, spot, strike, vol, t, rel=1e-12)


@pytest.mark.numba
def test_a_function_numba_cannot_compile_falls_back_with_a_warning(monkeypatch):
    needs_numba_and_libmvec()
    from numba.core.errors import TypingError

    from vectorizer.backends.numba import jit

    def broken(*arrays):
        raise TypingError("injected")

    monkeypatch.setitem(vecmath.kernels(), "exp", broken)
    monkeypatch.setattr(jit, "_warned", set())
    x = np.linspace(-3.0, 3.0, 10)
    with pytest.warns(jit.JitWarning, match="could not compile libmvec's exp .TypingError"):
        got = vecmath.exp(x)
    assert got.tobytes() == np.exp(x).tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vecmath.exp(x)  # warned once; NumPy's exp from now on in this process


@pytest.mark.numba
def test_auto_backend_accepts_the_option():
    needs_numba_and_libmvec()
    vf = vectorize(piecewise, backend="auto", exact=False)
    x, y = np.linspace(-5.0, 80.0, 3000), np.linspace(3.0, -2.0, 3000)
    check(vf, piecewise, x, y, ulps=rules.ULP_BOUND + 1)
    assert vf.backend == "numba"  # a call this small keeps the static choice (no trial)



@pytest.mark.numba
def test_the_compiled_loops_refuse_strided_arrays():
    needs_numba_and_libmvec()
    from numba.core.errors import TypingError

    x = np.linspace(0.0, 1.0, 16)
    with pytest.raises(TypingError):  # 4 doubles in a row would read across the stride
        vecmath.kernels()["exp"](x[::2], np.empty(8))
    with pytest.raises(TypingError):
        vecmath.kernels()["exp"](x.astype(np.float32), np.empty(16, np.float32))


@pytest.mark.numba
@settings(max_examples=40, deadline=None)
@given(arrays(ints(-60, 60), dtype=np.int64), arrays(ints(-6, 70), dtype=np.int64))
def test_int_powers_keep_the_contract(a, b):
    needs_numba_and_libmvec()
    n = min(len(a), len(b))
    check(vectorize(int_power, backend="numpy", exact=False), int_power, a[:n], b[:n], ulps=rules.ULP_BOUND)


def log_sum_exp(v):
    top = np.max(v)
    return top + math.log(np.sum(np.exp(v - top)))


@pytest.mark.numba
def test_vmap_takes_the_option_on_per_example_arrays():
    needs_numba_and_libmvec()
    from vectorizer import vmap

    rows = np.random.default_rng(5).normal(scale=30.0, size=(3000, 7))
    vf = vmap(log_sum_exp, backend="numpy", exact=False)
    got = vf(rows)
    assert "_vz_vm.exp" in vf.source and "_vz_vm.log" in vf.source
    want = np.array([log_sum_exp(row) for row in rows])
    # each exp and log within the bound; the sum of 7 positive terms adds a rounding each
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("fn", [vecmath.power, vecmath.arctan2])
def test_binary_functions_compute_in_float64_only(fn):
    with pytest.raises(TypeError, match="computes in float64"):
        fn(np.ones(4), np.ones(4), dtype=np.float32)  # generated code never asks for another dtype
