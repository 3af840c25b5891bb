"""Lower while loops whose test is batched to masked loops: the loop runs while any lane is active.

Before::

    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr_1 = zr * zr - zi * zi + cr
        ...
        n = n + 1

After::

    active = zr * zr + zi * zi <= 4.0 and n < max_iter
    while active:
        zr_1 = zr * zr - zi * zi + cr
        ...
        n = n + 1
        active = active and (zr * zr + zi * zi <= 4.0 and n < max_iter)

A test that is a number (`while x:`) is its truth value, `bool(x)`: masks are bools.
`active` is sticky: a lane that left never comes back, and the test is only evaluated on lanes
still in the loop (the `and` is lazy), so a finished lane can neither raise nor hang the loop.
For one lane this is the same program; `if_to_select` then runs the body under the mask
`active`, and `ops_to_numpy` turns `while active:` into `while np.any(active):`.

Loops nested in batched control are lowered too, whatever their test: `if_to_select` makes their
mask start from the enclosing branch's mask, so lanes that never reach the loop never run it.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import Facts
from .base import Context, StatementTransformer, as_bool, assign, contains, replace
from .canonicalize import parenthesize


class _Lower(StatementTransformer):
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.batched = facts.batched_test
        self.depth = 0  # enclosing batched ifs / masked loops

    def _enters_batched(self, node: cst.CSTNode) -> bool:
        return self.batched.get(node, False) or (isinstance(node, cst.While) and self.depth > 0)

    def visit_If(self, node: cst.If) -> None:
        self.depth += self._enters_batched(node)

    def leave_If(self, original, updated):
        self.depth -= self._enters_batched(original)
        return updated

    def visit_While(self, node: cst.While) -> None:
        self.depth += self._enters_batched(node)

    def leave_While(self, original: cst.While, updated: cst.While):
        self.depth -= self._enters_batched(original)
        if not self._enters_batched(original):
            return updated
        mask = self.ctx.namer.fresh("active")
        self.ctx.loop_masks.add(mask)
        # A fresh copy: analysis facts are keyed by node, so one node must not sit in two places.
        # The mask is a bool: a number's test (`while x:`) becomes `bool(x)`.
        first = as_bool(updated.test, self.facts, original.test)
        test = parenthesize(first.deep_clone())
        update = assign(mask, cst.BooleanOperation(cst.Name(mask), cst.And(), test))
        body = updated.body.with_changes(body=[*updated.body.body, update])
        loop = updated.with_changes(test=cst.Name(mask), body=body, leading_lines=())
        return cst.FlattenSentinel(replace(updated, [assign(mask, first), loop]))


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not contains(func.body, cst.While):
        return func
    facts = ctx.analyze(func)
    return func.visit(_Lower(ctx, facts))
