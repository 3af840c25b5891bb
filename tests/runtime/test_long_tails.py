"""While loops with very uneven trip counts on the NumPy backend (issue 27, item 6).

A masked loop iteration costs about a microsecond an operation however few lanes it runs, so a
tail of a few lanes that loop for long cost 100-300 times what the Python loop spends on them
(20 s and more where the loop took 0.1 s). `Compaction` now leaves such a tail to the scalar
function: it flags the lanes (the runtime re-runs them from the start, exactly) and ends the
loop. These tests check values and exceptions against the scalar loop, and the mechanism that
bounds the cost: the batched loop stops after a number of iterations derived from the lanes'
trip counts, and exactly the lanes still running then are re-run by the scalar function. The
times themselves are measured by `scripts/bench_tails.py`, never asserted here."""

from __future__ import annotations

import kernels as K
import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.engine import patch
from vectorizer.runtime.helpers import Compaction


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


def _gcd_steps(a: int, b: int) -> int:
    steps = 0
    while a != b:
        if a > b:
            a -= b
        else:
            b -= a
        steps += 1
    return steps


# Each lane's trip count (times the loop body runs), by the scalar loop itself: escape_time
# returns its own; smallest_factor's d runs from 2 to the factor.
TRIPS = {
    "subtractive_gcd": _gcd_steps,
    "smallest_factor": lambda n: smallest_factor(n) - 2,
    "escape_time": K.escape_time,
}


class Watch:
    """Records, for the calls of `vf` made meanwhile, the `Compaction` of each masked loop the
    kernel runs and the flat lanes the runtime hands to the scalar function."""

    def __init__(self, vf, monkeypatch) -> None:
        self.loops: list = []
        self.reruns: list[int] = []
        namespace = vf._kernels[vf._last].fn.__globals__  # the kernel's own copy of Compaction
        base = namespace["_vz_Compaction"]
        loops = self.loops

        class Recorded(base):
            def __init__(self) -> None:
                super().__init__()
                loops.append(self)

        rerun = patch._rerun

        def recorded(scalar, batch, columns, lanes, qualname):
            self.reruns.extend(int(j) for j in lanes)
            return rerun(scalar, batch, columns, lanes, qualname)

        monkeypatch.setitem(namespace, "_vz_Compaction", Recorded)
        monkeypatch.setattr(patch, "_rerun", recorded)


def _lanes(args) -> list[tuple]:
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return list(zip(*(np.broadcast_to(a, shape).tolist() for a in args)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_long_tails_agree_with_the_loop_and_go_to_the_scalar_function(name, monkeypatch):
    f, args = CASES[name]
    vf = vectorize(f, backend="numpy", fallback="error")
    check(vf, f, *args)
    watch = Watch(vf, monkeypatch)
    check(vf, f, *args)  # a second call (the short path), watched
    assert watch.loops and any(loop.give_up for loop in watch.loops), "the tail ran batched to its end"
    assert watch.reruns == sorted(set(watch.reruns)), "each lane re-runs once, in C order"
    if name not in TRIPS:
        return  # two_squares: nested loops, a Compaction for each run of the inner loop
    trips = np.array([TRIPS[name](*lane) for lane in _lanes(args)])
    (loop,) = watch.loops
    # At iteration i the lanes with trip count >= i run. Once no more than 64 remain (i > q),
    # each iteration after q counts towards `tail`, so tail * TAIL_LANES >= active * iterations
    # holds by i = 2q, and tail >= TAIL_PATIENCE by q + 16: the loop ends by then, whatever
    # the few lanes left would still cost (up to 2e5 iterations here).
    q = int(np.sort(trips)[-(Compaction.TAIL_LANES // 2 + 1)])
    assert loop.iterations <= max(2 * q, q + Compaction.TAIL_PATIENCE) < trips.max() // 10, (loop.iterations, q)
    # Exactly the lanes still running when it ended go to the scalar function.
    assert watch.reruns == np.flatnonzero(trips >= loop.iterations).tolist()
    assert len(watch.reruns) <= Compaction.TAIL_LANES


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
