"""One level of vmap as a loop over the examples, with pytree arguments and results.

This is JAX's vmap semantics written plainly: each leaf of each argument is sliced along the axis
`in_axes` gives it (a prefix tree of the positional arguments; keyword arguments map axis 0), the
function runs on each example, and each leaf of the results is stacked along the axis `out_axes`
gives it (None: the leaf must be the same for every example, and is returned once). `vmap` runs
it for what the engine cannot compile (pytree arguments or results, callables that are not Python
functions, functions the engine refuses), after a `FallbackWarning`: slow, and exact.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import FallbackWarning, VectorizeValueError
from .pytree import (
    broadcast_prefix,
    describe,
    flatten,
    is_axis,
    node_kind,
    same_structure,
    unflatten,
)

Leaf = tuple[str, Any, "int | None"]  # key path, value, mapped axis


def top_level_axes(in_axes: Any, count: int) -> list[Any]:
    """One in_axes entry per positional argument (an int or None applies to all of them)."""
    if is_axis(in_axes):
        return [in_axes] * count
    entries = list(in_axes)
    if len(entries) != count:
        raise VectorizeValueError(f"vmap in_axes has {len(entries)} entries, but the function was called with "
                                  f"{count} positional arguments")
    return entries


def _leaves(names: Sequence[str], args: Sequence[Any], in_axes: Any, kwargs: dict[str, Any]):
    """Every argument leaf with its path and axis, and the structure of each argument."""
    leaves: list[Leaf] = []
    structures = []
    for name, arg, spec in zip(names, args, top_level_axes(in_axes, len(args))):
        found, structure = flatten(arg, name)
        axes = broadcast_prefix(spec, arg, "in_axes", name)
        leaves += [(path, value, axis) for (path, value), axis in zip(found, axes)]
        structures.append((structure, len(found)))
    for name, value in kwargs.items():  # keyword arguments: every leaf over axis 0, as JAX does
        found, structure = flatten(value, name)
        leaves += [(path, v, 0) for path, v in found]
        structures.append((structure, len(found)))
    return leaves, structures


def _size(leaves: list[Leaf], axis_size: int | None) -> tuple[list[Leaf], int]:
    """The leaves with mapped ones as arrays, and the batch size (errors name the leaves)."""
    out: list[Leaf] = []
    sizes: dict[str, int] = {}
    for path, value, axis in leaves:
        if axis is not None:
            value = np.asarray(value)
            if not -value.ndim <= axis < value.ndim:
                raise VectorizeValueError(f"vmap was asked to map argument {path} over axis {axis}, but it has rank "
                                          f"{value.ndim}" + (" (a number cannot be mapped)" if value.ndim == 0 else ""))
            axis %= value.ndim
            sizes[path] = value.shape[axis]
        out.append((path, value, axis))
    if len(set(sizes.values())) > 1:
        detail = ", ".join(f"{p} has {s}" for p, s in sizes.items())
        raise VectorizeValueError(f"vmap got different sizes for the mapped axes: {detail}")
    if not sizes and axis_size is None:
        raise VectorizeValueError("vmap needs at least one mapped argument (in_axes not None), or axis_size")
    size = next(iter(sizes.values())) if sizes else axis_size
    if axis_size is not None and size != axis_size:
        raise VectorizeValueError(f"vmap axis_size={axis_size} but the mapped axes have size {size} "
                                  f"({', '.join(sizes)})")
    return out, size  # type: ignore[return-value]


def _example(value: Any, axis: int | None, b: int | None) -> Any:
    """Example b of a leaf (a number as a Python scalar, as the scalar contract passes it); with
    b None, a zero example of the right shape and dtype (an empty batch's stand-in)."""
    if axis is None:
        return value
    if b is None:
        s = np.zeros(value.shape[:axis] + value.shape[axis + 1:], value.dtype)
    else:
        s = np.take(value, b, axis=axis)
    return s.item() if s.ndim == 0 else s


def loop_vmap(fun: Callable[..., Any], names: Sequence[str], args: Sequence[Any], kwargs: dict[str, Any],
              in_axes: Any, out_axes: Any, axis_size: int | None) -> Any:
    """One vmap level over pytrees, example by example."""
    leaves, structures = _leaves(names, args, in_axes, kwargs)
    leaves, size = _size(leaves, axis_size)

    def call(b: int | None) -> Any:
        values = iter([_example(v, axis, b) for _, v, axis in leaves])
        rebuilt = [unflatten(s, [next(values) for _ in range(n)]) for s, n in structures]
        with warnings.catch_warnings():  # the inner levels' own fallback notes: this level warned once
            warnings.simplefilter("ignore", FallbackWarning)
            return fun(*rebuilt[:len(args)], **dict(zip(kwargs, rebuilt[len(args):])))

    if size:
        outs = [call(b) for b in range(size)]
    else:
        try:
            outs = [call(None)]
        except Exception as exc:
            raise VectorizeValueError(f"vmap over an empty batch runs the function once on zeros to learn what it "
                                      f"returns, and it raised {type(exc).__name__}: {exc}") from exc
    return stack_outputs(outs, out_axes, size)


def stack_outputs(outs: list[Any], out_axes: Any, size: int) -> Any:
    """The examples' results as one tree, each leaf stacked along its out_axes axis."""
    found, structure = flatten(outs[0], "out")
    for b, out in enumerate(outs[1:], 1):
        other = flatten(out)[1]
        if not same_structure(structure, other):
            raise VectorizeValueError(f"vmap: the function returned {describe(structure)} for example 0 but "
                                      f"{describe(other)} for example {b}")
    if isinstance(out_axes, list) and node_kind(outs[0]) == "tuple":
        out_axes = tuple(out_axes)  # as vmap always took it for a function returning a tuple
    if isinstance(out_axes, tuple) and node_kind(outs[0]) == "tuple" and len(out_axes) != len(outs[0]):
        raise VectorizeValueError(f"vmap out_axes has {len(out_axes)} entries for {len(outs[0])} returned values")
    axes = broadcast_prefix(out_axes, outs[0], "out_axes", "out")
    columns = [[np.asarray(v)] for _, v in found]
    for out in outs[1:]:
        for column, (_, v) in zip(columns, flatten(out)[0]):
            column.append(np.asarray(v))
    placed = []
    for (path, _), axis, column in zip(found, axes, columns):
        if axis is None:
            if any(not np.array_equal(column[0], c, equal_nan=True) for c in column[1:]):
                raise VectorizeValueError(f"vmap out_axes=None, but the output varies along the mapped axis (at {path})")
            placed.append(column[0])
            continue
        stacked = np.stack(column)[:size]  # an empty batch: the zero example's shape, no rows
        rank = stacked.ndim
        if not -rank <= axis < rank:
            raise VectorizeValueError(f"vmap out_axes {axis} is out of bounds for an output of rank {rank - 1} (at {path})")
        placed.append(np.moveaxis(stacked, 0, axis))
    return unflatten(structure, placed)
