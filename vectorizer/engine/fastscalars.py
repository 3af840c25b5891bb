"""The short path of calls with scalars alone (fastpath.py's `ScalarPlan`).

A call whose arguments are all Python (or NumPy) numbers runs the kernel made for uniform
arguments, given NumPy scalars as the general path gives them, and returns its results as NumPy
scalars; an int beyond int64 or a flagged lane takes the general path. It is apart from
fastpath.py because it shares none of the array plans' checks (no lengths, layouts or result
arrays): what it shares with them (MISS, the result dtypes, the quiet error state) it imports from
there, and fastpath.after_call imports this module when it makes a plan, as it does fastmixed.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..options import disabled
from .fastpath import (
    MISS,
    RESULT_DTYPES,
    SCALARS,
    _quietly,
    always,
    any_flagged,
    unmade,
)
from .inputs import INT64_MAX, INT64_MIN
from .patch import Result

if TYPE_CHECKING:
    from .fastpath import Plans
    from .fingerprint import Watch

_PYTHON = {np.float64: float, np.int64: int, np.bool_: bool}  # a result's NumPy scalar type -> its Python kind


class ScalarPlan:
    __slots__ = ("fn", "types", "results", "returns_tuple", "errstate", "fresh", "used", "go")
    used: tuple[tuple, str] | None

    def __init__(self, fn: Callable[..., Any], types: tuple[type, ...], results: tuple[tuple[Result, np.dtype, type], ...],
                 returns_tuple: bool, errstate: bool, fresh: Callable[[], bool]) -> None:
        self.fn, self.types, self.results, self.returns_tuple = fn, types, results, returns_tuple
        self.errstate, self.fresh, self.used = errstate, fresh, None
        self.go: Callable[[tuple], object] = unmade  # run_scalars, made with `used` (after_call)


def plan_scalars(fn: Callable[..., Any], values: Sequence[object], result_types: Sequence[str], returns_tuple: bool,
                 numpy_backend: bool, watch: Watch | None = None) -> ScalarPlan | None:
    """A plan for calls with scalars of these types, or None (other arguments, results that may mix
    ints and floats or hold per-lane arrays)."""
    types = tuple(type(v) for v in values)
    if not values or any(t not in SCALARS for t in types) or any(t not in RESULT_DTYPES for t in result_types):
        return None
    results = tuple((Result(t), RESULT_DTYPES[t], RESULT_DTYPES[t].type) for t in result_types)
    return ScalarPlan(fn, types, results, returns_tuple, numpy_backend,
                      always if watch is None else watch.fresh)


def run_scalars(p: ScalarPlan, args: tuple[object, ...]) -> object:
    """The kernel's results as NumPy scalars (what the general path gives for a call of scalars),
    or MISS: other types, an int beyond int64 (refused there), a flagged lane (re-run there)."""
    if len(args) != len(p.types):
        return MISS
    kargs = []
    for a, t in zip(args, p.types):
        if type(a) is not t:
            return MISS
        if t is int and not INT64_MIN <= a <= INT64_MAX:  # type: ignore[operator]
            return MISS
        convert = SCALARS[t]
        kargs.append(a if convert is None else convert(a))
    if not p.fresh():
        return MISS
    try:
        result, flag = _quietly(p.fn, tuple(kargs)) if p.errstate else p.fn(*kargs)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - as in `run`: the general path reports it
        return MISS
    if flag is not None and any_flagged(flag):
        return MISS
    values = result if p.returns_tuple else (result,)
    out = []
    for value, (r, dtype, scalar_type) in zip(values, p.results):
        if type(value) is np.ndarray and value.shape == (1,) and value.dtype is dtype:
            out.append(value[0])  # the Numba entry point's one-lane array
        elif type(value) is scalar_type:
            out.append(value)  # a NumPy scalar of the result's type
        elif type(value) is _PYTHON[scalar_type] and (scalar_type is not np.int64 or INT64_MIN <= value <= INT64_MAX):
            out.append(scalar_type(value))  # a Python number of that kind (a constant branch: `return 0.0`)
        else:  # anything else as the general path converts it (execute.run)
            out.append(r.lanes(value, 1).reshape(())[()])
    return tuple(out) if p.returns_tuple else out[0]


def scalar_go(p: ScalarPlan, plans: Plans) -> Callable[[tuple], object]:
    """A scalar plan's call (its `go`), which records in `plans` that it ran."""
    def go(args: tuple[object, ...]) -> object:
        result = MISS if disabled() else run_scalars(p, args)
        if result is not MISS:
            plans.last = p.used
        return result
    return go
