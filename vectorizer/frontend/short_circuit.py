"""Calls to same-module functions (and callable objects, whose calls become copies of their
functions: frontend/static_methods.py) under `and`, `or` and `x if c else y` become statements (part
of frontend/desugar.py): the inliner places a callee's body at a statement, so a call that only
some lanes reach must be reached through an `if`. Before::

    return DAYS_BEFORE[month] + (month > 2 and is_leap(year))

After (what Python evaluates before the call keeps its order: it is bound first)::

    value_1 = DAYS_BEFORE[month]
    and_2 = month > 2
    if and_2:
        and_2 = is_leap(year)
    return value_1 + and_2

`a or b` becomes `or_n = a` then `if not or_n: or_n = b`; `b if c else d` becomes `test_n = c`
then `if test_n: if_n = b` / `else: if_n = d`: each operand runs exactly when Python runs it,
and the value is the operand Python returns. Only statements whose expression runs first and
unconditionally are rewritten (an assignment to a name, a `return`, an `assert` test, the test
of an `if` that is no `elif`); a chained comparison `a < b < f(c)` is `a < b and b < f(c)` with `b`
evaluated once; the path to the operator may pass through arithmetic, single comparisons, calls,
subscripts and tuples (their earlier operands are bound first), and the left operand of another
`and`/`or` or the test of another `x if c else y`.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer

_TRIVIAL = (cst.Name, cst.Integer, cst.Float)


class ShortCircuit(PathTransformer):
    def __init__(self, ns: Namespace, local: set[str], fresh: Callable[[str], str]) -> None:
        super().__init__()
        self.ns, self.local, self.fresh = ns, local, fresh

    def _calls_function(self, node: cst.CSTNode) -> bool:
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value not in self.local:
                glob = self.ns.resolve(n.func.value)
                if glob.kind == "function" or glob.kind == "value" and callable(glob.value):
                    return True  # (a module-level callable object: a copy of its function, inlined likewise)
            stack.extend(n.children)
        return False

    def wants(self, node: cst.CSTNode) -> bool:
        chained = isinstance(node, cst.Comparison) and len(node.comparisons) > 1
        return (chained or isinstance(node, cst.BooleanOperation | cst.IfExp)) and self._calls_function(node)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        for stmt in updated.body:
            body.extend(self._statement(stmt, self.rebuilt.get(id(stmt), (stmt, stmt))[1]))
        return updated.with_changes(body=body) if len(body) != len(updated.body) else updated

    def _statement(self, stmt: cst.BaseStatement, original: cst.CSTNode, depth: int = 0) -> list[cst.BaseStatement]:
        expr = _evaluated(stmt)
        if expr is None or depth > 20:
            return [stmt]
        path = _path(expr, self.wants)
        if path is None:
            return [stmt]
        out: list[cst.BaseStatement] = []
        replaced: dict[cst.CSTNode, cst.CSTNode] = {}
        for before in _evaluated_before(path):
            name = self.fresh("value")
            out.extend(self._statement(assign_to(name, before), original, depth + 1))
            replaced[before] = cst.Name(name)
        target = path[-1]
        name, lowered = self._lower(target)
        for s in lowered:
            out.extend(self._statement(s, original, depth + 1) if isinstance(s, cst.SimpleStatementLine) else [s])
        replaced[target] = cst.Name(name)
        stmt = stmt.visit(_Replace(replaced))  # type: ignore[assignment]  # one pass: identities hold
        out.extend(self._statement(stmt, original, depth + 1))
        for s in out:
            self.rebuilt[id(s)] = (s, original)
        return out

    def _lower(self, node: cst.BaseExpression) -> tuple[str, list[cst.BaseStatement]]:
        if isinstance(node, cst.BooleanOperation):
            is_and = isinstance(node.operator, cst.And)
            name = self.fresh("and" if is_and else "or")
            test: cst.BaseExpression = cst.Name(name) if is_and else cst.UnaryOperation(cst.Not(), cst.Name(name))
            then = self._block(assign_to(name, bare(node.right)))
            return name, [assign_to(name, bare(node.left)), cst.If(test, then)]
        if isinstance(node, cst.Comparison):  # a < b < c: c runs only where a < b holds
            first = node.comparisons[0]
            stmts: list[cst.BaseStatement] = []
            operands = []
            for operand in (node.left, first.comparator):  # names and literals need no variable
                if isinstance(operand, _TRIVIAL):
                    operands.append(operand)
                else:
                    var = self.fresh("value")
                    stmts.append(assign_to(var, bare(operand)))
                    operands.append(cst.Name(var))
            name = self.fresh("cmp")
            rest = cst.Comparison(operands[1], node.comparisons[1:])
            return name, [*stmts, assign_to(name, cst.Comparison(operands[0], [first.with_changes(comparator=operands[1])])),
                          cst.If(cst.Name(name), self._block(assign_to(name, rest)))]
        assert isinstance(node, cst.IfExp)
        test_name, name = self.fresh("test"), self.fresh("if")
        return name, [assign_to(test_name, bare(node.test)),
                      cst.If(cst.Name(test_name), self._block(assign_to(name, bare(node.body))),
                             orelse=cst.Else(self._block(assign_to(name, bare(node.orelse)))))]

    def _block(self, stmt: cst.SimpleStatementLine) -> cst.IndentedBlock:
        return cst.IndentedBlock(self._statement(stmt, stmt, 1))


class _Replace(cst.CSTTransformer):
    def __init__(self, replaced: dict[cst.CSTNode, cst.CSTNode]) -> None:
        self.replaced = {id(k): v for k, v in replaced.items()}

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        return self.replaced.get(id(original_node), updated_node)


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if hasattr(node, "lpar") else node


def assign_to(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _evaluated(stmt: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return small.value
        if isinstance(small, cst.Return | cst.Assert):
            return small.value if isinstance(small, cst.Return) else small.test
    if isinstance(stmt, cst.If):
        return stmt.test
    return None


def _children(node: cst.CSTNode) -> list[cst.BaseExpression] | None:
    """The operands Python evaluates unconditionally, in order; None where the path may not pass."""
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    if isinstance(node, cst.Comparison):
        return [node.left, node.comparisons[0].comparator] if len(node.comparisons) == 1 else [node.left]
    if isinstance(node, cst.BooleanOperation):
        return [node.left]
    if isinstance(node, cst.IfExp):
        return [node.test]
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name | cst.Attribute):
        return [a.value for a in node.args] if not any(a.star for a in node.args) else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return [node.value, node.slice[0].slice.value]
    if isinstance(node, cst.Tuple):
        return [e.value for e in node.elements]
    return None


def _path(node: cst.BaseExpression, wants: Callable[[cst.CSTNode], bool]) -> list[cst.CSTNode] | None:
    """The nodes from `node` down to the first (in evaluation order) operator to lower."""
    if wants(node):
        return [node]
    children = _children(node)
    for child in children or []:
        found = _path(child, wants)
        if found is not None:
            return [node, *found]
    return None


def _evaluated_before(path: list[cst.CSTNode]) -> list[cst.BaseExpression]:
    """The operands Python evaluates before the path's last node, outermost first: each is bound
    to a variable first so that it keeps its place."""
    out: list[cst.BaseExpression] = []
    for parent, child in zip(path, path[1:]):
        for sibling in _children(parent) or []:
            if sibling is child:
                break
            if not isinstance(sibling, _TRIVIAL):
                out.append(sibling)
    return out
