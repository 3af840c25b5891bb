"""The loop over a batch's lanes (`per_element`), at the speed of the loop a user would write.

The fallback (a function the engine refuses), VECTORIZER_DISABLE=1 and calls on objects run the
scalar function on each lane, in C order, on the values this loop passes:

    [f(*lane) for lane in zip(*[np.broadcast_to(a, shape).ravel().tolist() for a in arrays])]

Each block of `LOOP_BLOCK` lanes turns each argument into Python values with one `.tolist()` (an
argument that is the same on every lane: its one value, repeated), and `map` calls the function
from C; the values become the result's arrays in one conversion a block, or of the whole column
(engine/results.py). The first lane that raises propagates its exception, with a note naming the
lane and its arguments. Python objects held at once: one block's (or, for results that are not
all floats, ints or bools, the results' and one block's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .batch import Batch, UnknownResultError, call_lane
from .patch import LANE_NOTE, Result
from .results import assemble

LOOP_BLOCK = 1 << 13  # lanes a block: their arguments and values stay in the CPU's caches


def per_element(scalar: Callable[..., object], batch: Batch,
                structure: tuple[bool, Sequence[str]] | None = None) -> object:
    """The reference loop: the scalar function on each lane's values, in C order.

    The results' structure comes from the results themselves; an empty batch has none, so it
    takes `structure`, (returns a tuple?, result types) as a kernel gives them, and raises
    `UnknownResultError` when that is None rather than guess one array or a tuple."""
    name = getattr(scalar, "__qualname__", "the function").removeprefix("_scalar_")  # standalone copies
    if batch.size == 0:
        return _empty(name, batch, structure)
    return assemble(lane_runner(scalar, batch, name), LOOP_BLOCK, batch, name)


def lane_runner(scalar: Callable[..., object], batch: Batch, name: str) -> Callable[[int, int], list[object]]:
    """`run(start, stop)`: the scalar function's values on the flat lanes [start, stop), in C
    order. A function, not a generator: a StopIteration a lane raises must propagate as it is."""
    lane_fn = positional_call(scalar, batch.names)
    sources = [_source(batch, i) for i in range(len(batch.arrays))]

    def run(start: int, stop: int) -> list[object]:
        if not sources:  # no argument: one lane
            return [_checked_call(lane_fn, batch, name, [], 0)]
        columns = [s(start, stop) for s in sources]
        iters = [iter(c) for c in columns]
        values: list[object] = []
        while len(values) < stop - start:
            try:
                values += map(lane_fn, *iters)  # the loop, in C; a raising lane leaves the lanes before it
            except Exception as exc:
                _note(exc, name, batch, columns, start + len(values), start)
                raise
            if len(values) < stop - start:  # map stops at a StopIteration the function raised: that
                j = start + len(values)     # lane is re-run (as flag-and-patch re-runs one) for its exception
                values.append(_checked_call(lane_fn, batch, name, [c[j - start] for c in columns], j))
        return values

    return run


def positional_call(scalar: Callable[..., object], names: Sequence[str]) -> Callable[..., object]:
    """The scalar function taking one value per name, in order: itself when its positional
    parameters take them all, else a function that passes the rest by name (keyword-only
    parameters, after `*`), as a loop's call `f(a, b, k=c)` does."""
    code = getattr(scalar, "__code__", None)
    positional = code.co_argcount if code is not None else len(names)
    if positional >= len(names):
        return scalar
    if not all(n.isidentifier() for n in names):  # pragma: no cover - parameter names always are
        return lambda *lane: call_lane(scalar, names, lane)
    params = [f"_{k}" for k in range(len(names))]
    passed = params[:positional] + [f"{n}={p}" for n, p in zip(names[positional:], params[positional:])]
    adapter = eval(f"lambda {', '.join(params)}: _f({', '.join(passed)})", {"_f": scalar})  # noqa: S307 - identifiers only
    adapter.__qualname__ = getattr(scalar, "__qualname__", "lane")
    return adapter


def _source(batch: Batch, i: int) -> Callable[[int, int], list[object]]:
    """Argument `i`'s values on the flat lanes [start, stop) as a loop passes them: Python
    values (`.tolist()`), or a copy of each lane's own array."""
    a, example = batch.arrays[i], batch.example_shape(i)
    if batch.ndims[i]:
        full = np.broadcast_to(a, batch.shape + example).reshape((batch.size, *example))
        return lambda start, stop: [np.array(item) for item in full[start:stop]]
    if a.size == 1:  # one value for every lane
        value = a.reshape(()).tolist()
        return lambda start, stop: [value] * (stop - start)
    flat = (a if a.shape == batch.shape else np.broadcast_to(a, batch.shape)).reshape(-1)  # a copy if not contiguous
    return lambda start, stop: flat[start:stop].tolist()


def _checked_call(lane_fn: Callable[..., object], batch: Batch, name: str, lane: list[object], j: int) -> object:
    """One lane's value, its exception noted with the lane."""
    try:
        return lane_fn(*lane)
    except Exception as exc:
        _note(exc, name, batch, [[v] for v in lane], j, j)
        raise


def _note(exc: BaseException, name: str, batch: Batch, columns: list[list[object]], j: int, start: int) -> None:
    """Name the lane `j` (`columns` hold the lanes from `start`) in the exception's notes."""
    args = ", ".join(f"{n}={_short(repr(c[j - start]))}" for n, c in zip(batch.names, columns))
    exc.add_note(f"{LANE_NOTE}{name} on {batch.where(j)}" + (f" ({args})" if args else ""))


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _empty(name: str, batch: Batch, structure: tuple[bool, Sequence[str]] | None) -> object:
    """The results of an empty batch, shaped as `structure` says (per-example sizes are unknown:
    an array result per lane gets size-0 dimensions of its rank)."""
    if structure is None:
        raise UnknownResultError(
            f"{name} ran element by element on an empty batch (shape {batch.shape}): "
            "with no lane to run, whether it returns one value or a tuple is unknown; "
            "give it a non-empty batch, or return a tuple literal (`return a, b`) so its source says so")
    returns_tuple, result_types = structure
    outs = [np.empty(batch.shape + (0,) * r.rank, dtype=r.dtype) for r in map(Result, result_types)]
    return tuple(outs) if returns_tuple else outs[0]
