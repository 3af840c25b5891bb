"""ops_to_lanes/numpy_calls.py's rules for NumPy's integer results on the Numba backend, with
core/numpy_ints.py's measurements: np.fmod of ints (C's truncation, NumPy's 0 for a zero divisor
and for INT64_MIN by -1), `.astype(np.int64)` of a float (truncation; NaN, infinities and values
out of range give the one value NumPy's casts give on this machine), np.logical_* of numbers.
Differential against the scalar function lane by lane on both backends (hostile ints and floats),
values and warnings (none, on either backend: batched code runs under np.errstate); also with
NumPy limited to AVX2 (NPY_DISABLE_CPU_FEATURES: other cast loops), in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.core import numpy_ints

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
AVX2_ONLY = "X86_V4 AVX512_ICL AVX512_SPR"
PAIRS = numpy_ints._hostile_pairs()
XS = np.array([x for x, _ in PAIRS], dtype=np.int64)
YS = np.array([y for _, y in PAIRS], dtype=np.int64)
FLOATS = np.array(SPECIAL_FLOATS + [1e19, -1e19, 1e300, -1e300, 9223372036854774784.0, 4503599627370495.5, 2.9, -2.9,
                                    2451545.0, 2460000.5, 1867216.25, -1e-300])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000, 1900, 2000, 2024, 2100, -2000, -1900], dtype=np.int64)


def _scalar_if_one(solution):
    if np.isscalar(solution):
        return solution
    if solution.size == 1:
        return solution.item()
    return solution


def fmod(x, y):
    return np.fmod(x, y)


def fmod_mixed(x, flag):
    return np.fmod(x, flag) + np.fmod(flag, x + 7)  # int/bool: int64's


def leap(year):
    year = np.atleast_1d(year).astype(np.int64)
    x = np.fmod(year, 4)
    y = np.fmod(year, 100)
    z = np.fmod(year, 400)
    return _scalar_if_one(np.logical_and(np.logical_not(x), np.logical_or(y, np.logical_not(z))))


def day_of_week(julian_day):
    julian_day = np.atleast_1d(julian_day)
    i = (julian_day + 1.5).astype(np.int64)
    return _scalar_if_one(i % 7)


def to_calendar(julian_day):
    julian_day = np.atleast_1d(julian_day)
    frac, whole = np.modf(julian_day + 0.5)
    alpha = ((whole - 1867216.25) / 36524.25).astype(np.int64)
    a = whole + 1 + alpha - (alpha / 4).astype(np.int64)
    b = a + 1524
    c = ((b - 122.1) / 365.25).astype(int)
    d = (365.25 * c).astype(np.int64)
    e = ((b - d) / 30.6001).astype(np.int64)
    return _scalar_if_one(c - 4715), _scalar_if_one(b - d - (30.6001 * e).astype(np.int64) + frac)


def logical(x, y):
    return np.logical_xor(x, y) or (np.logical_and(x, y) and not np.logical_or(x, 0.0))


def _quiet_check(vf, f, *args, silent: bool = True) -> None:
    """The contract's check (no warning from batched code), and with `silent` no warning at all:
    NumPy's ("divide by zero encountered in fmod", "invalid value encountered in cast") are not
    given, as on the NumPy backend, whose batched code runs under np.errstate(all="ignore"). (A
    lane flagged for another reason is re-run by the scalar function, which warns as the loop does.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the oracle's scalar calls warn, as the loop does
        check(vf, f, *args)
    if not silent:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vf(*args)
    assert not caught, [str(w.message) for w in caught]


def test_fmod_formula_is_numpys_here() -> None:
    assert numpy_ints.fmod_unavailable() is None
    assert [numpy_ints.fmod_lane(x, y) for x, y in [(-7, 4), (7, -4), (-7, -4), (5, 0), (-(2**63), -1), (2**63 - 1, -1)]] \
        == [-3, 3, -3, 0, 0, 0]


def test_cast_constant_is_what_numpy_gives() -> None:
    with np.errstate(invalid="ignore"):
        nan = np.array([np.nan, np.inf, 1e300]).astype(np.int64).tolist()
        nan32 = np.array([np.nan, 3e9]).astype(np.int32).tolist()
    assert numpy_ints.cast_constant("int64") in (None, nan[0])
    if nan[0] == nan[1] == nan[2]:
        assert numpy_ints.cast_constant("int64") == nan[0]
    assert numpy_ints.cast_constant("int32") in (None, nan32[0])


def test_cast_constant_refuses_two_values(monkeypatch) -> None:
    """A NumPy whose casts of NaN and of an infinity differ has no one constant: None."""
    real = numpy_ints._casts
    monkeypatch.setattr(numpy_ints, "_casts", lambda v, k: ([1] if v == np.inf else real(v, k)[0], True))
    numpy_ints.cast_constant.cache_clear()
    try:
        assert numpy_ints.cast_constant("int64") is None
    finally:
        numpy_ints.cast_constant.cache_clear()


@pytest.mark.parametrize("backend", BACKENDS)
def test_fmod_of_hostile_pairs(backend) -> None:
    _quiet_check(vectorize(fmod, backend=backend, fallback="error"), fmod, XS, YS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fmod_of_an_int_and_a_bool(backend) -> None:
    flags = np.array([i % 3 == 0 for i in range(len(XS))])
    _quiet_check(vectorize(fmod_mixed, backend=backend, fallback="error"), fmod_mixed, XS // 2, flags)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [leap, day_of_week, to_calendar], ids=lambda f: f.__name__)
def test_astronomy_style_functions(f, backend) -> None:
    args = INTS if f is leap else FLOATS
    # to_calendar on lanes: `alpha / 4` of an int beyond 2**53 and `c - 4715` of INT64_MIN (NaN's
    # cast) are flagged (Python's int division and overflow), and re-run
    silent = f is not to_calendar
    _quiet_check(vectorize(f, backend=backend, fallback="error"), f, args, silent=silent)
    if f is not leap:
        _quiet_check(vectorize(f, backend=backend, fallback="error"), f, INTS[np.abs(INTS) < 2**53], silent=silent)


@pytest.mark.parametrize("backend", BACKENDS)
def test_logical_of_numbers(backend) -> None:
    xs = np.repeat(FLOATS, 4)
    ys = np.tile(np.array([0.0, -0.0, np.nan, 2.0]), len(FLOATS))
    _quiet_check(vectorize(logical, backend=backend, fallback="error"), logical, xs, ys)


@pytest.mark.parametrize("f", [fmod, leap, day_of_week], ids=lambda f: f.__name__)
def test_jax_backend_runs_the_same_lane_code(f) -> None:
    """backend="jax" lowers the lane code: the same values (JAX on the CPU here)."""
    pytest.importorskip("jax", reason="backend='jax' needs JAX")
    args = {"fmod": (XS, YS), "leap": (INTS,), "day_of_week": (FLOATS,)}[f.__name__]
    _quiet_check(vectorize(f, backend="jax", exact=False, fallback="error"), f, *args, silent=False)


def fmod_of_bools(x, y):
    return np.fmod(x > 0, y > 0)  # NumPy: int8


@pytest.mark.numba
def test_what_is_not_reproduced_is_refused(monkeypatch) -> None:
    with pytest.raises(VectorizeError, match="of a bool on the Numba backend"):
        vectorize(fmod_of_bools, backend="numba", fallback="error")(FLOATS, FLOATS)

    def casts_here(julian_day):
        return _scalar_if_one((np.atleast_1d(julian_day) * 3.0).astype(np.int64))

    def fmods_here(x):
        return np.fmod(x, 7) * 3

    monkeypatch.setattr(numpy_ints, "cast_constant", lambda dtype: None)
    with pytest.raises(VectorizeError, match="give different values on this machine"):
        vectorize(casts_here, backend="numba", fallback="error")(FLOATS)
    monkeypatch.setattr(numpy_ints, "fmod_unavailable", lambda: "np.fmod(5, 0) is 5")
    with pytest.raises(VectorizeError, match=r"np.fmod of ints on the Numba backend.*np.fmod\(5, 0\) is 5"):
        vectorize(fmods_here, backend="numba", fallback="error")(INTS)


AVX2_SCRIPT = """
import json, sys, warnings
import numpy as np
sys.path.insert(0, {tests!r})
sys.path.insert(0, {here!r})
from test_numba_numpy_ints import FLOATS, INTS, XS, YS, day_of_week, fmod, to_calendar
from vectorizer import vectorize
from vectorizer.core import numpy_ints
out = {{"cast": numpy_ints.cast_constant("int64"), "fmod": numpy_ints.fmod_unavailable()}}
with np.errstate(invalid="ignore"):
    out["numpy_nan"] = np.array([np.nan] * 17).astype(np.int64).tolist()[-1]
for f, args in ((day_of_week, (FLOATS,)), (to_calendar, (FLOATS,)), (fmod, (XS, YS))):
    with np.errstate(all="ignore"):
        want = [f(*lane) for lane in zip(*(a.tolist() for a in args))]
    for backend in ("numba", "numpy"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = vectorize(f, backend=backend, fallback="error")(*args)
        got = list(zip(*(g.tolist() for g in got))) if isinstance(got, tuple) else got.tolist()
        same = lambda g, w: g == w or (g != g and w != w)
        out[backend + " " + f.__name__] = sum(not all(map(same, g, w)) if isinstance(w, tuple) else not same(g, w)
                                              for g, w in zip(got, want))
        out["warned " + backend + " " + f.__name__] = len(caught)
print(json.dumps(out))
"""


@pytest.mark.numba
def test_numpy_limited_to_avx2(tmp_path) -> None:
    """NumPy's AVX2 cast loops (not its AVX-512 ones) measured in that process: the same rules hold."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = AVX2_SCRIPT.format(here=here, tests=os.path.dirname(here))
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd(),
           "NPY_DISABLE_CPU_FEATURES": AVX2_ONLY}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout.strip().splitlines()[-1])
    assert run["fmod"] is None and run["cast"] == run["numpy_nan"], run
    assert all(v == 0 for k, v in run.items() if k.startswith(("numba ", "numpy "))), json.dumps(run)
    # no warning where lane code gives NumPy's value itself (to_calendar's re-run lanes warn, as the loop)
    assert all(v == 0 for k, v in run.items() if k.startswith("warned ") and "to_calendar" not in k), run
