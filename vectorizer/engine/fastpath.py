"""The short call path: the common call, checked in a few hundred nanoseconds.

Most calls pass 1-D arrays of one length with the same dtypes as the call before. For those the
general path (argument canonicalization, broadcasting, the specialization key, chunking, result
conversion) costs ~10 µs, more than a compiled kernel spends on 1,000 lanes. After a call of that
shape succeeds, `plan` records what it saw; `run` repeats it when the next call matches exactly
and gives up (returns MISS) otherwise, so anything unusual (other dtypes or shapes, a batch large
enough to chunk, module globals the function reads bound to other objects since) takes the general
path, which is the only one that decides anything. Flagged lanes are re-run with the scalar
function here (`patch_lanes`, as the general path would): giving up then would run the kernel
a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .batch import Batch
from .patch import LaneOverflowError, LaneValueError, Result, aliases, owns_memory, patch_lanes

if TYPE_CHECKING:
    from .fingerprint import Watch

MISS = object()
_CANONICAL = (np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64))
_RESULT_DTYPES = {"bool": _CANONICAL[0], "int": _CANONICAL[1], "float": _CANONICAL[2]}


class Plan:  # a plain class: a NamedTuple costs ~0.2 ms of every start-up
    __slots__ = ("fn", "dtypes", "results", "returns_tuple", "errstate", "max_lanes", "also", "fresh", "scalar", "kinds")

    def __init__(self, fn: Callable[..., Any], dtypes: tuple[np.dtype, ...], results: tuple[np.dtype, ...] | None,
                 returns_tuple: bool, errstate: bool, max_lanes: int, also: tuple[int, int],
                 fresh: Callable[[], bool], scalar: Callable[..., Any] | None = None, kinds: tuple[str, ...] = ()) -> None:
        self.fn, self.dtypes, self.returns_tuple = fn, dtypes, returns_tuple
        self.results = results  # the dtypes to check the results against; None: nothing to check
        self.errstate = errstate  # NumPy kernels run with floating-point warnings off (masked lanes compute garbage)
        self.max_lanes = max_lanes  # larger batches are chunked by the general path
        self.also = also  # lanes from..to that may run here even so (auto: a size decided for Numba)
        self.fresh = fresh  # True while the module globals fn was made from are bound as they were
        self.scalar = scalar  # the function that re-runs flagged lanes; None: they take the general path
        self.kinds = kinds  # the result types ("float"...)


def _always() -> bool:
    return True


def _plain(a: object) -> bool:
    """A 1-D, C-contiguous, writeable array of a canonical dtype: the exact type a kernel was
    compiled for (Numba specializes on layout and read-only-ness)."""
    return (type(a) is np.ndarray and a.ndim == 1 and a.dtype in _CANONICAL  # type: ignore[union-attr]
            and a.flags.c_contiguous and a.flags.writeable)  # type: ignore[union-attr]


def plan(fn: Callable[..., Any], args: Sequence[object], result_types: Sequence[str], returns_tuple: bool,
         numpy_backend: bool, max_lanes: int, also: tuple[int, int] = (1, 0), watch: Watch | None = None,
         scalar: Callable[..., Any] | None = None) -> Plan | None:
    """A plan for calls like this one, or None when the general path must see every such call
    (scalars or broadcasting, per-example arrays, results that may mix ints and floats).

    The Numba backend's entry point allocates each result itself, `np.empty(n, dtype)` with these
    dtypes (codegen/numba_module.py), so its results are not checked: the checks ran after the
    parallel kernel, on cold caches, and cost ~3-5 µs a call at 1e5 lanes."""
    if not args or not all(_plain(a) for a in args) or any(t not in _RESULT_DTYPES for t in result_types):
        return None
    if len({a.shape[0] for a in args}) != 1:  # type: ignore[union-attr]
        return None
    results = tuple(_RESULT_DTYPES[t] for t in result_types) if numpy_backend else None
    if getattr(scalar, "__code__", None) is None:
        scalar = None  # no parameter names for a lane's note: the general path re-runs flagged lanes
    return Plan(fn, tuple(a.dtype for a in args), results, returns_tuple, numpy_backend, max_lanes, also,  # type: ignore[union-attr]
                _always if watch is None else watch.fresh, scalar, tuple(result_types))


def run(p: Plan, args: tuple[object, ...]) -> object:
    """The kernel's result for these arguments, or MISS."""
    n = -1
    for a, dtype in zip(args, p.dtypes):
        if type(a) is not np.ndarray or a.dtype is not dtype or a.ndim != 1 \
                or not a.flags.c_contiguous or not a.flags.writeable:
            return MISS
        if n != a.shape[0]:
            if n >= 0:
                return MISS
            n = a.shape[0]
    if n <= 1 or (n > p.max_lanes and not p.also[0] <= n <= p.also[1]):  # a uniform value; chunked batches
        return MISS
    if not p.fresh():  # a global rebound since the plan: the general path makes the code for the new value
        return MISS
    try:
        if p.errstate:
            with np.errstate(all="ignore"):
                result, flag = p.fn(*args)
        else:
            result, flag = p.fn(*args)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - a kernel never raises for a lane: the general path reports it
        return MISS
    flagged = flag is not None and flag.any()
    if flagged and p.scalar is None:
        return MISS  # a lane to re-run with the scalar function: the general path does it
    if p.results is None and not flagged:
        return result  # the Numba driver's own fresh arrays
    values = result if p.returns_tuple else (result,)
    out = []
    for value, dtype in zip(values, p.results or [None] * len(values)):
        if p.results is not None and (type(value) is not np.ndarray or value.dtype is not dtype or value.shape != (n,)
                                      or not owns_memory(value) or not value.flags.writeable
                                      or aliases(value, (*args, *out))):  # a constant, a view, an input, a result twice
            value = np.array(np.broadcast_to(value, (n,)), dtype=dtype)
        out.append(value)
    if flagged:
        _patch(p, args, out, flag)
    return tuple(out) if p.returns_tuple else out[0]


def _patch(p: Plan, args: tuple[object, ...], out: list[np.ndarray], flag: np.ndarray) -> None:
    """Re-run the flagged lanes with the scalar function, as `execute.run` does for the general path."""
    from ..errors import VectorizeOverflowError, VectorizeValueError

    scalar = p.scalar
    code = scalar.__code__  # type: ignore[union-attr]
    batch = Batch(code.co_varnames[:len(args)], args)  # type: ignore[arg-type]
    results = [Result(kind) for kind in p.kinds]
    try:
        patch_lanes(scalar, batch, np.flatnonzero(flag), out, results, p.returns_tuple,
                       scalar.__qualname__)  # type: ignore[union-attr]
    except LaneOverflowError as exc:
        raise VectorizeOverflowError(str(exc)) from None
    except LaneValueError as exc:
        raise VectorizeValueError(str(exc)) from None
