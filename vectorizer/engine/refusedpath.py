"""The short path of a refused function's calls (`RefusedPlan`): a call like the last one that ran
element by element, because the function's specialization is refused, reaches the loop in a few
microseconds, where the general path spends 20-40 µs (statics, canonical arguments, the Batch,
the specialization key, the refusal's freshness): a third of a 300-lane loop of a cheap function.

After such a call (api.py, `plan`), the plan records what decided it, argument by argument:

    ("s", value)   a specialized argument (None, a str, bytes, a bool, an int, an enum member):
                   the next call must pass that very object (`is`)
    ("a", dtype)   an array of the lanes: the next call's must be an np.ndarray of that dtype
                   object (bool, int64 or float64, native), 1-D, every one of one length n >= 1
    ("f", None)    a Python float (a uniform argument, a 0-d float64 array as canonical() makes it)

and the generation and key of the refusal. `batch(values)` gives the Batch the general path would
build when the call matches and the refusal still holds (`Generations.refused`, as the general
path checks it: the same generation, the globals it reads fresh), else None: anything else (other
dtypes, shapes, values, a new generation) takes the general path, the only one that decides
anything; where the refusal no longer holds, `Generations.current()` first, as the general path
calls it then (the check that found it stale is spent: `holds` counts the lanes between two full
checks). No pure zero-argument helper (their values are part of the key, read at each call) and
no per-example dimensions (vmap, signature=) are planned.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .batch import Batch

if TYPE_CHECKING:
    from .fingerprint import Generation, Generations

_CANONICAL = (np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64))  # inputs.canonical's, native
_IMMUTABLE = (type(None), str, bytes, bool, int)  # a specialized value that stays what it was


class RefusedPlan:
    """What the last refused call saw; `batch(values)` for a call like it (module docstring)."""

    __slots__ = ("kinds", "names", "gen", "key", "lane_fn", "defaults")

    def __init__(self, kinds: list[tuple[str, object]], names: list[str], gen: Generation, key: object,
                 lane_fn: Callable[..., object] | None) -> None:
        self.kinds, self.names, self.gen, self.key, self.lane_fn = kinds, names, gen, key, lane_fn
        self.defaults = getattr(lane_fn, "__defaults__", None)  # the scalar's own, where it is its lane function

    def batch(self, values: Sequence[object], generations: Generations) -> Batch | None:
        """The Batch of a call like the planned one while its refusal holds; None otherwise."""
        if len(values) != len(self.kinds):
            return None
        arrays: list[np.ndarray] = []
        n = -1
        for v, (tag, what) in zip(values, self.kinds):
            if tag == "a":
                if type(v) is not np.ndarray or v.dtype is not what or v.ndim != 1:
                    return None
                if n != v.shape[0]:
                    if n >= 0:
                        return None
                    n = v.shape[0]
                arrays.append(v)
            elif tag == "s":
                if v is not what:
                    return None
            elif type(v) is float:
                arrays.append(np.asarray(v, dtype=np.float64))
            else:
                return None
        if n < 1 or not self.gen.warned or getattr(self.lane_fn, "__defaults__", None) is not self.defaults:
            return None  # (new __defaults__: lanefn.lane_function decides again whether they are the values)
        if not generations.refused(self.gen, self.key, n):  # (its check of the globals is spent: the
            generations.current()  # general path must start from what it found, as it does itself)
            return None
        batch = Batch(self.names, arrays)
        if self.lane_fn is not None:
            batch.scalar = self.lane_fn  # type: ignore[attr-defined]
        return batch


def plan(values: Sequence[object], names: Sequence[str], fixed: dict[str, object], batch: Batch,
         gen: Generation, key: object) -> RefusedPlan | None:
    """The plan of a call the general path just ran element by element for a refusal (`values`:
    one per parameter `names`, `fixed` those specialized on, `batch` its Batch); None where the
    call is not one the plan can repeat exactly (module docstring)."""
    kinds: list[tuple[str, object]] = []
    arrays = iter(batch.arrays)
    for name, v in zip(names, values):
        if name in fixed:
            if not (type(v) in _IMMUTABLE or isinstance(v, enum.Enum)):
                return None
            kinds.append(("s", v))
            continue
        a = next(arrays)
        if type(v) is np.ndarray and a is v and v.ndim == 1 and v.dtype in _CANONICAL and v.shape == batch.shape:
            kinds.append(("a", v.dtype))
        elif type(v) is float:
            kinds.append(("f", None))
        else:
            return None
    if not any(tag == "a" for tag, _ in kinds) or batch.size < 1 or any(batch.ndims):
        return None
    return RefusedPlan(kinds, list(batch.names), gen, key, getattr(batch, "scalar", None))
