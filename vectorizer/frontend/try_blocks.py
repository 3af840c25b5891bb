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

One shape is tested instead, so its lanes stay batched: `try: return exp(x)` with `x` a name and
one handler catching OverflowError (bare, `OverflowError`, `ArithmeticError`, `Exception`,
`BaseException`) that returns a name or a number (fluids' `trunc_exp`)::

    if x > 709.782712893384 and x - x == 0:   # exp(x) overflows exactly there (inf - inf is nan)
        return trunc
    return exp(x)

`math.exp` raises nothing else on a number, and OverflowError exactly above that bound (the
largest float whose exp is finite) for floats and ints alike, except on inf, which it returns.

Not rewritten, so the fence refuses them: `finally` (it runs on every path, `return` included,
and may replace the value being returned) and `try`/`except*`.
"""

from __future__ import annotations

import libcst as cst

from ..core.tree import walk
from .namespace import Namespace
from .paths import PathTransformer

# The largest float whose exp is finite: math.exp raises OverflowError above it (ints included).
EXP_MAX = "709.782712893384"
# Handler types that catch OverflowError (when no module binds their names otherwise).
_CATCH_OVERFLOW = ("OverflowError", "ArithmeticError", "Exception", "BaseException")


class TryBlocks(PathTransformer):
    def __init__(self, namespace: Namespace | None = None) -> None:
        super().__init__()
        self.ns = namespace

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Try) and node.finalbody is None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        changed = False
        for stmt in updated.body:
            fast = self.bounded_exp(stmt) if isinstance(stmt, cst.Try) else None
            if fast is not None:
                body.extend(fast)
                changed = True
            elif isinstance(stmt, cst.Try) and stmt.finalbody is None:
                body.extend(_statements(stmt.body))
                if stmt.orelse is not None:
                    body.extend(_statements(stmt.orelse.body))
                changed = True
            else:
                body.append(stmt)
        return updated.with_changes(body=body) if changed else updated


    def bounded_exp(self, stmt: cst.Try) -> list[cst.BaseStatement] | None:
        """`try: return exp(x)` / `except OverflowError: return h` as a test on x, or None."""
        if self.ns is None or stmt.orelse is not None or stmt.finalbody is not None or len(stmt.handlers) != 1:
            return None
        body, handler = _statements(stmt.body), stmt.handlers[0]
        handled = _statements(handler.body)
        if len(body) != 1 or len(handled) != 1 or handler.name is not None or not self.catches_overflow(handler.type):
            return None
        ret, fallback = _return(body[0]), _return(handled[0])
        if ret is None or fallback is None or not _plain(fallback):
            return None
        if not (isinstance(ret, cst.Call) and len(ret.args) == 1 and not ret.args[0].keyword and not ret.args[0].star
                and isinstance(ret.args[0].value, cst.Name) and self.is_exp(ret.func)):
            return None
        x = ret.args[0].value
        # x > EXP_MAX and x is not inf (inf - inf is nan): exactly the lanes where exp(x) raises.
        test = cst.parse_expression(f"{x.value} > {EXP_MAX} and {x.value} - {x.value} == 0")
        guard = cst.If(test, cst.IndentedBlock([handled[0]]))
        return [guard, body[0]]

    def catches_overflow(self, node: cst.BaseExpression | None) -> bool:
        if node is None:
            return True  # a bare `except:`
        names = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
        return any(isinstance(n, cst.Name) and n.value in _CATCH_OVERFLOW and self._builtin(n.value) for n in names)

    def _builtin(self, name: str) -> bool:
        globals_ = self.ns.globals if self.ns is not None else None
        return globals_ is not None and name not in globals_ and name not in self.ns.links  # type: ignore[union-attr]

    def is_exp(self, func: cst.BaseExpression) -> bool:
        assert self.ns is not None
        if isinstance(func, cst.Name):
            return self.ns.resolve(func.value).name == "math.exp" and self.ns.resolve(func.value).kind == "math_func"
        return isinstance(func, cst.Attribute) and func.attr.value == "exp" and isinstance(func.value, cst.Name) \
            and self.ns.resolve(func.value.value).kind == "math"


def _return(stmt: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return):
        return stmt.body[0].value
    return None


def _plain(node: cst.BaseExpression) -> bool:
    """A name or a number literal: evaluating it cannot raise or do anything."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        node = node.expression
    return isinstance(node, cst.Name | cst.Integer | cst.Float)


def has_try(func: cst.FunctionDef) -> bool:
    return any(isinstance(n, cst.Try) and n.finalbody is None for n in walk(func.body))


def _statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]  # type: ignore[attr-defined]
