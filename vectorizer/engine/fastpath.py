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

Calls with Python (or NumPy) scalars alone have their own plan (`ScalarPlan`, fastscalars.py): the kernel made for
uniform arguments, given NumPy scalars as the general path gives them, its results returned as
NumPy scalars; a flagged lane takes the general path. `Plans` holds one plan of each kind, so that
calls alternating scalars and arrays keep both. NumPy kernels run with floating-point warnings off
through NumPy's own context variable (`_quietly`: what `np.errstate(all="ignore")` sets, ~10x
cheaper to enter).

An array plan's call is one function made for it (fastentry.py: checks, kernel and result in one
frame). The two backends check arrays differently. A Numba kernel is compiled for C-contiguous,
writeable arrays: only those are taken. A NumPy kernel takes any strides and read-only arrays, as
the general path passes them to it unchanged, so only type, dtype, ndim and length are checked,
and its results as `fresh_result` does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .batch import Batch
from .chunks import parallel_min_lanes
from .fastentry import entry
from .none_lines import refusal_text
from .patch import (
    LaneOverflowError,
    LaneValueError,
    Result,
    aliases,
    owns_memory,
    patch_lanes,
)

try:  # NumPy 2 keeps the floating-point error state in one context variable (np.errstate sets it)
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE
    from numpy._core._ufunc_config import _make_extobj
except ImportError:  # another layout: np.errstate itself
    _STATE = None

if TYPE_CHECKING:
    from .fastmixed import MixedPlan
    from .fastscalars import ScalarPlan
    from .fingerprint import Generation, Watch
    from .kernels import Kernel

MISS = object()
_CANONICAL = (np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64))
RESULT_DTYPES = {"bool": _CANONICAL[0], "int": _CANONICAL[1], "float": _CANONICAL[2]}


class Plan:  # a plain class: a NamedTuple costs ~0.2 ms of every start-up
    __slots__ = ("fn", "dtypes", "results", "returns_tuple", "errstate", "max_lanes", "also", "fresh", "scalar", "kinds",
                 "used", "go")
    used: tuple[tuple, str] | None  # (the kernel key, the backend) of the call the plan was made from

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
        self.used = None
        self.go: Callable[[tuple], object] = unmade  # the whole call, made with `used` (fastentry.py)


def always() -> bool:
    """A plan's `fresh` where no globals are watched: always valid."""
    return True


def plain(a: object, numpy_backend: bool = False) -> bool:
    """A 1-D array of a canonical dtype, the exact type a kernel was compiled for: on the Numba
    backend C-contiguous and writeable too (Numba specializes on layout and read-only-ness)."""
    return (type(a) is np.ndarray and a.ndim == 1 and a.dtype in _CANONICAL  # type: ignore[union-attr]
            and (numpy_backend or (a.flags.c_contiguous and a.flags.writeable)))  # type: ignore[union-attr]


def plan(fn: Callable[..., Any], args: Sequence[object], result_types: Sequence[str], returns_tuple: bool,
         numpy_backend: bool, max_lanes: int, also: tuple[int, int] = (1, 0), watch: Watch | None = None,
         scalar: Callable[..., Any] | None = None) -> Plan | None:
    """A plan for calls like this one, or None when the general path must see every such call
    (scalars or broadcasting, per-example arrays, results that may mix ints and floats).

    The Numba backend's entry point allocates each result itself, `np.empty(n, dtype)` with these
    dtypes (codegen/numba_module.py), so its results are not checked: the checks ran after the
    parallel kernel, on cold caches, and cost ~3-5 µs a call at 1e5 lanes."""
    if not args or not all(plain(a, numpy_backend) for a in args) or any(t not in RESULT_DTYPES for t in result_types):
        return None
    if len({a.shape[0] for a in args}) != 1:  # type: ignore[union-attr]
        return None
    results = tuple(RESULT_DTYPES[t] for t in result_types) if numpy_backend else None
    if getattr(scalar, "__code__", None) is None:
        scalar = None  # no parameter names for a lane's note: the general path re-runs flagged lanes
    return Plan(fn, tuple(a.dtype for a in args), results, returns_tuple, numpy_backend, max_lanes, also,  # type: ignore[union-attr]
                always if watch is None else watch.fresh, scalar, tuple(result_types))


def run(p: Plans, args: tuple[object, ...]) -> object:
    """The kernel's result for these arguments, or MISS (what `VectorizedFunction.__call__` runs)."""
    return p.go(args)


def unmade(args: tuple[object, ...]) -> object:
    """A plan's `go` until its call is made (fastentry.py): every call misses."""
    return MISS


def _finish(p: Plan, args: tuple[object, ...], result: object, flag: object, n: int) -> object:
    """The results of a kernel that ran: flagged lanes re-run with the scalar function, each result
    the caller's own fresh array (a NumPy kernel's checked), or MISS."""
    flagged = flag is not None and any_flagged(flag)
    if flagged and p.scalar is None:
        return MISS  # a lane to re-run with the scalar function: the general path does it
    if p.results is None and not flagged:
        return result  # the Numba driver's own fresh arrays
    values = result if p.returns_tuple else (result,)
    out: list[np.ndarray] = []
    if p.results is None:
        out.extend(values)  # type: ignore[arg-type]
    else:
        for value, dtype in zip(values, p.results):  # type: ignore[call-overload]
            out.append(value if fresh_result(value, dtype, n, args, out) else np.array(np.broadcast_to(value, (n,)), dtype=dtype))
    if flagged:
        patch_flagged(p, args, out, flag)  # type: ignore[arg-type]
    return tuple(out) if p.returns_tuple else out[0]


def fresh_result(value: object, dtype: np.dtype, n: int, args: tuple[object, ...], out: list[np.ndarray]) -> bool:
    """The kernel's value is the caller's own array as it is: of the result's dtype and the call's
    length, writeable, owning its memory, and neither an input nor a result before it (a constant,
    a view, an input, a result twice are copied)."""
    if type(value) is not np.ndarray or value.dtype is not dtype or value.shape != (n,) or not value.flags.writeable:
        return False
    if value.base is None:  # NumPy's own allocation: only the very same array can alias it
        for o in args:  # loops: all(<generator>) costs ~0.4 µs more a call
            if value is o:
                return False
        for o in out:
            if value is o:
                return False
        return True
    return owns_memory(value) and not aliases(value, (*args, *out))


def any_flagged(flag: object) -> bool:
    """`flag.any()`: count_nonzero skips the reduction machinery (~2x cheaper on 1e3 lanes)."""
    return np.count_nonzero(flag) > 0 if type(flag) is np.ndarray else bool(np.any(flag))


_QUIET: tuple[object, object] = (None, None)  # (an error state, the same state with every warning off)


def _quiet(state: object) -> tuple[object, object]:
    """`_QUIET` for the caller's error state `state`, made once per state (as errstate makes it
    from the state it finds)."""
    global _QUIET
    _QUIET = (state, _make_extobj(all="ignore"))
    return _QUIET


def _quietly(fn: Callable[..., Any], args: tuple[object, ...]) -> Any:
    """`fn(*args)` under `np.errstate(all="ignore")`: the same context variable set to the same
    state."""
    if _STATE is None:
        with np.errstate(all="ignore"):
            return fn(*args)
    state = _STATE.get()
    token = _STATE.set((_QUIET if _QUIET[0] is state else _quiet(state))[1])
    try:
        return fn(*args)
    finally:
        _STATE.reset(token)


# -- numbers as arguments (the plan of calls with scalars alone: fastscalars.py) -----------------
SCALARS = {float: np.float64, int: np.int64, bool: np.bool_,  # a Python number -> what the kernel gets
            np.float64: None, np.int64: None, np.bool_: None}  # NumPy scalars of the canonical types: as they are


class Plans:
    """The short paths of a function: one for arrays, one for scalars, one for arrays mixed with
    numbers (fastmixed.MixedPlan); each None until made. `go(args)` tries them, the one made last
    first: their argument types never overlap, so no kernel runs twice for a call."""

    __slots__ = ("arrays", "scalars", "mixed", "last", "go")

    def __init__(self, arrays: Plan | None, scalars: ScalarPlan | None, mixed: MixedPlan | None = None) -> None:
        self.arrays, self.scalars, self.mixed = arrays, scalars, mixed
        self.last: tuple[tuple, str] | None = None  # the `used` of the plan that ran last
        self.go: Callable[[tuple], object] = unmade


def after_call(previous: Plans | None, kernel: Kernel, values: Sequence[object], used: str, gen: Generation,
               key: tuple, size: int, scalar: Callable[..., Any], lanes_only: bool, unspecialized: bool) -> Plans | None:
    """The plans after a general call that `used` a backend and succeeded: the plan of this call's
    kind made anew (None when calls like it must take the general path), the others kept."""
    from .fastmixed import is_mixed, plan_mixed
    from .fastscalars import ScalarPlan, plan_scalars, scalar_go

    plans = previous or Plans(None, None)  # one object: the plans' functions set its `last`
    numpy_backend = kernel.backend == "numpy"
    made: Plan | ScalarPlan | MixedPlan | None = None
    if values and all(type(v) in SCALARS for v in values):  # a call of scalars alone
        if lanes_only and unspecialized and used == kernel.backend:
            made = plan_scalars(kernel.fn, values, kernel.result_types, kernel.returns_tuple, numpy_backend, gen.watch)
        plans.scalars = made
    else:
        mixed = is_mixed(values)  # numbers too: a specialized one (a flag) keys its own code, no plan
        if lanes_only and used == kernel.backend and (unspecialized or not mixed):
            # NumPy: larger calls run chunks on threads; Numba's prange splits any batch itself
            limit, window = (parallel_min_lanes(kernel.fn) - 1, (1, 0)) if numpy_backend else (sys.maxsize, (1, 0))
            made = (plan_mixed if mixed else plan)(kernel.fn, values, kernel.result_types, kernel.returns_tuple,
                                                   numpy_backend, limit, window, gen.watch, scalar=scalar)  # valid while the globals are these
        if mixed:
            plans.mixed = made  # type: ignore[assignment]
        else:
            plans.arrays = made  # type: ignore[assignment]
    if made is not None:
        made.used = (key, used)
        made.go = scalar_go(made, plans) if type(made) is ScalarPlan else _entry(made, plans)  # type: ignore[arg-type]
    subs = list(dict.fromkeys(p for p in (made, plans.arrays, plans.mixed, plans.scalars) if p is not None))
    if not subs:
        return None
    plans.go = subs[0].go if len(subs) == 1 else _either(tuple(s.go for s in subs))  # the plan made last first
    return plans


def _entry(p: Plan | MixedPlan, plans: Plans) -> Callable[[tuple], object]:
    """An array plan's call as one generated function (fastentry.py)."""
    from .fastmixed import MixedPlan

    if type(p) is MixedPlan:  # its results: (Result, dtype) pairs
        slots, finish, dtypes = p.slots, p.finish, [dtype for _, dtype in p.results or ()]
    else:
        slots, finish, dtypes = p.dtypes, lambda args, kargs, result, flag, n: _finish(p, args, result, flag, n), list(p.results or ())  # type: ignore[arg-type]
    one = bool(dtypes) and not p.returns_tuple  # None on Numba: its entry point's own fresh arrays
    return entry(slots, SCALARS, fn=p.fn, numpy_backend=p.errstate, one_result=one, result_dtype=dtypes[0] if one else None,
                 fresh=p.fresh, max_lanes=p.max_lanes, also=p.also, last=plans, used=p.used, finish=finish, miss=MISS,
                 state=_STATE, quiet_module=sys.modules[__name__], quiet=_quiet, quietly=_quietly, any_flag=any_flagged)


def _either(gos: tuple[Callable[[tuple], object], ...]) -> Callable[[tuple], object]:
    def go(args: tuple[object, ...]) -> object:
        for one in gos:
            result = one(args)
            if result is not MISS:
                return result
        return MISS
    return go


def patch_flagged(p: Plan, args: tuple[object, ...], out: list[np.ndarray], flag: np.ndarray) -> None:
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
        raise VectorizeValueError(refusal_text(scalar, batch, exc)) from None
