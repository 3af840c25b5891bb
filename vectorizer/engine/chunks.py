"""Large batches run in chunks on a thread pool (lanes are independent, so the bits are the same),
with sizes chosen by kernel; an allocator tweak."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..runtime.helpers import HEAVY_CALLS

if TYPE_CHECKING:
    import types

# Lanes per kernel call: each chunk's loops end when its own lanes finish, and its temporaries
# stay in cache. Measured on 2 cores at 1e6 lanes (ms, 32K / 64K / 128K / 256K lanes a chunk):
# mandelbrot 336/277/197/317, is_prime 449/260/158/164, poly_horner 6.0/4.8/3.1/2.8, haversine
# 30/29/38/78, softplus 8.0/6.9/7.1/8.4. Fewer, larger chunks pay for the Python-level cost of each
# masked-loop iteration; too few leave a thread idle. Kernels with a masked loop (`while
# np.any(...)`) take CHUNK_LOOP: each iteration costs every chunk ~1 µs an operation, whatever its
# lanes, and a long tail of a few lanes runs as many iterations in each chunk (ms, 128K / 256K /
# 512K: is_prime 218/152/114, mandelbrot 194/164/211, collatz 722/698/897, orbit 135/123/131,
# kepler 109/112/119, cubic_root_bisect 154/164/258).
CHUNK = 1 << 17
CHUNK_LOOP = 1 << 18
# A kernel that is one expression (`return (((c8 * x + c7) * x + ...), None)`) has every
# temporary elided by NumPy (an operand no name holds is overwritten in place): one buffer a
# chunk, which need not fit in cache, so fewer, larger chunks cost less. poly_horner on 2 threads
# (ns a lane, chunks of 128K / 256K / 512K / 1M lanes; three runs): 1e6 3.3-3.8 / 2.5-3.2 /
# 2.1-3.0 / 2.1-3.4, 3e6 2.6-3.1 / 2.1-2.5 / 2.1-2.4 / 2.7-3.2, 1e7 3.1-4.9 / 3.2-3.7 / 2.5-3.4 /
# 3.1-3.9; hand NumPy 2.4-3.1, 4.6-6.1, 7.0-7.3.
CHUNK_EXPRESSION = 1 << 19
_pool = None
_allocator_ready = False
_cpus = 0


def ready_allocator() -> None:
    """Free one large block, once (the first large batch), so that glibc keeps the memory of
    freed temporaries.

    glibc's malloc gives freed memory back to the OS once more than a threshold of it sits at
    the top of the heap, and every page of it faults again when the next temporaries are
    allocated (~1.7 µs a page in this project's VM: half the time of a kernel made of many
    temporaries). The threshold adapts to the largest block freed, up to 32 MB, as in any
    process that frees one large array; until then it is 2 MB or less, below one chunk's
    temporaries. An untouched block costs a mmap and a munmap; other allocators are unaffected.
    """
    global _allocator_ready
    if _allocator_ready:
        return
    _allocator_ready = True
    block = np.empty(3 << 20)  # 24 MB
    del block


def threads() -> int:
    """Threads for a large batch: VECTORIZER_THREADS (read on every call), else the CPU count.
    The count is read once: os.cpu_count() reads sysfs, ~30 µs on this project's VMs, which was
    most of a small call's dispatch."""
    global _cpus
    import os

    if not _cpus:
        _cpus = os.cpu_count() or 1
    try:
        return max(1, int(os.environ.get("VECTORIZER_THREADS", "") or _cpus))
    except ValueError:
        return 1


def map_chunks(fn: Callable[[int], object], starts: range) -> list:
    """fn over chunk starts, in order, on a thread pool when there are cores (NumPy drops the GIL)."""
    global _pool
    count = min(threads(), len(starts))
    if count <= 1:
        return [fn(start) for start in starts]
    if _pool is None or _pool._max_workers != count:  # type: ignore[attr-defined]
        from concurrent.futures import ThreadPoolExecutor

        _pool = ThreadPoolExecutor(count, thread_name_prefix="vectorizer")
    return [future.result() for future in [_pool.submit(fn, start) for start in starts]]


# Below this many lanes a batch runs as one piece. Measured (ms, one piece vs two threads):
# mandelbrot 12.7 vs 14.8 at 40,000 lanes (a loop of many small steps contends for the GIL),


PARALLEL_MIN_LANES = 1 << 16
# Kernels without a call to a libm-class function (`HEAVY_CALLS`) split later: their operations
# are a pass over memory each, which a second thread shares rather than speeds up, and the two
# threads take turns at the GIL between passes. Measured at 1e5 lanes, time on two threads /
# one (paired, interleaved in one process): poly_horner 1.86, is_prime 2.04, mandelbrot 1.35,
# quadratic_root 1.20, smoothstep 1.12, collatz 1.00, cubic_root_bisect 0.91; the kernels
# calling exp/log/pow/sin/erfc 0.61-0.87. At 1.6e5 the light ones range 0.74-1.74, at 2.5e5
# 0.74-0.96.
PARALLEL_MIN_LANES_LIGHT = 1 << 17
# NumPy functions that are AVX-512 SIMD kernels where `simd_math()` (engine/costmodel.py's
# SIMD_MATH, by the names generated code calls them)
SIMD_CALLS = frozenset({"exp", "expm1", "log", "log1p", "log2", "log10", "power"})
_simd_found = None  # simd_math(), once read


def chunk_starts(size: int, chunk: int = CHUNK, min_lanes: int = PARALLEL_MIN_LANES) -> range | None:
    """Where each chunk starts (its length is the range's step), or None to run in one piece:
    chunks of at most `chunk` lanes, and at least one per thread from `min_lanes` lanes."""
    count = threads()
    if size > 2 * chunk:
        return range(0, size, chunk)
    if count > 1 and size >= min_lanes:
        step = -(-size // count)
        return range(0, size, step)
    return None


def parallel_min_lanes(kernel: Callable) -> int:
    """PARALLEL_MIN_LANES for a generated NumPy kernel that calls a HEAVY_CALLS function, else
    PARALLEL_MIN_LANES_LIGHT. Only speed depends on it: lanes are independent.

    Where NumPy runs exp, log, log1p and power as AVX-512 SIMD kernels (~1 ns a lane), a kernel
    without a masked loop that calls only those (`SIMD_CALLS`) counts as light: each call is one
    more pass over memory. Measured at 1e5 lanes (bench, NumPy backend / hand NumPy; two threads
    -> one): softplus 2.95/2.69 -> 1.34/1.92, drag_coefficient 0.80/0.78 -> 0.63/0.59, and
    simpson_gauss, whose loop is uniform (a `for` over a constant range: each iteration a few
    passes), 1.24/1.29/1.35/0.78/1.27 -> 1.10/1.14; kernels whose masked loops call them keep the
    threads (zeta_partial 1.00/0.93 against 1.75/1.74)."""
    code = getattr(kernel, "__code__", None)
    if code is None:
        return PARALLEL_MIN_LANES
    heavy = HEAVY_CALLS.intersection(code.co_names)
    if not heavy:
        return PARALLEL_MIN_LANES_LIGHT
    if heavy <= SIMD_CALLS and simd_math() and not masked_loop(code):
        return PARALLEL_MIN_LANES_LIGHT
    return PARALLEL_MIN_LANES


def simd_math() -> bool:
    """NumPy runs its float64 exp/log/pow as AVX-512 SIMD kernels on this CPU (as NumPy reports
    it: NPY_DISABLE_CPU_FEATURES turns them off). Read once."""
    global _simd_found
    if _simd_found is None:
        try:
            from numpy._core._multiarray_umath import __cpu_features__ as features
        except ImportError:  # NumPy 1.x
            from numpy.core._multiarray_umath import __cpu_features__ as features
        _simd_found = bool(features.get("AVX512F")) and bool(features.get("AVX512_SKX"))
    return _simd_found


def masked_loop(code: types.CodeType) -> bool:
    """The code (or code nested in it) has a masked loop: `while np.any(active):`."""
    return "any" in code.co_names or any(masked_loop(c) for c in code.co_consts if hasattr(c, "co_names"))


def chunk_lanes(kernel: Callable) -> int:
    """CHUNK_LOOP for a generated NumPy kernel with a masked loop (`while np.any(active):`),
    CHUNK_EXPRESSION for one that is a single expression (no local but its parameters), else
    CHUNK. Only speed depends on it: lanes are independent."""
    code = getattr(kernel, "__code__", None)
    if code is None:
        return CHUNK
    if masked_loop(code):
        return CHUNK_LOOP
    return CHUNK_EXPRESSION if code.co_nlocals == code.co_argcount else CHUNK
