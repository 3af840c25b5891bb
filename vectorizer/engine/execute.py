"""What runs around a generated kernel: canonical inputs in, flag-and-patch out.

1. Inputs are canonicalised (engine/inputs.py). Arrays broadcast against each other; a 0-d or
   all-ones input is uniform (one value for every lane).
2. The kernel runs on flat lanes under `np.errstate(all="ignore")`: Python float arithmetic never
   warns, so neither does the batched code.
3. The kernel returns its result and a `flag` array: lanes where Python might raise, or where the
   array result might not be exact; the flagged lanes are re-run with the scalar function
   (engine/patch.py).

Standalone modules (`vectorizer generate`) carry a copy of `call` and what it calls: NumPy only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .batch import Batch
from .chunks import (
    chunk_lanes,
    chunk_starts,
    map_chunks,
    parallel_min_lanes,
    ready_allocator,
)
from .inputs import as_kind, canonical
from .patch import KERNEL_FAILED, Result, aliases, exact_ints, patch_lanes


def _call_kernel(kernel: Callable, args: Sequence[object]) -> tuple[object, object]:
    """The kernel's (result, flag); its own exceptions are marked so that the caller can fall back
    (a generated kernel never raises for a lane: it flags it)."""
    try:
        with np.errstate(all="ignore"):
            return kernel(*args)
    except MemoryError:
        raise
    except Exception as exc:
        exc.add_note(KERNEL_FAILED)
        raise


def call(
    kernel: Callable[..., tuple[object, object]],
    scalar: Callable[..., object],
    names: Sequence[str],
    values: Sequence[object],
    kinds: str,
    result_types: Sequence[str],
    returns_tuple: bool,
    chunked: bool = True,
) -> object:
    """Entry point of a generated module's function: typed arguments, every argument batched.
    Numba kernels pass `chunked=False`: their parallel driver splits the batch itself."""
    arrays = [as_kind(n, canonical(n, v), k) for n, v, k in zip(names, values, kinds)]
    name = scalar.__name__.removeprefix("_scalar_")  # generated modules name their copies _scalar_<f>
    return run(kernel, scalar, Batch(names, arrays), result_types, returns_tuple, name, uniform=False, chunked=chunked)


def run(
    kernel: Callable[..., tuple[object, object]],
    scalar: Callable[..., object],
    batch: Batch,
    result_types: Sequence[str],
    returns_tuple: bool,
    qualname: str,
    uniform: bool = True,
    chunked: bool = True,
) -> object:
    """Run the kernel on flattened lanes, patch flagged lanes with the scalar function, reshape.

    With `uniform`, single-value arguments are passed as they are (the kernel was specialized for
    them); otherwise every argument gets a lanes axis. With `chunked`, large batches run in chunks
    (`chunk_starts`), on threads (lanes are independent, so results are the same bits); a chunk's
    error is raised before any later chunk's, as the lanes' order requires."""
    results = [Result(t) for t in result_types]
    args = [batch.kernel_arg(i, uniform) for i in range(len(batch.arrays))]
    lanes_axis = [not (uniform and batch.uniform(i)) for i in range(len(batch.arrays))]
    size = batch.size
    if chunked and size >= 1 << 14:
        ready_allocator()
    starts = chunk_starts(size, chunk_lanes(kernel), parallel_min_lanes(kernel)) if chunked and any(lanes_axis) else None
    if starts is not None:
        import threading  # here: a standalone module's copy imports only what its code reads

        step = starts.step
        outs: list[np.ndarray] = []
        flags = np.zeros(size, dtype=np.bool_)
        first = threading.Lock()

        def one(start: int) -> None:
            stop = min(start + step, size)
            part = [a[start:stop] if b else a for a, b in zip(args, lanes_axis)]
            result, flag = _call_kernel(kernel, part)
            values = list(result) if returns_tuple else [result]
            flag = exact_ints(values, results, flag, stop - start)
            values = [r.lanes(v, stop - start) for r, v in zip(results, values)]
            with first:  # the first chunk done fixes the result shapes (the same for every chunk)
                if not outs:
                    outs.extend(np.empty((size, *v.shape[1:]), dtype=r.dtype) for r, v in zip(results, values))
            for out, value in zip(outs, values):
                out[start:stop] = value  # each thread copies its own chunk
            if flag is not None:
                flags[start:stop] = flag

        map_chunks(one, starts)
        flag = flags
    else:
        result, flag = _call_kernel(kernel, args)
        values = list(result) if returns_tuple else [result]
        flag = exact_ints(values, results, flag, size)
        outs = []
        for r, v in zip(results, values):
            arr = r.lanes(v, size)
            outs.append(arr.copy() if aliases(arr, (*args, *outs)) else arr)
    if flag is not None and np.any(flag):
        patch_lanes(scalar, batch, np.flatnonzero(np.broadcast_to(flag, (size,))), outs, results, returns_tuple, qualname)
    shaped = [o.reshape(batch.shape + o.shape[1:]) for o in outs]
    if batch.shape == ():
        shaped = [o[()] for o in shaped]
    return tuple(shaped) if returns_tuple else shaped[0]
