"""A loop's `else` is a flag its `break`s set (part of frontend/desugar.py; issue 51: primefac's
`isprime`, the strong probable-prime test's `for j in range(1, s): ... else: return False`).
Before::

    for j in range(1, s):
        x = pow(x, 2, n)
        if x == 1: return False
        elif x == n - 1: break
    else:
        return False

After::

    broke_1 = False
    for j in range(1, s):
        x = pow(x, 2, n)
        if x == 1: return False
        elif x == n - 1: broke_1 = True; break
    if not broke_1:
        return False

Python runs a loop's `else` exactly when the loop ends without a `break` of its own (its
iterable exhausted, or its `while` test false); a `return` or an exception leaves the function,
skipping both. The flag is False before the loop and set right before each `break` of this loop
(not those of a loop nested in it), so `not flag` after the loop is that condition. `for` and
`while` alike; the lowering of batched control flow then makes the flag per lane.
"""

from __future__ import annotations

import libcst as cst

from .paths import FreshNames, PathTransformer

_NESTED = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


def has_loop_else(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.For | cst.While) and node.orelse is not None:
        return True
    return any(has_loop_else(c) for c in node.children)


class LoopElse(PathTransformer):
    """The rewrite of the module docstring, on every `for`/`while` with an `else`."""

    def __init__(self, taken: set[str]) -> None:
        super().__init__()
        self.taken, self.fresh = taken, FreshNames(taken)

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.For | cst.While) and node.orelse is not None

    def leave_For(self, original: cst.For, updated: cst.For):  # noqa: ANN201 - libcst's union
        return self._loop(original, updated)

    def leave_While(self, original: cst.While, updated: cst.While):  # noqa: ANN201 - libcst's union
        return self._loop(original, updated)

    def _loop(self, original: cst.For | cst.While, updated: cst.For | cst.While):  # noqa: ANN202
        if updated.orelse is None:
            return updated
        flag = self.fresh("broke")
        breaks = _Breaks(flag)
        body = updated.body.visit(breaks)
        for new, old in breaks.rebuilt:
            self.rebuilt[id(new)] = (new, old)
        loop = updated.with_changes(body=body, orelse=None)
        start = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(flag))], cst.Name("False"))])
        test = cst.UnaryOperation(cst.Not(), cst.Name(flag))
        after = cst.If(test=test, body=updated.orelse.body)
        for new, old in ((loop, original), (start, original), (start.body[0], original), (after, original.orelse),
                         (test, original.orelse)):
            self.rebuilt[id(new)] = (new, old)  # type: ignore[assignment]
        return cst.FlattenSentinel([start, loop, after])


class _Breaks(cst.CSTTransformer):
    """`break` -> `flag = True; break`, for the breaks of this loop only."""

    def __init__(self, flag: str) -> None:
        self.flag = flag
        self.rebuilt: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return not isinstance(node, _NESTED)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        out = super().on_leave(original_node, updated_node)
        if out is not original_node and isinstance(out, cst.CSTNode):
            self.rebuilt.append((out, original_node))  # a statement rebuilt: its original's position and line
        return out

    def leave_Break(self, original: cst.Break, updated: cst.Break):  # noqa: ANN201 - libcst's union
        assign = cst.Assign([cst.AssignTarget(cst.Name(self.flag))], cst.Name("True"))
        self.rebuilt.append((assign, original))
        return cst.FlattenSentinel([assign, updated])
