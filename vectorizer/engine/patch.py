"""Flag and patch: each lane a kernel flags, in C order, is re-run through the ORIGINAL scalar
function (called as a loop would: keyword-only parameters by name): if it raises, that exception
propagates (with a note naming the lane), exactly as the first failing lane of a loop would raise
it; if it returns, its value patches the lane. Standalone modules carry a copy: NumPy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .inputs import INT64_MAX, INT64_MIN, lane_index

if TYPE_CHECKING:
    from .batch import Batch


DTYPES = {"bool": np.bool_, "int": np.int64, "float": np.float64, "num": np.float64}


class LaneOverflowError(OverflowError):
    """A lane's exact result does not fit the result array (int64, or float64 for mixed values)."""


class LaneValueError(ValueError):
    """A lane's result is not a real number (e.g. complex)."""


LANE_NOTE = "vectorizer: raised by "
KERNEL_FAILED = LANE_NOTE + "the generated code itself, not by the scalar function"


def kernel_failed(exc: BaseException) -> bool:
    """The exception came out of a generated kernel (an engine bug), not from re-running a lane."""
    return KERNEL_FAILED in getattr(exc, "__notes__", ())


def from_a_lane(exc: BaseException) -> bool:
    """The exception came out of a generated kernel or the scalar function re-run on a lane (the
    notes `_call_kernel` and `patch_lanes` add), not from the runtime itself."""
    return any(note.startswith(LANE_NOTE) for note in getattr(exc, "__notes__", ()))


class Result:
    """One returned value: "float" (a number per lane) or "float:2:b" (an array per lane;
    b: the kernel gives it with a lanes axis, u: one array for every lane)."""

    def __init__(self, descriptor: str) -> None:
        kind, _, rest = descriptor.partition(":")
        self.dtype = DTYPES[kind]
        self.kind = kind
        self.rank = int(rest.split(":")[0]) if rest else 0
        self.batched = rest.endswith(":b") if rest else True

    def lanes(self, value: object, size: int) -> np.ndarray:
        """The value as a fresh array with a lanes axis (the kernel may give one value for all)."""
        arr = np.asarray(value)
        if self.rank and not self.batched:
            arr = arr[None]  # the same array for every lane
        if arr.shape[:1] == (size,) and arr.ndim == self.rank + 1 and arr.dtype == self.dtype \
                and arr.flags.writeable and owns_memory(arr):
            return arr  # already a fresh array of the kernel's own
        lanes = np.broadcast_to(arr, (size, *arr.shape[1:]) if arr.ndim == self.rank + 1 else (size,))
        if arr.dtype.kind == "f" and self.kind in ("int", "bool"):
            # a float kernel value for an int result: NaN/inf only on lanes the kernel flagged (the
            # scalar function raises there, or the re-run overwrites them), so the cast's warning
            # would report a lane that is patched anyway
            with np.errstate(invalid="ignore"):
                return np.array(lanes, dtype=self.dtype)
        return np.array(lanes, dtype=self.dtype)


def aliases(value: np.ndarray, others: Sequence[object]) -> bool:
    """`value` is, or shares memory with, one of `others` (the arguments, the results before it): a
    kernel may return an input as it is, or an array once for each time the scalar function returns
    it (`return y, y`), and each result must be the caller's own."""
    return any(value is o or (value.base is not None and np.may_share_memory(value, o)) for o in others)


def owns_memory(arr: np.ndarray) -> bool:
    """The array owns its memory: NumPy's allocation, or one a Numba kernel made (Numba's memory-info
    object is its base; copying such a result cost 0.3 ms a call at 1e6 float64 lanes)."""
    base = arr.base
    return base is None or (type(base).__name__ == "_MemInfo" and type(base).__module__ == "_nrt_python")


def exact_ints(values, results, flag, size: int) -> object:
    """`flag`, plus the lanes of a mixed int/float result (stored as float64) where the kernel
    gives an int that float64 cannot hold exactly (a uniform branch keeps Python's int): the
    re-run refuses them (`store`) unless a lane raises first, as a patched lane's is refused."""
    for value, r in zip(values, results):
        arr = np.asarray(value)
        if r.kind != "num" or r.rank or arr.dtype.kind not in "iu":
            continue
        arr = np.broadcast_to(arr, (size,))
        big = (arr > 2**53) | (arr < -(2**53))
        if not big.any():
            continue
        as_float = arr.astype(np.float64)  # exact where it converts back; 2**63 is not an int64
        big &= (as_float == 2.0**63) | (as_float.astype(np.int64) != arr)
        flag = big if flag is None else big | np.broadcast_to(flag, (size,))
    return flag


PATCH_BLOCK = 1 << 14  # lanes re-run per gathering: bounds the Python objects held at once


def patch_lanes(scalar, batch: Batch, flagged, outs, results, returns_tuple, qualname) -> None:
    """Re-run the flagged lanes (flat indices, ascending) with the scalar function and store
    their values. The first lane that raises, in C order, raises; a value the result arrays
    cannot hold (complex, an int beyond int64...) is refused only when no lane raises, as the
    loop would raise that lane's exception before anything is stored.

    A lane costs about a scalar call: each block of lanes gathers its arguments with one
    `.tolist()` each, calls the function in a tight loop and stores the values with one
    assignment per result; messages are formatted only for the lane that raises."""
    refusal: Exception | None = None
    for at in range(0, len(flagged), PATCH_BLOCK):
        lanes = flagged[at:at + PATCH_BLOCK]
        columns = batch.columns(lanes)
        values = _rerun(scalar, batch, columns, lanes, qualname)
        if refusal is None:
            refusal = _store_block(values, lanes, outs, results, returns_tuple, qualname, batch)
    if refusal is not None:
        raise refusal


def _rerun(scalar, batch: Batch, columns: list[list[object]], lanes, qualname: str) -> list[object]:
    """The scalar function's value on each lane of `columns`; the first exception propagates
    with a note naming its lane."""
    code = getattr(scalar, "__code__", None)
    positional = code.co_argcount if code is not None else len(columns)
    iters = [iter(c) for c in columns]
    try:
        if columns and positional >= len(columns):
            return list(map(scalar, *iters))  # the loop in C: ~1.5x cheaper a lane than in Python
        values: list[object] = []
        keywords = batch.names[positional:]  # keyword-only parameters (after `*`) by name
        for lane in zip(*iters):
            values.append(scalar(*lane[:positional], **dict(zip(keywords, lane[positional:]))))
        if not columns:
            values.append(scalar())
        return values
    except Exception as exc:
        m = len(lanes) - 1 - iters[0].__length_hint__() if iters else 0  # the lane map was calling
        args = ", ".join(f"{n}={c[m]!r}" for n, c in zip(batch.names, columns))
        exc.add_note(f"{LANE_NOTE}{qualname} on {batch.where(int(lanes[m]))} ({args})")
        raise


def _store_block(values: list[object], lanes, outs, results, returns_tuple, qualname: str,
                 batch: Batch) -> Exception | None:
    """Store re-run values at `lanes`, or return the refusal of the first (in C order) that a
    result array cannot hold."""
    tuples = not returns_tuple or all(type(v) is tuple for v in values)  # None on a lane: refused below
    slots = ([list(c) for c in zip(*values)] if returns_tuple else [values]) if tuples else []
    if len(slots) == len(outs):
        fast = [_fast_column(c, r) for c, r in zip(slots, results)]
        if all(f is not None for f in fast):
            for out, f in zip(outs, fast):
                out[lanes] = f
            return None
    for m, value in enumerate(values):  # the general case, one lane at a time
        j = int(lanes[m])
        try:
            if returns_tuple and type(value) is not tuple:
                store(value, results[0].kind, qualname, j, batch)  # None, a str...: refused there
                raise LaneValueError(f"{qualname} returned {value!r:.40} on lane {lane_index(j, batch.shape)}, "
                                     "not a tuple (it returns a tuple elsewhere)")
            for out, v, r in zip(outs, list(value) if returns_tuple else [value], results):
                out[j] = store(v, r.kind, qualname, j, batch)
        except (LaneValueError, LaneOverflowError) as exc:
            return exc
    return None


_FLOATS = frozenset({float})
_INTS = frozenset({int, bool})


def _fast_column(column: list[object], r: Result) -> np.ndarray | None:
    """The values as an array of the result's dtype when each plainly fits (what `store` would
    pass and store the same way), else None."""
    if r.rank:
        return None
    kinds = set(map(type, column))
    if r.kind == "bool":
        return np.array(column, dtype=np.bool_) if kinds <= {bool} else None
    if r.kind == "int":
        if not kinds <= _INTS:
            return None
        try:
            return np.array(column, dtype=np.int64)
        except OverflowError:  # an int beyond int64: refused, lane by lane
            return None
    if kinds <= _FLOATS:
        return np.array(column, dtype=np.float64)
    if kinds <= _FLOATS | _INTS and all(-(2**53) <= v <= 2**53 for v in column if type(v) is int):
        return np.array(column, dtype=np.float64)  # ints float64 holds exactly
    return None


def store(value: object, kind: str, qualname: str, j: int, batch: Batch) -> object:
    """The value to store at flat lane `j`, or a refusal when the result array cannot hold it."""
    if value is None or isinstance(value, str | bytes):  # NumPy would store None as NaN, "1" as 1.0
        what = "None" if value is None else f"a {type(value).__name__} ({value!r:.40})"
        refusal = LaneValueError(f"{qualname} returned {what} on lane {lane_index(j, batch.shape)}; a batched result "
                                 "holds numbers" + (" (it reached its end without 'return', or a 'return' gave no value or None)"
                                                    if value is None else ""))
        refusal.none_lane = j if value is None else None  # type: ignore[attr-defined]  # engine/none_lines.py
        raise refusal
    if isinstance(value, complex):
        raise LaneValueError(f"{qualname} returned a complex number ({value!r}) on lane {lane_index(j, batch.shape)}; "
                             "a batched result holds real numbers")
    if kind == "int" and isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise LaneOverflowError(f"{qualname} returned {value} on lane {lane_index(j, batch.shape)}, which does not "
                                "fit in int64 (Python ints are unbounded; the batched result is int64)")
    if kind in ("float", "num") and isinstance(value, int) and not isinstance(value, bool):
        try:
            held = float(value) == value
        except OverflowError:  # beyond float64's range altogether
            held = False
        if not held:
            raise LaneOverflowError(f"{qualname} returned the int {value} on lane {lane_index(j, batch.shape)}, which "
                                    "float64 cannot hold exactly (the result mixes ints and floats)")
    return value
