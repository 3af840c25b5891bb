"""Compact masked loops: once few lanes remain active, the loop continues on those lanes alone.

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
            active, cr, flag, n, zi, zr = lanes.compact(active, cr, flag, n, zi, zr)
        zr_1 = zr * zr - zi * zi + cr
        ...
        active = active & (zr * zr + zi * zi <= 4.0) & ~flag
    cr, flag, n, zi, zr = lanes.expand(cr, flag, n, zi, zr)

The carried names are the loop's batched values live at its test (recorded by ops_to_numpy);
`_vz_Compaction` (runtime.py) gathers them when at most half the lanes are active and scatters
them back after the loop. Temporaries computed inside the body need no carrying.
"""

from __future__ import annotations

import libcst as cst

from .base import Context, StatementTransformer, stmt, stmts


class _Compact(StatementTransformer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def leave_While(self, original: cst.While, updated: cst.While):
        mask = _loop_mask(updated.test)
        if mask is None or mask not in self.ctx.loop_vars:
            return updated
        carried = [n for n in self.ctx.loop_vars[mask] if n != self.ctx.flag]
        if self.ctx.flag:
            carried = sorted([*carried, self.ctx.flag])
        if not carried:
            return updated
        lanes = self.ctx.namer.fresh("lanes")
        names = ", ".join(carried)
        guard = stmts(f"if {lanes}.worth({mask}):\n    {mask}, {names} = {lanes}.compact({mask}, {names})\n")
        body = updated.body.with_changes(body=[*guard, *updated.body.body])
        after = stmt(f"{names}{',' if len(carried) == 1 else ''} = {lanes}.expand({names})")
        loop = updated.with_changes(body=body, leading_lines=())
        first = stmt(f"{lanes} = _vz_Compaction()").with_changes(leading_lines=updated.leading_lines)
        return cst.FlattenSentinel([first, loop, after])


def _loop_mask(test: cst.BaseExpression) -> str | None:
    """`np.any(active)` -> "active"."""
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value == "any"
            and len(test.args) == 1 and isinstance(test.args[0].value, cst.Name)):
        return test.args[0].value.value
    return None


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not ctx.options.compact or not ctx.loop_vars:
        return func
    return func.visit(_Compact(ctx))
