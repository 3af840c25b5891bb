"""vmap's compiled path for pytrees: flatten the arguments, run the function of the leaves as
generated code, rebuild the result.

A call whose arguments (or in_axes/out_axes, or results) are pytrees is served here when
faces/pytree_flat.py can specialize the function on the arguments' structures: every leaf
becomes a parameter of its own, with the axis the in_axes prefix gives it at each vmap level, so
nested levels fuse into one call over a grid of lanes as for arrays; the leaves the function
returns are placed by the out_axes prefix and put back into the structure its returns build.
Specializations are cached per vmapped function, keyed by the parameters' structures, and the
engine's verdict by the leaves' kinds (dtype, per-example rank). When the function cannot be
specialized, or the engine refuses the specialized one, `compiled_call` returns the reason and vmap runs the examples one by one (vmap_loop.py) after a FallbackWarning
saying it.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import VectorizedFunction
from ..errors import FallbackWarning, VectorizeError, VectorizeValueError
from ..options import disabled
from .pytree import Structure, broadcast_prefix, flatten, node_kind, unflatten
from .pytree_flat import Flat, Refused, specialize
from .vmap_loop import top_level_axes

if TYPE_CHECKING:
    from .vmap import Vmapped

UNCHANGED = "unchanged"  # the function has no pytree to specialize on: the engine's verdict stands


def compiled_call(vm: Vmapped, args: tuple, kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """(True, the result) or (False, why the call must run example by example)."""
    sig = vm.__signature__
    if sig is None or vm._vf is None:
        return False, f"{vm.base!r} is not a Python function the engine can read"
    bound = sig.bind(*args, **kwargs)  # a TypeError here is the one each example's call would raise
    names = vm._names(len(args))
    values: dict[str, Any] = {}
    axes: dict[str, list[Any]] = {}
    trees: dict[str, Structure] = {}
    tops = [top_level_axes(level[0], len(args)) for level in vm.levels]
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
            per_level = [[0 if name in bound.arguments else None] * len(leaves) for _ in vm.levels]
        if structure is not None:
            trees[name] = structure
        for k, (path, leaf) in enumerate(leaves):
            values[path] = leaf
            axes[path] = [level[k] for level in per_level]
    if disabled():  # VECTORIZER_DISABLE: no transformation; the loop vmap stands for
        return False, "VECTORIZER_DISABLE is set"
    flat = _specialization(vm, trees)
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
    vf = _engine(vm, flat)
    if isinstance(vf, str):
        return False, vf
    arrays, sizes = vm._lay_out(values, axes)
    kinds = (flat.fn, tuple((a.dtype.kind, a.ndim - len(vm.levels)) for a in arrays))  # leaf kinds
    if kinds in vm._flats:
        return False, vm._flats[kinds]
    vm._last_vf = vf  # .source shows it, even after a call that raised
    vf._last = None
    try:
        with warnings.catch_warnings():  # the engine's own fallback: vmap's loop instead, saying why below
            warnings.simplefilter("ignore", FallbackWarning)
            result = vf.call_lanes(arrays, [a.ndim - len(vm.levels) for a in arrays])
    except Exception:
        if not isinstance(_refusal(vf), VectorizeError):
            raise  # the function's own exception, from generated code
        result = None  # the engine's element-by-element run failed (a nested tuple result): the loop decides
    refused = _refusal(vf)
    if isinstance(refused, VectorizeError):  # it ran element by element: the loop's semantics (an
        # empty batch's result shapes, say) are vmap's, so the examples run through vmap's loop
        vm._flats[kinds] = why = refused.message + (f" at {refused.location}" if refused.location else "")
        vm._last_vf = None
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
    per_level = [_out_axes(level[1], shape) for level in vm.levels]
    placed = [vm._place(outs[order[j]], sizes, [level[j] for level in per_level], paths[j]) for j in range(len(order))]
    return True, unflatten(out, placed)


def _refusal(vf: VectorizedFunction) -> Any:
    """The engine's verdict on the last call's kernel (a VectorizeError: it ran element by element)."""
    return vf._generations.current().kernels.get(vf._last) if vf._last is not None else None


def _out_axes(out_axes: Any, shape: Any) -> list[Any]:
    """The axis each result leaf gets at one level (a prefix tree of the result, as the loop reads it)."""
    if isinstance(out_axes, list) and node_kind(shape) == "tuple":
        out_axes = tuple(out_axes)  # as vmap always took it for a function returning a tuple
    if isinstance(out_axes, tuple) and node_kind(shape) == "tuple" and len(out_axes) != len(shape):
        raise VectorizeValueError(f"vmap out_axes has {len(out_axes)} entries for {len(shape)} returned values")
    return broadcast_prefix(out_axes, shape, "out_axes", "out")


def _specialization(vm: Vmapped, trees: dict[str, Structure]) -> Flat | str:
    try:
        key: Any = tuple(trees.items())
        hash(key)
    except TypeError:  # unhashable aux data in a structure: no cache
        key = None
    if key is not None and key in vm._flats:
        return vm._flats[key]
    try:
        flat: Flat | str = specialize(vm.base, trees)  # type: ignore[arg-type]
    except Refused as exc:
        flat = str(exc)
    except VectorizeError as exc:  # the source cannot be read
        flat = exc.message
    if key is not None:
        vm._flats[key] = flat
    return flat


def _engine(vm: Vmapped, flat: Flat) -> VectorizedFunction | str:
    """The engine's function for a specialization (made once), or why the engine refuses it."""
    vf = vm._flat_vfs.get(flat.fn)
    if vf is None:
        assert vm._vf is not None
        o = vm._vf.options
        vf = VectorizedFunction(flat.fn, o.replace(fallback="warn"))
        vf.options = o  # fallback="error" refuses at the call, below, rather than at construction
        vm._flat_vfs[flat.fn] = vf
    gen = vf._generations.current()
    try:
        vf._prepare(gen)
    except VectorizeError as exc:
        return exc.message + (f" at {exc.location}" if exc.location else "")
    return vf
