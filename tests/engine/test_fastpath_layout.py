"""The NumPy backend's short paths take arrays of any layout (vectorizer/engine/fastentry.py, issue 33).

NumPy kernels work on any strides and on read-only arrays, and the general path hands them such
arrays as they are, so the NumPy backend's plans no longer require C-contiguous, writeable inputs
(the Numba backend's still do: Numba compiles for a layout). Every call here is one the short path
must take on the NumPy backend, and each is checked three ways: against the scalar function lane by
lane on Python numbers (values and exceptions), against the general path (`call_lanes`: the same
type, dtype and bits), and for results that are the caller's own (writeable, sharing no memory with
an input or with each other, and writing them leaves the inputs as they were). On the Numba backend
the same calls miss and agree all the same.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check as oracle_check

from vectorizer import vectorize
from vectorizer.engine import fastpath

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

HOSTILE = [0.0, -0.0, 0.25, 1.0, 1.5, -3.0, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1.7e308, -1.7e308,
           2.2250738585072014e-308, 1e-310, 0.5]
INTS = [-(2**63), -(2**63) + 1, -3, -1, 0, 1, 7, 2**62, 2**63 - 2, 2**63 - 1]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


def mul_add(x: float, y: float) -> float:
    return x * y + 1.0


def clamp(x: float, lo: float, hi: float) -> float:
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


def gauss(x: float) -> float:
    return math.exp(-0.5 * x * x)


def same(x: float) -> float:
    return x


def first(x: float, y: float) -> float:
    return x


def twice(x: float) -> tuple[float, float, float]:
    y = x * 2.0
    return y, y, x


def halve(n: int) -> int:
    return n // 2


def step(n: int, k: int) -> int:
    return n // k + 1


def clipped_log(x: float, floor: float) -> float:
    if x <= 0.0:
        raise ValueError(f"clipped_log needs x > 0, got {x}")
    return max(math.log(x), floor)


def power(x: float, y: float) -> float:
    return x ** y


def layouts(values: list, dtype: type) -> dict[str, np.ndarray]:
    """The same lanes as arrays of each layout: plain (C-contiguous, writeable), strided, reversed, read-only, unaligned (each
    holds `values`, except `repeated`: the first value broadcast, a stride of 0)."""
    base = np.array(values, dtype=dtype)
    n = len(base)
    wide = np.zeros(2 * n, dtype=dtype)
    wide[::2] = base
    readonly = base.copy()
    readonly.flags.writeable = False
    unaligned = np.frombuffer(b"\0" + base.tobytes(), dtype=dtype, count=n, offset=1)  # read-only too (bytes)
    assert not unaligned.flags.aligned
    return {
        "plain": base,
        "strided": wide[::2],
        "reversed": base[::-1].copy()[::-1],
        "readonly": readonly,
        "frombuffer": np.frombuffer(base.tobytes(), dtype=dtype),
        "unaligned": unaligned,
        "repeated": np.broadcast_to(base[:1], (n,)),
    }


LAYOUTS = ["plain", "strided", "reversed", "readonly", "frombuffer", "unaligned", "repeated"]


def same_result(got: object, want: object) -> None:
    """The same type, dtype, shape and bits as the general path's result."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t):
        assert type(g) is type(w) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes(), (g, w)


def own_results(got: object, args: tuple) -> None:
    """Each result a fresh, writeable array: no memory shared with an input or another result, and
    writing it leaves every input as it was."""
    results = got if isinstance(got, tuple) else (got,)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    before = [a.copy() for a in arrays]
    for i, r in enumerate(results):
        assert type(r) is np.ndarray and r.flags.writeable
        assert not any(np.shares_memory(r, o) for o in (*arrays, *results[i + 1:]))
    for r in results:
        r[...] = 7
    for a, b in zip(arrays, before):
        assert a.tobytes() == b.tobytes()


def taken(vf, f, args: tuple, backend: str, ulps: int = 0) -> None:
    """Two general calls make the plan; then the call: taken on NumPy (missed on Numba), the same as
    the general path and the scalar function, its results the caller's own."""
    warm = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)  # C-contiguous, writeable
    oracle_check(vf, f, *warm, ulps=ulps)
    oracle_check(vf, f, *warm, ulps=ulps)
    assert vf._fast is not None
    got = fastpath.run(vf._fast, args)
    if backend == "numba" and not all(a.flags.c_contiguous and a.flags.writeable for a in args if isinstance(a, np.ndarray)):
        assert got is fastpath.MISS  # Numba compiles for C-contiguous, writeable arrays
        got = vf(*args)
    else:
        assert got is not fastpath.MISS
    same_result(got, vf.call_lanes(list(args)))
    oracle_check(vf, f, *args, ulps=ulps)
    own_results(got, args)
    own_results(vf(*args), args)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("func, ulps", [(mul_add, 0), (gauss, 4), (same, 0), (twice, 0)], ids=lambda v: getattr(v, "__name__", ""))
def test_one_and_two_arrays_of_any_layout(backend, layout, func, ulps):
    vf = vectorize(func, backend=backend)
    xs = layouts(HOSTILE, np.float64)
    ys = layouts(HOSTILE[::-1], np.float64)
    args = (xs[layout],) if func.__code__.co_argcount == 1 else (xs[layout], ys[layout])
    taken(vf, func, args, backend, ulps)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_ints_near_the_int64_limits(backend, layout):
    taken(vectorize(halve, backend=backend), halve, (layouts(INTS, np.int64)[layout],), backend)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_input_against_itself_and_a_result_that_is_an_input(backend, layout):
    x = layouts(HOSTILE, np.float64)[layout]
    taken(vectorize(mul_add, backend=backend), mul_add, (x, x), backend)
    taken(vectorize(first, backend=backend), first, (x, x[::-1]), backend)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mixed_calls_with_arrays_of_any_layout(backend, layout):
    x = layouts(HOSTILE, np.float64)[layout]
    taken(vectorize(clamp, backend=backend), clamp, (x, 0.0, 1.0), backend)
    taken(vectorize(clamp, backend=backend), clamp, (x, -math.inf, math.nan), backend)
    taken(vectorize(mul_add, backend=backend), mul_add, (x, -0.0), backend)
    taken(vectorize(first, backend=backend), first, (x, 5e-324), backend)
    taken(vectorize(step, backend=backend), step, (layouts(INTS, np.int64)[layout], 2), backend)


@pytest.mark.parametrize("layout", ["strided", "readonly", "repeated"])
def test_flagged_lanes_of_any_layout_are_patched_or_raise_as_the_loop_does(backend, layout):
    vf = vectorize(power, backend=backend)
    x = layouts([1.0, 1.5, 10.0, 2.0, 0.5, 1.25], np.float64)
    y = layouts([0.0, 2.0, 308.1, -1.0, 0.5, 3.0], np.float64)  # 10 ** 308.1: flagged, re-run in Python
    taken(vf, power, (x[layout], y[layout]), backend, ulps=4)
    vf = vectorize(clipped_log, backend=backend)
    good = layouts([1.0, 2.0, 3.0, 4.0], np.float64)[layout]
    floor = layouts([0.0, -1.0, 0.5, 2.0], np.float64)[layout]
    taken(vf, clipped_log, (good, floor), backend, ulps=4)
    bad = layouts([-2.0 if layout == "repeated" else 1.0, -2.0, 0.0, 4.0], np.float64)[layout]  # repeated: lane 0
    with pytest.raises(ValueError) as general:
        vf.call_lanes([bad, floor])
    if backend == "numba":  # these layouts miss there (and their general calls leave no plan): the general path raises
        assert vf._fast is None or fastpath.run(vf._fast, (bad, floor)) is fastpath.MISS
    else:
        with pytest.raises(ValueError) as short:
            fastpath.run(vf._fast, (bad, floor))
        assert str(short.value) == str(general.value)
        assert short.value.__notes__ == general.value.__notes__  # the lane it names, its arguments
    oracle_check(vf, clipped_log, bad, floor)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_call_of_any_layout_makes_the_plan_on_numpy_alone(backend, layout):
    """Calls that always pass such arrays (a memory map's view, a column of a 2-D array) get a plan
    on the NumPy backend from their own general call."""
    vf = vectorize(mul_add, backend=backend)
    x = layouts(HOSTILE, np.float64)[layout]
    y = layouts(HOSTILE[::-1], np.float64)[layout]
    flags = [(a.flags.writeable, a.flags.c_contiguous, a.flags.aligned) for a in (x, y)]
    oracle_check(vf, mul_add, x, y)
    if backend == "numba" and layout != "plain":
        assert vf._fast is None or vf._fast.arrays is None
        return
    got = fastpath.run(vf._fast, (x, y))
    assert got is not fastpath.MISS
    same_result(got, vf.call_lanes([x, y]))
    assert got.flags.writeable and got.flags.c_contiguous
    own_results(got, (x, y))
    assert [(a.flags.writeable, a.flags.c_contiguous, a.flags.aligned) for a in (x, y)] == flags


@pytest.mark.parametrize("args", [
    (), (np.zeros(3),), (np.zeros(3), np.zeros(3), np.zeros(3)),  # other arities
    (np.zeros(3), np.zeros(4)), (np.zeros(0), np.zeros(0)),  # lengths that differ, none
    (np.zeros((3, 1)), np.zeros(3)), (np.zeros(()), np.zeros(3)),  # 2-D, 0-d
    (np.zeros(3, dtype=">f8"), np.zeros(3)), (np.zeros(3, np.float32), np.zeros(3)), (np.zeros(3), np.zeros(3, np.int64)),
    (np.ma.zeros(3), np.zeros(3)), (np.zeros(3).view(np.recarray), np.zeros(3)),  # subclasses
    ([0.0, 1.0], np.zeros(2)), (0.5, np.zeros(3)),
], ids=repr)
def test_the_numpy_array_checks_refuse_what_is_not_the_plans(args):
    """The generated call of a plan for two float64 arrays (engine/fastentry.py) misses on anything
    else, before its kernel runs; an array of any strides is taken."""
    vf = vectorize(mul_add, backend="numpy")
    vf(np.zeros(3), np.zeros(3))
    vf(np.zeros(3), np.zeros(3))
    assert vf._fast is not None and vf._fast.arrays is not None
    assert vf._fast.go(args) is fastpath.MISS
    x = np.arange(3.0)
    got = vf._fast.go((x, x[::-1]))
    assert got is not fastpath.MISS and got.tolist() == [mul_add(a, b) for a, b in zip(x.tolist(), x[::-1].tolist())]
