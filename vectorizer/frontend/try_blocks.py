"""`try`/`except` (part of frontend/desugar.py, first): the batched code runs the `try` body and its
`else`, and every lane on which anything there may raise is already flagged and re-run through the
ORIGINAL scalar function (engine/patch.py), where CPython runs the handlers itself. Before::

    def trunc_exp(x, trunc=1.7976931348622732e+308):
        try:
            y = exp(x)
        except OverflowError:
            return trunc
        else:
            y = y + 1.0
        return y

After (exp flags the lanes where it overflows, as it does outside a `try`)::

    def trunc_exp(x, trunc=1.7976931348622732e+308):
        y = exp(x)
        y = y + 1.0
        return y

Why this is exact: on a lane where no statement of the body raises, Python runs the body, then
the `else`, and never a handler: the batched code does the same. On a lane where something in the
body may raise, that operation flags the lane (the contract: every operation that may raise
flags, and an explicit `raise` flags the lanes reaching it), and the lane's value, or exception,
is the scalar function's own: the handler that matches, the assignments made before the raise,
an exception no handler matches or one a handler raises, all as CPython runs them. The price is
speed on those lanes (they run in Python), never values.

Not rewritten, so the fence refuses them: `finally` (it runs on every path, `return` included,
and may replace the value being returned) and `try`/`except*`.
"""

from __future__ import annotations

import libcst as cst

from ..core.tree import walk
from .paths import PathTransformer


class TryBlocks(PathTransformer):
    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Try) and node.finalbody is None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        changed = False
        for stmt in updated.body:
            if isinstance(stmt, cst.Try) and stmt.finalbody is None:
                body.extend(_statements(stmt.body))
                if stmt.orelse is not None:
                    body.extend(_statements(stmt.orelse.body))
                changed = True
            else:
                body.append(stmt)
        return updated.with_changes(body=body) if changed else updated


def has_try(func: cst.FunctionDef) -> bool:
    return any(isinstance(n, cst.Try) and n.finalbody is None for n in walk(func.body))


def _statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]  # type: ignore[attr-defined]
