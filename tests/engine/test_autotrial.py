"""backend="auto" measures both backends on large calls (vectorizer/engine/autotrial.py).

Timings decide which backend wins, so the tests that need a given winner set `autotrial.MARGIN`
and `autotrial.CLOSE` (0: Numba always keeps it; huge: NumPy always wins) or give each backend a
made-up time; the rest hold whichever wins. Every large call is checked lane by lane against the
scalar oracle: its lanes are computed by both backends, in pieces, and stitched back together, or
by the backend the race runs it on.

PYTEST_DONT_REWRITE: the scalar functions' own messages must not be rewritten.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.engine import autotrial, chunks, fastpath

pytestmark = pytest.mark.numba
LARGE = autotrial.TRIAL_LANES


def halvings(x: float, limit: float) -> tuple[int, float]:
    """A while loop whose trip count differs per lane; a tuple result and a uniform argument."""
    n = 0
    while x > limit:
        x = x * 0.5
        n += 1
    return n, x


def thirds(x: float) -> int:
    if x < 0.0:
        raise ValueError(f"negative input {x}")
    n = 0
    while x > 1.0:
        x = x / 3.0
        n += 1
    return n


def hostile(size: int, seed: int = 0) -> np.ndarray:
    """Magnitudes from subnormal to 2**40 (the scalar oracle runs a Python loop per halving), with
    nan, -inf, -0.0, the largest and the smallest floats mixed in (+inf would never halve)."""
    rng = np.random.default_rng(seed)
    x = np.ldexp(rng.uniform(0.5, 1.0, size), rng.integers(-1074, 40, size))
    specials = np.array([np.nan, -np.inf, -0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308])
    x[rng.integers(0, size, size // 50)] = rng.choice(specials, size // 50)
    return x


@pytest.mark.parametrize("size", [LARGE, 10**6, 3 * 10**6])
@pytest.mark.parametrize("chunk", [chunks.CHUNK, chunks.CHUNK_LOOP])
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_pieces_fit_in_the_call(size, chunk, threads):
    lengths = autotrial.pieces(size, chunk, threads)
    assert len(lengths) == len(autotrial.PLAN)
    assert all(n > 0 for n in lengths) and sum(lengths) + lengths[-1] <= size  # room to confirm
    numpy_pieces = [n for n, (backend, _) in zip(lengths, autotrial.PLAN) if backend == "numpy"]
    assert all(n <= chunk * threads for n in numpy_pieces)
    # one length for every timed piece: a backend's cost per call weighs the same in both readings
    assert len({n for n, (_, timed) in zip(lengths, autotrial.PLAN) if timed}) == 1


@pytest.mark.parametrize(("margin", "winner"), [(0.0, "numba"), (1e9, "numpy")])
def test_large_calls_use_the_winner_and_small_ones_numba(monkeypatch, margin, winner):
    monkeypatch.setattr(autotrial, "MARGIN", margin)
    monkeypatch.setattr(autotrial, "CLOSE", margin)  # no whole call to confirm the pieces
    vf = vectorize(halvings, backend="auto")
    x = hostile(LARGE).reshape(2, LARGE // 2)  # lanes in two dimensions
    check(vf, halvings, x, 1.0)
    trial = vf.auto_trial
    assert trial is not None and trial.choice == winner and vf.backend == winner
    assert trial.numba_ns > 0 and trial.numpy_ns > 0
    check(vf, halvings, x[0, :1000], 1.0)
    assert vf.backend == "numba" and vf.auto_trial is trial  # small batches: Numba's lower overhead
    check(vf, halvings, hostile(LARGE + 12345, seed=1), 3.0)  # the rest goes to the winner
    assert vf.backend == winner and vf.auto_trial is trial  # measured once


def cubic(x: float) -> float:
    return x * x * x - 2.0 * x + 0.5  # straight-line: Numba is many times faster than NumPy here


def _fake_clock(monkeypatch, seconds: dict[int, float]) -> None:
    """Give piece k (in the order run: PLAN's pieces, then any confirming one) seconds[k], else
    0: no real timing is asserted."""
    readings: list[None] = []

    def clock() -> float:
        readings.append(None)
        piece, end = divmod(len(readings) - 1, 2)  # a piece reads the clock before and after
        return 100.0 + (seconds.get(piece, 0.0) if end else 0.0)

    monkeypatch.setattr(autotrial, "time", type("Clock", (), {"perf_counter": staticmethod(clock)}))


TIMED = {backend: [k for k, (b, timed) in enumerate(autotrial.PLAN) if timed and b == backend]
         for backend in ("numba", "numpy")}
CONFIRMING = len(autotrial.PLAN)


def test_numba_pieces_slowed_by_the_machine_get_a_second_look(monkeypatch):
    """Both timed Numba pieces read 1 s (another program on the cores, say): NumPy looks faster,
    so one more Numba piece is timed, and its time decides."""
    first, second = TIMED["numba"]
    _fake_clock(monkeypatch, {first: 1.0, second: 1.0, TIMED["numpy"][0]: 0.010,
                                         TIMED["numpy"][1]: 0.020, CONFIRMING: 0.001})
    vf = vectorize(cubic, backend="auto")
    x = hostile(LARGE, seed=5)
    check(vf, cubic, x)
    trial = vf.auto_trial
    assert trial.numpy_ns == pytest.approx(0.010 / trial.lanes[1] * 1e9)  # its faster piece
    assert trial.numba_ns == pytest.approx(0.001 / trial.lanes[0] * 1e9)  # the confirming piece
    assert trial.choice == "numba" and vf.backend == "numba"


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("slowed", ["numba", "numpy"])
def test_one_slow_piece_does_not_decide(monkeypatch, slowed, which):
    """One timed piece of either backend reads 10x its true time: the other piece of the same
    backend decides (true times here: Numba 1 ns a lane, NumPy 3, beyond CLOSE)."""
    lanes = autotrial.pieces(LARGE, chunks.CHUNK, chunks.threads())
    seconds = {k: (1e-9 if autotrial.PLAN[k][0] == "numba" else 3e-9) * lanes[k] for k in TIMED["numba"] + TIMED["numpy"]}
    seconds[TIMED[slowed][which]] *= 10
    _fake_clock(monkeypatch, seconds)
    vf = vectorize(cubic, backend="auto")
    check(vf, cubic, hostile(LARGE, seed=6))
    trial = vf.auto_trial
    # a confirming piece would have read 0 s: Numba read faster, so there was none
    assert (trial.numba_ns, trial.numpy_ns) == (pytest.approx(1.0), pytest.approx(3.0))
    assert trial.choice == "numba"


def test_a_large_call_after_small_ones_is_measured():
    vf = vectorize(halvings, backend="auto")
    x = hostile(LARGE, seed=2)
    for _ in range(2):  # the second small call takes the fast path
        check(vf, halvings, x[:1000], 1.0)
        assert vf.auto_trial is None
    check(vf, halvings, x, 1.0)
    assert vf.auto_trial is not None


# a warm-up piece, a Numba piece, NumPy's timed piece, the confirming Numba piece
@pytest.mark.parametrize("at", [3, 40_000, 400_000, LARGE - 1000])
def test_a_lane_raising_during_the_trial_raises_as_the_scalar_function(monkeypatch, at):
    monkeypatch.setattr(autotrial, "MARGIN", 1e9)
    vf = vectorize(thirds, backend="auto")
    x = np.abs(hostile(LARGE, seed=3))
    x[np.isinf(x)] = 1e300  # +inf would never shrink
    x[at] = -2.5
    x[at + 7] = -1.0
    check(vf, thirds, x)  # ValueError("negative input -2.5"), with the note naming lane (at,)
    assert vf.auto_trial is None  # no choice from a call that raised
    check(vf, thirds, np.abs(x))
    assert vf.auto_trial is not None and vf.backend == "numpy"


def test_only_auto_measures():
    for backend in ("numba", "numpy"):
        vf = vectorize(halvings, backend=backend)
        check(vf, halvings, hostile(LARGE, seed=4), 1.0)
        assert vf.auto_trial is None and vf.backend == backend


def test_timed_pieces_alternate_between_backends():
    """A slow stretch of the machine then lands on both backends' readings, not on one's."""
    timed = [backend for backend, is_timed in autotrial.PLAN if is_timed]
    assert timed == ["numba", "numpy"] * (len(timed) // 2)


# -- the race: whole calls per size class ---------------------------------------------------------

SMALL = 100_000  # a size class below TRIAL_LANES: raced with whole calls


def race_steps(race: autotrial.Race, size: int, ns: dict[str, float], calls: int) -> list[tuple[str, bool]]:
    """The race's steps over `calls` calls of `size` lanes whose backends take `ns` a lane."""
    steps = []
    for _ in range(calls):
        backend, timed = race.step(size)
        steps.append((backend, timed))
        race.ran(size, backend, ns[backend] * size * 1e-9 if timed else None)
    return steps


WARM_UP = ("numba", False)  # the race's first call compiles or loads Numba's parallel driver


@pytest.mark.parametrize(("ns", "expected", "winner"), [
    # NumPy far slower: one NumPy call, then Numba
    ({"numba": 10.0, "numpy": 25.0}, [WARM_UP, ("numba", True), ("numpy", True)], "numba"),
    # close: two NumPy calls (the first may pay its page faults), then Numba
    ({"numba": 10.0, "numpy": 12.0}, [WARM_UP, ("numba", True), ("numpy", True), ("numpy", True)], "numba"),
    # NumPy faster twice: one more Numba call before switching
    ({"numba": 10.0, "numpy": 7.0},
     [WARM_UP, ("numba", True), ("numpy", True), ("numpy", True), ("numba", True)], "numpy"),
])
def test_a_size_class_below_the_trial_is_raced_with_whole_calls(ns, expected, winner):
    race = autotrial.Race()
    assert race_steps(race, SMALL, ns, len(expected)) == expected
    assert race.step(SMALL) == (winner, False) and race.last.choice == winner
    assert race.last.numba_ns == pytest.approx(ns["numba"]) and race.last.numpy_ns == pytest.approx(ns["numpy"])


def test_a_slow_first_numpy_call_gets_warm_looks():
    """NumPy's first whole call reads close (its page faults); two of three decide."""
    race = autotrial.Race()
    assert race.step(SMALL) == WARM_UP
    race.ran(SMALL, "numba", None)
    assert race.step(SMALL) == ("numba", True)
    race.add(SMALL, "numba", 10e-9 * SMALL)
    race.add(SMALL, "numpy", 15e-9 * SMALL)
    assert race.step(SMALL) == ("numpy", True)
    race.add(SMALL, "numpy", 6e-9 * SMALL)
    assert race.step(SMALL) == ("numpy", True) and race.last.choice is None  # one win, one loss
    race.add(SMALL, "numpy", 7e-9 * SMALL)
    assert race.step(SMALL) == ("numba", True)  # NumPy won twice: Numba gets a second look
    race.add(SMALL, "numba", 9e-9 * SMALL)
    assert race.step(SMALL) == ("numpy", False)
    assert race.last == autotrial.Trial(pytest.approx(9.0), pytest.approx(6.0), (SMALL, SMALL), "numpy")


def trial(numba_ns: float, numpy_ns: float) -> autotrial.Trial:
    return autotrial.Trial(numba_ns, numpy_ns, (160_000, 160_000), None)


@pytest.mark.parametrize(("pieces", "whole", "winner"), [
    ((10.0, 30.0), [], "numba"),  # NumPy's pieces far slower: decided
    ((10.0, 8.0), [], "numpy"),  # NumPy's pieces faster (after Numba's second look): decided
    ((10.0, 14.0), [7.0, 8.0], "numpy"),  # close: two whole NumPy calls faster decide
    ((10.0, 14.0), [11.0, 12.0], "numba"),  # close, and two whole calls still slower
])
def test_close_pieces_are_confirmed_by_whole_numpy_calls(pieces, whole, winner):
    race = autotrial.Race()
    assert race.step(LARGE) == ("pieces", True)
    race.add_pieces(LARGE, trial(*pieces))
    for ns in whole:
        assert race.step(2 * LARGE) == ("numpy", True)  # one class for every call this large
        race.add(2 * LARGE, "numpy", ns * 2 * LARGE * 1e-9)
    assert race.step(LARGE) == (winner, False)


def test_size_classes_are_decided_apart_and_the_fast_path_stops_at_the_first_open_one():
    race = autotrial.Race()
    assert race.fast_limit() == autotrial.EXPLORE_LANES - 1
    race_steps(race, SMALL, {"numba": 10.0, "numpy": 30.0}, 3)  # 1e5: Numba (after a warm-up)
    assert race.fast_limit() == (1 << 17) - 1
    race_steps(race, 150_000, {"numba": 10.0, "numpy": 7.0}, 4)  # 1.5e5: NumPy
    assert race.step(SMALL) == ("numba", False) and race.step(150_000) == ("numpy", False)
    assert race.step(300_000) == ("numba", True)  # its own class: not measured yet
    assert race.fast_limit() == (1 << 17) - 1
    for size in (70_000, 130_000, 260_000, LARGE, 10**7):
        assert autotrial.size_class(size) == min(size, LARGE).bit_length()


def halved_twice(x: float) -> float:
    y = x
    while y > 1.0:  # a loop: auto picks Numba statically
        y = y * 0.25
    return y


def test_calls_between_explore_and_trial_lanes_run_on_the_winner(monkeypatch):
    """Made-up times (NumPy twice as fast) through the real kernels: the race runs whole calls on
    Numba (a warm-up, then timed), NumPy twice, Numba again, then NumPy at that size only; every
    call keeps the contract."""
    add = autotrial.Race.add
    monkeypatch.setattr(autotrial.Race, "add", lambda self, size, backend, seconds:
                        add(self, size, backend, {"numba": 2e-9, "numpy": 1e-9}[backend] * size))
    vf = vectorize(halved_twice, backend="auto")
    x = hostile(SMALL, seed=7)
    x[np.isinf(x)] = 1.0
    used = []
    for _ in range(7):
        check(vf, halved_twice, x)
        used.append(vf.backend)
    assert used == ["numba", "numba", "numpy", "numpy", "numba", "numpy", "numpy"]
    assert vf.auto_trial.choice == "numpy"
    check(vf, halved_twice, x[:1000])
    assert vf.backend == "numba"  # small calls: Numba's lower overhead
    check(vf, halved_twice, np.concatenate([x, x]))  # another size class, raced on its own
    assert vf.backend == "numba" and vf.auto_trial is None  # only Numba's reading there so far
    check(vf, halved_twice, x)
    assert vf.backend == "numpy"


def test_a_lane_raising_in_a_raced_call_raises_as_the_scalar_function_and_records_nothing(monkeypatch):
    add = autotrial.Race.add
    monkeypatch.setattr(autotrial.Race, "add", lambda self, size, backend, seconds:
                        add(self, size, backend, {"numba": 2e-9, "numpy": 1e-9}[backend] * size))
    vf = vectorize(thirds, backend="auto")
    x = np.abs(hostile(SMALL, seed=8))
    x[np.isinf(x)] = 1e300  # +inf would never shrink
    bad = x.copy()
    bad[[5_000, 60_000]] = [-4.0, -1.0]
    for _ in range(2):  # Numba: its warm-up, then timed
        check(vf, thirds, x)
    check(vf, thirds, bad)  # NumPy's turn: ValueError("negative input -4.0"), naming lane (5000,)
    assert vf.auto_trial is None  # nothing recorded from a call that raised
    for _ in range(2):
        check(vf, thirds, x)
        assert vf.backend == "numpy" and vf.auto_trial.choice is None  # NumPy's turn again
    check(vf, thirds, x)
    assert vf.backend == "numba" and vf.auto_trial.choice == "numpy"  # after Numba's second look


def test_a_size_decided_for_numba_takes_the_short_path_and_an_open_one_does_not(monkeypatch):
    monkeypatch.setattr(autotrial, "MARGIN", 0.0)
    monkeypatch.setattr(autotrial, "CLOSE", 0.0)  # Numba wins at once
    vf = vectorize(cubic, backend="auto")
    x = hostile(LARGE + 999, seed=9)
    check(vf, cubic, x)  # pieces: decided for Numba at this size
    assert vf.auto_trial.choice == "numba"
    got = fastpath.run(vf._fast, (x,))
    assert got is not fastpath.MISS
    np.testing.assert_array_equal(got, vf(x))
    assert fastpath.run(vf._fast, (x[:SMALL],)) is fastpath.MISS  # 1e5: that size is still measured
    assert fastpath.run(vf._fast, (x[:1000],)) is not fastpath.MISS  # small calls: Numba, short path
