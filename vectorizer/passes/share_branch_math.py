"""Compute the math two branches of a batched `if` share once, on the operand each lane picks.

The NumPy backend runs both branches of a batched `if` on every lane. When both start with the
same costly call chain applied to different operands, select the operand first and call once
(LLVM's `select(c, f(a), f(b)) -> f(select(c, a, b))`, across whole branches).

Before::

    if x > 0.0:
        ret = x + math.log1p(math.exp(-x))
    else:
        ret = math.log1p(math.exp(x))

After::

    c = x > 0.0
    arg = -x if c else x
    shared = math.log1p(math.exp(arg))
    if c:
        ret = x + shared
    else:
        ret = shared

Each lane evaluates what it did before, in the same order, so values and exceptions are the
same: the shared chain `S` is taken from the first statement of each branch, and only where
everything those statements evaluate before `S` cannot raise (names, literals); the chains are
the same text except for one operand (or none), and everything `S` evaluates before that operand
is a name or a literal too; both operands have the same type. `S` must hold a call of a C library
function (exp, log, sin, pow...): cheap arithmetic does not pay for the select.
NumPy backend only (the Numba backend branches per lane).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.facts import Facts
from ..core.types import Type
from .base import Context, StatementTransformer, assign, body_of, replace, walk

# Calls that cost more than a select of their operand (NumPy: a C library call or a SIMD kernel).
COSTLY = frozenset({
    "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt", "atan2", "hypot", "pow",
    "erf", "erfc", "gamma", "lgamma",
})


def _inert(node: cst.BaseExpression) -> bool:
    """Evaluating it cannot raise or do anything: a name, a literal, math.pi."""
    return isinstance(node, cst.Name | cst.Integer | cst.Float) or (
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name))


def _eager_parts(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """`node` and the subexpressions evaluated first in it, before anything that may raise:
    an operand is reached only past operands that are inert (left to right, as Python goes)."""
    yield node
    if isinstance(node, cst.BinaryOperation):
        children = [node.left, node.right]
    elif isinstance(node, cst.UnaryOperation):
        children = [node.expression]
    elif isinstance(node, cst.Call) and all(a.keyword is None and not a.star for a in node.args):
        children = [a.value for a in node.args]
    else:
        return  # comparisons, and/or, conditionals: later operands are not always evaluated
    for child in children:
        yield from _eager_parts(child)
        if not _inert(child):
            return


def _same(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    return a.deep_equals(b)


def _difference(a: cst.BaseExpression, b: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None | bool:
    """The smallest operand position where two chains differ: (a's operand, b's operand); True if
    they are the same; None if they differ in two operands of one operation, or after an operand
    that may raise (the differing operand would be evaluated before it)."""
    if _same(a, b):
        return True
    if type(a) is not type(b):
        return a, b
    if isinstance(a, cst.UnaryOperation) and type(a.operator) is type(b.operator):
        return _difference(a.expression, b.expression)
    if isinstance(a, cst.BinaryOperation) and type(a.operator) is type(b.operator):
        pairs = [(a.left, b.left), (a.right, b.right)]
    elif isinstance(a, cst.Call) and _same(a.func, b.func) and len(a.args) == len(b.args) \
            and all(x.keyword is None and y.keyword is None and not x.star and not y.star for x, y in zip(a.args, b.args)):
        pairs = [(x.value, y.value) for x, y in zip(a.args, b.args)]
    else:
        return a, b
    found: tuple | bool = True
    raising_before = False  # an operand before the differing one that may raise
    for x, y in pairs:
        if _same(x, y):
            raising_before |= found is True and not _inert(x)
            continue
        if found is not True or raising_before:
            return None  # two differences, or the operand would move before a raising part
        inner = _difference(x, y)
        found = inner if isinstance(inner, tuple) else (x, y)  # several inside: the whole operand
    return found


def _costly(node: cst.BaseExpression) -> bool:
    for part in walk(node):
        if isinstance(part, cst.Call):
            func = part.func
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            if name in COSTLY:
                return True
        if isinstance(part, cst.BinaryOperation) and isinstance(part.operator, cst.Power):
            return True
    return False


def _size(node: cst.CSTNode) -> int:
    return sum(1 for _ in walk(node))


class _Replace(cst.CSTTransformer):
    def __init__(self, old: cst.CSTNode, new: cst.BaseExpression) -> None:
        self.old, self.new = old, new

    def on_leave(self, original, updated):
        return self.new if original is self.old else updated


class _Share(StatementTransformer):
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx, self.facts = ctx, facts

    def leave_If(self, original: cst.If, updated: cst.If):
        if not self.facts.batched_test.get(original) or not isinstance(original.orelse, cst.Else):
            return updated
        then, other = body_of(original.body), body_of(original.orelse)
        first = [_assigned_value(s) for s in (then[0], other[0])] if then and other else [None, None]
        if first[0] is None or first[1] is None:
            return updated
        match = self._match(first[0], first[1])
        if match is None:
            return updated
        s_then, s_other, operands = match
        test = original.test
        stmts: list[cst.BaseStatement] = []
        if not isinstance(test, cst.Name):
            cond = self.ctx.namer.fresh("c")
            stmts.append(assign(cond, test))
            test = cst.Name(cond)
        chain = s_then
        if operands is not None:
            arg = self.ctx.namer.fresh("arg")
            stmts.append(assign(arg, cst.IfExp(test=test, body=operands[0], orelse=operands[1])))
            chain = s_then.visit(_Replace(operands[0], cst.Name(arg)))
        shared = self.ctx.namer.fresh("shared")
        stmts.append(assign(shared, chain))
        new_then = [then[0].visit(_Replace(s_then, cst.Name(shared))), *body_of(updated.body)[1:]]
        new_other = [other[0].visit(_Replace(s_other, cst.Name(shared))), *body_of(updated.orelse)[1:]]
        if len(new_then) == len(new_other) == 1 and new_then[0].deep_equals(new_other[0]):
            return cst.FlattenSentinel(replace(original, [*stmts, new_then[0]]))  # nothing else differs
        new_if = updated.with_changes(test=test, leading_lines=(),
                                      body=updated.body.with_changes(body=new_then),
                                      orelse=updated.orelse.with_changes(  # type: ignore[union-attr]
                                          body=updated.orelse.body.with_changes(body=new_other)))  # type: ignore[union-attr]
        return cst.FlattenSentinel(replace(original, [*stmts, new_if]))

    def _match(self, a: cst.BaseExpression, b: cst.BaseExpression):
        """The largest pair of costly chains that the two values evaluate first and that differ in
        at most one operand of the same type: (chain in a, chain in b, operands or None)."""
        best = None
        for x in _eager_parts(a):
            if not isinstance(x, cst.Call | cst.BinaryOperation) or not _costly(x):
                continue
            for y in _eager_parts(b):
                diff = _difference(x, y)
                if diff is None or (diff is not True and not self._same_type(*diff)):
                    continue
                if diff is not True and (diff[0] is x):
                    continue  # the whole chain differs: nothing shared
                if best is None or _size(x) > _size(best[0]):
                    best = (x, y, None if diff is True else diff)
        return best

    def _same_type(self, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
        ta, tb = self.facts.vals.get(a), self.facts.vals.get(b)
        return ta is not None and tb is not None and isinstance(ta.type, Type) and ta.type is tb.type \
            and not ta.numpy and not tb.numpy


def _assigned_value(stmt: cst.BaseStatement) -> cst.BaseExpression | None:
    """The value of `name = value`, or None for any other statement."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        small = stmt.body[0]
        if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return small.value
    return None


def _candidate(node: cst.CSTNode) -> bool:
    """An if/else whose branches both open with an assignment of costly math (syntax only)."""
    if not (isinstance(node, cst.If) and isinstance(node.orelse, cst.Else)):
        return False
    firsts = [body_of(node.body)[:1], body_of(node.orelse)[:1]]
    values = [_assigned_value(f[0]) if f else None for f in firsts]
    return all(v is not None and _costly(v) for v in values)


def _statements(stmts: list[cst.BaseStatement]) -> Iterator[cst.BaseStatement]:
    """Every statement, nested ones included (expressions are not entered)."""
    for st in stmts:
        yield st
        if isinstance(st, cst.If | cst.While | cst.For):
            yield from _statements(body_of(st.body))
        if isinstance(st, cst.If | cst.While | cst.For) and st.orelse is not None:
            yield from _statements(body_of(st.orelse))


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not any(_candidate(n) for n in _statements(body_of(func.body))):
        return func  # the common case: no analysis run (it costs a few ms a function)
    facts = ctx.analyze(func)
    if not any(facts.batched_test.values()):
        return func
    return func.visit(_Share(ctx, facts))
