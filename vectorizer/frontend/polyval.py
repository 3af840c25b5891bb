"""`np.polyval` of a table of float literals becomes the Horner steps NumPy runs (part of
frontend/desugar.py, before the fence). Before::

    c1 = np.array([-2.55019e-08, 2.98357e-06, 0.0170907])
    return np.polyval(c1, t) + np.polyval([1.5, -2.0], p)

After::

    return ((0 * t + (-2.55019e-08)) * t + 2.98357e-06) * t + 0.0170907 + ((0 * p + 1.5) * p + (-2.0))

NumPy's own code (numpy/lib/_polynomial_impl.py) is `y = zeros_like(x)`, then `y = y * x + pv`
for each coefficient `pv` of `asarray(p)`: the same operations in the same order, so each lane
gets NumPy's value bit for bit (`0 * x` is NaN where x is infinite or NaN, as `zeros_like(x) * x`
is; a float64 table makes every step float64 from the first addition on, and an int or bool
lane's product with a float is the float product Python computes too). Only where that holds:
the table is a list or tuple display, or `np.array(...)` of one, of number literals with at least
one float among them (an int table is int64 in NumPy: its products wrap, Python's do not), given
inline or by a local bound once at the function's top level and read nowhere else (its binding
is then dropped: building the array has no effect); `x` is a name or a number literal. Anything
else is left to the fence ("np.polyval has no batching rule").
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from ..core.binding import bindings
from ..core.tree import walk
from .namespace import Namespace
from .paths import PathTransformer


class Polyval(PathTransformer):
    """Rewrites `np.polyval(TABLE, x)`; `rebuilt` maps each new node to its original."""

    def __init__(self, ns: Namespace, func: cst.FunctionDef, local: set[str]) -> None:
        super().__init__()
        self.ns, self.local = ns, local
        once = {n for n, k in Counter(bindings(func.body)).items() if k == 1}
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else []
        self.tables: dict[str, tuple[list[float], cst.BaseStatement]] = {}
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and small.targets[0].target.value in once and (found := self._display(small.value)) is not None:
                self.tables[small.targets[0].target.value] = (found, stmt)
        self.used = {name for name in self.tables if self._reads_elsewhere(func, name)}

    def wants(self, node: cst.CSTNode) -> bool:
        return self._horner(node) is not None or id(node) in {id(stmt) for _, stmt in self._dropped()}

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        found = self._horner(original)
        return found if found is not None else updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        gone = {id(stmt) for _, stmt in self._dropped()}
        kept = [new for old, new in zip(original.body, updated.body) if id(old) not in gone]
        return updated.with_changes(body=kept) if len(kept) != len(updated.body) else updated

    # -- reading -----------------------------------------------------------------------------
    def _dropped(self) -> list[tuple[str, cst.BaseStatement]]:
        return [(name, stmt) for name, (_, stmt) in self.tables.items() if name not in self.used]

    def _horner(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        if not (isinstance(node, cst.Call) and self._numpy(node.func, "polyval") and len(node.args) == 2
                and not any(a.keyword or a.star for a in node.args)):
            return None
        table, x = node.args[0].value, node.args[1].value
        if isinstance(table, cst.Name) and table.value in self.tables and table.value not in self.used:
            coefficients = self.tables[table.value][0]
        else:
            coefficients = self._display(table)  # type: ignore[assignment]
        if coefficients is None or not (isinstance(x, cst.Name | cst.Float | cst.Integer)):
            return None
        expr: cst.BaseExpression = cst.Integer("0")  # zeros_like(x): an int 0 times an int lane is an int
        for c in coefficients:
            step = cst.BinaryOperation(expr if isinstance(expr, cst.Integer) else _paren(expr), cst.Multiply(), x)
            expr = cst.BinaryOperation(step, cst.Add(), _literal(c))
        return _paren(expr) if node.lpar else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def _display(self, node: cst.BaseExpression) -> list[float] | None:
        """The float64 values of `[1.5, 2]`, `(1.5, 2)` or `np.array([...])` of number literals
        with a float among them, else None."""
        if isinstance(node, cst.Call) and self._numpy(node.func, "array") and len(node.args) == 1 \
                and not node.args[0].keyword and not node.args[0].star:
            node = node.args[0].value
        if not isinstance(node, cst.List | cst.Tuple) or not node.elements:
            return None
        values, floats = [], False
        for el in node.elements:
            v, sign = el.value, 1.0
            if isinstance(el, cst.StarredElement):
                return None
            if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus | cst.Plus):
                sign, v = (-1.0 if isinstance(v.operator, cst.Minus) else 1.0), v.expression
            if not isinstance(v, cst.Float | cst.Integer):
                return None
            floats = floats or isinstance(v, cst.Float)
            values.append(sign * float(v.evaluated_value))  # as np.array converts it (ints too)
        return values if floats else None

    def _numpy(self, func: cst.BaseExpression, name: str) -> bool:
        return isinstance(func, cst.Attribute) and func.attr.value == name and isinstance(func.value, cst.Name) \
            and func.value.value not in self.local and self.ns.resolve(func.value.value).kind == "numpy"

    def _reads_elsewhere(self, func: cst.FunctionDef, name: str) -> bool:
        """`name` is read other than as the table of an `np.polyval` this module rewrites."""
        tables = {id(n.args[0].value) for n in walk(func.body) if isinstance(n, cst.Call) and self._numpy(n.func, "polyval")
                  and len(n.args) == 2 and isinstance(n.args[1].value, cst.Name | cst.Float | cst.Integer)}
        targets = {id(t.target) for n in walk(func.body) if isinstance(n, cst.Assign) for t in n.targets}
        return any(isinstance(n, cst.Name) and n.value == name and id(n) not in tables and id(n) not in targets
                   for n in walk(func.body))


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if not node.lpar else node


def _literal(value: float) -> cst.BaseExpression:
    text = repr(value)
    if text.startswith("-"):
        return cst.UnaryOperation(cst.Minus(), cst.Float(text[1:]), lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Float(text)
