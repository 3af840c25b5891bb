"""Uniform tables (module-level 1-D arrays) in elementwise expressions with the lane's numbers,
reduced per lane by np.sum / np.prod (the shape of iapws.iapws97's backward equations), on both
backends against the scalar function lane by lane: values bit for bit and the first failing
lane's exception. Tables of 3, 8, 9, 40, 130 and 300 elements run every branch of NumPy's pairwise
sum; tests/backends/test_table_sums.py checks the sums themselves."""

from __future__ import annotations

import contextlib
import inspect
import math

import numpy as np
import pytest
from contract_cases import tables as T
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, lanes, libm_ulps, numpy_simd_math, simd_ulps
from strategies import SPECIAL_FLOATS, floats, ints

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import differs_from_libm
from vectorizer.rules.base import ULP_BOUND

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
HOSTILE = np.array(SPECIAL_FLOATS + [1e-300, -1e-300, 1e200, 3.0, 4.0, 1.1, 0.9, 7.5, -3.5])


# Where NumPy runs its own power kernel (AVX-512), lane code calls NumPy's loop for `**` of a
# table (backends/numba/ufuncloops.py, called with array steps); where that loop cannot be called,
# the Numba backend refuses it (C's pow gives other bits; issue 49 row 17), and `auto` runs NumPy.
OWN_POWER = differs_from_libm("power") and bool(ufuncloops.unavailable("power", stepped=True))


def vec(func, backend: str):
    if backend == "numba":
        pytest.importorskip("numba")
        if OWN_POWER:
            sample = [np.array([2.0])] * len(inspect.signature(func).parameters)
            try:
                vectorize(func, fallback="error", backend="numba")(*sample)
            except VectorizeError as exc:
                if "NumPy's own power kernel" not in str(exc):
                    raise
                return vectorize(func, fallback="error", backend="auto")  # NumPy's route, NumPy's bits
            except Exception:  # noqa: BLE001 - the sample lane's own exception: it compiled
                pass
    return vectorize(func, fallback="error", backend=backend)


# Each function's table sum as its terms per lane, and what the function does with the sum (given
# the sum and the lane): with AVX-512, `check_power_sum` bounds each lane by them (below).
TERMS = {
    "h3": (lambda s: T.N3 * (s / 3.8 - 1.09) ** T.I3 * (s / 3.8 + 0.366e-4) ** T.J3, lambda x, s: 1700 * x),
    "h8": (lambda s: T.N8 * (s / 3.8 - 1.09) ** T.I8 * (s / 3.8 + 0.366e-4) ** T.J8, lambda x, s: 1700 * x),
    "h9": (lambda s: T.N9 * (s / 5.9 - 1.02) ** T.I9 * (s / 5.9 - 0.726) ** T.J9, lambda x, s: 2800 * x ** 4),
    "h40": (lambda P, h: T.N40 * (P / 1) ** T.I40 * (h / 2500 + 1) ** T.J40, lambda x, P, h: x),
    "h300": (lambda x: T.N300 * x ** T.I300, lambda x, _: x),
    "backward": (lambda P, h: TERMS["h40"][0](P, h) if P <= 4 else TERMS["h8"][0](h),
                 lambda x, P, h: max(x if P <= 4 else 1700 * x, 273.15)),
}


def check_power_sum(vf, f, *args) -> None:
    """`check` with a bound derived for a sum of table powers. Without AVX-512: bit for bit. With
    it, each power of a term may be ULP_BOUND ulp from the scalar function's (NumPy's SIMD kernel
    on one side, the C library on the other), so a term moves by at most (2 * ULP_BOUND + 2)
    relative ulp (two powers, two products), and the pairwise sum of n terms by (that + 2 *
    ceil(log2 n)) ulp of the sum of the terms' magnitudes (its own roundings, now of other
    values); the function's step after the sum (1700 * x, 2800 * x ** 4, ...) is evaluated at
    both ends of that interval, plus ULP_BOUND ulp of the result for a final power. Exceptions,
    non-finite values and every lane's type are still compared exactly by `check`. Lane code
    (the Numba backend) calls NumPy's own power loop for each element: bit for bit."""
    if not numpy_simd_math() or vf.backend == "numba":
        check(vf, f, *args)
        return
    check(vf, f, *args, ulps=2**62)  # exceptions, types, nan/inf exactly; finite values below
    terms, outer = TERMS[f.__name__]
    got = np.asarray(vf(*args)).ravel().tolist()
    _, all_lanes, _ = lanes(*args)
    for lane, value in zip(all_lanes, got):
        want = f(*lane)
        if not isinstance(want, float) or not math.isfinite(want):
            continue
        parts = np.asarray(terms(*lane), dtype=np.float64)
        steps = 2 * ULP_BOUND + 2 + 2 * math.ceil(math.log2(max(len(parts), 2)))
        delta = steps * 2.0**-52 * float(np.sum(np.abs(parts)))
        total = float(np.sum(parts))
        ends = [float(outer(total - delta, *lane)), float(outer(total + delta, *lane))]
        bound = max(abs(e - want) for e in ends) + ULP_BOUND * math.ulp(want)
        assert abs(value - want) <= bound, (lane, want, value, bound)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["h8", "h9", "h300", "quotient", "product"])
def test_values_on_hostile_inputs(name: str, backend: str) -> None:
    f = getattr(T, name)
    with rerun_warnings(backend):
        if name in TERMS:
            check_power_sum(vec(f, backend), f, HOSTILE)
        else:  # no power: divisions and products, correctly rounded on every side
            check(vec(f, backend), f, HOSTILE)


def rerun_warnings(backend: str):
    """Lanes check a NumPy scalar's `suma ** 4` as Python's float power (OverflowError) and flag
    the lane; its re-run by the scalar function then warns as the scalar loop does (NumPy's
    overflow in scalar power). The caller's errstate decides those warnings, as in the loop."""
    return np.errstate(all="ignore") if backend == "numba" else contextlib.nullcontext()


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_in_the_domain(backend: str) -> None:
    rng = np.random.default_rng(1)
    s = rng.uniform(-1.5e-4, 3.77, 2000)
    check_power_sum(vec(T.h3, backend), T.h3, s)
    check_power_sum(vec(T.h9, backend), T.h9, rng.uniform(4.4, 5.85, 2000))


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_batched_arguments(backend: str) -> None:
    rng = np.random.default_rng(2)
    P, h = rng.uniform(0.0, 100.0, 500), rng.uniform(-500.0, 4000.0, 500)
    check_power_sum(vec(T.h40, backend), T.h40, P, h)
    check_power_sum(vec(T.h40, backend), T.h40, HOSTILE[:, None], HOSTILE[None, :])


@pytest.mark.parametrize("backend", BACKENDS)
def test_first_failing_lane_raises(backend: str) -> None:
    """NotImplementedError from a bound check, ZeroDivisionError from the lane's own 1 / sigma,
    OverflowError from math.exp of a sum: the first failing lane's, in C order."""
    check(vec(T.h3, backend), T.h3, np.array([1.0, 2.0, 3.9, -1.0]))
    check(vec(T.h3, backend), T.h3, np.array([1.0, np.nan, 3.9]))  # nan passes the bound check
    ulps = libm_ulps(T.h130, np.array([7.0, 0.0]), names=("exp",)) if backend == "numpy" else 0
    check(vec(T.h130, backend), T.h130, np.array([7.0, 8.0, 0.0, -0.0]), ulps=ulps)
    check(vec(T.h130, backend), T.h130, np.array([7.0, 1e-300, 8.0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_tuple_result_and_negative_exponents(backend: str) -> None:
    """Region2_cp0's shape: three sums over int exponents (negative ones: 0.0 ** -5 is inf in
    NumPy), int tables in products, and math.log(Pr) raising for Pr <= 0."""
    Tr = np.array([0.5, 1.0, 2.0, 0.0, -0.0, -1.5, np.inf, np.nan, 5e-324, 1e300])
    ulps = libm_ulps(lambda t, p: T.cp0(t, p)[0], Tr, 2.0, names=("log",)) if backend == "numpy" else 0
    check(vec(T.cp0, backend), T.cp0, Tr, 2.0, ulps=max(ulps, simd_ulps()))
    check(vec(T.cp0, backend), T.cp0, Tr, np.array([1.0, 0.0]).repeat(5))


@pytest.mark.parametrize("backend", BACKENDS)
def test_callee_with_tables_under_a_branch(backend: str) -> None:
    rng = np.random.default_rng(3)
    P, h = rng.uniform(0.0, 8.0, 400), rng.uniform(1000.0, 4000.0, 400)
    check_power_sum(vec(T.backward, backend), T.backward, P, h)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tables_under_a_branch_few_lanes_take(backend: str) -> None:
    """Enough lanes (runtime.masked gathers from 4096) with each side taken by fewer than half:
    the NumPy backend sums the tables of a side on its lanes alone (`_vz_masked(m, lambda ...)`),
    each lane's row reduced by itself, so the bits are those of every lane summed."""
    rng = np.random.default_rng(51)
    P = np.concatenate([rng.uniform(0.0, 4.0, 1500), rng.uniform(4.0, 8.0, 5000), HOSTILE])
    h = np.concatenate([rng.uniform(1000.0, 4000.0, 6500), np.resize(HOSTILE[::-1], HOSTILE.size)])
    order = rng.permutation(P.size)
    vf = vec(T.backward, backend)
    check_power_sum(vf, T.backward, P[order], h[order])
    check_power_sum(vf, T.backward, (8.0 - P)[order], h[order])  # the other side a minority
    if backend == "numpy":
        assert "_vz_masked(m, lambda" in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_tables_wrap_as_numpy(backend: str) -> None:
    """int64 tables times a lane's int: NumPy's int64 arithmetic (wrapping) and its sums and products."""
    k = np.array([0, 1, -1, 7, 2**31, 2**62, 2**63 - 1, -(2**63), 12345678901])
    check(vec(T.int_sum, backend), T.int_sum, k)
    check(vec(T.int_product, backend), T.int_product, k)
    check(vec(T.float_int, backend), T.float_int, k)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(xs=st.lists(floats(), min_size=1, max_size=12))
def test_hypothesis(backend: str, xs: list[float]) -> None:
    x = np.array(xs)
    with rerun_warnings(backend):
        check_power_sum(vec(T.h9, backend), T.h9, x)
        check_power_sum(vec(T.h300, backend), T.h300, x)
        check(vec(T.quotient, backend), T.quotient, x)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None)
@given(ks=st.lists(ints(-(2**62), 2**62), min_size=1, max_size=8))
def test_hypothesis_ints(backend: str, ks: list[int]) -> None:
    check(vec(T.int_sum, backend), T.int_sum, np.array(ks))


@pytest.mark.parametrize("name", ["power_of_table", "array_local", "maximum", "dot", "broadcast_one"])
def test_numpy_backend_runs_what_lanes_refuse(name: str) -> None:
    f = getattr(T, name)
    check(vec(f, "numpy"), f, HOSTILE)


@pytest.mark.numba
@pytest.mark.parametrize(("name", "construct", "words"), [
    ("power_of_table", "np.sum(N3 ** s)", "array ** number"),
    ("array_local", "N3 * s", "array-valued expression"),
    ("maximum", "np.max(N9 * s)", "np.max of an array"),
    ("dot", "np.dot(N9, N9 * s)", "np.dot of an array"),
    ("bools", "FLAGS * s", "bool array arithmetic"),
    # a one-element table broadcast against a longer one: NumPy gives it the step 0 (the power's
    # shortcuts), and element k of it is no element: refused (it was read past its end)
    ("broadcast_one", "ONE", "a table of shape (1,) broadcast against shape (9,)"),
])
def test_lanes_refuse_with_location(name: str, construct: str, words: str) -> None:
    """What lanes cannot do exactly is a VectorizeError at the user's line and column."""
    pytest.importorskip("numba")
    f = getattr(T, name)
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error", backend="numba")(np.array([1.0, 2.0]))
    text = str(info.value)
    assert words in text and "tables.py:" in text and construct in text, text
    line = next(i for i, ln in enumerate(open(T.__file__).read().splitlines(), 1) if f"def {name}(" in ln)
    assert f"tables.py:{line + 1}:" in text, text  # the statement after the def


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "why"), [("single", "dtype is float32"), ("matrix", "2 dimensions"),
                                         ("huge", "100001 elements")])
def test_arrays_that_are_no_tables_are_refused(name: str, backend: str, why: str) -> None:
    f = getattr(T, name)
    with pytest.raises(VectorizeError, match=why) as info:
        vec(f, backend)(np.array([1.0, 2.0]))
    assert "tables.py:" in str(info.value)


def test_table_is_a_constant_of_the_generated_module() -> None:
    """The NumPy backend's code: the table as an exact np.array literal, the lane's number padded
    against the table's axis, and the reduction over the last axis."""
    src = vectorize(T.h8, backend="numpy").source
    assert "N8 = np.array([" in src and "dtype=np.float64)" in src and "I8 = np.array([" in src
    namespace: dict = {}
    exec(src.split("\n\ndef ")[0], namespace)  # noqa: S102 - the module's constants
    assert namespace["N8"].tobytes() == T.N8.tobytes() and namespace["I8"].dtype == np.int64
    assert "[:, None]" in src and "axis=1" in src


def test_math_on_python_ints_from_tables() -> None:
    """sanity of the fixture: the exponents are int64 tables, so `x ** I` is NumPy's float power"""
    assert T.I8.dtype == np.int64 and isinstance(T.h8(1.0), np.floating)
    assert math.isfinite(T.h8(1.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_table_changed_in_place_is_read_again(backend: str, tmp_path, monkeypatch) -> None:
    """Tables are read at each call as the scalar function reads them: an item assigned in place
    and a rebound name both give new code (the Watch compares a table's bytes)."""
    (tmp_path / "table_mod.py").write_text("import numpy as np\nN = np.array([1.0, 2.0, 3.0])\n\n\n"
                                           "def f(s):\n    return np.sum(N * s)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import table_mod

    vf = vec(table_mod.f, backend)
    x = np.array([1.0, 2.0, -0.5])
    check(vf, table_mod.f, x)
    table_mod.N[0] = 10.0
    check(vf, table_mod.f, x)
    table_mod.N = np.array([1.0, 1.0, 1.0, 4.0])
    check(vf, table_mod.f, x)


@pytest.mark.numba
@pytest.mark.parametrize(("name", "expected"), [("h9", "numba"), ("backward", "numba"), ("array_local", "numpy"),
                                                ("maximum", "numpy"), ("power_of_table", "numpy"), ("dot", "numpy"),
                                                ("broadcast_one", "numpy")])
def test_auto_runs_on_numpy_what_lanes_refuse(name: str, expected: str) -> None:
    """backend="auto" keeps the NumPy backend for table uses the lanes refuse (never the
    element-by-element fallback), and Numba for np.sum / np.prod of tables."""
    pytest.importorskip("numba")
    f = getattr(T, name)
    vf = vectorize(f, backend="auto", fallback="error")
    args = (np.array([1.0, 2.0]), np.array([3.0, 5.0])) if name == "backward" else (np.array([1.0, 2.0]),)
    with rerun_warnings("numba"):
        check(vf, f, *args)
    if OWN_POWER and name in ("h9", "backward"):
        expected = "numpy"  # NumPy's own power kernel here: lane code refuses the table power
    assert vf.backend == expected
