"""A short path's whole call as one generated function (vectorizer/engine/fastentry.py, issue 33).

Each call here must take the short path (the general path, `call_lanes`, is replaced by a function
that fails the test) and agree with the scalar function lane by lane: arrays with every kind of
number beside them (a Python float, int and bool, a NumPy float64), on both backends; the caller's
floating-point error state is the same after the call, whether the kernel ran, raised or missed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check as oracle_check

from vectorizer import vectorize
from vectorizer.engine import fastentry, fastpath

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


def blend(x: float, k: int, w: float, on: bool, bias: float) -> float:
    if on:
        return x * w + k + bias
    return x - k * bias


def safe_log(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    return 0.0


def no_general_path(*args, **kwargs):
    raise AssertionError("the call took the general path")


NUMBERS = [(3, 0.5, True, np.float64(0.25)), (-(2**62), -0.0, False, np.float64(-1e308)),
           (2**63 - 1, 1e308, True, np.float64(1e-310))]


@pytest.mark.parametrize("numbers", NUMBERS, ids=repr)
def test_every_kind_of_number_beside_arrays_takes_the_short_path(backend, numbers) -> None:
    vf = vectorize(blend, backend=backend)
    x = np.array([1.5, -0.0, np.inf, np.nan, 1e-310, -2.0])
    for _ in range(2):  # the general path makes the plan
        oracle_check(vf, blend, x, *numbers)
    general = vf.call_lanes([x, *numbers])
    vf.call_lanes = no_general_path  # type: ignore[method-assign]
    got = vf(x, *numbers)
    assert got.dtype == general.dtype and got.tobytes() == general.tobytes()
    oracle_check(vf, blend, x, *numbers)


def test_a_python_int_beyond_int64_misses_before_the_kernel(backend) -> None:
    vf = vectorize(blend, backend=backend)
    x = np.array([1.0, 2.0])
    for _ in range(2):
        vf(x, 3, 0.5, True, np.float64(0.25))
    assert vf._fast.go((x, 2**63, 0.5, True, np.float64(0.25))) is fastpath.MISS
    assert vf._fast.go((x, -(2**63) - 1, 0.5, True, np.float64(0.25))) is fastpath.MISS
    assert vf._fast.go((x, 3.0, 0.5, True, np.float64(0.25))) is fastpath.MISS  # a float where an int was


@pytest.mark.parametrize("state", ["raise", "warn", "ignore"])
def test_the_callers_error_state_is_the_same_after_the_call(backend, state) -> None:
    vf = vectorize(safe_log, backend=backend)
    x = np.array([2.0, 0.0, -1.0])  # masked lanes take log of 0 and of a negative number
    for _ in range(2):
        oracle_check(vf, safe_log, x)
    with np.errstate(all=state):
        before = np.geterr()
        assert vf._fast.go((x,)) is not fastpath.MISS
        assert np.geterr() == before
        assert vf._fast.go((np.array([1.0, np.nan]),)) is not fastpath.MISS
        assert vf._fast.go((np.zeros(3, np.float32),)) is fastpath.MISS
        assert np.geterr() == before


def test_a_kernel_that_raises_restores_the_error_state_and_misses() -> None:
    """A generated function's kernel that raises (here: one made to) leaves the state as it was."""
    def broken(*args):
        raise RuntimeError("kernel bug")

    dtype = np.dtype(np.float64)
    go = fastentry.entry((dtype,), {}, fn=broken, numpy_backend=True, one_result=True, result_dtype=dtype,
                         fresh=lambda: True, max_lanes=10, also=(1, 0), last=fastpath.Plans(None, None), used=None,
                         finish=no_general_path, miss=fastpath.MISS, state=fastpath._STATE, quiet_module=fastpath,
                         quiet=fastpath._quiet, quietly=fastpath._quietly, any_flag=fastpath.any_flagged)
    with np.errstate(all="raise"):
        before = np.geterr()
        assert go((np.zeros(3),)) is fastpath.MISS
        assert np.geterr() == before
    assert go((np.zeros(11),)) is fastpath.MISS  # over max_lanes: the kernel never runs


@pytest.mark.parametrize("numpy_backend", [True, False])
@pytest.mark.parametrize("kinds", [("a",), ("a", "a"), ("a", "n", "c", "i"), ("c", "a", "i", "a")])
def test_the_generated_text_compiles_and_is_deterministic(kinds, numpy_backend) -> None:
    for one in (True, False):
        text = fastentry._text(kinds, numpy_backend, one, True)
        assert text == fastentry._text(kinds, numpy_backend, one, True)
        compile(text, "<test>", "exec")
        assert ("S.set(" in text) == numpy_backend
        assert (".c_contiguous" in text) == (not numpy_backend)
        # NumPy without its error-state context variable: np.errstate through `quietly`
        text = fastentry._text(kinds, numpy_backend, one, False)
        compile(text, "<test>", "exec")
        assert "S.set(" not in text and ("quietly(fn, (" in text) == numpy_backend


def test_the_errstate_fallback_calls_quietly() -> None:
    """`state=None` (a NumPy without the context variable): the kernel runs through `quietly`,
    warnings off, and the caller's state is the same after."""
    seen = []

    def kernel(x):
        seen.append(np.geterr()["invalid"])
        return np.log(x), None

    dtype = np.dtype(np.float64)
    go = fastentry.entry((dtype,), {}, fn=kernel, numpy_backend=True, one_result=True, result_dtype=dtype,
                         fresh=lambda: True, max_lanes=10, also=(1, 0), last=fastpath.Plans(None, None), used=None,
                         finish=no_general_path, miss=fastpath.MISS, state=None, quiet_module=fastpath,
                         quiet=fastpath._quiet, quietly=fastpath._quietly, any_flag=fastpath.any_flagged)
    with np.errstate(all="raise"):
        got = go((np.array([1.0, -1.0]),))
        assert np.geterr()["invalid"] == "raise"
    assert seen == ["ignore"] and got[0] == 0.0 and np.isnan(got[1])
