"""Reduce assignment forms to one: `name = expr` (and `a, b = call(...)` for tuple results).

Before::

    '''Docstring.'''
    zr = zi = 0.0
    n += 1
    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    x: float = 1.0
    pass

After::

    zr = 0.0
    zi = 0.0
    n = n + 1
    zr_1 = zr * zr - zi * zi + cr
    zi = 2.0 * zr * zi + ci
    zr = zr_1
    x = 1.0

A tuple assignment is simultaneous in Python; a temporary is used only for a target that a later
right-hand side still reads. Under `python -O` asserts are dropped, as CPython does. An `if` or a
conditional expression whose test is a literal keeps only the branch that runs (`if False: A elif
c: B` -> `if c: B`; `a if True else b` -> `a`), and a one-line body (`if c: n += 1`) becomes an
indented block like any other.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import empty_range, literal_range_length
from ..analysis.liveness import reads
from ..frontend.namespace import Namespace
from .base import Context, block, body_of, replace, stmt

_ATOMIC = (cst.Name, cst.Integer, cst.Float, cst.Call, cst.Attribute, cst.Subscript)


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, _ATOMIC) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _Canonicalize(cst.CSTTransformer):
    def __init__(self, ctx: Context, optimize: bool) -> None:
        self.ctx = ctx
        self.optimize = optimize

    def leave_IndentedBlock(self, original, updated):
        out: list[cst.BaseStatement] = []
        for s in updated.body:
            out.extend(self.statement(s))
        # Statements after a return, raise, break or continue never run: no pass has to lower them.
        end = next((i for i, s in enumerate(out) if _leaves(s, self.ctx.namespace)), None)
        if end is not None:
            out = out[:end + 1]
        if not out:
            out = [stmt("pass")]
        return updated.with_changes(body=out)

    def leave_IfExp(self, original, updated):
        """`a if True else b` is `a`: only that side is ever evaluated (and typed)."""
        truth = _literal_truth(updated.test)
        if truth is None:
            return updated
        return parenthesize(updated.body if truth else updated.orelse)

    def leave_SimpleStatementSuite(self, original, updated):
        """`if c: n += 1` on one line: an indented block, canonicalized like any other."""
        lines = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(updated.body))])
        return self.leave_IndentedBlock(lines, lines)

    def statement(self, s: cst.BaseStatement) -> list[cst.BaseStatement]:
        if isinstance(s, cst.If):
            return [t for t in _fold(s) if not _is_pass(t)]
        if isinstance(s, cst.For) and empty_range(s.iter, self.ctx.namespace):
            return []  # `for i in range(0):` never runs (nor binds i): nothing to type or lower
        if not isinstance(s, cst.SimpleStatementLine):
            return [s]
        out: list[cst.BaseStatement] = []
        for small in s.body:
            out.extend(self.small(small))
        return replace(s, out)

    def small(self, small: cst.BaseSmallStatement) -> list[cst.BaseStatement]:
        line = lambda node: cst.SimpleStatementLine([node])  # noqa: E731
        if isinstance(small, cst.Pass):
            return []
        if isinstance(small, cst.Expr):  # only docstrings pass the fence
            return []
        if isinstance(small, cst.Assert) and self.optimize:
            return []
        if isinstance(small, cst.AnnAssign):
            if small.value is None:
                return []
            return [line(cst.Assign([cst.AssignTarget(small.target)], small.value))]
        if isinstance(small, cst.AugAssign):
            op = getattr(cst, type(small.operator).__name__.removesuffix("Assign"))()
            value = cst.BinaryOperation(small.target.deep_clone(), op, parenthesize(small.value))
            return [line(cst.Assign([cst.AssignTarget(small.target)], value))]
        if isinstance(small, cst.Assign):
            return [line(a) for a in self.assign(small)]
        return [line(small)]

    def assign(self, node: cst.Assign) -> list[cst.Assign]:
        targets = [t.target for t in node.targets]
        first, rest = targets[0], targets[1:]
        if rest and not isinstance(first, cst.Name):
            tmp = self.ctx.namer.fresh("t")
            out = [cst.Assign([cst.AssignTarget(cst.Name(tmp))], node.value)]
            for t in targets:
                out += self.assign(cst.Assign([cst.AssignTarget(t)], cst.Name(tmp)))
            return out
        out = self.unpack(first, node.value)
        literal = isinstance(node.value, cst.Integer | cst.Float) or (
            isinstance(node.value, cst.Name) and node.value.value in ("True", "False"))
        for t in rest:
            out += self.unpack(t, (node.value if literal else first).deep_clone())
        return out

    def unpack(self, target: cst.BaseExpression, value: cst.BaseExpression) -> list[cst.Assign]:
        if isinstance(target, cst.Name) or not isinstance(value, cst.Tuple):
            return [cst.Assign([cst.AssignTarget(target)], value)]
        names = [e.value for e in target.elements]  # type: ignore[attr-defined]
        values = [e.value for e in value.elements]
        if len(names) != len(values):
            return [cst.Assign([cst.AssignTarget(target)], value)]  # the analysis reports it
        now: list[cst.Assign] = []
        later: list[cst.Assign] = []
        for i, (name, val) in enumerate(zip(names, values)):
            later_reads = set().union(*(reads(v) for v in values[i + 1:])) if i + 1 < len(values) else set()
            if isinstance(name, cst.Name) and name.value in later_reads:
                tmp = self.ctx.namer.fresh(name.value)
                now.append(cst.Assign([cst.AssignTarget(cst.Name(tmp))], val))
                later.append(cst.Assign([cst.AssignTarget(name)], cst.Name(tmp)))
            else:
                now.extend(self.unpack(name, val))
        return now + later


def _fold(s: cst.If) -> list[cst.BaseStatement]:
    """An `if` (or `elif`) whose test is a literal keeps only the branch that runs."""
    truth = _literal_truth(s.test)
    if truth is not None:
        branch = body_of(s.body) if truth else _fold(s.orelse) if isinstance(s.orelse, cst.If) else body_of(s.orelse)
        return replace(s, branch)
    if not isinstance(s.orelse, cst.If):
        return [s]
    rest = _fold(s.orelse)
    if len(rest) == 1 and isinstance(rest[0], cst.If):
        return [s.with_changes(orelse=rest[0])]
    return [s.with_changes(orelse=cst.Else(block(rest)) if rest else None)]


def _literal_truth(test: cst.BaseExpression) -> bool | None:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _literal_truth(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return test.value == "True"
    if isinstance(test, cst.Integer | cst.Float):
        return bool(test.evaluated_value)
    return None


def _leaves(s: cst.BaseStatement, namespace: Namespace | None = None) -> bool:
    """The statement never falls through: return/raise/break/continue, an if/else whose
    branches all leave, or a loop over a literal non-empty range whose body returns or raises
    on its first iteration (the analysis decides the same, see batched.literal_range_length)."""
    if isinstance(s, cst.For):
        if namespace is None or not literal_range_length(s.iter, namespace):
            return False
        body = body_of(s.body)
        jumps = any(isinstance(n, cst.Break | cst.Continue) for n in _own(s.body))
        return not jumps and any(_leaves(t, namespace) for t in body)
    if isinstance(s, cst.If):
        if s.orelse is None:
            return False
        other = [s.orelse] if isinstance(s.orelse, cst.If) else body_of(s.orelse.body)
        return any(_leaves(t, namespace) for t in body_of(s.body)) and any(_leaves(t, namespace) for t in other)
    return isinstance(s, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Return | cst.Raise | cst.Break | cst.Continue) for small in s.body)


def _is_pass(s: cst.BaseStatement) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and all(isinstance(small, cst.Pass) for small in s.body)


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    return func.visit(_Canonicalize(ctx, ctx.options.optimize))


def _own(node: cst.CSTNode):
    """The nodes inside a loop body that belong to that loop (not to loops nested in it)."""
    for child in node.children:
        yield child
        if not isinstance(child, cst.For | cst.While):
            yield from _own(child)
