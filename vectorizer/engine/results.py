"""The values a loop over the lanes returned, as the batched result (`assemble`, `loop_results`).

    [1.5, 2, 3.0]          -> float64 [1.5, 2.0, 3.0]   (ints that float64 holds exactly)
    [True, 2]              -> int64 [1, 2]
    [1.5, None]            -> object [1.5, None]        (numpy.vectorize gives [1.5, nan])
    ["low", "high"]        -> <U4 ["low", "high"]
    [(1, 2.5), (3, 0.5)]   -> (int64 [1, 3], float64 [2.5, 0.5])

Numbers keep the kinds and refusals of a batched result (engine/patch.py `store`): bools alone
are bool, ints (and bools) int64, anything with a float float64; an int beyond int64 in an int
result, an int float64 cannot hold exactly in a float result, a complex number: refused, naming
the first such lane. A value that is not a real number (None, a str, a Fraction, any object) on
some lane makes an object array of the loop's values as they are (all str: a str array): what
numpy.vectorize gives where its first lane's value is not a number, and never a conversion
(numpy.vectorize turns a later None into nan, where its first value is a float). A tuple on
every lane gives one result per position; the first lane's tuple says how many, and every lane
must then return a tuple that long. Values that are all Python floats (or all ints, or all bools)
go into the result a block of lanes at a time, as they come; others are converted once, the
whole column, to a known dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .inputs import lane_index
from .patch import LaneOverflowError, LaneValueError, store

if TYPE_CHECKING:
    from .batch import Batch

_SPECULATED = {float: np.float64, int: np.int64, bool: np.bool_}  # blocks of one such type: stored as they come
_FLOAT_RESULTS = frozenset({float, np.float64})  # the types of the common results, converted without a further look
_INT_RESULTS = frozenset({int, np.int64})
_PYTHON_NUMBERS = frozenset({bool, int, float})  # np.fromiter converts each as np.array does, a tenth faster


def assemble(run: Callable[[int, int], list[object]], block: int, batch: Batch, name: str) -> object:
    """The lanes' values, `run(start, stop)` a block of lanes at a time (C order), as arrays of
    `batch.shape`. While every value is a Python float (or every one an int, or every one a
    bool), each block goes straight into the result array; from the first block that is not so,
    the values so far come back out of it (`.tolist()`: the same Python values) and the whole
    column is converted at the end."""
    out, held, done = None, None, 0
    values: list[object] | None = None
    seen: set[type] = set()  # the types of every value so far: the column's are never looked at twice
    for start in range(0, batch.size, block):
        found = run(start, min(start + block, batch.size))
        kinds = _types_of(found, len(seen) == 1 if seen else None)
        seen |= kinds
        if values is None:
            if out is None and len(kinds) == 1 and next(iter(kinds)) in _SPECULATED:
                dtype = _SPECULATED[next(iter(kinds))]
                if len(found) == batch.size:  # the one block: converted, it is the result (no copy)
                    try:
                        out, done = np.fromiter(found, dtype, batch.size), batch.size
                        continue
                    except OverflowError:  # an int beyond int64: as values, refused by loop_results
                        pass
                else:
                    out, held = np.empty(batch.size, dtype=dtype), kinds
            if out is not None and kinds == held and _stored(out, done, found):
                done += len(found)
                continue
            values = out[:done].tolist() if out is not None else []
        values += found
    if values is None:
        out = out.reshape(batch.shape)  # type: ignore[union-attr]
        return out[()] if batch.shape == () else out
    return loop_results(values, batch, name, seen)


def _types_of(values: list[object], alike: bool | None = None) -> set[type]:
    """`set(map(type, values))`, a third cheaper where every value has the first one's type (the
    common case): the types listed, then counted (an identity test each, no hashing). Where
    they are likely of more than one type (`alike` False; None: every 61st value says), the set."""
    if alike is None:
        alike = len(set(map(type, values[::61]))) == 1
    if not alike:
        return set(map(type, values))
    found = [*map(type, values)]
    return {found[0]} if found and found.count(found[0]) == len(found) else set(found)


def _stored(out: np.ndarray, done: int, block: list[object]) -> bool:
    """Store a block of Python floats (ints, bools) at `done`; False for an int beyond int64.
    `np.fromiter` then a copy: converting into a slice costs up to twice as much (bools)."""
    try:
        out[done:done + len(block)] = np.fromiter(block, out.dtype, len(block))
    except OverflowError:
        return False
    return True


def loop_results(values: list[object], batch: Batch, name: str, kinds: set[type] | None = None) -> object:
    """The lanes' values (C order, at least one) as arrays of `batch.shape`; `kinds`: their types
    where known."""
    first = values[0]
    kinds = _types_of(values) if kinds is None else kinds
    if isinstance(first, tuple):
        width = len(first)
        if not all(issubclass(k, tuple) for k in kinds) or [*map(len, values)].count(width) != len(values):
            j = next(j for j, v in enumerate(values) if not isinstance(v, tuple) or len(v) != width)
            got = f"a tuple of {len(values[j])}" if isinstance(values[j], tuple) else type(values[j]).__name__
            raise LaneValueError(f"{name} returned a tuple of {width} on lane {lane_index(0, batch.shape)} but {got} "
                                 f"on lane {lane_index(j, batch.shape)}: a batched result is a tuple of arrays when "
                                 "every lane returns a tuple of the same length")
        # not zip(*values): it would make an iterator per lane, which the GC then walks
        columns = [[v[k] for v in values] for k in range(width)]
        try:
            return tuple(_column(c, batch, name) for c in columns)
        except (LaneOverflowError, LaneValueError):  # a position's own first refusal: the loop's is the first lane's
            _first_refusal(columns, batch, name)
            raise
    return _column(values, batch, name, kinds)


def _first_refusal(columns: list[list[object]], batch: Batch, name: str) -> None:
    """Raise the refusal of the first lane (C order; on a lane, its first position) whose tuple
    the result arrays cannot hold, as the loop meets it, where each position's conversion names
    its own first (an int beyond int64 at position 1 on lane 1, another at position 0 on lane 2)."""
    kinds = [_kind(_types_of(c)) for c in columns]
    for j in range(len(columns[0])):
        for c, kind in zip(columns, kinds):
            if kind in ("int", "float", "complex"):
                v = c[j]
                store(v.item() if isinstance(v, np.generic) else v, kind, name, j, batch)


def _column(values: list[object], batch: Batch, name: str, kinds: set[type] | None = None) -> object:
    """One result's values as an array of `batch.shape` (a NumPy scalar for shape ())."""
    if isinstance(values[0], np.ndarray):  # a lane's own array (vmap, signature=)
        return np.array(values).reshape(batch.shape + np.shape(values[0]))
    kinds = _types_of(values) if kinds is None else kinds
    if kinds <= _FLOAT_RESULTS:  # the common cases first: no further look at the types
        out = np.fromiter(values, np.float64, len(values))
    elif kinds <= _INT_RESULTS:
        out = _numbers(values, kinds, "int", batch, name)
    else:
        out = _other(values, kinds, batch, name)
    out = out.reshape(batch.shape)
    return out[()] if batch.shape == () else out


def _other(values: list[object], kinds: set[type], batch: Batch, name: str) -> np.ndarray:
    """Values of other kinds (bools, mixed, NumPy scalars, objects) as a flat array."""
    kind = _kind(kinds)
    if kind == "object":
        return np.fromiter(values, dtype=object, count=len(values))
    if kind == "str":
        return np.array(values, dtype=str)
    return _numbers(values, kinds, kind, batch, name)


def _kind(kinds: set[type]) -> str:
    """The result kind of values of these types: bool, int, float, complex (refused), str or object."""
    found = set()
    for k in kinds:
        if issubclass(k, (bool, np.bool_)):
            found.add("bool")
        elif issubclass(k, (int, np.integer)):
            found.add("int")
        elif issubclass(k, (float, np.floating)) and k is not np.longdouble:  # float64 holds it exactly
            found.add("float")
        elif issubclass(k, (complex, np.complexfloating)):
            found.add("complex")
        elif issubclass(k, str):
            found.add("str")
        else:
            return "object"
    if "str" in found:
        return "str" if found == {"str"} else "object"
    if "complex" in found:
        return "complex"
    return "bool" if found == {"bool"} else "int" if found <= {"bool", "int"} else "float"


def _numbers(values: list[object], kinds: set[type], kind: str, batch: Batch, name: str) -> np.ndarray:
    """Numbers as bool, int64 or float64, or the refusal of the first lane those cannot hold."""
    exact = kinds <= _INT_RESULTS or kinds == {bool}  # np.fromiter: one conversion an item, as fast as it gets
    if kind == "bool":
        return np.fromiter(values, np.bool_, len(values)) if exact else np.array(values, dtype=np.bool_)
    if kind == "int":
        try:
            return np.fromiter(values, np.int64, len(values)) if exact else np.array(values, dtype=np.int64)
        except OverflowError:  # an int beyond int64
            _refuse(values, kind, batch, name)
    if kind == "complex":
        _refuse(values, kind, batch, name)
    try:
        out = np.fromiter(values, np.float64, len(values)) if kinds <= _PYTHON_NUMBERS else np.array(values, dtype=np.float64)
    except OverflowError:  # an int beyond float64's range
        _refuse(values, kind, batch, name)
    if any(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds):
        # ints below 2**53 in magnitude are exact; only the lanes at or beyond it are looked at
        for j in np.flatnonzero(~(np.abs(out) < 2.0**53)).tolist():
            v = values[j]
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                store(int(v), kind, name, j, batch)  # raises unless float64 holds it exactly
    return out


def _refuse(values: list[object], kind: str, batch: Batch, name: str) -> None:
    """Raise the refusal of the first lane a `kind` result cannot hold (a conversion failed)."""
    for j, v in enumerate(values):
        store(v.item() if isinstance(v, np.generic) else v, kind, name, j, batch)
    raise LaneValueError(f"{name}'s results do not convert to one {kind} array")  # pragma: no cover - store raised
