"""The Numba backend keeps the contract (docs/internals.md) where Numba itself does not.

Numba wraps int64 silently, its math functions never raise Python's domain errors, exceptions
inside a parallel loop are unreliable and fastmath breaks NaN tests. Flag-and-patch closes each
gap: every test below runs the same purpose-written function on BOTH backends against the scalar
oracle (tests/oracle.py), for values (bit-exact, -0.0 and NaN included) and for exceptions (type,
message, first failing lane in C order). Large batches go through the parallel `prange` driver.

The functions under test are defined at the top of this file (vectorizer reads their source).
PYTEST_DONT_REWRITE: pytest must not rewrite their `assert` statements (the scalar function would
then raise a different message than the one a user's unmodified function raises).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import floats, ints

from vectorizer import VectorizeError, VectorizeOverflowError, vectorize
from vectorizer.engine import chunks
from vectorizer.rules import scalar as rules

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# -- the scalar functions under test ---------------------------------------------------------
def mul(a: int, b: int) -> int:
    return a * b


def add(a: int, b: int) -> int:
    return a + b


def neg(a: int) -> int:
    return -a


def iabs(a: int) -> int:
    return abs(a)


def collatz_step(a: int) -> int:
    # The Numba lane tests 3 * a + 1 for overflow before the `if`: even lanes beyond 3e18 are
    # flagged too, and their re-run gives a // 2 exactly.
    if a % 2 == 0:
        b = a // 2
    else:
        b = 3 * a + 1
    return b


def cube(a: int) -> int:
    return a**3


def ipow(a: int, b: int):  # a float where b < 0: the result mixes ints and floats (float64)
    return a**b


def floordiv(a: int, b: int) -> int:
    return a // b


def modulo(a: int, b: int) -> int:
    return a % b


def fdiv(x: float, y: float) -> float:
    return x / y


def ffloordiv(x: float, y: float) -> float:
    return x // y


def fmodulo(x: float, y: float) -> float:
    return x % y


def fsqrt(x: float) -> float:
    return math.sqrt(x)


def flog(x: float) -> float:
    return math.log(x)


def facos(x: float) -> float:
    return math.acos(x)


def fexp(x: float) -> float:
    return math.exp(x)


def fpow(x: float, y: float) -> float:
    return math.pow(x, y)


def nan_logic(x: float, y: float) -> int:
    code = 0
    if math.isnan(x):
        code += 1
    if x < y:
        code += 2
    if x == y:
        code += 4
    if x != y:
        code += 8
    if not x >= y:
        code += 16
    if x != x:
        code += 32
    return code


def fmin(x: float, y: float) -> float:
    return min(x, y)


def fmax(x: float, y: float) -> float:
    return max(x, y)


def fmin3(x: float, y: float, z: float) -> float:
    return min(x, y, z)


def loop_checks(x: float, n: int) -> float:
    total = 0.0
    i = 0
    while i < n:
        total += x * i
        assert total < 1e6, "total ran away"
        if total < -1e6:
            raise ArithmeticError(f"total fell to {total} at step {i}")
        i += 1
    return total


def loop_divide(x: float, n: int) -> float:
    acc = 1.0
    for i in range(n):
        acc = acc / (x - i)  # lane x == i raises ZeroDivisionError at that iteration
        if acc > 1e300:
            break
    return acc


def break_first(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):
        if total > 10.0:  # uniform (a Python float) on the first iteration, batched after
            break
        total += math.sqrt(x + i)
    return total


def staged(x: float, k: int) -> float:
    if k == 1:
        raise ValueError(f"k is 1 at x={x}")
    if k == 2:
        return 1.0 / x
    if k == 3:
        return math.sqrt(x)
    if k == 4:
        return math.exp(x)
    if k == 5:
        return float(k * 1_000_000_000_000 * k * 1_000_000)  # flagged as a possible overflow
    return x * 2.0


def orbit(cr: float, ci: float) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 64:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def orbit_point(cr: float, ci: float) -> float:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 48:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return zr - zi / (n + 1)


def erf_erfc(x: float, which: int) -> float:
    if which == 0:
        return math.erf(x)
    return math.erfc(x)


def gamma_lgamma(x: float, which: int) -> float:
    if which == 0:
        return math.gamma(x)
    return math.lgamma(x)


def gamma_if_large(x: float) -> float:
    if x > 1.0:
        return math.gamma(x)
    return x


def gamma_or_sqrt(x: float) -> float:
    if x > 0.0:
        return math.gamma(x)
    return math.sqrt(x)


def square(n: int) -> int:
    return n * n  # the x * x overflow test is a range test on x (found by the fuzzer: INT64_MIN)


def overflow_llvm_can_see(x: float) -> float:
    # v + v is beyond int64 (Python computes it exactly). A check of the wrapped sum is no check:
    # Numba's adds are `nsw` (LLVM folded it away: found by the fuzzer, reg_5e94db1c4f), and a
    # uniform value on the NumPy backend is a Python int, which does not wrap.
    v = -9223372036854775807 << 0
    if v < 1 % (v + v):
        return x
    return -x


def bool_as_number(b: bool, x: float) -> float:
    # Numba has no float(bool) or math.fmod(bool, float): a bool used as a number is an int.
    return math.fmod(b, 2.0) + math.atan2(b | b, 3.0) + float(b) * x + (b if x > 0 else x)


def int_vs_float(a: int, x: float) -> int:
    code = 0
    if a == x:
        code += 1
    if a < x:
        code += 2
    if a > x:
        code += 4
    return code


def cube_root(x: float) -> float:
    return math.cbrt(x) + 1.0


def range_step(n: int, s: int) -> int:
    total = 0
    for i in range(0, n, s):
        total += i
    return total


def range_step_zero(n: int) -> int:
    if n < 0:
        return -n
    total = 0
    for i in range(0, n, 0):
        total += i
    return total


def range_step_folded_to_zero(n: int) -> int:
    s = 0
    total = 0
    for i in range(min(max(n * n, -3), 6), 6, s * s):  # the step folds to the literal 0
        total += i
    return total


# -- helpers -----------------------------------------------------------------------------------
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
_VFS: dict[tuple[str, str], object] = {}


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


def vec(f, backend: str):
    """One VectorizedFunction per (function, backend) for the whole module: compile once."""
    key = (f.__name__, backend)
    if key not in _VFS:
        _VFS[key] = vectorize(f, backend=backend, fallback="error")
    return _VFS[key]


def run_check(f, backend: str, *args, **tolerance) -> None:
    vf = vec(f, backend)
    check(vf, f, *args, **tolerance)
    assert vf.backend == backend  # never a silent fallback to the other backend


def columns(*elements, dtypes, max_size: int = 12):
    """Same-length arrays, one per strategy (so each function has a single specialization)."""
    return st.integers(0, max_size).flatmap(lambda n: st.tuples(*[
        st.lists(e, min_size=n, max_size=n).map(lambda xs, d=d: np.array(xs, dtype=d))
        for e, d in zip(elements, dtypes)]))


def module_globals(vf) -> dict:
    """The generated module of the last specialization (Numba: lane functions and drivers)."""
    return vf._kernels[vf._last].fn.__globals__


def scalar_exception(f, *args) -> BaseException:
    try:
        f(*args)
    except Exception as exc:
        return exc
    raise AssertionError(f"{f.__name__}{args} did not raise")


# Mostly small ints (results fit), some near 2**32 (products overflow), some anywhere in int64.
INTS = st.one_of(ints(-1000, 1000), ints(-(2**32), 2**32), ints())
HOSTILE = floats()


def test_a_zero_range_step_raises_pythons_valueerror(backend):
    """range(0, n, s) with s == 0 on some lanes: ValueError from the first such lane, as the
    loop raises it; on Numba the lane is flagged and re-run, never Numba's own ValueError."""
    @SETTINGS
    @given(columns(ints(-20, 20), ints(-3, 3), dtypes=[np.int64, np.int64]))
    def run(args):
        run_check(range_step, backend, *args)

    run()


@pytest.mark.parametrize("f", [range_step_zero, range_step_folded_to_zero], ids=lambda f: f.__name__)
def test_a_literal_zero_range_step_raises_pythons_valueerror(f, backend):
    """A step that is the literal 0, written or folded from constants (found by the fuzzer: the
    Numba backend checked only steps that were not numbers, so Numba's own ValueError escaped
    as a vectorizer bug)."""
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        f(17)
    run_check(f, backend, np.array([-2, 17, -8612230266, 0, 3], dtype=np.int64))
    run_check(f, backend, np.array([-2, -5], dtype=np.int64))  # range_step_zero: every lane returns first


# -- int64: Numba wraps silently; we patch exactly or refuse -----------------------------------
@pytest.mark.parametrize("f", [mul, add, floordiv, modulo], ids=lambda f: f.__name__)
def test_int_binary_ops_match_python_ints(f, backend):
    @SETTINGS
    @given(columns(INTS, INTS, dtypes=[np.int64, np.int64]))
    def run(args):
        run_check(f, backend, *args)

    run()


@pytest.mark.parametrize("f", [neg, iabs, collatz_step], ids=lambda f: f.__name__)
def test_int_unary_ops_match_python_ints(f, backend):
    @SETTINGS
    @given(columns(INTS, dtypes=[np.int64]))
    def run(args):
        run_check(f, backend, *args)

    run()


def test_int_power_matches_python_ints(backend):
    @SETTINGS
    @given(columns(st.one_of(ints(-(2**21) - 2, 2**21 + 2), ints()), dtypes=[np.int64]))
    def run(args):
        run_check(cube, backend, *args)

    run()


def test_int_power_with_a_batched_exponent_mixes_ints_and_floats(backend):
    # b < 0 gives a float, so the result is float64 and int lanes are checked to be exact
    @SETTINGS
    @given(columns(ints(-20, 20), ints(-3, 12), dtypes=[np.int64, np.int64]))
    def run(args):
        run_check(ipow, backend, *args)

    run()
    got = vec(ipow, backend)(np.array([2, 3, -2]), np.array([-1, 33, 63]))
    assert got.dtype == np.float64 and got.tolist() == [0.5, 3**33, -(2**63)]
    with pytest.raises(VectorizeOverflowError, match="float64 cannot hold exactly"):
        vec(ipow, backend)(np.array([2, 3]), np.array([3, 39]))  # 3**39 needs 62 bits


def test_int_power_far_beyond_float64_is_refused(backend):
    with pytest.raises(VectorizeOverflowError, match=r"lane \(1,\)"):
        vec(ipow, backend)(np.array([2, 32991902]), np.array([3, 68]))


@pytest.mark.parametrize("f, args, expected", [
    (mul, (-(2**62), 2), INT64_MIN),                    # the float check flags it; it fits
    (mul, (3037000499, 3037000499), 3037000499**2),     # just below 2**63 - 1
    (mul, (INT64_MIN, 1), INT64_MIN),
    (add, (INT64_MAX, -1), INT64_MAX - 1),
    (add, (INT64_MIN, INT64_MAX), -1),
    (floordiv, (INT64_MIN, 1), INT64_MIN),
    (modulo, (INT64_MIN, -1), 0),
    (neg, (INT64_MAX,), -INT64_MAX),
    (iabs, (INT64_MIN + 1,), INT64_MAX),
    (cube, (-(2**21),), INT64_MIN),
    (cube, (2**21 - 1,), (2**21 - 1) ** 3),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_int_results_that_fit_are_exact(f, args, expected, backend):
    arrays = [np.array([v, 7]) for v in args]
    got = vec(f, backend)(*arrays)
    assert got.dtype == np.int64 and got.tolist() == [expected, f(*[7] * len(args))]


@pytest.mark.parametrize("f, args", [
    (mul, (2**62, 2)),
    (mul, (INT64_MIN, -1)),
    (add, (INT64_MAX, 1)),
    (add, (INT64_MIN, -1)),
    (neg, (INT64_MIN,)),
    (iabs, (INT64_MIN,)),
    (floordiv, (INT64_MIN, -1)),
    (cube, (2**21,)),
    (cube, (INT64_MAX,)),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_int_results_beyond_int64_are_refused_never_wrapped(f, args, backend):
    arrays = [np.array([1, v, 1]) for v in args]  # the middle lane overflows
    with pytest.raises(VectorizeOverflowError) as info:
        vec(f, backend)(*arrays)
    assert str(f(*args)) in str(info.value) and "lane (1,)" in str(info.value)


# -- division by zero: Numba returns inf/0 or traps; Python raises ------------------------------
@pytest.mark.parametrize("f, a, b", [
    (floordiv, 7, 0), (modulo, 7, 0), (fdiv, 1.0, 0.0), (fdiv, 0.0, -0.0),
    (ffloordiv, 1.0, 0.0), (fmodulo, -1.0, 0.0),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_division_by_zero_raises_cpythons_exception(f, a, b, backend):
    expected = scalar_exception(f, a, b)
    dtype = type(a)
    with pytest.raises(ZeroDivisionError) as info:
        vec(f, backend)(np.array([a, a, a], dtype=dtype), np.array([b + 1, b, b], dtype=dtype))
    assert str(info.value) == str(expected)
    assert any("lane (1,)" in note for note in info.value.__notes__)


@pytest.mark.parametrize("f", [fdiv, ffloordiv, fmodulo], ids=lambda f: f.__name__)
def test_float_division_matches_python(f, backend):
    @SETTINGS
    @given(columns(HOSTILE, st.one_of(HOSTILE, st.sampled_from([0.0, -0.0])),
                   dtypes=[np.float64, np.float64]))
    def run(args):
        run_check(f, backend, *args)

    run()


# -- math domain and range errors: Numba returns NaN/inf; Python raises -------------------------
@pytest.mark.parametrize("f", [fsqrt, flog, facos, fexp], ids=lambda f: f.__name__)
def test_math_functions_match_python(f, backend):
    @SETTINGS
    @given(columns(st.one_of(HOSTILE, st.sampled_from([-1.0, 0.0, -0.0, 1.0, 1.5, 709.0, 710.0, 1000.0])),
                   dtypes=[np.float64]))
    def run(args):
        run_check(f, backend, *args, ulps=4)

    run()


def test_math_pow_matches_python(backend):
    @SETTINGS
    @given(columns(HOSTILE, st.one_of(HOSTILE, st.sampled_from([-1.0, 0.5, 2.0, 400.0])),
                   dtypes=[np.float64, np.float64]))
    def run(args):
        run_check(fpow, backend, *args, ulps=4)

    run()


@pytest.mark.parametrize("f, x, exc_type, message", [
    (fsqrt, -1.0, ValueError, "math domain error"),
    (flog, 0.0, ValueError, "math domain error"),
    (flog, -math.inf, ValueError, "math domain error"),
    (facos, 1.0000000000000002, ValueError, "math domain error"),
    (fexp, 1000.0, OverflowError, "math range error"),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_math_errors_are_pythons(f, x, exc_type, message, backend):
    assert str(scalar_exception(f, x)) == message
    with pytest.raises(exc_type) as info:
        vec(f, backend)(np.array([0.5, x, -2.0]))  # lane 2 would fail too (except for exp)
    assert type(info.value) is exc_type and str(info.value) == message
    assert any("lane (1,)" in note for note in info.value.__notes__)


def test_math_nan_input_is_nan_not_an_error(backend):
    got = vec(fsqrt, backend)(np.array([math.nan, math.inf, -0.0]))
    assert math.isnan(got[0]) and got[1] == math.inf and math.copysign(1.0, got[2]) == -1.0


# -- NaN and -0.0 under default flags (no fastmath) -------------------------------------------
NAN_AND_ZEROS = st.one_of(HOSTILE, st.sampled_from([math.nan, -math.nan, 0.0, -0.0, 1.0, -1.0]))


def test_nan_comparisons_match_python(backend):
    @SETTINGS
    @given(columns(NAN_AND_ZEROS, NAN_AND_ZEROS, dtypes=[np.float64, np.float64]))
    def run(args):
        run_check(nan_logic, backend, *args)

    run()


@pytest.mark.parametrize("f", [fmin, fmax], ids=lambda f: f.__name__)
def test_min_max_keep_pythons_order_with_nan_and_signed_zero(f, backend):
    @SETTINGS
    @given(columns(NAN_AND_ZEROS, NAN_AND_ZEROS, dtypes=[np.float64, np.float64]))
    def run(args):
        run_check(f, backend, *args)

    run()


def test_min_max_explicit_cases(backend):
    x = np.array([math.nan, 1.0, 0.0, -0.0, math.nan, -math.inf])
    y = np.array([1.0, math.nan, -0.0, 0.0, math.nan, math.nan])
    for f in (fmin, fmax):
        run_check(f, backend, x, y)  # min(nan, 1) is nan, min(1, nan) is 1, min(0.0, -0.0) is 0.0
    run_check(fmin3, backend, x, y, np.array([0.5, -0.0, 0.0, math.nan, 2.0, -math.inf]))


# -- raise / assert inside loops ---------------------------------------------------------------
def test_raise_and_assert_inside_loops(backend):
    @SETTINGS
    @given(columns(st.one_of(floats(-1e5, 1e5), HOSTILE), ints(-2, 40), dtypes=[np.float64, np.int64]))
    def run(args):
        run_check(loop_checks, backend, *args)

    run()
    x = np.array([1.0, 1e5, -1e5, 2.0])
    n = np.array([5, 30, 30, 5])  # lane 1 asserts, lane 2 raises: lane 1 comes first
    with pytest.raises(AssertionError) as info:
        vec(loop_checks, backend)(x, n)
    assert str(info.value) == "total ran away"
    with pytest.raises(ArithmeticError) as info:
        vec(loop_checks, backend)(x[2:], n[2:])
    assert str(info.value) == "total fell to -1500000.0 at step 5"


def test_division_by_zero_inside_a_loop(backend):
    @SETTINGS
    @given(columns(st.one_of(st.integers(-3, 12).map(float), HOSTILE), ints(0, 12), dtypes=[np.float64, np.int64]))
    def run(args):
        run_check(loop_divide, backend, *args)

    run()


def test_break_whose_test_is_uniform_on_the_first_iteration(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    x = np.array([0.5, 1.5, 4.0, -9.0])
    n = np.array([3, 0, 9, 12])
    check(vec(break_first, backend), break_first, x, n)  # lane 3: sqrt(-9.0) raises


# -- large batches: the parallel driver, first failing lane in C order --------------------------
# Above PARALLEL_MIN_LANES (Numba's prange driver) and 2 * CHUNK (NumPy's threaded chunks); rows of 250.
N_LARGE = 250 * max(200, 2 * chunks.CHUNK // 250 + 20)
FAILURES = {  # lane -> (x, k): the scalar function raises on each of these lanes
    "raise": (1.5, 1),
    "zero": (0.0, 2),
    "domain": (-4.0, 3),
    "range": (1000.0, 4),
}


def staged_inputs(placement: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-3.0, 3.0, N_LARGE)
    k = np.zeros(N_LARGE, dtype=np.int64)
    k[::7] = 5  # flagged lanes whose re-run returns (a conservative flag, patched in)
    k[1::11] = 3
    x[1::11] = np.abs(x[1::11])  # sqrt of non-negative values: no error
    for name, lane in placement.items():
        x[lane], k[lane] = FAILURES[name]
    return x, k


@pytest.mark.parametrize("placement", [
    {"zero": 31_000, "domain": 37_000, "raise": 45_000, "range": 49_999},
    {"range": 20_001, "zero": 20_002, "raise": 40_000},
    {"domain": 49_998, "raise": 49_999},
    {"raise": 3, "zero": 49_000},
], ids=lambda p: "-".join(p))
def test_first_failing_lane_in_c_order_in_a_large_batch(placement, backend):
    x, k = staged_inputs(placement)
    first_name, first_lane = min(placement.items(), key=lambda item: item[1])
    expected = scalar_exception(staged, *FAILURES[first_name])
    vf = vec(staged, backend)
    with pytest.raises(type(expected)) as info:
        vf(x, k)
    assert type(info.value) is type(expected) and str(info.value) == str(expected)
    assert any(f"lane ({first_lane},) of ({N_LARGE},)" in note for note in info.value.__notes__)
    if backend == "numba":
        g = module_globals(vf)
        assert N_LARGE >= g["PARALLEL_MIN_LANES"] and g["_prun_staged"].signatures  # prange ran


def test_large_batch_without_failures_is_patched_exactly(backend):
    x, k = staged_inputs({})
    run_check(staged, backend, x, k)


def test_first_failing_lane_in_c_order_in_a_2d_batch(backend):
    rows = N_LARGE // 250
    x, k = staged_inputs({"domain": 120 * 250 + 17, "zero": 120 * 250 + 18, "raise": (rows - 1) * 250})
    with pytest.raises(ValueError) as info:
        vec(staged, backend)(x.reshape(rows, 250), k.reshape(rows, 250))
    assert str(info.value) == "math domain error"
    assert any(f"lane (120, 17) of ({rows}, 250)" in note for note in info.value.__notes__)


def test_loop_failures_in_a_large_batch_raise_the_first_lane(backend):
    x = np.full(N_LARGE, 0.5)
    n = np.full(N_LARGE, 8, dtype=np.int64)
    x[[12_345, 23_456, 34_567]] = [3.0, 1e5, -1e5]  # ZeroDivisionError, overflow break, fine
    n[23_456] = 2
    check(vec(loop_divide, backend), loop_divide, x, n)
    x2 = np.full(N_LARGE, 2.0)
    x2[[40_000, 30_000]] = [-1e5, 1e5]  # lane 30_000 fails its assert first in C order
    with pytest.raises(AssertionError) as info:
        vec(loop_checks, backend)(x2, np.full(N_LARGE, 30, dtype=np.int64))
    assert str(info.value) == "total ran away"
    assert any(f"lane (30000,) of ({N_LARGE},)" in note for note in info.value.__notes__)


def run_driver(g: dict, kind: str, name: str, args: tuple, dtype) -> tuple[np.ndarray, np.ndarray | None]:
    """Call a generated driver directly: `_run_<f>` (serial) or `_prun_<f>` (prange). Its
    parameters are the output array, the flag array when the function has checks, the inputs."""
    import inspect

    driver = g[f"_{kind}_{name}"]
    params = list(inspect.signature(driver.py_func).parameters)
    n = args[0].shape[0]
    out = np.empty(n, dtype=dtype)
    flag = np.zeros(n, dtype=np.bool_) if len(params) == len(args) + 2 else None
    driver(out, *([flag] if flag is not None else []), *args)
    return out, flag


@pytest.mark.numba
@pytest.mark.parametrize("f", [staged, orbit, orbit_point], ids=lambda f: f.__name__)
def test_serial_and_parallel_drivers_give_identical_bits(f):
    pytest.importorskip("numba")
    vf = vec(f, "numba")
    rng = np.random.default_rng(7)
    if f is staged:
        vf(np.ones(3), np.zeros(3, dtype=np.int64))
    else:
        vf(np.zeros(3), np.zeros(3))
    g = module_globals(vf)
    threshold = g["PARALLEL_MIN_LANES"]
    assert threshold == (1_000 if f is not staged else 20_000)  # loops make lanes expensive
    prun = g[f"_prun_{f.__name__}"]
    for n in (threshold - 1, threshold, threshold + 1):
        if f is staged:
            args = (rng.uniform(0.0, 700.0, n), rng.integers(0, 6, n) * (rng.random(n) < 0.5))
            args[1][args[1] == 1] = 0  # no raising lane
        else:
            args = (rng.uniform(-2.0, 1.0, n), rng.uniform(-1.5, 1.5, n))
        compiled_before = len(prun.signatures)
        got = vf(*args)
        if n < threshold and not compiled_before:
            assert not prun.signatures  # below the threshold the serial driver ran
        if n >= threshold:
            assert prun.signatures  # at and above it, the prange driver
        check(vf, f, *args)  # bit-exact against the scalar loop (correctly rounded ops only)
        serial, serial_flag = run_driver(g, "run", f.__name__, args, got.dtype)
        parallel, parallel_flag = run_driver(g, "prun", f.__name__, args, got.dtype)
        assert serial.tobytes() == parallel.tobytes()  # the same bits, lane for lane
        assert (serial_flag is None) == (parallel_flag is None)
        if serial_flag is not None:
            assert np.array_equal(serial_flag, parallel_flag)


@pytest.mark.numba
def test_numba_backend_matches_numpy_backend_bit_for_bit_on_exact_ops():
    pytest.importorskip("numba")
    rng = np.random.default_rng(3)
    cr, ci = rng.uniform(-2.0, 1.0, 5000), rng.uniform(-1.5, 1.5, 5000)
    for f in (orbit, orbit_point):
        a, b = vec(f, "numba")(cr, ci), vec(f, "numpy")(cr, ci)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.numba
@pytest.mark.parametrize("f, args", [
    (mul, (2**62, 2)), (neg, (INT64_MIN,)), (cube, (2**21,)),  # wraps around
    (floordiv, (7, 0)), (fdiv, (1.0, 0.0)),  # 0 / inf, or a differently worded exception
    (fsqrt, (-1.0,)), (flog, (0.0,)), (fexp, (1000.0,)),  # nan / -inf / inf, no exception
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_plain_numba_has_the_gaps_these_tests_close(f, args):
    """Without flag-and-patch the tests above would fail: plain `numba.njit` of the same scalar
    function disagrees with Python (under either error model)."""
    numba = pytest.importorskip("numba")
    expected = scalar_exception(f, *args) if f not in (mul, neg, cube) else f(*args)
    for error_model in ("numpy", "python"):
        try:
            got = numba.njit(error_model=error_model)(f)(*args)
        except Exception as exc:
            assert str(exc) != str(expected)  # "integer division by zero", "division by zero"
        else:
            assert got != expected
    fast = numba.njit(fastmath=True)(nan_logic)
    assert fast(math.nan, 1.0) != nan_logic(math.nan, 1.0)  # fastmath assumes no NaN


# -- special functions: erf/erfc the C library's (Numba) or within the bound (NumPy); gamma/lgamma CPython's
@pytest.mark.parametrize("which", [0, 1], ids=["erf", "erfc"])
def test_erf_erfc_match_the_c_library(which, backend):
    x = np.concatenate([np.linspace(-6.0, 6.0, 1201), [math.nan, math.inf, -math.inf, -0.0, 5e-324, 27.0]])
    run_check(erf_erfc, backend, x, np.full(x.size, which), ulps=0 if backend == "numba" else rules.ULP_BOUND)


@pytest.mark.parametrize("which", [0, 1], ids=["gamma", "lgamma"])
def test_gamma_lgamma_are_cpythons_own_or_refused(which, backend):
    """CPython computes gamma/lgamma itself; the C library's (what Numba calls) differ by up to 8 ulp
    (gamma, x=6.8056) and 45838 ulp (lgamma, x=1.00015). The NumPy backend calls CPython's per
    element (exact); the Numba backend refuses them instead of returning other numbers."""
    x = np.linspace(0.5, 10.0, 2001)
    if backend == "numba":
        with pytest.raises(VectorizeError, match="on the Numba backend"):
            vec(gamma_lgamma, backend)(x, np.full(x.size, which))
        return
    run_check(gamma_lgamma, backend, x, np.full(x.size, which))


def test_gamma_of_a_subnormal_overflows_as_in_python():
    run_check(gamma_lgamma, "numpy", np.array([1.5, 5e-324]), np.array([0, 0]))


def test_gamma_in_an_untaken_branch_never_raises():
    run_check(gamma_if_large, "numpy", np.array([0.5, 5e-324, -5e-324, 3.0]))


def test_gamma_errors_are_raised_in_c_order_with_a_lane_note():
    run_check(gamma_or_sqrt, "numpy", np.array([-1.0, 5e-324, 200.0]))  # lane 0: math domain error


def test_int_float_comparison_is_exact(backend):
    a = np.array([2**53 + 1, 2**53, -(2**53) - 1, 2**63 - 1, 3])
    x = np.array([2.0**53, 2.0**53, -(2.0**53), 2.0**63, 3.0])
    run_check(int_vs_float, backend, a, x)  # Python compares an int and a float exactly

    near = st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, -(2**63), -(2**53) - 1, 0])
    floats_near = st.sampled_from([2.0**53, 2.0**53 + 2, 2.0**63, -(2.0**63), -(2.0**53), math.nan, math.inf, -0.0])

    @SETTINGS
    @given(columns(st.one_of(near, INTS), st.one_of(floats_near, HOSTILE), dtypes=[np.int64, np.float64]))
    def run(args):
        run_check(int_vs_float, backend, *args)

    run()


@pytest.mark.parametrize("n", [INT64_MIN, INT64_MIN + 1, -3037000500, 3037000500, 3037000499, -3037000499, 0])
def test_square_overflows_exactly_where_python_leaves_int64(n, backend):
    run_check(square, backend, np.array([n, 7]))


def test_int_overflow_checks_survive_the_compiler(backend):
    run_check(overflow_llvm_can_see, backend, np.array([1.5, -2.0, 0.0]))  # flagged: Python's big ints


def test_bools_used_as_numbers(backend):
    b = np.array([True, False, True, False, True])
    x = np.array([0.5, -0.0, math.nan, -math.inf, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Numba could not compile" fallback
        run_check(bool_as_number, backend, b, x)


# -- the choice of backend is visible; a function Numba cannot type falls back with a warning ----
@pytest.mark.numba
def test_numba_backend_is_really_numba():
    pytest.importorskip("numba")
    vf = vec(mul, "numba")
    vf(np.array([1, 2]), np.array([3, 4]))
    assert vf.backend == "numba"
    g = module_globals(vf)
    assert type(g["_lane_mul"]).__module__.startswith("numba")
    assert "@numba.njit" in vf.source and "fastmath" not in vf.source
    assert 'error_model="numpy"' in vf.source


@pytest.mark.numba
def test_function_numba_cannot_compile_falls_back_to_numpy_with_a_warning(monkeypatch):
    """No supported function makes Numba 0.68 fail any more (math.cbrt did until the lane code
    called C's cbrt through its own symbol), so the failure is injected where Numba would raise it: at the first call
    of the compiled module. The engine must switch to the NumPy backend, warn once, and be right."""
    pytest.importorskip("numba")
    from numba.core.errors import TypingError

    from vectorizer.backends.numba import jit
    from vectorizer.backends.numba.jit import JitWarning

    real_load = jit.load

    def failing_load(source, key, name):
        real = real_load(source, key, name)  # the real module is built and cached; typing "fails"

        def entry(*args):
            raise TypingError("Cannot determine Numba type (injected)")

        return types.FunctionType(entry.__code__, real.__globals__, name, None, entry.__closure__)

    monkeypatch.setattr(jit, "load", failing_load)
    vf = vectorize(cube_root, backend="numba")
    x = np.array([-8.0, 0.0, 27.0, math.nan])
    with pytest.warns(JitWarning, match="Numba could not compile cube_root .TypingError.; using the NumPy backend"):
        vf(x)
    assert vf.backend == "numpy"
    check(vf, cube_root, x, ulps=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once, not on every call
        vf(x)
        vectorize(cube_root, backend="numba")(x)  # nor for each new VectorizedFunction


# -- Numba stays optional ----------------------------------------------------------------------
NO_NUMBA_SCRIPT = """
import importlib.util, sys, warnings
sys.path.insert(0, {tests!r})
import conftest  # installs the same blocker as .ci/run's second run (VECTORIZER_BLOCK_NUMBA=1)
import numpy as np
import vectorizer
from vectorizer import VectorizeError, vectorize
from backends.test_numba_backend import mul, staged
assert importlib.util.find_spec("numba") is None
try:
    import numba
except ModuleNotFoundError:
    pass
else:
    raise AssertionError("numba imported despite the blocker")
warnings.simplefilter("error")
vf = vectorize(staged)
assert vf(np.array([1.0, 4.0]), np.array([0, 3])).tolist() == [2.0, 2.0]
auto = vectorize(mul, backend="auto")
assert auto(np.array([3, -2**62]), np.array([4, 2])).tolist() == [12, -2**63]
assert auto.backend == "numpy", auto.backend
try:
    vectorize(mul, backend="numba")(np.array([1]), np.array([2]))
except VectorizeError as exc:
    print("REFUSED:", exc)
else:
    raise AssertionError("backend='numba' ran without Numba")
assert not any(m == "numba" or m.startswith(("numba.", "llvmlite")) for m, v in sys.modules.items() if v is not None)
import subprocess  # the processes a test starts get the blocker too (a sitecustomize on PYTHONPATH)
assert subprocess.run([sys.executable, "-c", "import numba"], capture_output=True).returncode != 0
print("OK")
"""


def test_package_works_without_numba(tmp_path):
    tests = str(Path(__file__).resolve().parents[1])  # tests/: conftest, backends/
    env = {**os.environ, "VECTORIZER_BLOCK_NUMBA": "1", "VECTORIZER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(NO_NUMBA_SCRIPT.format(tests=tests))],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("OK")
    refused = done.stdout.split("REFUSED:", 1)[1]
    assert "needs Numba" in refused and "pip install" in refused


def true_float_and_shift(n: int, m: int) -> int:
    return 0.1 and n >> m  # int result (0.1 is true), the shift's checks in the right operand


def true_float_and_name(n: int, m: int) -> int:
    return 1e-300 and n


def false_float_or_shift(n: int, m: int) -> int:
    return -0.0 or 1 >> m


def false_float_or_name(n: int, m: int) -> int:
    return 0.0 or n


@pytest.mark.parametrize("f", [true_float_and_shift, true_float_and_name, false_float_or_shift, false_float_or_name])
def test_a_float_operand_of_an_int_and_or_is_tested_as_a_float(backend, f):
    """Found by the fuzzer (tests/fuzz/regressions/reg_bf58507679.py, reg_f1473998de.py): the lane
    tested int(0.1) -> 0, returned 0 for `0.1 and 1 >> m` and skipped the shift's negative-count
    ValueError."""
    n, m = np.array([5, -7, 0, 2**62, -(2**63)]), np.array([0, 1, 3, 63, 2])
    run_check(f, backend, n, m)
    if f is true_float_and_shift or f is false_float_or_shift:
        with pytest.raises(ValueError, match="negative shift count"):
            vec(f, backend)(n, np.array([0, -1, 2, 3, 4]))


def not_uniform_or_batched_negated(n: int, x: float) -> bool:
    c = not n or x > 0.5
    return not c


def not_uniform_and_batched_negated(n: int, x: float) -> bool:
    return not (not n and x > 0.5)


def not_uniform_picked_by_a_uniform_test(n: int, x: float) -> bool:
    c = (not n) if n > -1 else (x < 0.2)
    return not c


@pytest.mark.parametrize("f", [not_uniform_or_batched_negated, not_uniform_and_batched_negated,
                               not_uniform_picked_by_a_uniform_test])
def test_not_of_a_uniform_value_decides_an_and_or_as_a_numpy_bool(backend, f):
    """Found by fuzzing (tests/fuzz/regressions/reg_097de6126d.py): with `n` one value for every
    lane, `not n or <batched>` picked Python's `True`, and the `~` of the `not` after it made -2
    (true): every lane returned True where Python returns False (or the code raised VEC-BUG)."""
    x = np.array([0.1, 0.7, np.nan, -0.0])
    for n in (0, -1, 3):
        run_check(f, backend, np.array([n]), x)
        run_check(f, backend, np.array([n]), np.zeros(0))  # an empty batch


def constant_shift_beyond_int64(x: float) -> int:
    count = -1 // 1
    return 1 << min(count & 127, 70)  # 1 << 70 on every lane, known when Numba compiles it


def shift_by(n: int, m: int) -> int:
    return n << m


def test_a_left_shift_beyond_int64_raises_even_when_the_count_is_a_constant(backend):
    """Found by the fuzzer (tests/fuzz/regressions/reg_819a91ddcc.py): the overflow test shifted
    the result back by the count itself, and Numba's `>>` by 64 or more is LLVM poison; with a
    constant count LLVM dropped the flag and every lane returned 0 instead of raising."""
    vf = vec(constant_shift_beyond_int64, backend)
    with pytest.raises(VectorizeOverflowError, match="1180591620717411303424"):
        vf(np.array([0.5, 2.0]))
    run_check(shift_by, backend, np.array([1, 1, 3, -1, 0, 1]), np.array([62, 63, 64, 100, 200, 2**62]))


@pytest.mark.numba
def test_an_overflow_test_opening_a_branch_runs_before_the_if():
    pytest.importorskip("numba")
    vf = vec(collatz_step, "numba")
    a = np.array([4, 3, 2**62, 2**62 + 2, -(2**62)])  # the even ones beyond 3e18 are flagged, then exact
    check(vf, collatz_step, a)
    lane = vf.source.split("def _lane_collatz_step")[1].split("\n\n")[0]
    assert lane.index("3074457345618258602") < lane.index("\n    if a % 2 == 0:"), lane
    with pytest.raises(VectorizeOverflowError, match="int64"):  # 3 * a + 1 beyond int64, exactly
        vf(np.array([3, 2**62 + 1]))
