"""vector_math=True on the Numba backend: straight-line lane code whose libm calls LLVM vectorizes
to glibc's libmvec (vectorizer/backends/numba/lanemath.py, passes/lane_vector_math.py).

The oracle is the scalar function, lane by lane, within rules.ULP_BOUND for each libm call (as
for the NumPy backend's vector math, tests/backends/test_vecmath.py, which measures every function).
"""

from __future__ import annotations

import ast
import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from oracle import check
from strategies import SPECIAL_FLOATS, arrays, floats

from vectorizer import vectorize
from vectorizer.backends.numba import jit, vecmath
from vectorizer.passes import lane_vector_math
from vectorizer.rules import scalar as rules

TESTS = Path(__file__).resolve().parents[1]  # tests/: backends/test_lanemath.py for a child


def needs_numba_and_libmvec():
    pytest.importorskip("numba")
    why = vecmath.unavailable()
    if why:
        pytest.skip(why)


def priced(spot, strike, vol, t):
    if t <= 0.0:
        return max(spot - strike, 0.0)
    d = math.log(spot / strike) / (vol * math.sqrt(t))
    return 0.5 * math.erfc(-d) * math.exp(-0.05 * t)


def softplus(x):
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def bearing(lat, lon, n):
    h = math.sin(lat / 2.0) ** 2 + math.cos(lat) * math.cos(lat) * math.sin(lon / 2.0) ** 2 + 0.0 * math.cos(lon)
    return math.asin(math.sqrt(min(h, 1.0))) + abs(math.atan2(lat, lon)) + math.exp(n) + abs(lat) ** 0.687


def series(x):
    total = 0.0
    for k in range(1, 5):
        total += math.exp(-x * k)
    return total


LANE = '''\
def _lane_f(x, y):
    if x > 709.7:
        return (0.0, True)
    if math.log(y) > 3.0:
        return (0.0, True)
    r = _vz_fast.pow(float(x), float(2))
    s = _vz_fast.pow(float(y), float(0.687))
    return ((_vz_fast.exp(x) + r + s + _vz_hypot(x, y) + math.log(y) / math.log(2.0) + _vz_fast.cbrt(x)), False)
'''


def _renamed(source: str, vector: bool) -> str:
    """A lane function's text after the pass's renaming (the pass edits the tree in place)."""
    tree = ast.parse(source)
    lane_vector_math.rename(tree, vector)
    return ast.unparse(tree)


def test_the_pass_renames_the_marked_calls():
    """ops_to_lanes marks (`_vz_fast.<fn>`) the approximate calls whose values decide nothing
    (with exact=False); the pass gives them vector math, or LLVM's pow for a cheap exponent."""
    out = _renamed(LANE, vector=True)
    assert "_vz_lm.exp(x)" in out and "_vz_lm.pow(float(y), float(0.687))" in out
    assert "_vz_lm.cbrt(x)" in out
    assert "if math.log(y) > 3.0:" in out  # not marked: a check's test (and a decision) stays put
    assert "math.pow(float(x), float(2))" in out  # x * x for LLVM: NumPy's value there, and cheap
    assert "_vz_hypot(x, y)" in out  # never marked: hypot's overflow check reads its result (vecmath.py)
    assert "_vz_fast" not in out
    scalar = _renamed(LANE, vector=False)  # no vector math: C's functions, LLVM's pow
    assert "math.exp(x)" in scalar and "math.pow(float(y), float(0.687))" in scalar and "_vz_cbrt(x)" in scalar
    assert "_vz_lm" not in scalar and "_vz_fast" not in scalar


def test_the_pass_keeps_vector_math_out_of_lane_code_with_loops():
    loop = LANE.replace("    r = _vz_fast", "    while x < 0.0:\n        x = x + 1.0\n    r = _vz_fast")
    assert not lane_vector_math.vector_math_here([ast.parse(loop)])


def test_the_pass_falls_back_with_a_warning_where_vector_math_cannot_run(monkeypatch):
    monkeypatch.setattr(vecmath, "unavailable", lambda: "vector_math=True needs a CPU with AVX2")
    monkeypatch.setattr(jit, "_warned", set())
    with pytest.warns(jit.JitWarning, match="needs a CPU with AVX2; the C library's functions run instead"):
        assert not lane_vector_math.vector_math_here([ast.parse(LANE)])


def _driver(vf, name):
    """The serial driver of the last kernel `vf` ran (a Numba dispatcher of the generated module)."""
    kernel = vf._kernels[vf._last]
    return kernel.fn.__globals__[f"_run_{name}"]


@pytest.mark.numba
def test_the_generated_kernel_calls_libmvec_four_lanes_at_a_time():
    needs_numba_and_libmvec()
    vf = vectorize(priced, backend="numba", exact=False)
    spot, strike = np.linspace(50.0, 150.0, 1001), np.full(1001, 100.0)
    vol, t = np.linspace(0.1, 0.9, 1001), np.linspace(-0.5, 3.0, 1001)
    check(vf, priced, spot, strike, vol, t, rel=1e-12)
    source = vf.source
    assert "from vectorizer.backends.numba import lanemath as _vz_lm" in source and 'inline="always"' in source
    assert "_vz_lm.log(" in source and "_vz_lm.erfc(" in source and "_vz_lm.exp(" in source
    driver = _driver(vf, "priced")
    llvm_ir = driver.inspect_llvm(driver.signatures[0])
    vector_calls = [line for line in llvm_ir.splitlines() if "call <4 x double> @_ZGVdN4v_" in line]
    assert "vector.body" in llvm_ir and len(vector_calls) >= 3, "LLVM did not vectorize the driver loop"


@pytest.mark.numba
def test_loops_keep_the_c_library():
    needs_numba_and_libmvec()
    vf = vectorize(series, backend="numba", exact=False)
    x = np.linspace(-3.0, 3.0, 100)
    check(vf, series, x)  # the C library's exp: bit for bit
    assert "_vz_lm" not in vf.source and "math.exp(" in vf.source


@pytest.mark.numba
@settings(max_examples=40, deadline=None)
@given(arrays(floats(-800.0, 800.0)), arrays(floats(-800.0, 800.0)), arrays(floats(-50.0, 50.0)))
def test_values_and_exceptions_keep_the_contract(lat, lon, n):
    needs_numba_and_libmvec()
    size = min(len(lat), len(lon), len(n))
    vf = vectorize(bearing, backend="numba", exact=False)
    check(vf, bearing, lat[:size], lon[:size], n[:size], ulps=4 * rules.ULP_BOUND)
    check(vectorize(softplus, backend="numba", exact=False), softplus, lat, ulps=2 * rules.ULP_BOUND)


@pytest.mark.numba
def test_hostile_inputs():
    needs_numba_and_libmvec()
    grid = np.array(SPECIAL_FLOATS + [1e-300, 709.7, 709.8, -745.2, 37.0, -37.0])
    check(vectorize(softplus, backend="numba", exact=False), softplus, grid, ulps=2 * rules.ULP_BOUND)
    x, y = np.meshgrid(grid, grid)
    ok = np.isfinite(x) & np.isfinite(y)  # the scalar function raises on the others (checked below)
    vf = vectorize(bearing, backend="numba", exact=False)
    check(vf, bearing, x[ok], y[ok], np.zeros(ok.sum()), ulps=4 * rules.ULP_BOUND)
    check(vf, bearing, x.ravel(), y.ravel(), np.zeros(x.size), ulps=4 * rules.ULP_BOUND)


@pytest.mark.numba
def test_a_lane_value_does_not_depend_on_the_batch():
    """Vectorized loop body, scalar remainder, one thread or the parallel driver: the same bits,
    and the NumPy backend's vector math agrees within the bound (the same libmvec functions)."""
    needs_numba_and_libmvec()
    rng = np.random.default_rng(7)
    lat, lon = rng.uniform(-3.0, 3.0, 40_003), rng.uniform(-3.0, 3.0, 40_003)
    n = rng.uniform(-5.0, 5.0, 40_003)
    vf = vectorize(bearing, backend="numba", exact=False)
    whole = vf(lat, lon, n)  # above PARALLEL_MIN_LANES: the parallel driver
    for start, stop in ((0, 1), (3, 4), (5, 12), (1, 1000), (17, 20_000)):
        assert vf(lat[start:stop], lon[start:stop], n[start:stop]).tobytes() == whole[start:stop].tobytes()
    # The NumPy backend computes `h` exactly (it decides asin's domain check: `sin(..) ** 2` is
    # C's pow there, LLVM's x * x here), so the two agree within the bound, not to the bit; the
    # four terms are positive, so a relative tolerance of a few dozen ulp covers their sum.
    numpy_vm = vectorize(bearing, backend="numpy", exact=False)
    np.testing.assert_allclose(numpy_vm(lat, lon, n), whole, rtol=1e-14, atol=0)


COMPILE_SCRIPT = """
import math, sys
import numpy as np
import numba
sys.path.insert(0, {tests!r})
from backends.test_lanemath import priced
from vectorizer import vectorize
vf = vectorize(priced, backend="numba", exact=False)
vf(np.full(30_000, 100.0), np.full(30_000, 90.0), np.full(30_000, 0.3), np.full(30_000, 1.0))
import llvmlite.binding as llvm

@numba.njit
def mine(x, out):
    for i in range(x.size):
        out[i] = math.exp(x[i])

x = np.linspace(0.0, 1.0, 64)
mine(x, np.empty(64))
print("vector calls in my loop:", "_ZGVdN4v_" in mine.inspect_asm(mine.signatures[0]))
"""


@pytest.mark.numba
def test_compiling_is_quiet_and_leaves_other_numba_code_alone(tmp_path):
    """LLVM's 'loop not vectorized' remarks under the forced width stay out of stderr, and a
    user's own njit loop compiled afterwards is not given libmvec (nor a forced width)."""
    needs_numba_and_libmvec()
    script = tmp_path / "compile.py"
    script.write_text(textwrap.dedent(COMPILE_SCRIPT.format(tests=str(TESTS))))
    env = {**__import__("os").environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    assert "vector calls in my loop: False" in proc.stdout


@pytest.mark.numba
def test_auto_takes_the_option_on_its_numba_side():
    needs_numba_and_libmvec()
    vf = vectorize(softplus, backend="auto", exact=False)
    x = np.linspace(-40.0, 40.0, 2001)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(vf, softplus, x, ulps=2 * rules.ULP_BOUND)
    assert vf.backend == "numba" and "_vz_lm.log1p(" in vf.source


def _raises(fn, *lane) -> bool:
    try:
        fn(*lane)
    except (ValueError, OverflowError):
        return True
    return False


@pytest.mark.numba
@pytest.mark.parametrize("name", sorted(lane_vector_math.NAMES))
def test_each_function_through_the_numba_backend(name, tmp_path, monkeypatch):
    """Each libmvec function in a one-line function: within the ulp bound of CPython where it
    returns, the same bits as the NumPy backend's vector math (where NumPy has no AVX-512 kernel of
    its own for it), CPython's exception where it raises."""
    needs_numba_and_libmvec()
    if not hasattr(math, name):
        pytest.skip(f"this Python has no math.{name}")
    arity = lane_vector_math.NAMES[name]
    args = "x" if arity == 1 else "x, y"
    (tmp_path / f"one_{name}.py").write_text(f"import math\n\n\ndef f({args}):\n    return math.{name}({args})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(f"one_{name}")
    rng = np.random.default_rng(len(name))
    grid = np.array(SPECIAL_FLOATS)
    columns = ([np.concatenate([rng.uniform(-10.0, 10.0, 3000), rng.uniform(-1.0, 1.0, 1000), grid])] if arity == 1 else
               [np.concatenate([rng.uniform(0.0, 50.0, 3000), np.repeat(grid, grid.size)]),
                np.concatenate([rng.uniform(-20.0, 20.0, 3000), np.tile(grid, grid.size)])])
    ok = np.array([not _raises(module.f, *lane) for lane in zip(*(c.tolist() for c in columns))])
    vf = vectorize(module.f, backend="numba", exact=False)
    kept = [c[ok] for c in columns]
    check(vf, module.f, *kept, ulps=rules.ULP_BOUND)
    assert f"_vz_lm.{name}(" in vf.source, vf.source
    numpy_vm = vectorize(module.f, backend="numpy", exact=False)
    if {"pow": "power"}.get(name, name) in vecmath.NUMPY_SIMD and vecmath.numpy_simd():
        # The NumPy route takes NumPy's AVX-512 kernel here (faster than libmvec): other last
        # bits than the lane code's libmvec call, each within the bound of CPython's.
        check(numpy_vm, module.f, *kept, ulps=rules.ULP_BOUND)
        assert "_vz_vm." not in numpy_vm.source, numpy_vm.source
    else:
        assert vf(*kept).tobytes() == numpy_vm(*kept).tobytes()
    check(vf, module.f, *columns, ulps=rules.ULP_BOUND)  # the first lane CPython raises on
