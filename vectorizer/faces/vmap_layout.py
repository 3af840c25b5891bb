"""Where each vmap level's axis goes: the arguments laid out as the engine's lanes, and each
result's lane axes put where `out_axes` says.

`levels` is a vmapped function's list of (in_axes, out_axes, axis_size), outermost level first.
`lay_out` gives each argument one axis per level (its mapped axis moved there, or a size-1 axis
where the level does not map it) followed by its per-example dimensions, so nested levels run as
one call of the generated code over a grid of lanes (the levels broadcast). `place` undoes it for
a result: each level's axis broadcast to its size and moved to its `out_axes` place, innermost
level first (None: the result must not vary along that level, which is then dropped). Both serve
array calls (vmap.py) and the leaves of pytree calls (vmap_compile.py) alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import VectorizeValueError

Axis = int | None
Levels = list[tuple[Any, Any, "int | None"]]  # (in_axes, out_axes, axis_size) per level, outermost first


def lay_out(levels: Levels, values: dict[str, np.ndarray], axes: dict[str, list[Axis]]) -> tuple[list[np.ndarray], list[int]]:
    """Each argument as (one axis per level, mapped or size 1) + its per-example dimensions, and
    each level's size. `axes`: argument -> its mapped axis at each level (None: not mapped)."""
    arrays = dict(values)
    sizes: list[int] = []
    for depth, (_, _, axis_size) in enumerate(levels):
        seen: dict[str, int] = {}
        for name, a in arrays.items():
            axis = axes[name][depth]
            rest = a.ndim - depth  # the argument as this level's function receives it
            if axis is None:
                arrays[name] = np.expand_dims(a, depth)
                continue
            if not -rest <= axis < rest:
                shown = name if "[" in name or "." in name else repr(name)  # a leaf's path as it is
                raise VectorizeValueError(f"vmap was asked to map argument {shown} over axis {axis}, but it has "
                                          f"rank {rest}" + (" (a number cannot be mapped)" if rest == 0 else ""))
            arrays[name] = np.moveaxis(a, depth + axis % rest, depth)
            seen[name] = arrays[name].shape[depth]
        if len(set(seen.values())) > 1:
            detail = ", ".join(f"{n} has {s}" for n, s in seen.items())
            raise VectorizeValueError(f"vmap got different sizes for the mapped axes: {detail}")
        if not seen and axis_size is None:
            raise VectorizeValueError("vmap needs at least one mapped argument (in_axes not None), or axis_size")
        size = next(iter(seen.values())) if seen else axis_size
        if axis_size is not None and size != axis_size:
            raise VectorizeValueError(f"vmap axis_size={axis_size} but the mapped axes have size {size} "
                                      f"({', '.join(seen)})")
        sizes.append(size)  # type: ignore[arg-type]
    return list(arrays.values()), sizes


def place(levels: Levels, out: np.ndarray, sizes: list[int], axes: list[Axis], at: str = "") -> np.ndarray:
    """Give each level's axis its size and its place in the output (`axes`: one per level),
    innermost level first; errors name the output leaf `at`."""
    where = f" (at {at})" if at else ""
    for depth in reversed(range(len(levels))):
        axis = axes[depth]
        if out.shape[depth] != sizes[depth]:
            out = np.broadcast_to(out, out.shape[:depth] + (sizes[depth],) + out.shape[depth + 1:])
        if axis is None:
            first = np.take(out, [0], axis=depth) if out.shape[depth] else None
            if first is not None and not np.array_equal(out, np.broadcast_to(first, out.shape), equal_nan=True):
                raise VectorizeValueError(f"vmap out_axes=None, but the output varies along the mapped axis{where}")
            out = np.take(out, 0, axis=depth) if out.shape[depth] else out.sum(axis=depth)
            continue
        rank = out.ndim - depth
        if not -rank <= axis < rank:
            raise VectorizeValueError(f"vmap out_axes {axis} is out of bounds for an output of rank {rank - 1}{where}")
        out = np.moveaxis(out, depth, depth + axis % rank)
    return np.array(out)


def out_entry(out_axes: Any, count: int, k: int) -> Axis:
    """The out_axes entry of the k-th of `count` returned values at one level."""
    if isinstance(out_axes, tuple | list):
        if len(out_axes) != count:
            raise VectorizeValueError(f"vmap out_axes has {len(out_axes)} entries for {count} returned values")
        return out_axes[k]
    return out_axes


def in_entry(in_axes: Any, index: int, count: int) -> Axis:
    """The in_axes entry of the positional argument `index` of `count` at one level."""
    if isinstance(in_axes, tuple | list):
        if len(in_axes) != count:
            raise VectorizeValueError(f"vmap in_axes has {len(in_axes)} entries, but the function was called with "
                                      f"{count} positional arguments")
        return in_axes[index]
    return in_axes
