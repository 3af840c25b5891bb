"""Compact masked loops: once few lanes remain active, the loop continues on those lanes alone,
and the last few of a long tail are left to the scalar function.

Masking alone makes a while loop cost (longest trip count) x (all lanes); a long tail of a few
slow lanes then dominates. Before::

    while np.any(active):
        zr_1 = zr * zr - zi * zi + cr
        ...
        active = active & (zr * zr + zi * zi <= 4.0) & ~flag

After::

    lanes = _vz_Compaction()
    while np.any(active):
        if lanes.worth(active):
            active, flag, cr, n, zi, zr = lanes.compact(active, flag, cr, n, zi, zr)
        zr_1 = zr * zr - zi * zi + cr
        ...
        active = active & (zr * zr + zi * zi <= 4.0) & ~flag
    flag, cr, n, zi, zr = lanes.expand(flag, cr, n, zi, zr)

The carried names are the flag array, then the loop's batched values that it reads from its
entry or writes for after it (recorded by ops_to_numpy), less any whose every assignment was
dropped as dead; `_vz_Compaction` (runtime.py) gathers them when at most half the lanes are
active and scatters them back after the loop. Temporaries computed inside the body need no
carrying. When only a few lanes have run on for long, `compact` flags them and clears the mask:
the runtime re-runs them with the scalar function, and every enclosing loop drops them (`&
~flag`), so ops_to_numpy gives every function with a masked loop a flag array.

A tree transform of ops_to_numpy's array code (core/pyast.py): the loops are found innermost
and first-ending first (the order names are handed out in); an enclosing loop's guard goes
first in its body, before what its first statement brings.
"""

from __future__ import annotations

import ast

from ..core import pyast
from ..core.pyast import ArrayCode
from .base import Context


def _loops(block: list[ast.stmt], ctx: Context, found: list[tuple[ast.While, list[ast.stmt], str]]) -> None:
    """The masked loops under `block` with the block each is in and its mask, a loop after the
    loops inside it."""
    for s in block:
        for inner in pyast.blocks(s):
            _loops(inner, ctx, found)
        mask = _loop_mask(s)
        if mask is not None and mask in ctx.loop_vars:
            found.append((s, block, mask))  # type: ignore[arg-type]


def _loop_mask(s: ast.stmt) -> str | None:
    """`while np.any(active):` -> "active"."""
    if not isinstance(s, ast.While):
        return None
    test = s.test
    if isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords and isinstance(test.args[0], ast.Name) \
            and isinstance(test.func, ast.Attribute) and test.func.attr == "any" \
            and isinstance(test.func.value, ast.Name) and test.func.value.id == "np":
        return test.args[0].id
    return None


def _names(names: list[str]) -> list[ast.expr]:
    return [pyast.name(n) for n in names]


def _index(block: list[ast.stmt], node: ast.stmt) -> int:
    return next(i for i, s in enumerate(block) if s is node)


def transform(code: ArrayCode, ctx: Context) -> ArrayCode:
    if not ctx.options.compact or not ctx.loop_vars:
        return code
    func = code.func
    # a name whose every assignment was dropped as dead is not carried
    present = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
    found: list[tuple[ast.While, list[ast.stmt], str]] = []
    _loops(func.body, ctx, found)
    for loop, block, mask in found:
        carried = sorted(n for n in ctx.loop_vars[mask] if n != ctx.flag and n in present)
        if not ctx.flag:
            continue  # ops_to_numpy gives every function with a masked loop a flag, when compacting
        carried = [ctx.flag, *carried]  # first: the lanes of a long tail are flagged there
        lanes = ctx.namer.fresh("lanes")
        at = _index(block, loop)
        block.insert(at, pyast.assign(lanes, pyast.call("_vz_Compaction")))
        compact = pyast.assign([mask, *carried], pyast.call(f"{lanes}.compact", *_names([mask, *carried])))
        loop.body.insert(0, ast.If(test=pyast.call(f"{lanes}.worth", pyast.name(mask)), body=[compact], orelse=[]))
        expand = pyast.assign(carried, pyast.call(f"{lanes}.expand", *_names(carried)), tuple_target=True)
        block.insert(at + 2, expand)
    return code
