"""`**` whose operands are NumPy values, on the Numba backend: NumPy's own float64 power loop called
from lane code as NumPy runs it (backends/numba/ufuncloops.py, ufunclane.py):

* an exponent that is a number (Python's, a NumPy scalar, a 0-d array) has step 0, where the loop
  takes its shortcuts (1.0 / x for -1, x * x for 2...): `_vz_ufunc_power`;
* an exponent that is an array (a module-level table, element k of `x ** I`; a one-element array,
  np.atleast_1d) has a non-zero step, where the loop runs its pow for every element:
  `_vz_ufunc_stepped_power`.

What NumPy does is measured here (its values, not its source), then the Numba backend is checked
against the scalar function lane by lane, bit for bit (a NaN where it gives one), on hostile bases and
exponents, in this process (AVX-512 NumPy on this CPU) and in one whose NumPy is limited to AVX2
(NPY_DISABLE_CPU_FEATURES: another loop, whose pow is the C library's). The NumPy backend is
checked on the same functions: a one-element array exponent is NumPy's power with a step of 8
there too (runtime/helpers.py's stepped_power), even where it is the same for every lane.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from oracle import check
from passcase import F, after

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import differs_from_libm

AVX2_ONLY = "X86_V4 AVX512_ICL AVX512_SPR"
SUBNORMAL, HUGE = 5e-324, 1e308
BASES = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, SUBNORMAL, -SUBNORMAL, 1e-310, HUGE, -HUGE, 1e300, 2.0, -2.0,
         3.0, -3.0, 0.5, -0.5, 1.0, -1.0, 0.9999999999999999, -0.9999999999999999, 1.0000000000000002, 1.1, -1.7,
         0.1, 7.25, 1e-300, 123.456]
EXPONENTS = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, -2.5, -0.0, -0.5, 1.5, -2.0, 4.0, 1e300, -1e300, np.inf, -np.inf, np.nan,
             1023.0, -1074.0, 0.1, SUBNORMAL]

MODULE = '''
from math import inf, nan

import numpy as np

F = np.array({exponents!r})
I = np.arange(-8, len(F) - 8, dtype=np.int64)
N = np.arange(1.0, {n}.0)
ONE = np.array([2.0])


def table_float(s):
    return np.sum(N * s ** F)


def table_int(s):
    return np.sum(s ** I)


def table_product(s):
    return np.prod((s - 1.09) ** I * (s + 0.366e-4) ** F)


def table_base(s):
    return np.sum((F * s) ** F)


def table_one(s):
    return np.sum(s ** ONE)


def zero_d_base(x, y):
    return np.asarray(x) ** y


def zero_d_exponent(x, y):
    return x ** np.asarray(y)


def zero_d_both(x, y):
    return np.asarray(x) ** np.asarray(y)


def scalar_base(x, y):
    return (np.asarray(x) + 0.0) ** np.asarray(y)


def zero_d_int(x, k):
    return np.asarray(x) ** k


def zero_d_literal(x):
    return np.asarray(x) ** 3 + np.asarray(x) ** 2 + np.asarray(x) ** -1 + np.asarray(x) ** 0.5


def one_d_exponent(x, y):
    return (x ** np.atleast_1d(y)).item()


def one_d_base(x, y):
    return (np.atleast_1d(x) ** y).item()


def one_d_uniform(x, y):
    return (x ** np.atleast_1d(2.0)).item() - (y ** np.atleast_1d(-1.0)).item()


def financial(rate, nper, pv):
    rate, nper, pv = map(np.asarray, (rate, nper, pv))
    temp = (1 + rate) ** nper
    return -(pv * temp)
'''
TABLES = ["table_float", "table_int", "table_product", "table_base", "table_one"]
PAIRS = ["zero_d_base", "zero_d_exponent", "zero_d_both", "scalar_base", "one_d_exponent", "one_d_base",
         "one_d_uniform"]
STEPPED = {"table_float", "table_int", "table_product", "table_base", "table_one", "one_d_exponent", "one_d_uniform"}
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    root = tmp_path_factory.mktemp("powerloops")
    (root / "power_cases.py").write_text(MODULE.format(exponents=EXPONENTS, n=len(EXPONENTS) + 1))
    sys.path.insert(0, str(root))
    try:
        import power_cases

        yield power_cases
    finally:
        sys.path.remove(str(root))


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


def grid() -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.array(BASES), np.array(EXPONENTS))
    return x.ravel(), y.ravel()


def same_bits(vf, f, *args) -> None:
    """The contract's check, then every lane's bits against the scalar function's (a NaN where it
    gives a NaN: the contract's; a NaN's sign and payload may differ, as after NumPy's pairwise
    sum or C's pow of a NaN under AVX2)."""
    with np.errstate(all="ignore"):
        check(vf, f, *args)
        got = np.asarray(vf(*args), dtype=np.float64).ravel()
        columns = np.broadcast_arrays(*args)
        want = np.array([f(*(c.flat[i].item() for c in columns)) for i in range(columns[0].size)], dtype=np.float64)
    bad = np.flatnonzero((bits(got) != bits(want)) & ~(np.isnan(got) & np.isnan(want)))
    assert not bad.size, [tuple(c.flat[i] for c in columns) for i in bad[:5]]


def loop_or_skip(stepped: bool):
    pytest.importorskip("numba")
    why = ufuncloops.unavailable("power", stepped=stepped)
    if why:
        pytest.skip(why)


# -- what NumPy does, measured -------------------------------------------------------------------
def test_numpy_takes_shortcuts_only_for_an_exponent_of_step_0():
    """A number exponent gives the loop's shortcuts (x * x, 1.0 / x, ...), an array exponent (of
    any length, one too) the loop's pow for every element: the two differ on some elements."""
    loop = ufuncloops.find("power")
    if loop is None:
        pytest.skip(ufuncloops.unavailable("power"))
    x, y = grid()
    x, y = np.concatenate([x, np.linspace(0.9, 1.1, 4001)]), np.concatenate([y, np.full(4001, -1.0)])
    with np.errstate(all="ignore"):
        numbers = bits([np.power(float(a), float(b)) for a, b in zip(x, y)])
        arrays = bits(np.power(x, y))
        one = bits([np.power(float(a), np.array([b]))[0] for a, b in zip(x, y)])
        both_one = bits([np.power(np.array([a]), np.array([b]))[0] for a, b in zip(x, y)])
        assert (bits(loop.each(x, y)) == numbers).all() and (bits(loop.each(x, y, step=8)) == arrays).all()
    assert (one == arrays).all() and (both_one == arrays).all()  # a one-element array: step 8 too
    differ = numbers != arrays
    assert differ.any() and set(y[differ]) <= {-1.0, 0.0, 0.5, 1.0, 2.0}, set(y[differ])


def test_numpy_scalars_power_is_not_the_loop():
    """np.float64 ** np.float64 is NumPy's scalar math (the C library's pow): not what lane code
    gives `**` of arrays; and `array ** number` is the loop with the exponent's step 0."""
    loop = ufuncloops.find("power")
    if loop is None:
        pytest.skip(ufuncloops.unavailable("power"))
    x, y = grid()
    with np.errstate(all="ignore"):
        zero_d = bits([np.asarray(a) ** float(b) for a, b in zip(x, y)])
        f64_zero_d = bits([np.float64(a) ** np.asarray(b) for a, b in zip(x, y)])
        table = bits([(np.array([a, 1.5, 2.5]) ** float(b))[0] for a, b in zip(x, y)])
        steps0 = bits(loop.each(x, y))
    assert (zero_d == steps0).all() and (f64_zero_d == steps0).all() and (table == steps0).all()


@pytest.mark.parametrize("stepped", [False, True])
def test_the_checked_loop_is_found_for_both_calls(stepped):
    assert ufuncloops.find("power", stepped) is not None or ufuncloops.unavailable("power", stepped)
    assert "one input" in ufuncloops.unavailable("sin", stepped=True)


# -- the Numba backend against the scalar function ----------------------------------------------
@pytest.mark.numba
@pytest.mark.parametrize("name", TABLES)
def test_table_powers_are_numpys_bits(cases, name):
    loop_or_skip(stepped=True)
    f = getattr(cases, name)
    vf = vectorize(f, backend="numba", fallback="error")
    same_bits(vf, f, np.array(BASES + [-1.09, 1.09, 4.0, -0.366e-4]))
    assert vf.backend == "numba" and "_vz_ufunc_stepped_power(" in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", PAIRS)
def test_powers_of_numpy_values_are_numpys_bits(cases, name, backend):
    stepped = name in STEPPED
    if backend == "numba":
        loop_or_skip(stepped)
    f = getattr(cases, name)
    vf = vectorize(f, backend=backend, fallback="error")
    same_bits(vf, f, *grid())
    called = {"numba": "_vz_ufunc_stepped_power(" if stepped else "_vz_ufunc_power(",
              "numpy": "_vz_stepped_power(" if stepped else ""}[backend]
    assert vf.backend == backend and called in vf.source, vf.source


@pytest.mark.numba
def test_int_exponents_literals_and_financial_shape(cases):
    loop_or_skip(stepped=False)
    x, _ = grid()
    k = np.array([-3, -2, -1, 0, 1, 2, 3, 7, 2**31, -(2**31)])
    same_bits(vectorize(cases.zero_d_int, backend="numba", fallback="error"), cases.zero_d_int,
              np.array(BASES)[:, None], k[None, :])
    same_bits(vectorize(cases.zero_d_literal, backend="numba", fallback="error"), cases.zero_d_literal, np.array(BASES))
    rate, nper = np.meshgrid(np.array(BASES), np.array(EXPONENTS + [12.0, 120.0, 360.0]))
    vf = vectorize(cases.financial, backend="numba", fallback="error")
    same_bits(vf, cases.financial, rate.ravel(), nper.ravel(), -100.0)
    assert vf.backend == "numba"


@pytest.mark.parametrize(("name", "words"), [
    ("zero_d_base", "'**' of a 0-d array (np.asarray of a number) on the Numba backend: NumPy's own kernel"),
    ("one_d_exponent", "'**' of a one-element array (np.atleast_1d of a number) on the Numba backend"),
    ("table_float", "array ** array (NumPy's own power kernel on this CPU gives other last bits than C's pow"),
])
def test_refused_with_the_reason_where_the_loop_cannot_be_called(cases, monkeypatch, name, words):
    """Where NumPy's loop cannot be called (ufuncloops says why: here a stand-in reason), lane code
    refuses what the C library's pow would give other bits for, with the reason (and the line for
    a table: passes/table_lanes.py checks the user's tree; ops_to_lanes' refusals of NumPy calls
    on numbers have none, the tree they see is rebuilt)."""
    if name != "one_d_exponent" and not differs_from_libm("power"):
        pytest.skip("NumPy's power is the C library's pow on this CPU: lane code calls that")
    monkeypatch.setattr(ufuncloops, "unavailable", lambda name, stepped=False: "a stand-in reason")
    f = getattr(cases, name)
    params = {"s": F} if name.startswith("table") else {"x": F, "y": F}
    with pytest.raises(VectorizeError) as info:
        after("ops_to_lanes", f, lanes=True, **params)
    text = str(info.value)
    assert words in text and "a stand-in reason" in text, text
    assert ("power_cases.py:" in text) == name.startswith("table"), text


AVX2_SCRIPT = textwrap.dedent("""
    import json, sys
    from math import inf, nan
    import numpy as np
    sys.path.insert(0, {root!r})
    import power_cases as m
    from vectorizer import vectorize
    from vectorizer.backends.numba import ufuncloops
    from vectorizer.core.numpy_kernels import differs_from_libm
    bases, exponents = {bases!r}, {exponents!r}
    x, y = (a.ravel() for a in np.meshgrid(np.array(bases), np.array(exponents)))
    out = {{"loops": [ufuncloops.unavailable("power"), ufuncloops.unavailable("power", stepped=True)],
            "own": differs_from_libm("power")}}
    with np.errstate(all="ignore"):
        for name, args in [(n, (np.array(bases),)) for n in {tables!r}] + [(n, (x, y)) for n in {pairs!r}]:
            f = getattr(m, name)
            cols = np.broadcast_arrays(*args)
            want = np.array([f(*(c.flat[i].item() for c in cols)) for i in range(cols[0].size)],
                            dtype=np.float64).view(np.int64)
            for backend in ("numba", "numpy"):
                vf = vectorize(f, backend=backend, fallback="error")
                got = np.asarray(vf(*args), dtype=np.float64).ravel().view(np.int64)
                nan = np.isnan(got.view(np.float64)) & np.isnan(want.view(np.float64))
                out[backend + " " + name] = [vf.backend, int(((got != want) & ~nan).sum())]
    print(json.dumps(out))
""")


@pytest.mark.numba
def test_numpy_limited_to_avx2_gets_its_own_bits(cases, tmp_path):
    """Under NPY_DISABLE_CPU_FEATURES NumPy runs another power loop (the C library's pow, the same
    shortcuts): lane code binds that process's loop and gives that process's bits, compiled and
    then loaded from Numba's cache (a second run); the NumPy backend gives them too."""
    loop_or_skip(stepped=True)
    script = AVX2_SCRIPT.format(root=os.path.dirname(cases.__file__), bases=BASES, exponents=EXPONENTS,
                                tables=TABLES, pairs=PAIRS)
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd(),
           "NPY_DISABLE_CPU_FEATURES": AVX2_ONLY}
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        run = json.loads(out.stdout.strip().splitlines()[-1])
        assert run["loops"] == ["", ""] and not run["own"], run  # AVX2 NumPy: its loop is C's pow
        for name in TABLES + PAIRS:
            assert run["numba " + name] == ["numba", 0], (name, run)
            if name in PAIRS:  # the NumPy backend's table sums are checked in test_uniform_tables.py
                assert run["numpy " + name] == ["numpy", 0], (name, run)
