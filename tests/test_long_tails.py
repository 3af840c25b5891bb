"""While loops with very uneven trip counts on the NumPy backend (issue 27, item 6).

A masked loop iteration costs about a microsecond an operation however few lanes it runs, so a
tail of a few lanes that loop for long cost 100-300 times what the Python loop spends on them
(20 s and more where the loop took 0.1 s). `Compaction` now leaves such a tail to the scalar
function: it flags the lanes (the runtime re-runs them from the start, exactly) and ends the
loop. These tests check values and exceptions against the scalar loop, and that a call costs
no more than a small multiple of the Python loop's time."""

from __future__ import annotations

import time

import kernels as K
import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.runtime import Compaction


def smallest_factor(n: int) -> int:
    if n < 2:
        return n
    d = 2
    while n % d != 0:
        d += 1
    return d


def subtractive_gcd(a: int, b: int) -> int:
    if a <= 0 or b <= 0:
        raise ValueError(f"positive integers only, got {a} and {b}")
    while a != b:
        if a > b:
            a -= b
        else:
            b -= a
    return a


def two_squares(n: int) -> int:
    """The smallest a with a*a + b*b == n for some b >= a, or -1 (a search of two nested loops)."""
    a = 0
    while 2 * a * a <= n:
        b = a
        while a * a + b * b < n:
            b += 1
        if a * a + b * b == n:
            return a
        a += 1
    return -1


def bounded_factor(n: int, limit: int) -> int:
    """smallest_factor, raising where the search passes `limit` (the lanes the tail left to the
    scalar function raise there)."""
    d = 2
    while n % d != 0:
        d += 1
        if d > limit:
            raise OverflowError(f"no factor of {n} up to {limit}")
    return d


RNG = np.random.default_rng(20261203)


def _loop_seconds(f, *args) -> float:
    lanes = list(zip(*(np.broadcast_to(a, np.broadcast_shapes(*(np.shape(b) for b in args))).tolist()
                       for a in args)))
    start = time.perf_counter()
    for lane in lanes:
        try:
            f(*lane)
        except Exception:  # noqa: BLE001 - only the time matters here; check() compares outcomes
            break
    return time.perf_counter() - start


def _call_seconds(vf, *args) -> float:
    start = time.perf_counter()
    try:
        vf(*args)
    except Exception:  # noqa: BLE001 - only the time matters here; check() compares outcomes
        pass
    return time.perf_counter() - start


def _tail_cases():
    n = 3000
    gcd_a = RNG.integers(1, 3000, n)
    gcd_a[RNG.choice(n, 5, replace=False)] = [200_003, 150_001, 99_991, 250_007, 123_457]  # ~1e5 steps, b small
    factors = RNG.integers(2, 3000, n)
    factors[RNG.choice(n, 4, replace=False)] = [99_991, 86_243, 65_537, 70_001]  # primes: n steps each
    escape = (RNG.uniform(0.5, 1.0, n), RNG.uniform(-1.0, 1.0, n), 200_000)  # outside the set: a few steps
    escape[0][:3], escape[1][:3] = -0.1, 0.1  # inside the set: 2e5 iterations
    return {
        "subtractive_gcd": (subtractive_gcd, (gcd_a, RNG.integers(1, 40, n))),
        "smallest_factor": (smallest_factor, (factors,)),
        "two_squares": (two_squares, (RNG.integers(0, 30_000, 400),)),
        "escape_time": (K.escape_time, escape),
    }


CASES = _tail_cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_long_tails_agree_with_the_loop_and_cost_about_as_much(name):
    f, args = CASES[name]
    vf = vectorize(f, backend="numpy", fallback="error")
    check(vf, f, *args)
    loop = _loop_seconds(f, *args)
    batched = min(_call_seconds(vf, *args) for _ in range(2))
    # Before: subtractive_gcd 330x the loop, smallest_factor 7x, escape_time (a flag-free loop)
    # ~100x. The bound is loose for a shared machine; the tail alone would break it.
    assert batched < 4 * loop + 0.25, (name, batched, loop)


def test_lanes_left_to_the_scalar_function_raise_in_lane_order():
    n = 2500
    x = RNG.integers(2, 2000, n)
    x[[700, 1500]] = [99_991, 86_243]  # primes: the tail, past the limit
    vf = vectorize(bounded_factor, backend="numpy", fallback="error")
    check(vf, bounded_factor, x, 10**6)  # no lane raises; the tail's values patched
    check(vf, bounded_factor, x, 90_000)  # lane 700 (left to the scalar function) raises; 1500 returns
    x[2000] = 1_000_003  # a prime: raises too, later
    check(vf, bounded_factor, x, 90_000)
    x[[700, 1500]] = 4
    check(vf, bounded_factor, x, 90_000)  # only lane 2000, the tail, raises
    check(vf, bounded_factor, x, 50)  # many early lanes raise in the batched code, before the tail


def test_a_tail_in_an_inner_loop_leaves_the_outer_loop_too():
    n = RNG.integers(0, 50_000, 300)
    n[[3, 150]] = [49_999, 40_000]
    vf = vectorize(two_squares, backend="numpy", fallback="error")
    check(vf, two_squares, n)


def test_short_tails_stay_batched():
    lanes = Compaction()
    active = np.zeros(10_000, dtype=bool)
    active[:5] = True
    flag = np.zeros(10_000, dtype=bool)
    for _ in range(Compaction.TAIL_PATIENCE - 1):  # patience: a tail this short is not worth a re-run
        if lanes.worth(active):
            active, flag = lanes.compact(active, flag)
    assert not lanes.give_up and active.all() and not flag.any()


def test_a_long_tail_is_flagged_and_ends_the_loop():
    lanes = Compaction()
    size = 3 * Compaction.MIN_LANES
    active = np.zeros(size, dtype=bool)
    active[[10, 4000]] = True
    flag = np.zeros(size, dtype=bool)
    flag[7] = True  # flagged earlier: stays flagged
    x = np.arange(size, dtype=np.float64)
    for _ in range(100):
        if not active.any():
            break
        if lanes.worth(active):
            active, flag, x = lanes.compact(active, flag, x)
        x = np.where(active, x + 1.0, x)
    assert lanes.give_up
    flag, x = lanes.expand(flag, x)
    assert np.flatnonzero(flag).tolist() == [7, 10, 4000]
    untouched = np.ones(size, dtype=bool)
    untouched[[10, 4000]] = False
    assert (x[untouched] == np.arange(size)[untouched]).all()  # finished lanes keep their values
