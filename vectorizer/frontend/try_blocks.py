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

A second shape is tested too: pymap3d's arrays-or-numbers idiom, `try: e[abs(e) < 1e-3] = 0.0 ...`
with one handler catching TypeError, becomes `if np.isscalar(e): <the handler> else: <the body>`
(`item_fallback`: a number has no item assignment), decided per call from e's kind.

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
# Handler types that catch OverflowError, TypeError (when no module binds their names otherwise).
_CATCH_OVERFLOW = ("OverflowError", "ArithmeticError", "Exception", "BaseException")
_CATCH_TYPE = ("TypeError", "Exception", "BaseException")
_ORDERS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


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
            fast = self.bounded_exp(stmt) or self.item_fallback(stmt) if isinstance(stmt, cst.Try) else None
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

    def item_fallback(self, stmt: cst.Try) -> list[cst.BaseStatement] | None:
        """`try: e[abs(e) < 1e-3] = 0.0 ...` / `except TypeError: <scalar code>` (pymap3d's
        arrays-or-numbers idiom) as `if np.isscalar(e): <scalar code> else: <the body>`, or None.
        Python evaluates the value (a number literal), then `e`, then the index (names of `e`,
        numbers, abs, comparisons: nothing that raises on a number), then stores: a number (int,
        float, bool or a NumPy scalar, which np.isscalar is True of) has no item assignment, so
        the first statement raises TypeError, and the handler runs instead of the rest. The
        test is decided per call from the argument's kind (passes/specialize.py); a 0-d array,
        for which it is False, stores."""
        if self.ns is None or stmt.finalbody is not None or len(stmt.handlers) != 1:
            return None
        handler = stmt.handlers[0]
        body = _statements(stmt.body)
        if handler.name is not None or not self.catches(handler.type, _CATCH_TYPE) or not body:
            return None
        first = body[0]
        if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Assign)):
            return None
        assign = first.body[0]
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and len(target.slice) == 1
                and isinstance(target.slice[0].slice, cst.Index) and _plain_number(assign.value)
                and self._cannot_raise(target.slice[0].slice.value, target.value.value)):
            return None
        rest = [*body, *(_statements(stmt.orelse.body) if stmt.orelse is not None else [])]
        test = cst.parse_expression(f"np.isscalar({target.value.value})")
        return [cst.If(test, cst.IndentedBlock(_statements(handler.body)), orelse=cst.Else(cst.IndentedBlock(rest)))]

    def _cannot_raise(self, node: cst.BaseExpression, subject: str) -> bool:
        """An index of the number `subject`, whose evaluation cannot raise (see item_fallback)."""
        if isinstance(node, cst.Name):
            return node.value == subject
        if isinstance(node, cst.Integer | cst.Float):
            return True
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, cst.Minus | cst.Plus | cst.Not) and self._cannot_raise(node.expression, subject)
        if isinstance(node, cst.Comparison):
            return all(isinstance(c.operator, _ORDERS) for c in node.comparisons) and self._cannot_raise(node.left, subject) \
                and all(self._cannot_raise(c.comparator, subject) for c in node.comparisons)
        if isinstance(node, cst.Call):
            return isinstance(node.func, cst.Name) and node.func.value == "abs" and self._builtin("abs") \
                and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
                and self._cannot_raise(node.args[0].value, subject)
        return False

    def catches_overflow(self, node: cst.BaseExpression | None) -> bool:
        return self.catches(node, _CATCH_OVERFLOW)

    def catches(self, node: cst.BaseExpression | None, types: tuple[str, ...]) -> bool:
        if node is None:
            return True  # a bare `except:`
        names = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
        return any(isinstance(n, cst.Name) and n.value in types and self._builtin(n.value) for n in names)

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


def _plain_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        node = node.expression
    return isinstance(node, cst.Integer | cst.Float)


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
