"""`backend="auto"` on large calls: time both backends on this function's own calls, keep the faster.

The static choice (costmodel.py) cannot see the data. A `while` loop whose lanes all run about as
many iterations (a bisection to a relative tolerance) favours the NumPy backend on large batches:
its masked loop moves every lane at SIMD speed, while a Numba lane waits on its own chain of
dependent steps (cubic_root_bisect, 1e6 lanes on 2 AVX2 cores: 229 vs 310 ns a lane). Lanes whose
trip counts differ a lot favour Numba (mandelbrot_escape: 225 vs 72), and so does every batch of
a few thousand lanes, where NumPy's cost per operation dominates (cubic_root_bisect at 1e3 lanes:
2215 vs 178 ns a lane). NumPy's time a lane also depends on the batch size (its chunks and
threads: first_passage with vector_math=True, 1,410 ns a lane at 1e5 and 583 at 1e6, where Numba
takes 930 and 900), so each size class (`size_class`: a power of two of lanes, and every call of
TRIAL_LANES or more) is decided on its own.

So when auto picked Numba, calls of at least EXPLORE_LANES lanes are raced (`Race`), until their
size class is decided:

* The first call of TRIAL_LANES or more is split into pieces (`pieces`, `run`): lanes on Numba to
  compile or load its two drivers, a piece on NumPy to warm its memory (a first NumPy run pays a
  page fault for each new page of temporaries), then two timed pieces on each backend,
  alternating, and the rest on the faster. Every timed piece has the same length, so that each
  backend's cost per call weighs the same in its time a lane: Numba's worker threads, asleep
  after a NumPy piece, take 0.3-0.6 ms to wake on this VM. With Numba pieces of 65,536 lanes and
  NumPy's of 256K, poly_horner (~1 ns a lane on Numba, ~7 on NumPy, at 1e6) read a median of 10
  ns a lane on Numba and 2.1x that on NumPy over 10 fresh processes, and once went to NumPy at
  6.5x the cost; with one length, 6.5 ns and 3.5x. Each backend's time is the faster of its
  pieces: this host's other load only ever slows a piece down, and alternating puts a slow
  stretch of a few hundred milliseconds on both backends' readings instead of one (a single
  NumPy reading once sent cubic_root_bisect to NumPy at 1.6x the cost). Where NumPy looks
  faster, one more Numba piece is timed before switching: a parallel piece that shares the cores
  with another program's threads can take a whole scheduler time slice.
* Smaller calls (a class below TRIAL_LANES) run whole: the first on Numba, timed (but the very
  first call the race sees, which compiles or loads Numba's parallel driver: a first reading of
  kepler_solve at 1e5 lanes read 172 ns a lane against 118), the next on NumPy, timed.
* A NumPy reading within CLOSE of Numba's is not trusted to lose: NumPy's pieces are smaller
  than its chunks in a whole call and read slow (first_passage with vector_math=True: 910-1,005
  ns a lane against 683-713 for the whole call; simpson_gauss 127 against 90), and its first
  whole call pays the page faults of its temporaries. Whole calls then run on NumPy, timed,
  until two of them beat Numba's fastest reading by MARGIN (NumPy wins, once Numba has had two
  looks) or two do not (Numba keeps it). One lucky reading does not decide: the NumPy backend's
  time at 1e5 lanes spreads widely from call to call (kepler_solve with vector_math=True: 89-143
  ns a lane over 11 samples, where Numba's stayed within 115-122).

A decided class runs on its backend; calls below EXPLORE_LANES stay on Numba (its lower cost a
call). A race costs a few calls on the slower backend, once a size class (at most a Numba
warm-up, two Numba and three NumPy calls): at most CLOSE times Numba's time but for the first
NumPy whole call of a small class (mandelbrot_escape at 1e5: one call at ~7x).

Every lane is computed once, on one backend, and keeps the value contract there (DESIGN.md §1: the
backends agree bit for bit except in transcendental functions, each within its ulp bound). If a
piece raises (a lane's own exception), the trial ends without a choice and the whole call runs
again on Numba, which raises from the first failing lane and names it by its place in the batch;
a whole call that raises records nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..backends.numba import jit
from ..errors import VectorizeError
from .batch import Batch
from .chunks import EXPLORE_LANES, TRIAL_LANES, chunk_lanes, threads
from .patch import from_a_lane

WARM_PARALLEL = 1 << 15  # the untimed parallel Numba piece: above every PARALLEL_MIN_LANES
MARGIN = 0.95  # a near tie is noise: Numba keeps it (a wrong pick then costs at most 1/MARGIN)
CLOSE = 2.0  # a NumPy reading under CLOSE x Numba's is confirmed by whole NumPy calls
TOP_CLASS = TRIAL_LANES.bit_length()


class Trial(NamedTuple):
    numba_ns: float  # time a lane on each backend (its fastest reading)
    numpy_ns: float
    lanes: tuple[int, int]  # lanes of each backend's fastest reading
    choice: str | None  # None while the size class is still measured


def size_class(size: int) -> int:
    """Calls share a decision within a power of two of lanes, and all of TRIAL_LANES or more."""
    return min(size, TRIAL_LANES).bit_length()


class Race:
    """One specialization's readings and decisions, per size class (see the module docstring)."""

    def __init__(self) -> None:
        self.numba: dict[int, tuple[float, int]] = {}  # Numba's fastest reading: (ns a lane, lanes)
        self.numba_looks: dict[int, int] = {}
        self.numpy: dict[int, list[tuple[float, int]]] = {}  # NumPy's whole calls
        self.pieces: dict[int, tuple[float, int]] = {}  # NumPy's pieces (TRIAL_LANES and more)
        self.choice: dict[int, str] = {}
        self.record: dict[int, Trial] = {}
        self.last: Trial | None = None  # the record of the last call's size class
        self.numba_warm = False  # the Numba kernel's parallel driver has run (compiled or loaded)

    def step(self, size: int) -> tuple[str, bool]:
        """(backend, timed?) for a call of `size` lanes: "numba", "numpy", or "pieces"."""
        c = size_class(size)
        if c in self.choice:
            return self.choice[c], False
        if c not in self.numba:
            if size >= TRIAL_LANES:
                return "pieces", True
            return "numba", self.numba_warm  # the first run compiles or loads the driver: untimed
        wins, _ = self._score(c)
        if wins >= 2:
            return "numba", True  # a second look before leaving the static choice
        return "numpy", True

    def add(self, size: int, backend: str, seconds: float) -> None:
        """A whole call of `size` lanes on `backend` took `seconds`."""
        c, reading = size_class(size), (seconds / size * 1e9, size)
        if backend == "numba":
            self._numba(c, reading, 1)
        else:
            self.numpy.setdefault(c, []).append(reading)
        self._settle(c)

    def add_pieces(self, size: int, trial: Trial) -> None:
        """What `run` measured on a call of `size` lanes: its two or three Numba pieces count as two
        looks."""
        c = size_class(size)
        self._numba(c, (trial.numba_ns, trial.lanes[0]), 2)
        self.pieces[c] = (trial.numpy_ns, trial.lanes[1])
        self._settle(c)

    def ran(self, size: int, backend: str, seconds: float | None) -> None:
        """A whole call of `size` lanes ran on `backend` as `step` said (timed: it took `seconds`)."""
        if seconds is not None:
            self.add(size, backend, seconds)
        self.numba_warm |= backend == "numba"
        self.last = self.record.get(size_class(size))

    def fast_limit(self) -> int:
        """Calls up to this many lanes may skip the race (their classes run on Numba)."""
        for c in range(size_class(EXPLORE_LANES), TOP_CLASS + 1):
            if self.choice.get(c) != "numba":
                return (1 << (c - 1)) - 1
        return sys.maxsize

    def numba_window(self, size: int) -> tuple[int, int]:
        """The lanes of the size class of `size` where it is decided for Numba, else (1, 0)."""
        c = size_class(size)
        if self.choice.get(c) != "numba" or size < EXPLORE_LANES:
            return 1, 0
        return 1 << (c - 1), (1 << c) - 1 if c < TOP_CLASS else sys.maxsize

    def _numba(self, c: int, reading: tuple[float, int], looks: int) -> None:
        if c not in self.numba or reading[0] < self.numba[c][0]:
            self.numba[c] = reading
        self.numba_looks[c] = self.numba_looks.get(c, 0) + looks

    def _score(self, c: int) -> tuple[int, int]:
        """NumPy's whole calls that beat Numba's fastest by MARGIN, and those that did not."""
        bar = MARGIN * self.numba[c][0]
        wins = sum(ns < bar for ns, _ in self.numpy.get(c, []))
        return wins, len(self.numpy.get(c, [])) - wins

    def _verdict(self, c: int) -> str | None:
        """The backend for class `c`, or None while its readings do not settle it."""
        best = self.numba[c][0]
        pieces = self.pieces.get(c)
        if pieces is not None and pieces[0] < MARGIN * best:
            return "numpy"  # pessimistic for NumPy, against two or three Numba pieces
        wins, losses = self._score(c)
        if wins >= 2:
            return "numpy" if self.numba_looks[c] >= 2 else None
        readings = [ns for ns, _ in self.numpy.get(c, [])] + ([pieces[0]] if pieces else [])
        if losses >= 2 or (not wins and any(ns >= CLOSE * best for ns in readings)):
            return "numba"
        return None

    def _settle(self, c: int) -> None:
        """Decide class `c` once its readings suffice, and keep its record."""
        numpy = min([*self.numpy.get(c, []), *([self.pieces[c]] if c in self.pieces else [])], default=None)
        if c not in self.numba or numpy is None:
            return
        verdict = self._verdict(c)
        if verdict is not None:
            self.choice[c] = verdict
        numba = self.numba[c]
        self.record[c] = self.last = Trial(numba[0], numpy[0], (numba[1], numpy[1]), verdict)

    def call(self, batch: Batch, numba_kernel: Any, numpy_kernel: Callable[[], Any],
             run_kernel: Callable[[Any, Batch], Any], returns_tuple: bool) -> tuple[Any, str]:
        """Run the call as the race needs (the result, and the backend that ran most of it).
        `numpy_kernel()` builds the NumPy kernel, or gives None where it cannot race."""
        backend, timed = self.step(batch.size)
        other = numpy_kernel() if backend != "numba" else None
        if backend != "numba" and other is None:
            return run_kernel(numba_kernel, batch), "numba"
        if backend == "pieces":
            measured = run(batch, {"numba": numba_kernel, "numpy": other}, run_kernel, returns_tuple)
            if measured is None:  # a lane raised: the whole call raises it again (the next measures)
                return run_kernel(numba_kernel, batch), "numba"
            self.add_pieces(batch.size, measured[1])
            self.numba_warm = True
            return measured[0], measured[1].choice
        kernel = other if backend == "numpy" else numba_kernel
        began = time.perf_counter()
        result = run_kernel(kernel, batch)
        self.ran(batch.size, backend, time.perf_counter() - began if timed else None)
        return result, backend


# (backend, timed?) of each piece, in order; the rest of the call goes to the faster backend.
PLAN = (("numba", False), ("numba", False), ("numpy", False),
        ("numba", True), ("numpy", True), ("numba", True), ("numpy", True))


def pieces(size: int, numpy_chunk: int, threads: int) -> list[int]:
    """The length of each piece of PLAN in a call of `size` lanes (at least TRIAL_LANES): the NumPy
    warm-up and the timed pieces all have one length, and as many lanes are left after them for
    the confirming piece."""
    serial, parallel = 16, WARM_PARALLEL  # PARALLEL_MIN_LANES: codegen/numba_module.py
    piece = min(numpy_chunk * max(1, threads), (size - serial - parallel) // 6)
    return [serial, parallel, piece, piece, piece, piece, piece]


def _choice(per_lane: dict[str, float]) -> str:
    return "numpy" if per_lane["numpy"] < MARGIN * per_lane["numba"] else "numba"


def run(batch: Batch, kernels: dict[str, Any], run_kernel: Callable[[Any, Batch], Any],
        returns_tuple: bool) -> tuple[Any, Trial] | None:
    """The call's result and the measurement, or None when a piece raised (see the module docstring).
    `kernels` holds "numba" and "numpy" kernels with the same result types."""
    args = [batch.kernel_arg(i, True) for i in range(len(batch.arrays))]
    lanes = [not batch.uniform(i) for i in range(len(batch.arrays))]
    lengths = pieces(batch.size, chunk_lanes(kernels["numpy"].fn), threads())
    bounds = np.cumsum([0, *lengths]).tolist()

    def piece(kernel: Any, start: int, stop: int) -> tuple[list[np.ndarray], float]:
        sub = Batch(batch.names, [np.asarray(a[start:stop] if lane else a) for a, lane in zip(args, lanes)])
        began = time.perf_counter()
        result = run_kernel(kernel, sub)
        return (list(result) if returns_tuple else [result]), time.perf_counter() - began

    parts: list[list[np.ndarray]] = []
    per_lane: dict[str, float] = {"numba": float("inf"), "numpy": float("inf")}
    try:
        for (backend, timed), start, stop in zip(PLAN, bounds, bounds[1:]):
            values, seconds = piece(kernels[backend], start, stop)
            parts.append(values)
            if timed:
                per_lane[backend] = min(per_lane[backend], seconds / (stop - start) * 1e9)
        start = bounds[-1]
        if _choice(per_lane) == "numpy":  # a second look before leaving the static choice
            values, seconds = piece(kernels["numba"], start, start + lengths[-1])
            parts.append(values)
            per_lane["numba"] = min(per_lane["numba"], seconds / lengths[-1] * 1e9)
            start += lengths[-1]
        choice = _choice(per_lane)
        if start < batch.size:
            parts.append(piece(kernels[choice], start, batch.size)[0])
    except (*jit.compile_errors(), *jit.cache_load_errors()):
        raise  # the caller's handlers: NumPy instead of Numba, or a reload
    except Exception as exc:
        if not (from_a_lane(exc) or isinstance(exc, VectorizeError)):
            raise  # the runtime's own failure is not a lane's exception
        return None  # the caller runs the whole call, which raises it again
    outs = [np.concatenate([p[k] for p in parts]).reshape(batch.shape) for k in range(len(parts[0]))]
    result = tuple(outs) if returns_tuple else outs[0]
    return result, Trial(per_lane["numba"], per_lane["numpy"], (lengths[-1], lengths[-1]), choice)
