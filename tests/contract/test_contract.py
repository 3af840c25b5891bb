"""Evidence for the core contract (docs/internals.md, the contract) on both backends:

(a) no RuntimeWarning (nor FloatingPointError under the caller's np.seterr(all="raise")) escapes
    from lanes that do not run an operation, and the caller's errstate is restored;
(b) masked lanes never hang (docs/internals.md, the contract: no leaks);
(c) the exception is the one of the FIRST failing lane in C order (EX-1), same type and message,
    with a note naming the lane; int64 overflow is patched exactly or refused, never wrapped;
(d) generated code is deterministic and compiles;
(e) lanes are independent: a lane alone equals the same lane in a batch of any size, and
    permuting, splitting and concatenating batches commute with the function.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import kernels as K
import numpy as np
import pytest
from contract_cases import contract as C
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, libm_ulps, same_value
from strategies import floats, ints

from vectorizer import (
    FallbackWarning,
    VectorizeError,
    VectorizeOverflowError,
    vectorize,
)
from vectorizer.api import prepare
from vectorizer.core.types import Val, type_of_dtype
from vectorizer.options import Options
from vectorizer.pipeline import lower, lower_lanes
from vectorizer.rules import scalar as rules

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
TESTS = Path(__file__).resolve().parents[1]  # tests/: kernels, contract_cases


def vec(func, backend: str):
    if backend == "numba":
        pytest.importorskip("numba")
    return vectorize(func, fallback="error", backend=backend)


def strict_check(vf, f, *args, **kw):
    """oracle.check with EVERY warning an error and the caller's errstate set to raise; the
    caller's errstate must come back unchanged, whether the call returns or raises."""
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            raising = np.geterr()
            check(vf, f, *args, **kw)
            assert np.geterr() == raising
    assert np.geterr() == before


# -- (a) no warnings from lanes that do not run an operation -------------------------------------

SPECIAL = np.array([4.0, -1.0, 0.0, -0.0, -5.0, 1e-320, -1e308, np.nan, np.inf, -np.inf, 0.5, 2.0])
WARNING_CASES = {
    "sqrt-or-log": (C.sqrt_or_log, (SPECIAL,)),
    "guarded-div": (C.guarded_div, (SPECIAL, SPECIAL[::-1].copy())),
    "guarded-div-grid": (C.guarded_div, (SPECIAL[:, None], np.array([0.0, -0.0, 1e-300, np.nan]))),
    "guarded-log": (C.guarded_log, (SPECIAL,)),
    "short-circuit": (C.short_circuit, (SPECIAL,)),
    "int-pow": (C.int_pow_guarded, (np.array([2, 3, 0, -2, 0, 7, -1]), np.array([3, -1, -1, 5, 0, -4, 61]))),
    "exp-overflow": (C.exp_guarded, (np.array([1.0, 709.0, 710.0, 1e308, np.inf, -np.inf, np.nan]),)),
    "int-overflow-untaken": (C.int_square_guarded, (np.array([3, -(2**62), 3037000499, 3037000500, 2**63 - 1]),)),
    "finished-loops": (C.square_until_big, (np.array([1e299, 0.5, -3.0, 1e150, np.nan, -np.inf, 1e-200]),)),
    "mod-by-zero": (C.mod_guarded, (np.array([7, -7, 5, -(2**63)]), np.array([0, 2, 0, -1]))),
    "escape-time": (K.escape_time, (np.array([-2.0, 0.25, 1e200, -1e300, 0.3, np.nan]), np.array([[0.0], [1e200], [0.5]]), 200)),
}
# The cases whose values come from NumPy's log or exp: on the NumPy backend within the bound
# (oracle.libm_ulps; each returns the function's value itself), on Numba bit for bit.
LIBM_CASES = {"sqrt-or-log": ("log",), "guarded-log": ("log",), "exp-overflow": ("exp",)}


def libm_bound(backend: str, func, args, names: tuple[str, ...]) -> int:
    """0 on Numba (the C library's functions, as CPython's); else oracle.libm_ulps."""
    return 0 if backend == "numba" or not names else libm_ulps(func, *args, names=names)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(WARNING_CASES))
def test_no_warning_escapes_from_masked_lanes(name, backend):
    func, args = WARNING_CASES[name]
    strict_check(vec(func, backend), func, *args, ulps=libm_bound(backend, func, args, LIBM_CASES.get(name, ())))


def test_no_warning_escapes_on_large_chunked_batches():
    """Above the chunk size lanes run in chunks on threads; still silent, still exact (sqrt_or_log's
    log within the bound: one call, its value returned)."""
    rng = np.random.default_rng(3)
    x = rng.choice(SPECIAL, 70_001)
    y = rng.choice(SPECIAL, 70_001)
    for func, args in [(C.sqrt_or_log, (x,)), (C.guarded_div, (x, y)), (C.square_until_big, (x,))]:
        vf = vec(func, "numpy")
        before = np.geterr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                out = vf(*args)
        assert np.geterr() == before
        lanes = rng.integers(0, x.size, 300)
        ulps = rules.ULP_BOUND if func is C.sqrt_or_log else 0
        for i in lanes:
            assert same_value(func(*(a[i].item() for a in args)), out[i].item(), ulps), i


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_is_restored_when_the_call_raises(backend):
    vf = vec(C.ex1, backend)
    before = np.geterr()
    with np.errstate(all="raise", under="ignore"):
        inside = np.geterr()
        with pytest.raises(ArithmeticError):
            vf(np.array([np.nan, -10.0]))
        assert np.geterr() == inside
    assert np.geterr() == before


# -- (b) masked lanes never hang ----------------------------------------------------------------


def finishes(call, seconds: float = 30.0):
    """The call's result, or a failure if it is still running after `seconds` (a daemon thread
    keeps spinning then, but the test fails instead of hanging the run)."""
    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: a masked lane hangs the batch"
    if "error" in box:
        raise box["error"]
    return box["value"]


HANG_CASES = {
    "int-countdown": (C.countdown_if_positive, np.array([3, -2, 0, 5, -(2**62), 40])),
    "float-halving": (C.halve_if_positive, np.array([3.5, -2.0, 0.0, np.nan, -np.inf, 1e300, 5e-324])),
    "after-return": (C.loop_after_return, np.array([3, -2, 0, -(2**63), 17])),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(HANG_CASES))
def test_masked_lanes_never_hang(name, backend):
    func, x = HANG_CASES[name]
    vf = vec(func, backend)
    vf(x[:1])  # compile outside the time limit
    out = finishes(lambda: vf(x))
    assert all(same_value(func(v), o) for v, o in zip(x.tolist(), out.tolist())), out
    strict_check(vf, func, x)


HANG_AFTER_RAISE = textwrap.dedent("""
    import sys
    sys.path[:0] = [{tests!r}]
    import numpy as np
    import kernels as K
    from contract_cases import contract as C
    from vectorizer import vectorize
    vf = vectorize({func}, fallback="error", backend={backend!r})
    try:
        vf({args})
    except {exc} as exc:
        print("raised", exc)
""")


def test_a_call_that_raises_does_not_run_on():
    """Each call runs in its own subprocess, all at once: a hang is killed after the deadline
    instead of blocking the test run."""
    calls = {"python-int": ("K.collatz_steps", "-3"), "0-d": ("K.collatz_steps", "np.array(0)"),
             "uniform-argument": ("C.steps_to", "np.array([1.0, 2.0]), -1")}
    running = {}
    for label, (func, args) in calls.items():
        script = HANG_AFTER_RAISE.format(tests=str(TESTS), func=func, args=args, exc="ValueError", backend="numpy")
        running[label] = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True)
    hung, failed = [], []
    deadline = time.monotonic() + 10
    for label, proc in running.items():
        try:
            out, err = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            hung.append(label)
            continue
        if proc.returncode != 0 or not out.startswith("raised"):
            failed.append((label, err[-500:]))
    assert not hung, f"still running after 10 s (the scalar function raises at once): {hung}"
    assert not failed, failed


# -- (c) exceptions: the first failing lane in C order ------------------------------------------


def raised(vf, *args) -> BaseException:
    with pytest.raises(Exception) as info:
        vf(*args)
    return info.value


def notes(exc: BaseException) -> str:
    return " ".join(getattr(exc, "__notes__", []))


@pytest.mark.parametrize("backend", BACKENDS)
def test_ex1_first_failing_lane_wins_across_statements(backend):
    """x = [-10, 0, 3]: lane 0 raises at the SECOND raise before lane 2 reaches the first."""
    vf = vec(C.ex1, backend)
    exc = raised(vf, np.array([-10.0, 0.0, 3.0]))
    assert type(exc) is ArithmeticError and str(exc) == "y too small: -11.0"
    assert "lane (0,)" in notes(exc) and "x=-10.0" in notes(exc)
    exc = raised(vf, np.array([0.0, 3.0, -10.0]))
    assert type(exc) is ValueError and str(exc) == "x is three (3.0)"
    assert "lane (1,)" in notes(exc)
    for x in ([-10.0, 0.0, 3.0], [3.0, -10.0], [[0.0, 1.0], [-7.0, 3.0]], [1.0, 2.0]):
        strict_check(vf, C.ex1, np.array(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_raise_in_loop_versus_raise_after_loop(backend):
    vf = vec(C.raise_in_loop_or_after, backend)
    exc = raised(vf, np.array([1.0, -10.0, 5.0]))  # lane 1 fails after the loop, lane 2 in it
    assert type(exc) is ArithmeticError and str(exc) == "too negative: -100.0"
    assert "lane (1,)" in notes(exc)
    exc = raised(vf, np.array([1.0, 5.0, -10.0]))
    assert type(exc) is ValueError and str(exc) == "overshoot at 5: 30.0"
    for x in ([1.0, -3.0, -10.0, 5.0], [2.4, 2.5, 2.6], [[-5.0], [5.0]], [-5.0, -5.1, np.nan, np.inf]):
        strict_check(vf, C.raise_in_loop_or_after, np.array(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_raise_at_different_call_depths(backend):
    vf = vec(C.raise_at_depth, backend)
    exc = raised(vf, np.array([1.0, -10.0, 50.0]))  # lane 1: shallow KeyError; lane 2: deep OverflowError
    assert type(exc) is KeyError and exc.args == ("shallow: -33.75",) and "lane (1,)" in notes(exc)
    exc = raised(vf, np.array([1.0, 20.0, -10.0]))  # lane 1 raises in the callee, third iteration
    assert type(exc) is OverflowError and str(exc) == "deep: 135.0 is too big"
    assert "lane (1,)" in notes(exc)
    for x in ([[0.5, -1.0], [4.0, 0.1]], [50.0, -10.0], [np.nan, -np.inf, 20.0]):
        strict_check(vf, C.raise_at_depth, np.array(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_first_failing_lane_in_c_order_of_a_broadcast_grid(backend):
    vf = vec(C.python_errors, backend)
    x = np.array([[4.0], [-1.0], [np.nan], [1.0]])
    y = np.array([2.0, 0.0, 1e-3, 0.5])
    exc = raised(vf, x, y)  # lane (0, 1): 1.0 / 0.0
    assert type(exc) is ZeroDivisionError and str(exc) == "float division by zero"
    assert "lane (0, 1)" in notes(exc)
    for args in [(x, y), (x, y[::-1].copy()), (x.T, y[:, None]), (np.array([4.0, 1.0]), np.array([1e-3, 0.0])),
                 (np.array([1.0, -1.0]), 2.0), (np.array([np.inf, 1.0]), 1.0), (np.nan, np.array([1.0, 0.0]))]:
        strict_check(vf, C.python_errors, *args, ulps=libm_bound(backend, C.python_errors, args, ("exp",)))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from([-10.0, -5.0, -4.0, 0.0, 1.0, 2.5, 3.0, 5.0, np.nan]), max_size=12))
def test_exceptions_follow_the_loop_on_hypothesis_batches(xs):
    x = np.array(xs, dtype=np.float64)
    for func in (C.ex1, C.raise_in_loop_or_after, C.raise_at_depth):
        strict_check(vec(func, "numpy"), func, x)


def test_first_failing_lane_wins_across_chunks():
    """Lanes run in chunks of chunks.CHUNK on threads: the lowest failing lane still wins."""
    from vectorizer.engine import chunks

    chunk = chunks.CHUNK
    vf = vec(C.ex1, "numpy")
    x = np.ones(3 * chunk + 100)
    late, middle, early = 3 * chunk + 50, 2 * chunk + 7, chunk + 3
    x[late] = 3.0  # ValueError, first raise statement, last chunk
    x[middle] = -10.0  # ArithmeticError, second raise statement
    exc = raised(vf, x)
    assert type(exc) is ArithmeticError and f"lane ({middle},)" in notes(exc)
    x[early] = 3.0
    exc = raised(vf, x)
    assert type(exc) is ValueError and str(exc) == "x is three (3.0)" and f"lane ({early},)" in notes(exc)


def test_mid_size_batches_split_per_thread_keep_lane_order(monkeypatch):
    """From chunks.PARALLEL_MIN_LANES_LIGHT (ex1 calls no libm-class function) a batch runs as
    one chunk per thread (two here): the first failing lane wins whichever chunk it is in, and a
    clean batch gives the unchunked values."""
    from vectorizer.engine import chunks

    monkeypatch.setenv("VECTORIZER_THREADS", "2")
    size = chunks.PARALLEL_MIN_LANES_LIGHT + 1001
    assert chunks.chunk_starts(size, min_lanes=chunks.PARALLEL_MIN_LANES_LIGHT) == range(0, size, (size + 1) // 2)
    vf = vec(C.ex1, "numpy")
    x = np.linspace(-0.5, 2.5, size)
    x[x == 3.0] = 2.0
    whole = vec(C.ex1, "numpy")
    monkeypatch.setattr(chunks, "PARALLEL_MIN_LANES_LIGHT", 10**9)
    assert chunks.chunk_starts(size, min_lanes=chunks.PARALLEL_MIN_LANES_LIGHT) is None
    expected = whole(x)
    monkeypatch.undo()
    monkeypatch.setenv("VECTORIZER_THREADS", "2")
    assert np.array_equal(vf(x), expected)
    late, early = size - 3, size // 2 - 5  # the second chunk, the first
    x[late] = -10.0  # ArithmeticError
    exc = raised(vf, x)
    assert type(exc) is ArithmeticError and f"lane ({late},)" in notes(exc)
    x[early] = 3.0  # ValueError, in the first chunk: it wins
    exc = raised(vf, x)
    assert type(exc) is ValueError and f"lane ({early},)" in notes(exc)


@pytest.mark.parametrize("backend", BACKENDS)
def test_assert_raises_assertion_error_of_the_first_lane(backend):
    vf = vec(C.checked_sqrt, backend)
    exc = raised(vf, np.array([1.0, -0.0, -3.0, -10.0]))
    assert type(exc) is AssertionError and str(exc) == "negative input: -3.0" and "lane (2,)" in notes(exc)
    strict_check(vf, C.checked_sqrt, np.array([4.0, np.nan, np.inf, 0.0]))
    plain = vec(C.checked_plain, backend)
    exc = raised(plain, np.array([1.0, np.nan]))
    assert type(exc) is AssertionError and exc.args == () and "lane (1,)" in notes(exc)
    strict_check(plain, C.checked_plain, np.array([[np.nan], [1.0]]))


UNIFORM_FLOATS = [0.0, -0.0, 1e-3, -2.5, 3.0, -10.0, 20.0, 50.0, 710.0, 1e300, np.nan, np.inf, -np.inf]
UNIFORM_INTS = [0, 1, -1, 5, 2**31, 2**62, 2**63 - 1, -(2**63), 3037000500]


@pytest.mark.parametrize("func, domains", [
    (C.python_errors, (UNIFORM_FLOATS, UNIFORM_FLOATS)),
    (C.ex1, (UNIFORM_FLOATS,)),
    (C.raise_in_loop_or_after, (UNIFORM_FLOATS,)),
    (C.raise_at_depth, (UNIFORM_FLOATS,)),
    (C.checked_sqrt, (UNIFORM_FLOATS,)),
    (C.mul, (UNIFORM_INTS, UNIFORM_INTS)),
    (C.mul_then_div, (UNIFORM_INTS, [1, -1, 4, 2**62])),
    (C.mod_guarded, (UNIFORM_INTS, [0, -1, 3])),
    (C.overflow_or_raise, (UNIFORM_INTS,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_all_uniform_calls_keep_the_contract(func, domains):
    """Python scalars take the all-uniform specialization (plain Python control flow on NumPy
    scalars): same values, same exceptions, no warnings; python_errors' exp within the bound (its
    result is a sum with exp's value: non-decreasing in it)."""
    import itertools

    vf = vec(func, "numpy")
    names = ("exp",) if func is C.python_errors else ()
    for args in itertools.product(*domains):
        strict_check(vf, func, *args, ulps=libm_bound("numpy", func, args, names))


# -- (c) Python ints are unbounded: patched when the result fits, refused when it does not -------


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_overflow_is_patched_when_the_result_fits(backend):
    a = np.array([2**62, 3, -(2**62), 2**63 - 1, -(2**63)])
    b = np.array([4, 5, 4, 2**63 - 1, 1])
    vf = vec(C.mul_then_div, backend)
    assert vf(a, b).tolist() == [C.mul_then_div(p, q) for p, q in zip(a.tolist(), b.tolist())]
    strict_check(vf, C.mul_then_div, a, b)
    pm = vec(C.power_mod, backend)
    strict_check(pm, C.power_mod, np.array([3, 2**40, 12345, -7, 2**62]), np.array([2, 3, 4, 6, 1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_overflow_is_refused_when_the_result_does_not_fit(backend):
    vf = vec(C.mul, backend)
    with pytest.raises(VectorizeOverflowError) as info:
        vf(np.array([3, 2**62, 2**63 - 1]), np.array([5, 4, 2]))
    err = info.value
    assert isinstance(err, OverflowError)
    assert str(2**64) in str(err) and "(1,)" in str(err)
    strict_check(vf, C.mul, np.array([3, 2**62, 2**63 - 1]), np.array([5, 4, 2]))
    strict_check(vf, C.mul, np.array([2**31, -(2**32)]), np.array([[2**31], [2**32]]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_overflow_refusal_and_exceptions_are_ordered_by_lane(backend):
    vf = vec(C.overflow_or_raise, backend)
    with pytest.raises(VectorizeOverflowError, match=r"lane \(1,\)"):
        vf(np.array([1, 2**62, 3, 5]))  # lane 1's int does not fit, and no lane raises
    exc = raised(vf, np.array([1, 2**62, 3, -1]))  # the loop returns 2**64 at lane 1, raises at lane 3
    assert type(exc) is ValueError and str(exc) == "negative: -1"
    exc = raised(vf, np.array([1, -1, 2**62]))
    assert type(exc) is ValueError and str(exc) == "negative: -1"
    strict_check(vf, C.overflow_or_raise, np.array([1, 2**62, 3, -1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_min_constant_is_exact(backend):
    strict_check(vec(C.floor_at_int64_min, backend), C.floor_at_int64_min, np.array([-(2**63), 0, 2**63 - 1]))


def test_int64_min_literal_is_accepted():
    strict_check(vec(C.literal_int64_min, "numpy"), C.literal_int64_min, np.array([-(2**63), 0, 5]))


@pytest.mark.parametrize("func", [C.add_and_remove_big, C.plus_big], ids=lambda f: f.__name__)
def test_module_int_constant_beyond_int64(func):
    """Batched ints are int64: such a constant is refused at its use (never wrapped, never a raw
    OverflowError), and the default fallback runs the exact scalar code per element."""
    n = np.array([0, 1, -5, 2**62])
    with pytest.raises(VectorizeError, match="BIG_OFFSET") as info:
        vec(func, "numpy")(n)
    assert "does not fit in int64" in info.value.message and info.value.location is not None
    fallback = vectorize(func)
    with pytest.warns(FallbackWarning, match="BIG_OFFSET"):
        check(fallback, func, n)
    assert fallback.backend == "python"  # says it runs element by element


@pytest.mark.parametrize("backend", BACKENDS)
def test_mixed_int_float_result_is_exact_or_refused(backend):
    """README: int lanes of a float64 result are checked to be exact."""
    vf = vec(C.int_or_half, backend)
    exact = np.array([3, -3, 2**53, 2**62, 0])
    assert vf(exact).tolist() == [C.int_or_half(v) for v in exact.tolist()]
    with pytest.raises(VectorizeOverflowError, match="9223372036854775807"):
        vf(np.array([1, 2**63 - 1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_oracle_accepts_a_mixed_result_refusing_an_int_every_lane_returns(backend):
    """Every lane of int_or_half returns an int here, so the oracle alone expects an int64 result;
    the static type is int-or-float (float64), which cannot hold lane 1's int. Fuzz reg_55b417b7d9."""
    vf = vec(C.int_or_half, backend)
    check(vf, C.int_or_half, np.array([5, 2**63 - 1, 7]))

    def refusing(lane: int):
        exc = VectorizeOverflowError(f"error[VEC-OVERFLOW]: int_or_half returned the int 9223372036854775807 "
                                     f"on lane ({lane},), which float64 cannot hold exactly")
        return lambda a: (_ for _ in ()).throw(exc)

    with pytest.raises(AssertionError):  # lane 0 returns 5
        check(refusing(0), C.int_or_half, np.array([5, 2**63 - 1]))
    with pytest.raises(AssertionError):  # lane 1 is the first to return that int
        check(refusing(2), C.int_or_half, np.array([5, 2**63 - 1, 2**63 - 1]))


@pytest.mark.parametrize("backend, arg", [
    ("numpy", np.array([2**53 + 1])),
    ("numpy", np.array([5, 2**53 + 1, 7])),
    ("numpy", 2**63 - 1),
    ("numpy", 2**53 + 1),
    pytest.param("numba", np.array([5, 2**53 + 1, 7]), marks=pytest.mark.numba),
    pytest.param("numba", 2**53 + 1, marks=pytest.mark.numba),
], ids=["batched", "batched-3-lanes", "uniform-2**63-1", "uniform-2**53+1", "numba-batched", "numba-uniform"])
def test_mixed_int_float_result_never_rounds_an_int(backend, arg):
    vf = vec(C.int_or_half, backend)
    try:
        out = vf(arg)
    except VectorizeOverflowError:
        return
    expected = [C.int_or_half(v) for v in np.atleast_1d(arg).tolist()]
    got = np.atleast_1d(out).tolist()
    assert all(type(e) is float or g == e and abs(e) <= 2**53 for e, g in zip(expected, got)), (expected, got)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(ints(), ints(-(2**40), 2**40).filter(bool)), min_size=1, max_size=10))
def test_hypothesis_overflow_near_int64(pairs):
    a = np.array([p for p, _ in pairs], dtype=np.int64)
    b = np.array([q for _, q in pairs], dtype=np.int64)
    strict_check(vec(C.mul_then_div, "numpy"), C.mul_then_div, a, b)
    strict_check(vec(C.mul, "numpy"), C.mul, a, b)


# -- (d) determinism and generated code that compiles --------------------------------------------

DETERMINISM_KERNELS = [K.escape_time, K.collatz_steps, K.kepler_eccentric_anomaly, K.quadratic_roots,
                       K.income_tax, C.ex1, C.python_errors, C.power_mod, C.sqrt_or_log]


def specializations(func):
    """(name, params) for an all-batched and an all-uniform specialization of func."""
    kinds = {"int": "i", "bool": "b"}
    names = list(func.__code__.co_varnames[: func.__code__.co_argcount])
    kind = [kinds.get(getattr(func.__annotations__.get(n), "__name__", ""), "f") for n in names]
    for label, batched in [("batched", True), ("uniform", False)]:
        yield label, {n: Val(type_of_dtype(k), batched) for n, k in zip(names, kind)}


@pytest.mark.parametrize("func", DETERMINISM_KERNELS, ids=lambda f: f.__name__)
def test_generation_is_deterministic_and_compiles(func):
    for lowering in (lower, lower_lanes):
        for label, params in specializations(func):
            texts = []
            for _ in range(2):  # fresh parse each time: no cache, no shared state
                parsed, namespace = prepare(func)
                texts.append(lowering(parsed, namespace, params, Options()).source)
            assert texts[0] == texts[1], (lowering.__name__, label)
            compile(texts[0], f"<{func.__name__} {lowering.__name__} {label}>", "exec")


@pytest.mark.parametrize("backend", BACKENDS)
def test_vectorized_twice_gives_identical_source(backend):
    for func, args in [(K.escape_time, (np.array([0.1, -1.5]), np.array([0.2, 0.0]), 30)),
                       (C.ex1, (np.array([1.0, 2.0]),)), (C.mul_then_div, (np.array([2**62]), np.array([4])))]:
        sources = []
        for _ in range(2):
            vf = vec(func, backend)
            vf(*args)
            sources.append(vf.source.encode())
        assert sources[0] == sources[1], func.__name__
        compile(sources[0], func.__name__, "exec")


DETERMINISM_SCRIPT = textwrap.dedent("""
    import hashlib, json, sys
    sys.path[:0] = [{tests!r}]
    import kernels as K
    import numpy as np
    from contract_cases import contract as C
    from vectorizer import vectorize
    out = {{}}
    for f, args in [(K.escape_time, (np.array([0.1, -1.5]), np.array([0.2, 0.0]), 30)),
                    (K.quadratic_roots, (np.array([1.0, 0.0]), np.array([3.0, 2.0]), 1.0)),
                    (C.python_errors, (np.array([4.0]), np.array([2.0]))),
                    (C.power_mod, (np.array([3]), np.array([2])))]:
        vf = vectorize(f, fallback="error")
        vf(*args)
        out[f.__name__] = hashlib.sha256(vf.source.encode()).hexdigest()
    print(json.dumps(out, sort_keys=True))
""")


def test_generated_source_is_identical_across_processes_and_hash_seeds(tmp_path):
    """Set and dict iteration orders change with PYTHONHASHSEED; the generated bytes must not."""
    script = DETERMINISM_SCRIPT.format(tests=str(TESTS))
    digests = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "VECTORIZER_CACHE_DIR": str(tmp_path / f"cache-{seed}")}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        digests.append(json.loads(done.stdout))
    assert set(digests[0]) == {"escape_time", "quadratic_roots", "python_errors", "power_mod"}
    assert digests[0] == digests[1]


# -- (e) lanes are independent: batch-structure properties ------------------------------------


def outcome(vf, *args):
    """('ok', per-lane values) or ('raise', type, message) of one call."""
    try:
        out = vf(*args)
    except Exception as exc:  # compared between batch layouts
        return ("raise", type(exc), str(exc))
    columns = out if isinstance(out, tuple) else (out,)
    values = [np.asarray(c).reshape(-1).tolist() for c in columns]
    return ("ok", list(zip(*values)))


def combined(outcomes):
    """What a batch of these lanes (in this order) must give: the first failure, or all values."""
    for o in outcomes:
        if o[0] == "raise":
            return o
    return ("ok", [v for o in outcomes for v in o[1]])


def assert_same(expected, got, context: str):
    assert expected[0] == got[0], (context, expected, got)
    if expected[0] == "raise":
        assert expected[1:] == got[1:], (context, expected, got)
        return
    assert len(expected[1]) == len(got[1]), context
    for i, (e, g) in enumerate(zip(expected[1], got[1])):
        assert all(same_value(a, b) for a, b in zip(e, g)), (context, i, e, g)


# kernel -> (per-lane strategies, uniform extra arguments, a filler lane that never raises)
# collatz_steps(n <= 0) raises and then loops forever in the all-uniform specialization (see
# test_a_call_that_raises_does_not_run_on): its raising lanes are only run inside batches.
UNIFORM_HANGS_AFTER_RAISE = {"collatz_steps"}
PROPERTY_KERNELS = {
    "escape_time": (K.escape_time, (floats(-2.5, 1.5), floats()), (60,), (0.1, 0.1)),
    "collatz_steps": (K.collatz_steps, (ints(-3, 10**5),), (), (27,)),
    "kepler": (K.kepler_eccentric_anomaly, (floats(-10.0, 10.0), st.one_of(floats(0.0, 0.99), floats())), (), (1.0, 0.5)),
    "bisect_sqrt": (K.bisect_sqrt, (floats(),), (), (2.0,)),
    "first_passage": (K.first_passage, (floats(-5.0, 3.0), floats(0.001, 0.05)), (3.0,), (0.0, 0.01)),
    "is_prime": (K.is_prime, (ints(-3, 10**5),), (), (97,)),
    "quadratic_roots": (K.quadratic_roots, (floats(), floats(), floats(-10.0, 10.0)), (), (1.0, -3.0, 2.0)),
    "exp_series": (K.exp_series, (floats(-40.0, 40.0),), (), (1.0,)),
    "raise_at_depth": (C.raise_at_depth, (st.sampled_from([-20.0, -10.0, -1.0, 0.5, 20.0, 50.0, np.nan, -np.inf]),), (), (0.5,)),
}
NUMBA_PROPERTY_KERNELS = ["escape_time", "collatz_steps", "quadratic_roots", "raise_at_depth"]
BIG = 2500  # above Compaction.MIN_LANES: the big batch also exercises loop compaction


def lanes_strategy(elements, max_size: int = 12):
    return st.integers(0, max_size).flatmap(
        lambda n: st.tuples(*[st.lists(e, min_size=n, max_size=n) for e in elements]))


def run_properties(name: str, backend: str, data) -> None:
    func, elements, uniform, filler = PROPERTY_KERNELS[name]
    kinds = [np.int64 if getattr(func.__annotations__.get(p), "__name__", "") == "int" else np.float64
             for p in func.__code__.co_varnames[: func.__code__.co_argcount]]
    columns = data.draw(lanes_strategy(elements))
    arrays = [np.array(c, dtype=k) for c, k in zip(columns, kinds)]
    n = len(columns[0])
    vf = vec(func, backend)

    def call(*batched):
        return outcome(vf, *batched, *uniform)

    alone = [call(*(a[i: i + 1] for a in arrays)) for i in range(n)]  # shape (1,): batched kernel
    for i in range(n):  # 0-d: the uniform specialization, another kernel
        if name in UNIFORM_HANGS_AFTER_RAISE and alone[i][0] == "raise":
            continue
        assert_same(alone[i], call(*(np.array(a[i]) for a in arrays)), f"lane {i}: 1-lane batch vs 0-d")
    assert_same(combined(alone), call(*arrays), "whole batch")
    perm = np.array(data.draw(st.permutations(range(n)))) if n else np.zeros(0, dtype=int)
    assert_same(combined([alone[i] for i in perm]), call(*(a[perm] for a in arrays)), f"permuted {perm}")
    k = data.draw(st.integers(0, n))
    left, right = call(*(a[:k] for a in arrays)), call(*(a[k:] for a in arrays))
    assert_same(combined(alone[:k]), left, f"first {k}")
    assert_same(combined(alone[k:]), right, f"after {k}")
    if left[0] == right[0] == "ok":
        assert_same(call(*arrays), ("ok", left[1] + right[1]), "concatenated halves")
    pad = [np.concatenate([a, np.full(BIG, f, dtype=a.dtype)]) for a, f in zip(arrays, filler)]
    big = call(*pad)
    expected = combined(alone)
    if expected[0] == "raise":
        assert_same(expected, big, "big batch")
    else:
        assert big[0] == "ok", big
        assert_same(expected, ("ok", big[1][:n]), "lanes inside a big batch")
        assert len(set(big[1][n:])) == 1  # every filler lane alike


@pytest.mark.parametrize("name", sorted(PROPERTY_KERNELS))
def test_lanes_are_independent_numpy(name):
    @settings(max_examples=20, deadline=None, derandomize=True)
    @given(st.data())
    def run(data):
        run_properties(name, "numpy", data)

    run()


@pytest.mark.numba
@pytest.mark.parametrize("name", NUMBA_PROPERTY_KERNELS)
def test_lanes_are_independent_numba(name):
    pytest.importorskip("numba")

    @settings(max_examples=10, deadline=None, derandomize=True)
    @given(st.data())
    def run(data):
        run_properties(name, "numba", data)

    run()


# -- warnings point at the caller ------------------------------------------------------------------


def _call_through_a_helper(vf, x):
    return vf(x)


def test_fallback_warning_points_at_the_first_line_outside_vectorizer():
    """However deep the call path inside the package, the FallbackWarning names the user's line:
    a direct call here, and the helper's line when a function of this file calls it."""
    from contract_cases import fallbacks

    for call, line in ((lambda vf, x: vf(x), None), (_call_through_a_helper, _call_through_a_helper.__code__.co_firstlineno + 1)):
        vf = vectorize(fallbacks.uses_try)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(vf, np.array([4.0, -1.0]))
            call(vf, np.array([1.0]))  # warned once per function
        (warning,) = [w for w in caught if issubclass(w.category, FallbackWarning)]
        assert warning.filename == __file__, (warning.filename, str(warning.message))
        if line is not None:
            assert warning.lineno == line


@pytest.mark.parametrize("simd", [False, True])
def test_kernels_calling_libm_split_across_threads_earlier(monkeypatch, simd):
    """chunks.parallel_min_lanes: a NumPy kernel calling exp/log/sin/pow/erfc uses threads from
    PARALLEL_MIN_LANES lanes, one of arithmetic and selects only from PARALLEL_MIN_LANES_LIGHT;
    where NumPy's exp/log/pow are SIMD kernels (AVX-512), calls of those alone outside a masked
    loop count as light (in a `for` over a constant range too), in a masked loop (or beside erfc,
    sin) not."""
    from vectorizer.engine import chunks

    monkeypatch.setattr(chunks, "_simd_found", simd)

    def light(x: float) -> float:
        return x * 2.0 if x > 0 else -x

    def heavy(x: float) -> float:
        return math.exp(-x * x) if x > 0 else x

    def heavy_erfc(x: float) -> float:
        return math.erfc(x)

    def heavy_sin(x: float) -> float:
        return math.sin(x) + math.log(abs(x) + 1.0)

    def exp_in_loop(x: float, n: int) -> float:
        s = 0.0
        for k in range(n):
            s += math.exp(-x * k)
        return s

    def exp_in_uniform_loop(x: float) -> float:
        s = 0.0
        for k in range(8):
            s += math.exp(-x * k)
        return s

    got = {}
    for fn in (light, heavy, heavy_erfc, heavy_sin, exp_in_loop, exp_in_uniform_loop):
        vf = vec(fn, "numpy")
        vf(np.ones(3), *([np.full(3, 4)] if fn is exp_in_loop else []))  # a loop each lane ends: masked
        ns: dict = {}
        exec(compile(vf.source, "<generated>", "exec"), ns)
        got[fn.__name__] = chunks.parallel_min_lanes(ns[fn.__name__])
    assert got == {"light": chunks.PARALLEL_MIN_LANES_LIGHT,
                   "heavy": chunks.PARALLEL_MIN_LANES_LIGHT if simd else chunks.PARALLEL_MIN_LANES,
                   "heavy_erfc": chunks.PARALLEL_MIN_LANES, "heavy_sin": chunks.PARALLEL_MIN_LANES,
                   "exp_in_loop": chunks.PARALLEL_MIN_LANES,
                   "exp_in_uniform_loop": chunks.PARALLEL_MIN_LANES_LIGHT if simd else chunks.PARALLEL_MIN_LANES}
    assert chunks.PARALLEL_MIN_LANES < chunks.PARALLEL_MIN_LANES_LIGHT <= 2 * chunks.CHUNK


def test_simd_math_is_what_numpy_reports() -> None:
    from numpy._core._multiarray_umath import __cpu_features__ as features

    from vectorizer.engine import chunks

    assert chunks.simd_math() is (bool(features["AVX512F"]) and bool(features["AVX512_SKX"]))


def test_masked_loop_kernels_take_larger_chunks():
    """chunks.chunk_lanes: a kernel with a masked loop runs in CHUNK_LOOP-lane chunks (each
    iteration's Python-level cost is paid per chunk), a single expression in CHUNK_EXPRESSION-lane
    ones, other straight-line kernels in CHUNK-lane ones."""
    from vectorizer.engine import chunks

    def count(x: float) -> int:
        n = 0
        while x > 1.0:
            x = x / 2.0
            n += 1
        return n

    def line(x: float) -> float:
        return x * 2.0 if x > 0 else -x

    def expression(x: float) -> float:
        return (x * 0.5 + 2.0) * x - 1.0  # one expression: NumPy elides its temporaries

    sizes = {}
    for fn in (count, line, expression):
        vf = vec(fn, "numpy")
        vf(np.ones(3))
        ns: dict = {}
        exec(compile(vf.source, "<generated>", "exec"), ns)
        sizes[fn.__name__] = chunks.chunk_lanes(ns[fn.__name__])
    assert sizes == {"count": chunks.CHUNK_LOOP, "line": chunks.CHUNK, "expression": chunks.CHUNK_EXPRESSION}
    assert chunks.chunk_starts(10**6, chunks.CHUNK_LOOP).step == chunks.CHUNK_LOOP


def halve_or_negate(x: float) -> float:
    if x > 0.0:
        return x / 2.0
    return -x


@pytest.mark.parametrize("stage", ["transform", "kernel"])
def test_an_engine_bug_falls_back_visibly_or_is_a_refusal(monkeypatch, stage):
    """An internal error (an assertion in a pass, a generated kernel that raises) is never the
    user's crash: a FallbackWarning and exact element-by-element values, or with
    fallback="error" a VectorizeError VEC-BUG naming the function. Injected here: no real bug
    should be needed to keep this path tested."""
    from vectorizer import pipeline

    x = np.array([3.0, -0.0, np.nan, -2.5, np.inf])
    want = [halve_or_negate(v) for v in x.tolist()]
    for fallback in ("warn", "error"):
        vf = vectorize(halve_or_negate, fallback=fallback)
        if stage == "transform":
            def broken(*args, **kwargs):
                raise AssertionError("injected")
            monkeypatch.setattr(pipeline, "lower", broken)
            monkeypatch.setattr(pipeline, "lower_lanes", broken)  # the default route: Numba's lanes
        else:
            vf(x)  # a working kernel first; then it raises, as a kernel with a bug would
            def broken_kernel(*args):
                raise TypeError("injected")
            vf._kernels[vf._last] = vf._kernels[vf._last].with_fn(broken_kernel)
            vf._fast = None
        if fallback == "warn":
            with pytest.warns(FallbackWarning, match="a vectorizer bug while .*halve_or_negate.*injected"):
                got = vf(x)
            assert all(same_value(w, g) for g, w in zip(got.tolist(), want))
            again = vf(x)  # later calls take the same fallback (warned once)
            assert all(same_value(w, g) for g, w in zip(again.tolist(), want))
        else:
            with pytest.raises(VectorizeError, match="VEC-BUG") as info:
                vf(x)
            assert isinstance(info.value.__cause__, AssertionError | TypeError)
        monkeypatch.undo()
