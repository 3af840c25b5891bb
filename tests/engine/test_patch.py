"""Flag and patch: the flagged lanes re-run with the scalar function, in C order.

The loop's exception wins: a lane whose result the arrays cannot hold (a complex number, an int
beyond int64, an int float64 cannot hold exactly) is refused only when no lane raises, because
the loop returns that lane's value and goes on to raise at a later one. Re-running a lane costs
about a scalar call (issue 27, items 5 and 9): the re-run is batched, one gathering of the
arguments a block of lanes and one call of the scalar function a lane (checked here by counting;
the time is measured by `scripts/bench_tails.py`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, simd_ulps
from strategies import arrays, floats, ints

from vectorizer import VectorizeOverflowError, VectorizeValueError, vectorize
from vectorizer.engine import batch as batching
from vectorizer.engine import chunks, execute, fastpath, patch

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def pwf(x, y):
    return x ** y


def cube_div(a, b):
    return a * a * a // b


def root_and_cube(x: float, n: int):
    return x ** 0.5, n * n * n // (n - 3)


def scaled_log(x: float, scale: float) -> float:
    return scale * (x ** 3.5)


def loop_outcome(f, *args):
    """What a Python loop over the lanes gives: ("raised", exception) or ("values", list)."""
    lanes = np.broadcast_arrays(*(np.asarray(a) for a in args))
    values = []
    for idx in np.ndindex(lanes[0].shape):
        try:
            values.append(f(*(a[idx].item() for a in lanes)))
        except Exception as exc:  # the loop's own exception is what the batched call must raise
            return "raised", exc, idx
    return "values", values, None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args", [
    (pwf, ([-8.0, 0.0], [1 / 3, -1.0])),  # lane 0 returns a complex number, lane 1 raises
    (cube_div, ([2**40, 5], [1, 0])),  # lane 0 returns 2**120, lane 1 raises
    (root_and_cube, ([-4.0, 1.0, 9.0], [2**30, 2**40, 3])),
], ids=["complex-then-raise", "bigint-then-raise", "tuple"])
def test_a_later_lanes_exception_wins_over_an_earlier_refusal(backend, f, args):
    arrays_ = [np.array(a) for a in args]
    kind, want, idx = loop_outcome(f, *arrays_)
    assert kind == "raised"  # the loop raises: no lane's value is refused
    with pytest.raises(type(want)) as info:
        vectorize(f, backend=backend, fallback="error")(*arrays_)
    assert str(info.value) == str(want)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert f"lane {idx}" in notes, notes
    check(vectorize(f, backend=backend, fallback="error"), f, *arrays_)


@pytest.mark.parametrize("backend", BACKENDS)
def test_refusals_remain_when_no_lane_raises(backend):
    with pytest.raises(VectorizeValueError, match=r"complex number .* on lane \(1,\)"):
        vectorize(pwf, backend=backend, fallback="error")(np.array([4.0, -8.0, -1.0]), np.array([0.5, 1 / 3, 0.5]))
    with pytest.raises(VectorizeOverflowError, match=r"on lane \(1,\), which does not fit in int64"):
        vectorize(cube_div, backend=backend, fallback="error")(np.array([5, 2**40, 2**41]), np.array([1, 1, 1]))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.data())
def test_power_patch_against_the_loop(data):
    n = data.draw(st.integers(1, 12))
    bases = st.one_of(floats(), st.sampled_from([-8.0, -1.0, -0.5, 0.0, -0.0, 10.0, 1e300]))
    exps = st.one_of(floats(), st.sampled_from([1 / 3, -1.0, 0.5, -0.5, 308.1, 2.0, -2.0]))
    x = data.draw(arrays(bases, min_size=n, max_size=n))
    y = data.draw(arrays(exps, min_size=n, max_size=n))
    check(vectorize(pwf, backend="numpy", fallback="error"), pwf, x, y)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.data())
def test_int_overflow_patch_against_the_loop(data):
    n = data.draw(st.integers(1, 12))
    a = data.draw(arrays(st.one_of(ints(), st.integers(-(2**22), 2**22)), dtype=np.int64, min_size=n, max_size=n))
    b = data.draw(arrays(st.one_of(ints(), st.sampled_from([0, 1, -1, 3])), dtype=np.int64, min_size=n, max_size=n))
    check(vectorize(cube_div, backend="numpy", fallback="error"), cube_div, a, b)
    x = data.draw(arrays(floats(), min_size=n, max_size=n))
    check(vectorize(root_and_cube, backend="numpy", fallback="error"), root_and_cube, x, a)


@pytest.mark.numba
@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.data())
def test_patch_against_the_loop_on_numba(data):
    n = data.draw(st.integers(1, 8))
    x = data.draw(arrays(st.one_of(floats(), st.sampled_from([-8.0, 0.0, 10.0])), min_size=n, max_size=n))
    y = data.draw(arrays(st.one_of(floats(), st.sampled_from([1 / 3, -1.0, 308.1])), min_size=n, max_size=n))
    check(vectorize(pwf, backend="numba", fallback="error"), pwf, x, y)
    a = data.draw(arrays(st.one_of(ints(), st.integers(-(2**22), 2**22)), dtype=np.int64, min_size=n, max_size=n))
    b = data.draw(arrays(st.sampled_from([0, 1, -1, 3, 2**40]), dtype=np.int64, min_size=n, max_size=n))
    check(vectorize(cube_div, backend="numba", fallback="error"), cube_div, a, b)
    check(vectorize(root_and_cube, backend="numba", fallback="error"), root_and_cube, x, a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_flagged_lanes_across_blocks(backend):
    # More flagged lanes than one gathering block holds: the refusal in the first block waits
    # for the lanes after it, one of which raises in the last block.
    n = 2 * patch.PATCH_BLOCK + 101
    rng = np.random.default_rng(7)
    x = np.where(rng.random(n) < 0.5, 10.0, rng.uniform(1.0, 2.0, n))
    y = np.where(x == 10.0, 308.1, rng.uniform(0.0, 2.0, n))  # |x ** y| > 1e308: flagged, returns
    vf = vectorize(pwf, backend=backend, fallback="error")
    ulps = simd_ulps() if backend == "numpy" else 0  # np.power: NumPy's SIMD kernel on AVX-512
    check(vf, pwf, x, y, ulps=ulps)  # every flagged lane patched with its re-run value
    x[5], y[5] = -8.0, 1 / 3  # complex: refused, unless a lane raises
    check(vf, pwf, x, y, ulps=ulps)
    x[n - 7], y[n - 7] = 0.0, -1.0  # raises ZeroDivisionError in the last block
    check(vf, pwf, x, y, ulps=ulps)


def test_broadcast_lanes_are_gathered_as_the_loop_passes_them():
    x = np.array([[10.0], [-8.0], [2.0]])
    y = np.array([308.1, 0.5, 1.0, 308.2])
    check(vectorize(pwf, backend="numpy", fallback="error"), pwf, np.abs(x), y)
    check(vectorize(pwf, backend="numpy", fallback="error"), pwf, x, y)
    check(vectorize(scaled_log, backend="numpy", fallback="error"), scaled_log, x, 2.0)


# -- the runtime with a hand-written kernel: ints of a mixed int/float result -------------------
def _half_or_raise(x: int) -> int:
    if x == 7:
        raise ZeroDivisionError("lane seven")
    return x if x > 100 else x // 2


def _kernel_keeping_ints(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gives the ints of `_half_or_raise` as ints (as a uniform branch keeps Python's int) and
    flags lane 7, as generated code does."""
    return np.where(x > 100, x, x // 2), x == 7


@pytest.mark.parametrize("size, chunked", [(4, False), (3 * chunks.CHUNK + 5, True)])
def test_an_inexact_int_from_the_kernel_waits_for_a_raising_lane(size, chunked):
    x = np.arange(size, dtype=np.int64) + 8
    x[1] = 2**60 + 1  # float64 cannot hold it: the loop returns it, a float64 result refuses it
    batch = batching.Batch(["x"], [x])
    args = (_kernel_keeping_ints, _half_or_raise, batch, ["num"], False, "_half_or_raise")
    with pytest.raises(patch.LaneOverflowError, match=r"returned the int 1152921504606846977 on lane \(1,\)"):
        execute.run(*args, chunked=chunked)
    x[-1] = 7  # the last lane raises: its exception wins
    with pytest.raises(ZeroDivisionError, match="lane seven") as info:
        execute.run(*args, chunked=chunked)
    assert f"lane ({size - 1},)" in " ".join(info.value.__notes__)
    x[1] = 2**60  # exact in float64: stored
    x[-1] = 9
    out = execute.run(*args, chunked=chunked)
    assert out.dtype == np.float64 and out[1] == 2.0**60 and out[0] == 4.0 and out[-1] == 4.0


# -- cost: the re-run is batched ----------------------------------------------------------------
def test_a_reran_lane_costs_a_scalar_call_and_no_per_lane_gathering(monkeypatch):
    # Issue 27 item 5: each flagged lane was gathered on its own (Batch.lane: a broadcast and an
    # .item() an argument, ~40 us, 200x the loop's lane). Now the arguments of a block of lanes
    # are gathered with one .tolist() each and the scalar function is called once a lane.
    n, k = 50_000, patch.PATCH_BLOCK + 3  # two blocks
    rng = np.random.default_rng(3)
    x, y = rng.uniform(1.0, 2.0, n), rng.uniform(0.0, 2.0, n)
    lanes = np.sort(rng.choice(n, k, replace=False))
    x[lanes], y[lanes] = 10.0, 308.1  # 1.26e308, near overflow: flagged, returns
    calls: list[tuple[float, float]] = []
    gathered: list[int] = []

    def counted_pwf(x, y):
        calls.append((x, y))
        return pwf(x, y)

    rerun, columns = patch._rerun, batching.Batch.columns

    def counting_rerun(scalar, batch, cols, block, qualname):
        assert scalar is pwf
        return rerun(counted_pwf, batch, cols, block, qualname)

    def counting_columns(self, block):
        gathered.append(len(block))
        return columns(self, block)

    def per_lane(*args):
        raise AssertionError("a flagged lane gathered on its own")

    monkeypatch.setattr(patch, "_rerun", counting_rerun)
    monkeypatch.setattr(batching.Batch, "columns", counting_columns)
    monkeypatch.setattr(batching.Batch, "lane", per_lane)
    monkeypatch.setattr(batching, "call_lane", per_lane)
    short: list[int] = []
    short_patch = fastpath.patch_flagged
    monkeypatch.setattr(fastpath, "patch_flagged", lambda *args: short.append(1) or short_patch(*args))
    vf = vectorize(pwf, backend="numpy", fallback="error")
    for path in ("general", "short"):  # the first call takes the general path, the second the short one
        calls.clear(), gathered.clear(), short.clear()
        check(vf, pwf, x, y, ulps=simd_ulps())  # the unflagged lanes: np.power, SIMD on AVX-512
        assert len(short) == (path == "short")
        assert calls == list(zip(x[lanes].tolist(), y[lanes].tolist())), path  # each flagged lane once, in order
        assert gathered == [patch.PATCH_BLOCK, 3], path
