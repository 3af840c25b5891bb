"""Dask arrays in, dask arrays out, with the scalar loop's exception across chunks.

The graph has four layers, built without computing anything:

1. `lanes`: one `dask.array.blockwise` task per output block runs the vectorized function on the
   block's arguments (NumPy broadcasting and chunk alignment as Dask's elementwise operations do
   them). A lane's exception is not raised there: the task returns it as data, a *record*
   `(values, error)`, with the lane's index inside the block.
2. `where`: per block, the error (if any) placed in the whole array: its global index, its C-order
   flat position, and the lane note rewritten to name the global lane.
3. `first`: per row of blocks along the first axis, the earliest error (in C order) of rows 0..i.
   Every lane of row i comes after every lane of rows < i, and the lanes of one row interleave,
   so row i needs all of its blocks' errors. A chain, one small task a row: row i's entry is the
   earliest of row i-1's entry and row i's own errors. Dask's ordering then finishes each output
   block soon after its row's lanes have run, so a worker holds a few blocks whatever the size of
   the array (a scan over a binary tree of rows, logarithmic depth, made Dask run nearly every
   block before the first output: memory grew with the array; tests/engine/test_dask_memory.py).
4. one output array per result: a block is its record's values, or, when its own lanes failed,
   the raise of its row's `first` entry. Any block that fails therefore raises the same exception,
   the earliest failing lane's, whichever block Dask happens to run (or report) first.

Nothing is computed twice: the values stay in the record until the output block takes them. The
price of a static graph: every output block waits until the blocks of its row and of the rows
before it have run (their errors decide what it would raise), so a slice of the last row computes
the rows before it. Dtypes are known without computing: the function is
called once on empty arrays of the arguments' dtypes (its specialization's result types).
"""

from __future__ import annotations

import copy
import math
import re
import uuid
from functools import partial
from typing import Any

import numpy as np

from ...errors import (
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
)
from ...options import disabled
from ..inputs import InputError, canonical
from ..patch import LANE_NOTE, from_a_lane, kernel_failed

_LANE = re.compile(r"lane \(([-\d, ]*)\) of \(([\d, ]*)\)")
_REFUSED_AT = re.compile(r"on lane \(([-\d, ]*)\)")


def call(vf: Any, values: list[Any]) -> Any:
    """Dask arrays (one per result) for `vf` over `values`, some of which are dask arrays."""
    import dask.array as da
    from dask.base import tokenize

    names = list(vf.__signature__.parameters)
    args: list[Any] = []
    for name, v in zip(names, values):
        if isinstance(v, da.Array):
            args.append(_checked(name, v))
        elif type(v).__module__.partition(".")[0] == "dask":
            raise VectorizeInputError(f"argument {name!r}: a {type(v).__module__}.{type(v).__qualname__} is not a dask "
                                      "array (dask.array.Array); convert it first")
        else:
            try:
                arr = canonical(name, v)
            except InputError as exc:
                raise VectorizeInputError(str(exc)) from None
            args.append(arr if arr.ndim == 0 else da.from_array(arr, chunks=arr.shape))
    shapes = [a.shape for a in args]
    if any(math.isnan(n) for s in shapes for n in s):
        raise VectorizeValueError(f"{vf.scalar.__qualname__}: a dask argument has unknown chunk sizes; call "
                                  ".compute_chunk_sizes() first (a lane's global index needs them)")
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        detail = ", ".join(f"{n} {s}" for n, s in zip(names, shapes))
        raise VectorizeValueError(f"arguments do not broadcast to one shape: {detail}") from None
    returns_tuple, dtypes = structure(vf, args)
    ndim = len(shape)
    token = tokenize(_identity(vf), *args)
    pairs: list[Any] = []
    for a in args:
        pairs += [a, tuple(range(a.ndim))[::-1]] if isinstance(a, da.Array) else [a, None]
    records = da.blockwise(partial(_block, vf, returns_tuple, tuple(dtypes)), tuple(range(ndim))[::-1], *pairs,
                           dtype=object, meta=np.empty((0,) * ndim, dtype=object), name=f"vectorized-lanes-{token}",
                           align_arrays=True)
    outs = _assemble(records, shape, len(dtypes), token)
    arrays = [da.Array(graph, name, records.chunks, meta=np.empty((0,) * ndim, dtype=dt))
              for (graph, name), dt in zip(outs, dtypes)]
    return tuple(arrays) if returns_tuple else arrays[0]


def _checked(name: str, a: Any) -> Any:
    """A dask argument whose dtype a lane can take (its values are checked block by block)."""
    dt = a.dtype
    if dt.kind == "c":
        raise VectorizeInputError(f"argument {name!r}: complex numbers are not supported (the scalar function works "
                                  "on real numbers)")
    if dt.kind not in "biuf":
        raise VectorizeInputError(f"argument {name!r}: expected numbers, got {dt} values")
    if dt.itemsize > 8:
        raise VectorizeInputError(f"argument {name!r}: dtype {dt} has more precision than float64; convert it first")
    return a


def structure(vf: Any, args: list[Any]) -> tuple[bool, list[np.dtype]]:
    """(returns a tuple?, result dtypes) without computing: `vf` on empty arrays of the arguments'
    dtypes (a 0-d argument as it is), which builds the specialization a block runs."""
    empty = [a if getattr(a, "ndim", 0) == 0 and not hasattr(a, "dask") else np.empty((0,), a.dtype) for a in args]
    if all(getattr(a, "ndim", 0) == 0 for a in empty):
        empty[0] = np.empty((0,), np.asarray(empty[0]).dtype)
    try:
        result = vf.call_lanes(empty)
    except VectorizeValueError:
        if vf.backend != "python":
            raise
        raise _element_by_element(vf) from None
    values = result if isinstance(result, tuple) else (result,)
    for v in values:
        if np.ndim(v) != 1:
            raise VectorizeError(f"{vf.scalar.__qualname__} returns an array per lane: it does not take dask arrays yet")
    return isinstance(result, tuple), [np.asarray(v).dtype for v in values]


def _element_by_element(vf: Any) -> VectorizeError:
    """The refusal of a lazy call of `vf` that runs element by element where its source does not
    say what it returns (a closure, a lambda that cannot be read): its own refusal, and why."""
    def lazy(why: str) -> str:
        return (f"{vf.scalar.__qualname__} cannot take Dask or xarray arguments: it runs element by element "
                f"because {why}, and a lazy result needs the number and dtypes of its results before any lane "
                "runs, which only compiled code (or a source whose `return`s say) gives")

    also = "or map it over the blocks yourself: dask.array.map_blocks(f, x, dtype=...)"
    if disabled():
        return VectorizeError(lazy("VECTORIZER_DISABLE=1 is set"), hint=f"unset VECTORIZER_DISABLE, {also}")
    try:
        vf.source  # noqa: B018 - raises the refusal the last call ran element by element for
    except VectorizeError as refusal:
        found = copy.copy(refusal)
        found.reword(lazy(refusal.message), f"{refusal.hint}; {also}" if refusal.hint else also)
        return found
    return VectorizeError(lazy("its code did not compile"), hint=also)


def _identity(vf: Any) -> str:
    """What names the function in the graph's keys: its payload's digest (the source and globals it
    runs with), or a fresh name when it cannot travel (a nested function)."""
    from .travel import payload

    try:
        return payload(vf)["digest"]
    except VectorizeError:
        return uuid.uuid4().hex


def _block(vf: Any, returns_tuple: bool, dtypes: tuple[np.dtype, ...], *args: Any) -> tuple:
    """One block's record: (its result arrays, None), or (None, (rank, lane in the block, the
    exception, its notes as raised)) when a lane raised or a result cannot be stored. Ranks order
    the errors of different blocks: a bad argument value (0, before any lane), a lane's own
    exception (1), a refusal of a result the arrays cannot hold (2: the loop raises nothing there,
    so any lane's exception comes first, as in memory)."""
    try:
        for name, a in zip(vf.__signature__.parameters, args):  # in memory a bad value falls back to
            try:  # numpy.vectorize's objects (api.call_lanes); a graph promised dtypes: refuse it
                canonical(name, a)
            except InputError as exc:
                raise VectorizeInputError(str(exc)) from None
        result = vf.call_lanes(list(args))
    except VectorizeInputError as exc:  # a value no lane can take (a uint64 beyond int64): before any lane
        return None, (0, None, exc, list(getattr(exc, "__notes__", ())))
    except Exception as exc:
        found = _lane_of(exc)
        if found is None:
            raise
        return None, (*found, exc, list(getattr(exc, "__notes__", ())))
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    values = result if returns_tuple else (result,)
    stored = []
    for v, dt in zip(values, dtypes):
        v = np.broadcast_to(np.asarray(v), shape) if np.shape(v) != shape else np.asarray(v)
        lost = _not_stored(v, dt, vf)
        if lost is not None:
            exc = VectorizeOverflowError(f"{vf.scalar.__qualname__} returned {lost[1]} on lane {lost[0]}, which the "
                                         f"{dt} result of a dask array cannot hold exactly",
                                         hint="call it on in-memory arrays, or make the function return floats")
            return None, (2, lost[0], exc, [])
        stored.append(v if v.dtype == dt else v.astype(dt))
    return stored, None


def _lane_of(exc: BaseException) -> tuple[int, tuple[int, ...]] | None:
    """(rank, the block lane) a lane's exception or a refusal names; None for anything else
    (re-raised)."""
    if from_a_lane(exc) and not kernel_failed(exc):
        for note in getattr(exc, "__notes__", ()):
            if note.startswith(LANE_NOTE):
                found = _LANE.search(note)
                return 1, _ints(found.group(1)) if found else ()
    if isinstance(exc, (VectorizeOverflowError, VectorizeValueError)):
        found = _REFUSED_AT.search(str(exc))
        if found:
            return 2, _ints(found.group(1))
    return None


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.replace(" ", "").split(",") if p)


def _not_stored(v: np.ndarray, dtype: np.dtype, vf: Any) -> tuple[tuple[int, ...], str] | None:
    """The first lane (C order) of a block's result the promised dtype cannot hold, with its value,
    or None. A block may get another specialization than the empty arrays the dtypes came from (a
    block of one lane makes a size-1 argument non-uniform; the fallback types by values): ints
    become floats only where exact; anything else is a vectorizer bug."""
    if v.dtype == dtype or (dtype.kind in "iu" and v.dtype.kind == "b"):
        return None
    if dtype.kind == "f" and v.dtype.kind in "biu":
        if v.dtype.kind == "b" or not np.any(np.abs(v) > 2**53):
            return None
        converted = v.astype(dtype)
        inexact = (converted.astype(np.int64) != v) | (converted == 2.0**63)
        if not inexact.any():
            return None
        lane = np.unravel_index(int(np.argmax(inexact.ravel())), v.shape)
        return tuple(int(i) for i in lane), repr(v[lane].item())
    raise VectorizeError(f"{vf.scalar.__qualname__}: a block of a dask array gave {v.dtype} results where the graph "
                         f"promised {dtype}", code="VEC-BUG")


def _where(record: tuple, offsets: tuple[int, ...], shape: tuple[int, ...], chunk: tuple[int, ...]) -> tuple | None:
    """A block's error placed in the whole array: (rank, C-order flat index, the exception)."""
    error = record[1]
    if error is None:
        return None
    rank, local, exc, notes = error
    if local is None:  # an argument's value: before any lane of this block
        exc.__notes__ = [*notes, f"vectorizer: in the dask block at {offsets} of {shape}"]
        return rank, _flat(offsets, shape), exc
    local = (0,) * (len(offsets) - len(local)) + tuple(local)
    lane = tuple(o + i for o, i in zip(offsets, local))
    said = f"lane {local} of {chunk}"
    rewritten = [n.replace(said, f"lane {lane} of {shape}") if n.startswith(LANE_NOTE) else n for n in notes]
    if rewritten == notes and isinstance(exc, VectorizeError) and f"on lane {local}" in exc.message:
        exc = copy.copy(exc)  # a refusal names the lane in its message: a new one, from the original
        exc.reword(exc.message.replace(f"on lane {local}", f"on lane {lane}", 1))
    elif rewritten == notes:
        rewritten.append(f"vectorizer: lane {local} of its dask block {chunk} is lane {lane} of {shape}")
    exc.__notes__ = rewritten  # from the notes as raised: the same text if this task runs again
    return rank, _flat(lane, shape), exc


def _flat(index: tuple[int, ...], shape: tuple[int, ...]) -> int:
    return int(np.ravel_multi_index(index, shape)) if shape and 0 not in shape else 0


def _earliest(before: tuple | None, errors: list) -> tuple | None:
    found = [e for e in (before, *errors) if e is not None]
    return min(found, key=lambda e: (e[0], e[1])) if found else None


def _take(record: tuple, first: tuple | None, k: int) -> np.ndarray:
    """Output block `k` of a record, or the earliest failing lane's exception up to its row."""
    values, error = record
    if error is None:
        return values[k]
    raise first[2] if first is not None else error[2]


def _assemble(records: Any, shape: tuple[int, ...], count: int, token: str) -> list[tuple[Any, str]]:
    """The `where`, `first` and output layers over the blocks of `records` (module docstring)."""
    from dask.highlevelgraph import HighLevelGraph

    chunks = records.chunks
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int).tolist() for c in chunks]
    where, first = f"vectorized-where-{token}", f"vectorized-first-{token}"
    shared: dict[Any, Any] = {}
    rows: dict[int, list] = {}
    blocks = list(np.ndindex(*records.numblocks))
    for b in blocks:
        offsets = tuple(int(starts[d][i]) for d, i in enumerate(b))
        chunk = tuple(int(chunks[d][i]) for d, i in enumerate(b))
        shared[(where, *b)] = (_where, (records.name, *b), offsets, tuple(shape), chunk)
        rows.setdefault(b[0] if b else 0, []).append((where, *b))
    previous = None
    for r in sorted(rows):  # a chain: row r's earliest error after rows 0..r-1 (module docstring)
        shared[(first, r)] = (_earliest, previous, rows[r])
        previous = (first, r)
    outs = []
    for k in range(count):
        name = f"vectorized-{k}-{token}" if count > 1 else f"vectorized-{token}"
        layer = dict(shared)
        for b in blocks:
            layer[(name, *b)] = (_take, (records.name, *b), (first, b[0] if b else 0), k)
        outs.append((HighLevelGraph.from_collections(name, layer, dependencies=[records]), name))
    return outs
