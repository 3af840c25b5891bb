"""NumPy's own float64 ufunc loops, called from lane code (backends/numba/ufuncloops.py,
ufunclane.py): the Numba backend gives NumPy's bits for `np.sin(x)` of a number where NumPy's
kernel is its own SIMD code, not the C library's.

* the struct is read and every loop found on a default 64-bit CPython (the checks hold);
* NumPy's value for one element is the value it gives that element inside an array: hostile
  values at every position of arrays of 1 to 40 elements (every SIMD tail), at unaligned starts;
* the loop, one element a call, gives the scalar `np.<name>(x)`'s bits on a fresh sample;
* the Numba backend, against the scalar function, bit for bit (hostile arrays, hypothesis);
* under NumPy limited to AVX2 (NPY_DISABLE_CPU_FEATURES, another loop) in subprocesses sharing
  one cache directory: each process's kernels, compiled or loaded from Numba's cache, give that
  process's NumPy bits.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from oracle import check
from strategies import arrays, floats

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import LIBM_TWINS, differs_from_libm

NAMES = sorted(n for n in LIBM_TWINS if isinstance(getattr(np, n, None), np.ufunc))
UNARY = [n for n in NAMES if getattr(np, n).nin == 1]
BINARY = [n for n in NAMES if getattr(np, n).nin == 2]
DEFAULT_BUILD = sys.maxsize > 2**32 and not sysconfig.get_config_var("Py_GIL_DISABLED") and not hasattr(sys, "getobjects")
AVX2_ONLY = "X86_V4 AVX512_ICL AVX512_SPR"


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


def fresh(nin: int, n: int = 6000, seed: int = 7) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    pool = np.concatenate([ufuncloops.hostile(), rng.normal(0, 5, n), rng.uniform(-1, 1, n),
                           rng.choice([-1.0, 1.0], n) * np.exp(rng.uniform(-744, 709, n))])
    return [rng.permutation(pool) for _ in range(nin)]


@pytest.mark.skipif(not DEFAULT_BUILD, reason="the header layout read is a default 64-bit CPython's")
@pytest.mark.parametrize("name", NAMES)
def test_every_float64_loop_is_found_and_checked(name):
    loop = ufuncloops.find(name)
    assert loop is not None, ufuncloops.unavailable(name)
    assert loop.nin == getattr(np, name).nin and loop.function
    assert ufuncloops.unavailable(name) == ""


def test_power_keeps_numpys_shortcuts_of_its_call_on_numbers():
    """np.power(x, y) of two numbers runs its loop with every step 0, where the loop takes
    shortcuts (1.0 / x for y == -1.0, x * x for 2.0...) that its array path does not: lane code
    calls it the same way, and gets the call's bits, not the array's."""
    loop = ufuncloops.find("power")
    if loop is None:
        pytest.skip(ufuncloops.unavailable("power"))
    x = np.array([0.9999999999999999, -0.9999999999999999, 1e300, 3.0, 0.1, 1e-300])
    for y in (-1.0, 0.0, 0.5, 1.0, 2.0, 1.7):
        ys = np.full(x.shape, y)
        with np.errstate(all="ignore"):
            expected = np.array([np.power(float(v), y) for v in x])
            assert (bits(loop.each(x, ys)) == bits(expected)).all(), y
    assert (bits(loop.each(x, np.full(x.shape, -1.0))) == bits(1.0 / x)).all()


def test_a_function_that_is_no_ufunc_is_refused_with_a_reason():
    assert ufuncloops.find("sum") is None and "not a ufunc" in ufuncloops.unavailable("sum")
    assert ufuncloops.find("modf") is None  # two outputs


@pytest.mark.parametrize("name", NAMES)
def test_numpys_value_of_one_element_is_its_value_inside_an_array(name):
    """What the NumPy backend relies on, and what lane code's one-element calls give: each
    element independent of its neighbours, of the array's length (the SIMD tail) and alignment."""
    ufunc = getattr(np, name)
    edges = ufuncloops.hostile()
    with np.errstate(all="ignore"):
        singles = [bits(ufunc(float(v), *([1.5] if ufunc.nin == 2 else []))) for v in edges]
        filler = np.linspace(-3.0, 3.0, 48)
        for length in range(1, 41):
            for start in (0, 1):  # a start 8 bytes off the buffer's alignment
                buffer = np.concatenate([filler[:start], filler[start:start + length]])
                for k, v in enumerate(edges):
                    position = k % length
                    buffer[start + position] = v
                    x = buffer[start:start + length]
                    got = ufunc(x, np.full(length, 1.5)) if ufunc.nin == 2 else ufunc(x)
                    assert bits(got[position]) == singles[k], (name, v, length, start)
        long = np.tile(np.concatenate([edges, filler]), 40)  # a long array, and a strided view of it
        for view in (long, long[::3]):
            got = ufunc(view, np.full(view.shape, 1.5)) if ufunc.nin == 2 else ufunc(view)
            where = np.flatnonzero(np.isin(np.arange(len(long)) % (len(edges) + len(filler)), np.arange(len(edges))))
            where = where if view is long else where[where % 3 == 0] // 3
            values = view[where]
            expected = {int(bits(v)): s for v, s in zip(edges, singles)}
            assert all(bits(g) == expected[int(bits(x))] for g, x in zip(got[where], values)), (name, view.strides)


@pytest.mark.parametrize("name", NAMES)
def test_the_loop_one_element_a_call_gives_numpys_bits(name):
    loop = ufuncloops.find(name)
    if loop is None:
        pytest.skip(ufuncloops.unavailable(name))
    ufunc = getattr(np, name)
    columns = fresh(loop.nin, 3000 if loop.nin == 1 else 1500, seed=11)
    with np.errstate(all="ignore"):
        expected = np.array([ufunc(*(float(c[i]) for c in columns)) for i in range(len(columns[0]))])
        assert (bits(loop.each(*columns)) == bits(expected)).all()
        assert (bits(loop.call(*columns)) == bits(ufunc(*columns))).all()


@pytest.fixture(scope="module")
def defined(tmp_path_factory):
    """The functions in a module on disk (vectorize reads the source)."""
    root = tmp_path_factory.mktemp("ufuncloops")
    text = "import numpy as np\n" + "".join(
        f"\n\ndef f_{n}({'x, y' if n in BINARY else 'x'}):\n    return np.{n}({'x, y' if n in BINARY else 'x'})\n"
        for n in NAMES)
    text += ("\n\ndef mixed(x, y):\n    if x > y:\n        return np.sin(x) * np.exp(-abs(y)) + np.log(abs(x) + 1.0)\n"
             "    return np.cos(y) - np.tanh(x) + np.arctan2(y, x)\n")
    (root / "ufuncloop_cases.py").write_text(text)
    sys.path.insert(0, str(root))
    try:
        import ufuncloop_cases

        yield ufuncloop_cases
    finally:
        sys.path.remove(str(root))


@pytest.mark.numba
@pytest.mark.parametrize("name", NAMES)
def test_numba_backend_gives_numpys_bits(defined, name):
    pytest.importorskip("numba")
    f = getattr(defined, f"f_{name}")
    columns = fresh(getattr(np, name).nin, 4000, seed=3)
    own = differs_from_libm(name) or name == "power"  # np.power of numbers: always NumPy's loop
    if own and ufuncloops.unavailable(name):
        pytest.skip(ufuncloops.unavailable(name))
    vf = vectorize(f, backend="numba", fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *columns)
    assert vf.backend == "numba"
    assert ("_vz_ufunc_" + name + "(" in vf.source) == own  # NumPy's loop exactly where it is NumPy's own


@pytest.mark.numba
@settings(max_examples=60, deadline=None)
@given(arrays(floats()), arrays(floats()))
def test_numba_backend_keeps_the_contract_on_hostile_inputs(defined, x, y):
    pytest.importorskip("numba")
    n = min(len(x), len(y))
    with np.errstate(all="ignore"):
        check(vectorize(defined.mixed, backend="numba", fallback="error"), defined.mixed, x[:n], y[:n])


AVX2_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    import ufuncloop_cases as m
    from numpy._core._multiarray_umath import __cpu_targets_info__ as targets
    from vectorizer import VectorizeError, vectorize
    from vectorizer.backends.numba import ufuncloops
    rng = np.random.default_rng(5)
    same = lambda g, w: bool(((g.view(np.int64) == w.view(np.int64)) | (np.isnan(g) & np.isnan(w))).all())
    x = np.concatenate([ufuncloops.hostile(), rng.normal(0, 30, 3000)])
    y = rng.permutation(x)
    out = {{"targets": {{n: targets.get(n, {{}}).get("dd", {{}}).get("current", "") for n in ("sin", "exp", "log")}}}}
    with np.errstate(all="ignore"):
        for name in ("sin", "exp", "log", "cos"):
            f = getattr(m, "f_" + name)
            vf = vectorize(f, backend="numba", fallback="error")
            got = vf(x)
            want = np.array([f(float(v)) for v in x])
            out[name] = [vf.backend, same(got, want),
                         "_vz_ufunc_" + name + "(" in vf.source]
        got = vectorize(m.mixed, backend="numba", fallback="error")(x, y)
        want = np.array([m.mixed(float(a), float(b)) for a, b in zip(x, y)])
        out["mixed"] = same(got, want)
    print(json.dumps(out))
""")


@pytest.mark.numba
@pytest.mark.skipif(not DEFAULT_BUILD, reason="the header layout read is a default 64-bit CPython's")
def test_processes_with_other_cpu_dispatch_share_a_cache_and_keep_their_own_bits(defined, tmp_path):
    """Each process binds lane code to its own loop: a full-featured process, one with NumPy
    limited to AVX2 (another loop for sin, exp, log on AVX-512 CPUs), then each again, now from
    Numba's on-disk cache (the kernels' machine code calls the loop by symbol, bound at import)."""
    pytest.importorskip("numba")
    script = AVX2_SCRIPT.format(root=os.path.dirname(defined.__file__))
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd()}
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    runs = []
    for disabled in ("", AVX2_ONLY, "", AVX2_ONLY):
        run_env = {**env, "NPY_DISABLE_CPU_FEATURES": disabled} if disabled else env
        out = subprocess.run([sys.executable, "-c", script], env=run_env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    for run in runs:
        for name in ("sin", "exp", "log", "cos"):
            assert run[name][:2] == ["numba", True], (name, run)
        assert run["mixed"]
    full, avx2 = runs[0], runs[1]
    assert full["targets"] == runs[2]["targets"] and avx2["targets"] == runs[3]["targets"]
    if any(k in full["targets"]["sin"] for k in ("X86_V4", "AVX512")):  # AVX-512: the AVX2 processes ran other loops
        assert avx2["targets"]["sin"] != full["targets"]["sin"]


def test_hostile_values_cover_the_edges():
    edges = ufuncloops.hostile()
    assert np.isnan(edges).any() and np.isinf(edges).any() and (edges == 0).sum() >= 2
    assert any(0 < abs(v) < 2.2250738585072014e-308 for v in edges) and math.copysign(1.0, edges[5]) < 0


@pytest.mark.parametrize("name", ["sin", "exp", "tanh", "arctan2", "power"])
def test_jax_backend_computes_numpys_functions_with_its_own(defined, name):
    """backend='jax' translates lane code: `_vz_ufunc_sin` becomes its sin (XLA's bound); np.power
    of numbers stays refused there, by name."""
    pytest.importorskip("jax")
    if name == "power":
        with pytest.raises(VectorizeError, match=r"np\.power on the JAX backend"):
            vectorize(defined.f_power, backend="jax", exact=False, fallback="error")(np.ones(3), np.ones(3))
        return
    rng = np.random.default_rng(2)
    columns = [rng.uniform(0.1, 3.0, 500) for _ in range(getattr(np, name).nin)]
    f = getattr(defined, f"f_{name}")
    check(vectorize(f, backend="jax", exact=False, fallback="error"), f, *columns, rel=1e-12)
