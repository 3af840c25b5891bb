"""The short path for calls mixing arrays and numbers (vectorizer/engine/fastmixed.py, issue 33):
`clamp(x, 0.0, 1.0)`, `mul_add(x, 2)`, `d1(spot, 100.0, 0.2, t, 0.01)`.

Every call that takes it is checked twice: against the scalar function lane by lane on Python
numbers (the oracle, values and exceptions) and against the general path (`call_lanes`) for the
type, dtype and bits of each result. Calls it must not take (ints beyond int64, np.float32, 0-d
arrays, lists, lengths that differ, empty arrays, specialized flags, rebound globals) are shown to
miss and to agree all the same; a plan never answers a call whose argument kinds changed.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from oracle import check as oracle_check

from vectorizer import VectorizeInputError, vectorize
from vectorizer.engine import fastpath

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
OFFSET = 1.0


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


def d1(spot: float, strike: float, vol: float, t: float, r: float) -> float:
    return (math.log(spot / strike) + (r + 0.5 * vol * vol) * t) / (vol * math.sqrt(t))


def floored_root(x: float, floor: float) -> float:
    if x < 0.0:
        raise ValueError(f"floored_root needs x >= 0, got {x}")
    return max(math.sqrt(x), floor)


def scaled(x: float, s: float) -> float:
    if s < 0.0:  # depends on the number alone: every lane fails, the first raises
        raise ValueError(f"scale must be >= 0, got {s}")
    return x * s


def step(n: int, k: int) -> int:
    return n // k + 1


def lift(x: float, k: int) -> float:
    return x + k * k  # k * k beyond int64: every lane flagged by the number alone, re-run in Python


def pair(x: float, s: float) -> tuple[float, bool, float]:
    return x * s, s > 0.0, s  # the last two: one value for every lane


def first(x: float, y: float) -> float:
    return x


def ratio(x: float, y: float) -> float:
    if y == 0.0:
        return math.copysign(math.inf, x)
    return x / y


def shifted(x: float, s: float) -> float:
    return x * s + OFFSET


def affine(x: float, y: float) -> float:
    return x * y + 1  # ints for ints, floats otherwise


def unit() -> float:
    return OFFSET * 2.0  # a pure zero-argument helper: its value joins the key (engine/statics.py)


def in_units(x: float, s: float) -> float:
    return x * s * unit()


def choose(x: float, y: float, exact: bool = False) -> float:
    if exact:
        return x + y
    return x - y


HOSTILE = np.array([0.0, -0.0, 0.25, 1.0, 1.5, -3.0, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1.7e308,
                    -1.7e308, 2.2250738585072014e-308])
NUMBERS = [0.5, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, 2, -7, 0, True, False, 2**62,
           np.float64(1.5), np.int64(-3), np.bool_(True)]


def same_result(got: object, want: object) -> None:
    """The same type, dtype and bits as the general path's result, and no memory shared between them."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t):
        assert type(g) is type(w), (g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.asarray(g).shape == np.asarray(w).shape
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes(), (g, w)


def short(vf, args: tuple) -> object:
    """The short path's result for `args` (it must be taken), checked against the general path."""
    got = fastpath.run(vf._fast, args)
    assert got is not fastpath.MISS, args
    same_result(got, vf.call_lanes(list(args)))
    return got


def warm(vf, f, *args, ulps: int = 0) -> None:
    """Two general calls: the second's plan answers the next call like them."""
    oracle_check(vf, f, *args, ulps=ulps)
    oracle_check(vf, f, *args, ulps=ulps)
    assert vf._fast is not None and vf._fast.mixed is not None


@pytest.mark.parametrize("y", NUMBERS, ids=repr)
def test_hostile_numbers_beside_hostile_arrays(backend, y):
    vf = vectorize(mul_add, backend=backend)
    warm(vf, mul_add, HOSTILE, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inf * 0 and the like must not warn
        short(vf, (HOSTILE, y))
        oracle_check(vf, mul_add, HOSTILE, y)
        oracle_check(vf, mul_add, y, HOSTILE)  # the number first: its own plan, the same answers
        short(vf, (y, HOSTILE))


@pytest.mark.parametrize("lo, hi", [(0.0, 1.0), (-0.0, 0.0), (math.nan, 1.0), (0.0, math.nan), (-math.inf, math.inf),
                                    (np.float64(0.25), 0.75)])
def test_clamp_with_two_numbers(backend, lo, hi):
    vf = vectorize(clamp, backend=backend)
    warm(vf, clamp, HOSTILE, lo, hi)
    for x in (HOSTILE, np.linspace(-1.0, 2.0, 1000), np.array([0.5])):
        short(vf, (x, lo, hi))
        oracle_check(vf, clamp, x, lo, hi)


def test_results_that_mix_ints_and_floats_keep_the_general_path(backend):
    """clamp(x, 1, 2) returns an int on some lanes, a float on others: a float64 result whose
    ints must be exact (patch.exact_ints), which only the general path checks."""
    vf = vectorize(clamp, backend=backend)
    x = np.array([-1.0, 1.5, 3.0, math.nan])
    for lo, hi in [(1, 2), (-(2**62), 2**62), (1, 2.0), (2**63 - 1, 2**63 - 1)]:
        oracle_check(vf, clamp, x, lo, hi)
        oracle_check(vf, clamp, x, lo, hi)
        assert vf._fast is None or vf._fast.mixed is None


def test_arrays_and_numbers_in_any_places(backend):
    vf = vectorize(d1, backend=backend)
    rng = np.random.default_rng(33)
    spot, t = rng.uniform(50.0, 150.0, 1000), rng.uniform(0.1, 2.0, 1000)
    warm(vf, d1, spot, 100.0, 0.2, t, 0.01, ulps=8)
    for strike, vol, r in [(100.0, 0.2, 0.01), (90.0, 0.35, -0.02), (1e-300, 1e-10, 0.0)]:
        short(vf, (spot, strike, vol, t, r))
        oracle_check(vf, d1, spot, strike, vol, t, r, ulps=8)


def test_a_lane_that_raises_raises_the_scalar_error_from_the_short_path(backend):
    vf = vectorize(floored_root, backend=backend)
    x = np.array([4.0, 0.25, 9.0])
    warm(vf, floored_root, x, 1.0)
    bad = np.array([4.0, -0.0, 2.0, -1.5, -2.5])  # -0.0 >= 0: the first failing lane is -1.5's
    plan = vf._fast
    with pytest.raises(ValueError, match=r"got -1\.5") as info:
        fastpath.run(plan, (bad, 1.0))
    assert any("lane (3,) of (5,)" in note for note in info.value.__notes__)
    oracle_check(vf, floored_root, bad, 1.0)
    oracle_check(vf, floored_root, bad, math.nan)


def test_a_number_that_fails_every_lane(backend):
    """A flag that depends on the number alone (one value for every lane): the first lane raises."""
    vf = vectorize(scaled, backend=backend)
    x = np.array([1.0, 2.0, math.nan])
    warm(vf, scaled, x, 2.0)
    with pytest.raises(ValueError, match=r"got -0\.5") as info:
        fastpath.run(vf._fast, (x, -0.5))
    assert any("lane (0,) of (3,)" in note for note in info.value.__notes__)
    oracle_check(vf, scaled, x, -0.5)
    oracle_check(vf, scaled, x, -math.inf)
    short(vf, (x, 0.0))


@pytest.mark.parametrize("k", [3, 3037000499, 3037000500, -3037000500, 2**40, 2**63 - 1, -(2**63), True, np.int64(2**62)])
def test_a_number_that_overflows_patches_every_lane(backend, k):
    vf = vectorize(lift, backend=backend)
    x = np.array([1.0, -0.0, math.nan, 1e300, 5e-324])
    warm(vf, lift, x, 3)
    oracle_check(vf, lift, x, k)  # a bool or np.int64 `k`: the plan for its type, made here
    short(vf, (x, k))
    oracle_check(vf, lift, x, k)


@pytest.mark.parametrize("n, k", [
    (np.array([7, -7, 0, 2**63 - 1, -(2**63)]), 2),
    (np.array([7, -7, 0]), -1),
    (np.array([2**63 - 1, 5]), 1),  # 2**63: an int int64 cannot hold, refused as the loop's value
    (np.array([-(2**63), 5]), -1),  # -2**63 // -1
    (np.array([3, 4]), 0),  # ZeroDivisionError on the first lane
    (np.array([3, 4]), True),
    (np.array([3, 4]), 2**63 - 1),
    (np.array([3, 4]), np.int64(-(2**63))),
])
def test_ints_near_the_int64_limits(backend, n, k):
    vf = vectorize(step, backend=backend)
    warm(vf, step, np.array([10, 11, -12]), 3)
    oracle_check(vf, step, n, k)
    oracle_check(vf, step, n, k)  # the plan for these kinds, if the first call succeeded


@pytest.mark.parametrize("big", [2**63, -(2**63) - 1, 10**30])
def test_an_int_beyond_int64_misses_and_the_general_path_refuses_it(backend, big):
    vf = vectorize(mul_add, backend=backend)
    x = np.array([1.0, 2.0])
    warm(vf, mul_add, x, 3)
    assert fastpath.run(vf._fast, (x, big)) is fastpath.MISS
    with pytest.raises(VectorizeInputError, match=f"argument 'y': {big} does not fit in int64"):
        vf(x, big)  # refused under every fallback setting (issue 49 row 12: tests/engine/test_inputs_refused.py)
    short(vf, (x, 3))  # the plan for int64 numbers is still there


def test_uniform_results_are_fresh_arrays_of_every_lane(backend):
    vf = vectorize(pair, backend=backend)
    x = np.array([1.0, -2.0, math.nan, 0.0])
    warm(vf, pair, x, 0.5)
    for s in (0.5, -0.0, math.nan, 3.0):
        got = short(vf, (x, s))
        oracle_check(vf, pair, x, s)
        assert all(type(r) is np.ndarray and r.shape == (4,) and r.flags.writeable for r in got)
        assert not any(np.shares_memory(a, b) for a in (*got, x) for b in got if a is not b)


def test_the_result_is_never_an_argument(backend):
    vf = vectorize(first, backend=backend)
    x = np.array([1.0, -0.0, math.nan])
    warm(vf, first, x, 2.0)
    got = short(vf, (x, 2.0))
    assert got is not x and not np.shares_memory(got, x)
    got[0] = 5.0
    assert x[0] == 1.0


def test_masked_lanes_never_warn(backend):
    vf = vectorize(ratio, backend=backend)
    x = np.array([1.0, -2.0, 0.0, math.nan])
    warm(vf, ratio, x, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for y in (0.0, -0.0, 2.0, math.inf):
            short(vf, (x, y))
            oracle_check(vf, ratio, x, y)


@pytest.mark.parametrize("other", ["float32", "zero_d", "list", "one_broadcasts", "empty",
                                   "int_array", "readonly", "two_d"])
def test_calls_unlike_the_plan_miss_and_still_agree(backend, other):
    vf = vectorize(mul_add, backend=backend)
    x = np.array([1.0, 2.0, -0.0])
    warm(vf, mul_add, x, 0.5)
    args = {
        "float32": (x, np.float32(1.5)),
        "zero_d": (x, np.array(1.5)),
        "list": (x, [1.0, 2.0, 3.0]),
        "one_broadcasts": (np.array([1.0]), np.array([1.0, 2.0])),
        "empty": (np.array([], dtype=np.float64), 0.5),
        "int_array": (np.array([1, 2, 3]), 0.5),
        "readonly": (np.frombuffer(x.tobytes()), 0.5),
        "two_d": (np.ones((2, 2)), 0.5),
    }[other]
    if backend == "numpy" and other == "readonly":  # NumPy kernels take any layout (test_fastpath_layout.py)
        short(vf, args)
    else:
        assert fastpath.run(vf._fast, args) is fastpath.MISS
    oracle_check(vf, mul_add, *args)
    same_result(vf(*args), vf.call_lanes(list(args)))


def test_arrays_of_other_lengths_miss_and_still_agree(backend):
    vf = vectorize(clamp, backend=backend)
    x, hi = np.array([-1.0, 0.5, 2.0]), np.array([1.0, 0.25, 3.0])
    warm(vf, clamp, x, 0.0, hi)
    plan = vf._fast  # a general call of arrays that broadcast makes no plan (none is left to try)
    for args in [(x, 0.0, hi[:1]), (x[:1], 0.0, hi), (x[:2], 0.0, hi[:2]), (x, 0.0, hi)]:
        if len(args[0]) == len(args[2]):
            short(vf, args)
        else:
            assert fastpath.run(plan, args) is fastpath.MISS
        oracle_check(vf, clamp, *args)
        warm(vf, clamp, x, 0.0, hi)


def test_no_stale_plan_when_argument_kinds_change(backend):
    """int, then float, then an array, then bool, then NumPy scalars in one slot: each call gets
    its own specialization's answer (an int `y` and a float `y` give different kinds of result)."""
    vf = vectorize(affine, backend=backend)
    x = np.array([0.5, -3.0, math.nan, 2.0])
    xi = np.array([3, -4, 0, 2**40])
    sequence = [(x, 2), (x, 2.5), (x, x), (x, True), (x, 2), (x, np.float64(2.5)), (x, np.int64(2)),
                (xi, 2), (xi, 2.5), (xi, True), (x, 2.5), (xi, np.bool_(False)), (2.5, x), (x, 2)]
    for args in sequence * 2:
        oracle_check(vf, affine, *args)
        got = vf(*args)
        same_result(got, vf.call_lanes(list(args)))
        want = [affine(*lane) for lane in zip(*(a.tolist() if isinstance(a, np.ndarray) else [np.asarray(a).item()] * 4 for a in args))]
        assert got.dtype == (np.int64 if all(type(w) is int for w in want) else np.float64)
    assert vf._fast.mixed is not None and vf._fast.mixed.slots == (x.dtype, int)


def test_mixed_array_and_scalar_calls_keep_their_plans(backend):
    vf = vectorize(mul_add, backend=backend)
    x, y = np.array([1.0, 2.0]), np.array([3.0, -0.0])
    for _ in range(2):
        oracle_check(vf, mul_add, x, y)
        oracle_check(vf, mul_add, 1.5, 2.0)
        oracle_check(vf, mul_add, x, 2.0)
    plans = vf._fast
    assert plans.arrays is not None and plans.scalars is not None and plans.mixed is not None
    keys = {plans.arrays.used[0], plans.scalars.used[0], plans.mixed.used[0]}
    assert len(keys) == 3
    for args, key in [((x, y), plans.arrays.used[0]), ((x, 0.5), plans.mixed.used[0]),
                      ((0.5, 1.0), plans.scalars.used[0]), ((x, 0.25), plans.mixed.used[0])]:
        assert fastpath.run(vf._fast, args) is not fastpath.MISS
        vf(*args)
        assert vf._last == key and vf.source == vf._kernels[key].source and vf.backend == backend


def test_a_specialized_flag_gets_no_mixed_plan(backend):
    vf = vectorize(choose, backend=backend)
    x = np.array([1.0, -2.0, math.nan])
    for exact in (True, False, True, False):
        oracle_check(vf, choose, x, 0.5, exact)
        assert vf._fast is None or vf._fast.mixed is None


def test_a_helper_value_in_the_key_gets_no_mixed_plan(backend, monkeypatch):
    vf = vectorize(in_units, backend=backend)
    x = np.array([1.0, -0.0, math.nan])
    for offset in (1.0, 1.0, 3.0, 3.0):
        monkeypatch.setitem(globals(), "OFFSET", offset)
        oracle_check(vf, in_units, x, 0.5)
        assert vf._fast is None or vf._fast.mixed is None


def test_a_rebound_global_leaves_the_mixed_short_path(backend, monkeypatch):
    vf = vectorize(shifted, backend=backend)
    x = np.array([1.0, 2.0])
    warm(vf, shifted, x, 2.0)
    plan = vf._fast
    monkeypatch.setitem(globals(), "OFFSET", 10.0)
    assert fastpath.run(plan, (x, 2.0)) is fastpath.MISS
    assert vf(x, 2.0).tolist() == [12.0, 14.0]
    oracle_check(vf, shifted, x, 2.0)


def test_large_batches_are_left_to_the_general_path_numpy():
    """Batches the NumPy backend runs in chunks on threads miss (engine/chunks.py)."""
    vf = vectorize(mul_add, backend="numpy")
    x = np.linspace(-1.0, 1.0, 1000)
    warm(vf, mul_add, x, 0.5)
    big = np.linspace(-1.0, 1.0, vf._fast.mixed.max_lanes + 1)
    assert fastpath.run(vf._fast, (big, 0.5)) is fastpath.MISS
    oracle_check(vf, mul_add, big, 0.5)
