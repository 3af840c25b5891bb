"""The short path for calls that mix arrays and numbers: `clamp(x, 0.0, 1.0)`, `f(spot, 100.0, t)`.

The general path spends 47-140 µs on such a call on this VM (canonical 0-d arrays, broadcasting, the
specialization key, `execute.run`'s per-argument work) before a kernel that needs ~1-20 µs on
1,000 lanes. Everything it decides there follows from each argument's type alone, given 1-D
arrays of one length: an array's dtype kind and a number's type (float, int, bool, or NumPy's
float64, int64, bool_) give the key's kind; a number is uniform (the kernel was made for one value
for every lane, and receives it as a NumPy scalar), an array is batched; a Python bool or int is
specialized on its value (a flag, `round`'s ndigits) only at parameters that say so, and a call
with any specialized argument gets no plan. So a `MixedPlan` records, per argument, the dtype of
an array or the type of a number, and its call (fastentry.py) repeats the general path's work for a call whose
arguments have exactly those (a Python float becomes `np.float64`, as `canonical(...)[()]` makes
it). The one check on values that remains is the general path's: an int beyond int64 misses
(the general path refuses it). Everything else misses too: other types (np.float32, 0-d arrays,
lists), lengths that differ or broadcast, an empty or chunked batch, rebound globals, a kernel
that raises. Flagged lanes are re-run with the scalar function here, the uniform numbers given
to it as Python numbers, as `Batch.columns` gives them to the general path's re-run. On the NumPy
backend arrays may have any strides and be read-only (as for the arrays' plan, fastpath.Plan).

Measured with `scripts/dispatch_overhead.py --mixed` (CPU clock, medians of 31 rounds, two runs,
AMD EPYC 2 cores shared with other jobs; docs/performance.md, "Small batches"): a call at 1e3
lanes, general path -> this one, Numba backend mul_add(x, 0.5) 49 -> 3.7-3.8 µs, clamp(x, 0.0,
1.0) 52-55 -> 3.9-4.1, d1(spot, 100.0, 0.2, t, 0.01) 76-77 -> 15-16 (numba.vectorize: 2.5, 3.0-3.2,
12-13); NumPy backend 80 -> 6.9-7.0, 97-98 -> 14.3-14.4, 138 -> 29-32 (by hand: 2.0-2.1, 6.4-6.5, 12-13),
and with the generated checks 5.1-5.4, 11.7-14.4 and 25-26 (two runs, docs/performance.md); the
whole call as one generated function (fastentry.py): docs/performance.md, "One frame a call".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import fastpath
from .fastpath import (
    MISS,
    RESULT_DTYPES,
    SCALARS,
    always,
    any_flagged,
    fresh_result,
    patch_flagged,
    plain,
)
from .patch import Result, aliases

if TYPE_CHECKING:
    from .fingerprint import Watch


class MixedPlan:
    __slots__ = ("fn", "slots", "results", "returns_tuple", "errstate", "max_lanes", "also", "fresh", "scalar", "kinds",
                 "used", "go")
    used: tuple[tuple, str] | None

    def __init__(self, fn: Callable[..., Any], slots: tuple[object, ...], results: tuple[tuple[Result, np.dtype], ...] | None,
                 returns_tuple: bool, errstate: bool, max_lanes: int, also: tuple[int, int], fresh: Callable[[], bool],
                 scalar: Callable[..., Any] | None, kinds: tuple[str, ...]) -> None:
        self.fn, self.slots, self.results, self.returns_tuple = fn, slots, results, returns_tuple
        self.errstate, self.max_lanes, self.also, self.fresh = errstate, max_lanes, also, fresh
        self.scalar, self.kinds, self.used = scalar, kinds, None  # as fastpath.Plan's
        self.go: Callable[[tuple], object] = fastpath.unmade  # the whole call, made with `used` (fastentry.py)

    def finish(self, args: tuple[object, ...], kargs: tuple[object, ...], result: object, flag: object, n: int) -> object:
        """The results of a kernel that ran: flagged lanes re-run with the scalar function, each
        result the caller's own fresh array (a NumPy kernel's checked), or MISS."""
        flagged = flag is not None and any_flagged(flag)
        if flagged and self.scalar is None:
            return MISS
        if self.results is None and not flagged:
            return result  # the Numba entry point's own fresh arrays, of the lanes' length
        values = result if self.returns_tuple else (result,)
        out: list[np.ndarray] = []
        if self.results is None:
            out.extend(values)
        else:
            for value, (r, dtype) in zip(values, self.results):
                if fresh_result(value, dtype, n, args, out):
                    out.append(value)  # type: ignore[arg-type]
                else:  # one value for every lane (a uniform result), a view, an input: as execute.run makes it
                    arr = r.lanes(value, n)
                    out.append(arr.copy() if aliases(arr, (*args, *out)) else arr)
        if flagged:  # the batch as the general path builds it: numbers as 0-d arrays (uniform lanes)
            patch_flagged(self, tuple(np.asarray(k) for k in kargs), out, np.broadcast_to(flag, (n,)))  # type: ignore[arg-type]
        return tuple(out) if self.returns_tuple else out[0]


def plan_mixed(fn: Callable[..., Any], args: Sequence[object], result_types: Sequence[str], returns_tuple: bool,
               numpy_backend: bool, max_lanes: int, also: tuple[int, int] = (1, 0), watch: Watch | None = None,
               scalar: Callable[..., Any] | None = None) -> MixedPlan | None:
    """A plan for calls with arrays and numbers of these dtypes and types at these places, or None:
    no number or no array, arrays other than 1-D plain ones of one length, results that may mix
    ints and floats or hold per-lane arrays."""
    slots: list[object] = []
    arrays = numbers = 0
    for a in args:
        if type(a) in SCALARS:
            numbers += 1
            slots.append(type(a))
        elif plain(a, numpy_backend):
            arrays += 1
            slots.append(a.dtype)  # type: ignore[attr-defined]
        else:
            return None
    if not numbers or not arrays or any(t not in RESULT_DTYPES for t in result_types):
        return None
    if len({a.shape[0] for a in args if type(a) is np.ndarray}) != 1:  # type: ignore[attr-defined]
        return None
    results = tuple((Result(t), RESULT_DTYPES[t]) for t in result_types) if numpy_backend else None
    if getattr(scalar, "__code__", None) is None:
        scalar = None  # no parameter names for a lane's note: the general path re-runs flagged lanes
    return MixedPlan(fn, tuple(slots), results, returns_tuple, numpy_backend, max_lanes, also,
                     always if watch is None else watch.fresh, scalar, tuple(result_types))


def is_mixed(values: Sequence[object]) -> bool:
    """Some arguments are numbers, some are not: the call a `MixedPlan` is for (if any is)."""
    numbers = sum(type(v) in SCALARS for v in values)
    return 0 < numbers < len(values)
