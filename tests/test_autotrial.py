"""backend="auto" measures both backends on the first large call (vectorizer/autotrial.py).

Timings decide which backend wins, so the tests that need a given winner set `autotrial.MARGIN`
(0: Numba always keeps it; huge: NumPy always wins); the rest hold whichever wins. Every large call
is checked lane by lane against the scalar oracle: its lanes are computed by both backends, in
pieces, and stitched back together.

PYTEST_DONT_REWRITE: the scalar functions' own messages must not be rewritten.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from vectorizer import autotrial, runtime, vectorize

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
@pytest.mark.parametrize("chunk", [runtime.CHUNK, runtime.CHUNK_LOOP])
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
    backend decides (true times here: Numba 1 ns a lane, NumPy 2)."""
    lanes = autotrial.pieces(LARGE, runtime.CHUNK, runtime.threads())
    seconds = {k: (1e-9 if autotrial.PLAN[k][0] == "numba" else 2e-9) * lanes[k] for k in TIMED["numba"] + TIMED["numpy"]}
    seconds[TIMED[slowed][which]] *= 10
    _fake_clock(monkeypatch, seconds)
    vf = vectorize(cubic, backend="auto")
    check(vf, cubic, hostile(LARGE, seed=6))
    trial = vf.auto_trial
    # a confirming piece would have read 0 s: Numba read faster, so there was none
    assert (trial.numba_ns, trial.numpy_ns) == (pytest.approx(1.0), pytest.approx(2.0))
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
