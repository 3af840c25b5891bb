"""vmap's compiled path for pytrees: flatten the arguments, run the function of the leaves as
generated code, rebuild the result.

A call whose arguments (or in_axes/out_axes, or results) are pytrees is served here when
faces/pytree_flat.py can specialize the function on the arguments' structures: every leaf
becomes a parameter of its own, with the axis the in_axes prefix gives it at each vmap level, so
nested levels fuse into one call over a grid of lanes as for arrays (vmap_layout.py); the leaves
the function returns are placed by the out_axes prefix and put back into the structure its
returns build. `PytreeCalls` belongs to one vmapped function: it caches the specializations,
keyed by the parameters' structures, and the engine's verdict by the leaves' kinds (dtype,
per-example rank). When the function cannot be specialized, or the engine refuses the
specialized one, `PytreeCalls.call` returns the reason and vmap runs the examples one by one
(vmap_loop.py) after a FallbackWarning saying it.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..api import VectorizedFunction
from ..errors import FallbackWarning, VectorizeError, VectorizeValueError
from ..options import disabled
from .pytree import Structure, broadcast_prefix, flatten, node_kind, unflatten
from .pytree_flat import Flat, Refused, specialize
from .vmap_layout import Levels, lay_out, place
from .vmap_loop import top_level_axes

UNCHANGED = "unchanged"  # the function has no pytree to specialize on: the engine's verdict stands


class PytreeCalls:
    """The compiled pytree calls of one vmapped function `base` (its engine function `vf`, its
    `levels`): `call` runs one, `last_vf` is the function of the leaves the last one ran."""

    def __init__(self, base: Callable[..., Any], vf: VectorizedFunction, levels: Levels,
                 signature: inspect.Signature | None) -> None:
        self.base, self.vf, self.levels, self.signature = base, vf, levels, signature
        self.flats: dict = {}  # pytree structures -> the function of their leaves, or why not
        self.flat_vfs: dict = {}  # function of leaves -> its VectorizedFunction
        self.last_vf: VectorizedFunction | None = None  # what the last compiled call ran

    def call(self, names: list[str], args: tuple, kwargs: dict[str, Any]) -> tuple[bool, Any]:
        """(True, the result) or (False, why the call must run example by example). `names`: the
        positional arguments' names (the parameters', `args[i]` beyond them)."""
        sig = self.signature
        if sig is None:
            return False, f"{self.base!r} is not a Python function the engine can read"
        bound = sig.bind(*args, **kwargs)  # a TypeError here is the one each example's call would raise
        values: dict[str, Any] = {}
        axes: dict[str, list[Any]] = {}
        trees: dict[str, Structure] = {}
        tops = [top_level_axes(level[0], len(args)) for level in self.levels]
        for name, param in sig.parameters.items():
            if name in bound.arguments:
                value = bound.arguments[name]
                index = names.index(name) if name in names[:len(args)] else None
            else:
                value, index = param.default, None
            leaves, structure = flatten(value, name)
            if index is not None:
                per_level = [broadcast_prefix(top[index], value, "in_axes", name) for top in tops]
            else:  # a keyword argument maps every leaf over axis 0 (JAX); a default maps none
                per_level = [[0 if name in bound.arguments else None] * len(leaves) for _ in self.levels]
            if structure is not None:
                trees[name] = structure
            for k, (path, leaf) in enumerate(leaves):
                values[path] = leaf
                axes[path] = [level[k] for level in per_level]
        if disabled():  # VECTORIZER_DISABLE: no transformation; the loop vmap stands for
            return False, "VECTORIZER_DISABLE is set"
        flat = self._specialization(trees)
        if isinstance(flat, str):
            return False, flat
        for path, leaf in values.items():  # the leaf kinds the engine takes (a str leaf: the loop)
            kind = np.asarray(leaf).dtype.kind if isinstance(leaf, int | float | np.generic | np.ndarray) else None
            if kind is None or kind not in "biuf":
                return False, f"{path} is a {type(leaf).__name__}, not a number or an array of numbers"
            if all(a is None for a in axes[path]) and isinstance(leaf, np.generic | np.ndarray) and np.ndim(leaf) == 0 \
                    and leaf.dtype not in (np.float64, np.int64, np.bool_):
                # shared by every example, the loop passes it as it is (float32 arithmetic, say), where
                # generated code computes with Python numbers
                return False, f"{path} is a {leaf.dtype} number shared by every example (in_axes None)"
            values[path] = np.asarray(leaf)
        vf = self._engine(flat)
        if isinstance(vf, str):
            return False, vf
        arrays, sizes = lay_out(self.levels, values, axes)
        kinds = (flat.fn, tuple((a.dtype.kind, a.ndim - len(self.levels)) for a in arrays))  # leaf kinds
        if kinds in self.flats:
            return False, self.flats[kinds]
        self.last_vf = vf  # .source shows it, even after a call that raised
        vf.forget_last_call()  # its verdict below is this call's
        try:
            with warnings.catch_warnings():  # the engine's own fallback: vmap's loop instead, saying why below
                warnings.simplefilter("ignore", FallbackWarning)
                result = vf.call_lanes(arrays, [a.ndim - len(self.levels) for a in arrays])
        except Exception:
            if not isinstance(vf.last_verdict(), VectorizeError):
                raise  # the function's own exception, from generated code
            result = None  # the engine's element-by-element run failed (a nested tuple result): the loop decides
        refused = vf.last_verdict()
        if isinstance(refused, VectorizeError):  # it ran element by element: the loop's semantics (an
            # empty batch's result shapes, say) are vmap's, so the examples run through vmap's loop
            self.flats[kinds] = why = refused.message + (f" at {refused.location}" if refused.location else "")
            self.last_vf = None
            return False, why
        outs = list(result) if isinstance(result, tuple) else [result]
        if flat.out == "opaque":
            out: Structure = ("tuple", tuple, tuple(range(len(outs))), (None,) * len(outs)) \
                if isinstance(result, tuple) else None
            order: tuple[int, ...] = tuple(range(len(outs)))
        else:
            out, order = flat.out, flat.order  # type: ignore[assignment]
            if len(outs) != len(order) or (len(order) > 1) != isinstance(result, tuple):
                return False, f"its returns gave {len(outs)} values where the pytree it builds has {len(order)} leaves"
        outs = [np.asarray(o) for o in outs]
        if any(o.dtype.kind == "O" for o in outs):
            return False, "a returned leaf is not a number or an array of numbers"
        shape = unflatten(out, [0] * len(order))
        paths = [p for p, _ in flatten(shape, "out")[0]]
        per_level = [_out_axes(level[1], shape) for level in self.levels]
        placed = [place(self.levels, outs[order[j]], sizes, [level[j] for level in per_level], paths[j])
                  for j in range(len(order))]
        return True, unflatten(out, placed)

    def _specialization(self, trees: dict[str, Structure]) -> Flat | str:
        try:
            key: Any = tuple(trees.items())
            hash(key)
        except TypeError:  # unhashable aux data in a structure: no cache
            key = None
        if key is not None and key in self.flats:
            return self.flats[key]
        try:
            flat: Flat | str = specialize(self.base, trees)  # type: ignore[arg-type]
        except Refused as exc:
            flat = str(exc)
        except VectorizeError as exc:  # the source cannot be read
            flat = exc.message
        if key is not None:
            self.flats[key] = flat
        return flat

    def _engine(self, flat: Flat) -> VectorizedFunction | str:
        """The engine's function for a specialization (made once), or why the engine refuses it."""
        vf = self.flat_vfs.get(flat.fn)
        if vf is None:
            o = self.vf.options
            vf = VectorizedFunction(flat.fn, o.replace(fallback="warn"))
            vf.options = o  # fallback="error" refuses at the call, below, rather than at construction
            self.flat_vfs[flat.fn] = vf
        exc = vf.refusal()
        if exc is not None:
            return exc.message + (f" at {exc.location}" if exc.location else "")
        return vf


def _out_axes(out_axes: Any, shape: Any) -> list[Any]:
    """The axis each result leaf gets at one level (a prefix tree of the result, as the loop reads it)."""
    if isinstance(out_axes, list) and node_kind(shape) == "tuple":
        out_axes = tuple(out_axes)  # as vmap always took it for a function returning a tuple
    if isinstance(out_axes, tuple) and node_kind(shape) == "tuple" and len(out_axes) != len(shape):
        raise VectorizeValueError(f"vmap out_axes has {len(out_axes)} entries for {len(shape)} returned values")
    return broadcast_prefix(out_axes, shape, "out_axes", "out")
