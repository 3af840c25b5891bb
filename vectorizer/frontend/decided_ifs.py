"""`p is None` decided where `p` is known to be None or not (part of frontend/tuple_args.py: in a
copy made for a call, a tuple parameter is never None, and a parameter the call leaves at its
default None, never rebound, is None), and what that decides folded. Before (`delta` a tuple,
`wye` and `round` left at None)::

    if delta is None and wye is None:
        raise ValueError("give delta or wye")
    if delta is not None and wye is None:
        Zset = (Z1, Z2, Z3)
        if round is not None:
            Zset = _np.around(Zset, round)
        return Zset

After::

    Zset = (Z1, Z2, Z3)
    return Zset

`True and x` is `x`, `False and x` is False, `True or x` True, `False or x` `x` (x is not
evaluated where Python would not evaluate it), `not True` False; an `if` whose test is a literal
keeps its taken branch (an `elif` chain: the first decided-true branch, or the `else`), and a
block left empty is `pass`. Nodes off the paths to a decided test keep their identity.
"""

from __future__ import annotations

import libcst as cst

from .paths import PathTransformer

_TRUE, _FALSE = "True", "False"


def none_test(node: cst.CSTNode, names) -> tuple[str, bool] | None:  # noqa: ANN001
    """(name, negated) of `name is None` / `name is not None`, name in `names`."""
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and isinstance(node.left, cst.Name) \
            and node.left.value in names and isinstance(node.comparisons[0].operator, cst.Is | cst.IsNot):
        c = node.comparisons[0].comparator
        if isinstance(c, cst.Name) and c.value == "None":
            return node.left.value, isinstance(node.comparisons[0].operator, cst.IsNot)
    return None


def _literal(node: cst.BaseExpression) -> bool | None:
    return {_TRUE: True, _FALSE: False}.get(node.value) if isinstance(node, cst.Name) and not node.lpar else None


def _bool(value: bool) -> cst.Name:
    return cst.Name(_TRUE if value else _FALSE)


class Fold(PathTransformer):
    """`p is None` decided; `and`/`or`/`not` of literals folded; an `if` decided keeps its branch."""

    def __init__(self, decided: dict[str, bool]) -> None:
        super().__init__()
        self.decided = decided

    def wants(self, node: cst.CSTNode) -> bool:
        return none_test(node, self.decided) is not None

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        test = none_test(original, self.decided)
        return updated if test is None else _bool(self.decided[test[0]] != test[1])

    def leave_UnaryOperation(self, original: cst.UnaryOperation, updated: cst.UnaryOperation) -> cst.BaseExpression:
        inner = _literal(_bare(updated.expression))
        return _bool(not inner) if isinstance(updated.operator, cst.Not) and inner is not None else updated

    def leave_BooleanOperation(self, original: cst.BooleanOperation, updated: cst.BooleanOperation) -> cst.BaseExpression:
        left = _literal(_bare(updated.left))
        if left is None:
            return updated
        is_and = isinstance(updated.operator, cst.And)
        # `True and x` is x, `False and x` False; `True or x` True, `False or x` x (x not evaluated otherwise)
        return _bare(updated.right) if left == is_and else _bool(left)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        for stmt in updated.body:
            body += _decided(stmt)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated.with_changes(body=body)


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """`(x)` is `x` for the folding (a literal in parentheses is still that literal)."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _decided(stmt: cst.BaseStatement) -> list[cst.BaseStatement]:
    """An `if` whose test is a literal: the statements of its taken branch (none)."""
    if not isinstance(stmt, cst.If):
        return [stmt]
    test = _literal(_bare(stmt.test))
    if test is None:
        return [stmt]
    if test:
        return _statements(stmt.body)
    if stmt.orelse is None:
        return []
    return _decided(stmt.orelse) if isinstance(stmt.orelse, cst.If) else _statements(stmt.orelse.body)


def _statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else [cst.SimpleStatementLine(suite.body)]  # type: ignore[attr-defined]
