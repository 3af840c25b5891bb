"""The short call path (vectorizer/engine/fastpath.py) gives what the general path gives, call after call.

Each test calls a vectorized function repeatedly with arguments that take the short path (1-D,
one length, the dtypes of the call before) mixed with arguments that must not (other dtypes,
views, read-only or non-contiguous arrays on the Numba backend, broadcasting, flagged lanes,
VECTORIZER_DISABLE set between calls), and checks every result against the scalar function lane
by lane.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check as oracle_check

from vectorizer import vectorize
from vectorizer.engine import fastpath

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def clipped_log(x: float, floor: float) -> float:
    if x <= 0.0:
        raise ValueError(f"clipped_log needs x > 0, got {x}")
    return max(math.log(x), floor)


def halve(n: int) -> int:
    return n // 2


def same(x: float) -> float:
    return x


def both(x: float) -> tuple[float, bool]:
    return x * 2.0, x > 0.0


def check(vf, f, *arrays):
    """The contract's comparison (log is within a few ulp of libm on the NumPy backend)."""
    oracle_check(vf, f, *arrays, ulps=4)
    return vf(*arrays)


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


def test_repeated_calls_take_the_short_path_and_agree(backend):
    vf = vectorize(clipped_log, backend=backend)
    rng = np.random.default_rng(0)
    x, floor = rng.uniform(0.1, 10.0, 500), rng.uniform(-1.0, 1.0, 500)
    check(vf, clipped_log, x, floor)
    assert vf._fast is not None  # the first call installed a plan for calls like it
    for _ in range(3):
        x, floor = rng.uniform(1e-300, 1e3, 500), rng.uniform(-5.0, 5.0, 500)
        assert fastpath.run(vf._fast, (x, floor)) is not fastpath.MISS
        check(vf, clipped_log, x, floor)


def test_a_flagged_lane_leaves_the_short_path_and_raises_the_scalar_error(backend):
    vf = vectorize(clipped_log, backend=backend)
    x, floor = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    check(vf, clipped_log, x, floor)
    bad = np.array([1.0, -2.0, 0.0])
    plan = vf._fast
    with pytest.raises(ValueError, match="got -2.0") as info:  # re-run here, not by running the kernel again
        fastpath.run(plan, (bad, floor))
    assert "lane (1,) of (3,) (x=-2.0, floor=0.0)" in " ".join(info.value.__notes__)
    with pytest.raises(ValueError, match="got -2.0"):
        vf(bad, floor)
    check(vf, clipped_log, x, floor)  # and the next good call is right again


def power(x: float, y: float) -> float:
    return x ** y


@pytest.mark.parametrize("returns", ["values", "complex", "raises"])
def test_flagged_lanes_are_patched_on_the_short_path(backend, returns):
    vf = vectorize(power, backend=backend)
    x, y = np.linspace(1.0, 2.0, 6), np.linspace(0.0, 2.0, 6)
    check(vf, power, x, y)
    assert vf._fast is not None
    x[2], y[2] = 10.0, 308.1  # a result near the float64 limit: flagged, and returns
    if returns != "values":
        x[4], y[4] = -8.0, 1 / 3  # a complex number: refused when no lane raises
    if returns == "raises":
        x[5], y[5] = 0.0, -1.0  # ZeroDivisionError: the loop's exception wins
    if returns == "values":
        out = fastpath.run(vf._fast, (x, y))
        assert out is not fastpath.MISS and out[2] == 10.0 ** 308.1
    oracle_check(vf, power, x, y, ulps=4)


@pytest.mark.parametrize("variant", ["int_dtype", "float32", "readonly", "strided", "broadcast", "scalar",
                                     "two_d", "lengths_differ"])
def test_calls_unlike_the_last_one_miss_and_still_agree(backend, variant):
    vf = vectorize(clipped_log, backend=backend)
    x, floor = np.linspace(0.5, 4.0, 8), np.full(8, 0.25)
    check(vf, clipped_log, x, floor)
    plan = vf._fast
    other = {
        "int_dtype": (np.arange(1, 9), floor),
        "float32": (x.astype(np.float32), floor),
        "readonly": (np.frombuffer(x.tobytes()), floor),
        "strided": (np.linspace(0.5, 4.0, 16)[::2], floor),
        "broadcast": (x, np.float64(0.25)),
        "scalar": (2.0, 0.5),
        "two_d": (x.reshape(2, 4), floor.reshape(2, 4)),
        "lengths_differ": (x, np.full(1, 0.25)),
    }[variant]
    if backend == "numpy" and variant in ("readonly", "strided"):  # NumPy kernels take any layout (test_fastpath_layout.py)
        assert fastpath.run(plan, other) is not fastpath.MISS
    else:
        assert fastpath.run(plan, other) is fastpath.MISS
    check(vf, clipped_log, *other)
    check(vf, clipped_log, x, floor)


def test_the_result_never_aliases_an_argument(backend):
    vf = vectorize(same, backend=backend)
    x = np.array([1.0, -0.0, np.nan, np.inf])
    vf(x)
    out = vf(x)
    assert out is not x and not np.shares_memory(out, x)
    out[0] = 99.0
    assert x[0] == 1.0


def twice(x: float) -> tuple[float, float, float]:
    y = x * 2.0
    return y, y, x


@pytest.mark.parametrize("shape", [(1000,), (10, 100), (300_000,)])  # the short path, 2-D, chunks
def test_a_value_returned_twice_gives_results_that_do_not_share_memory(backend, shape):
    vf = vectorize(twice, backend=backend)
    x = np.linspace(-1.0, 1.0, math.prod(shape)).reshape(shape)
    for _ in range(3):
        got = vf(x)
        assert not any(np.shares_memory(a, b) for i, a in enumerate(got) for b in (*got[i + 1:], x))
        got[0][...] = 7.0  # the caller's own arrays: writing one leaves the others as computed
        np.testing.assert_array_equal(got[1], x * 2.0)
        np.testing.assert_array_equal(got[2], x)


def constant(x: float) -> float:
    return 2.5


def sign_bit(n: int) -> tuple[bool, int, float]:
    return n < 0, n, 1.0


@pytest.mark.parametrize("func, x", [(constant, np.array([np.nan, -0.0, 1e308])),
                                     (sign_bit, np.array([-(2**63), -1, 0, 2**63 - 1]))])
def test_short_path_results_are_fresh_writeable_arrays_of_the_scalar_types(backend, func, x):
    """The short path returns the Numba backend's results unchecked (its entry point allocates
    them): constants, inputs returned as they are and mixed tuples come back as the caller's own
    arrays on both backends."""
    vf = vectorize(func, backend=backend)
    vf(x)
    for _ in range(2):
        assert fastpath.run(vf._fast, (x,)) is not fastpath.MISS
        got = check(vf, func, x)
        results = got if isinstance(got, tuple) else (got,)
        want = [np.asarray(v).dtype for v in (func(x[0].item()) if isinstance(got, tuple) else (func(x[0].item()),))]
        for i, r in enumerate(results):
            assert type(r) is np.ndarray and r.shape == x.shape and r.dtype == want[i]
            assert r.flags.writeable and r.flags.c_contiguous
            assert not any(np.shares_memory(r, o) for o in (x, *results[i + 1:]))


def test_ints_and_tuples(backend):
    vf = vectorize(halve, backend=backend)
    n = np.array([-(2**63), -3, -1, 0, 1, 7, 2**63 - 1])
    for _ in range(3):
        assert check(vf, halve, n).dtype == np.int64
    vt = vectorize(both, backend=backend)
    x = np.array([-1.5, 0.0, 2.0, np.nan])
    for _ in range(3):
        got = check(vt, both, x)
        assert got[0].dtype == np.float64 and got[1].dtype == np.bool_


def test_disable_switch_is_read_on_every_call(backend, monkeypatch):
    vf = vectorize(clipped_log, backend=backend)
    x, floor = np.array([1.0, 2.0]), np.zeros(2)
    check(vf, clipped_log, x, floor)
    calls = []

    def spy(x: float, floor: float) -> float:
        calls.append(x)
        return clipped_log(x, floor)

    vf.scalar = spy  # what VECTORIZER_DISABLE runs
    monkeypatch.setenv("VECTORIZER_DISABLE", "1")
    assert vf(x, floor).tolist() == [clipped_log(*lane) for lane in zip(x.tolist(), floor.tolist())]
    assert calls == [1.0, 2.0]
    monkeypatch.setenv("VECTORIZER_DISABLE", "0")
    vf(x, floor)
    assert calls == [1.0, 2.0]  # compiled again: the scalar function did not run
