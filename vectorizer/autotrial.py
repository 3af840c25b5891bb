"""`backend="auto"` on large calls: time both backends on pieces of the first one, keep the faster.

The static choice (costmodel.py) cannot see the data. A `while` loop whose lanes all run about as
many iterations (a bisection to a relative tolerance) favours the NumPy backend on large batches:
its masked loop moves every lane at SIMD speed, while a Numba lane waits on its own chain of
dependent steps (cubic_root_bisect, 1e6 lanes on 2 AVX2 cores: 229 vs 310 ns a lane). Lanes whose
trip counts differ a lot favour Numba (mandelbrot_escape: 225 vs 72), and so does every batch of
a few thousand lanes, where NumPy's cost per operation dominates (cubic_root_bisect at 1e3 lanes:
2215 vs 178 ns a lane).

So when auto picked Numba, the first call of a specialization with at least TRIAL_LANES lanes is
split into pieces (`pieces`): lanes on Numba to compile or load its two drivers, a piece on NumPy
to warm its memory (a first NumPy run pays a page fault for each new page of temporaries), then
two timed pieces on each backend, alternating, and the rest on the faster. Every timed piece has
the same length, so that each backend's cost per call weighs the same in its time a lane: Numba's
worker threads, asleep after a NumPy piece, take 0.3-0.6 ms to wake on this VM. With Numba pieces
of 65,536 lanes and NumPy's of 256K, poly_horner (~1 ns a lane on Numba, ~7 on NumPy, at 1e6)
read a median of 10 ns a lane on Numba and 2.1x that on NumPy over 10 fresh processes, and once
went to NumPy at 6.5x the cost; with one length, 6.5 ns and 3.5x. Each backend's time is
the faster of its pieces: this host's other load only ever slows a piece down, and alternating
puts a slow stretch of a few hundred milliseconds on both backends' readings instead of one (a
single NumPy reading once sent cubic_root_bisect to NumPy at 1.6x the cost). NumPy's pieces are
at most as large as its own chunking makes them in a call this size (one chunk a thread), as its
time a lane depends on that; in a call of fewer than ~1.6M lanes they are smaller, and those of a
kernel without libm-class calls may run on one thread (`runtime.parallel_min_lanes`), which leans
the trial towards Numba. Where NumPy looks faster, one more Numba piece is timed before
switching: a parallel piece that shares the cores with another program's threads can take a
whole scheduler time slice. Later calls of at least TRIAL_LANES lanes use the faster; smaller
ones stay on Numba.

Every lane is computed once, on one backend, and keeps the value contract there (DESIGN.md §1: the
backends agree bit for bit except in transcendental functions, each within its ulp bound). If a
piece raises (a lane's own exception), the trial ends without a choice and the whole call runs
again on Numba, which raises from the first failing lane and names it by its place in the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from . import jit, runtime
from .errors import VectorizeError

TRIAL_LANES = runtime.TRIAL_LANES  # smaller calls keep the static choice (and the fast path)
WARM_PARALLEL = 1 << 15  # the untimed parallel Numba piece: above every PARALLEL_MIN_LANES
MARGIN = 0.95  # a near tie is noise: Numba keeps it (a wrong pick then costs at most 1/MARGIN)


class Trial(NamedTuple):
    numba_ns: float  # time a lane on each backend (its fastest timed piece)
    numpy_ns: float
    lanes: tuple[int, int]  # lanes of each timed piece on each
    choice: str


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


def run(batch: runtime.Batch, kernels: dict[str, Any], run_kernel: Callable[[Any, runtime.Batch], Any],
        returns_tuple: bool) -> tuple[Any, Trial] | None:
    """The call's result and the measurement, or None when a piece raised (see the module docstring).
    `kernels` holds "numba" and "numpy" kernels with the same result types."""
    args = [batch.kernel_arg(i, True) for i in range(len(batch.arrays))]
    lanes = [not batch.uniform(i) for i in range(len(batch.arrays))]
    lengths = pieces(batch.size, runtime.chunk_lanes(kernels["numpy"].fn), runtime.threads())
    bounds = np.cumsum([0, *lengths]).tolist()

    def piece(kernel: Any, start: int, stop: int) -> tuple[list[np.ndarray], float]:
        sub = runtime.Batch(batch.names, [np.asarray(a[start:stop] if lane else a) for a, lane in zip(args, lanes)])
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
        if not (runtime.from_a_lane(exc) or isinstance(exc, VectorizeError)):
            raise  # the runtime's own failure is not a lane's exception
        return None  # the caller runs the whole call, which raises it again
    outs = [np.concatenate([p[k] for p in parts]).reshape(batch.shape) for k in range(len(parts[0]))]
    result = tuple(outs) if returns_tuple else outs[0]
    return result, Trial(per_lane["numba"], per_lane["numpy"], (lengths[-1], lengths[-1]), choice)
