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
    arg = -math.fabs(x)                     # was: -x if c else x
    shared = math.log1p(math.exp(arg))
    ret = (x if c else 0.0) + shared        # was: if c: ret = x + shared / else: ret = shared

The two comments are the general form, which the pass emits unless analysis/zeros.py proves the
shorter one exact: `-math.fabs(x)` where the selected operand of `x > 0.0` goes straight into
exp, cos or cosh (they differ only at +0.0, where those give 1.0), and the sum where `shared` is
never -0.0 (`0.0 + shared` is then `shared`). Each saves passes over memory: softplus makes 8
instead of 13 (hand-written NumPy: 6).

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
from ..analysis.signs import MIRRORED, literal_number
from ..analysis.zeros import never_negative_zero, zero_sign_blind_operand
from ..core.types import FLOAT, Type
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
            negated = [o for o in operands if isinstance(o, cst.UnaryOperation)]
            selected = _magnitude(original.test, operands, s_then, self.ctx.call_name) \
                if negated and self._is_float(negated[0]) else None
            selected = selected or cst.IfExp(test=test, body=operands[0], orelse=operands[1])
            stmts.append(assign(arg, selected))
            chain = s_then.visit(_Replace(operands[0], cst.Name(arg)))
        shared = self.ctx.namer.fresh("shared")
        stmts.append(assign(shared, chain))
        new_then = [then[0].visit(_Replace(s_then, cst.Name(shared))), *body_of(updated.body)[1:]]
        new_other = [other[0].visit(_Replace(s_other, cst.Name(shared))), *body_of(updated.orelse)[1:]]
        if len(new_then) == len(new_other) == 1 and new_then[0].deep_equals(new_other[0]):
            return cst.FlattenSentinel(replace(original, [*stmts, new_then[0]]))  # nothing else differs
        if len(new_then) == len(new_other) == 1 and self._is_float(s_then) and never_negative_zero(chain, self.ctx.call_name):
            added = self._added_term(new_then[0], new_other[0], shared, test, first)
            if added is not None:
                return cst.FlattenSentinel(replace(original, [*stmts, added]))
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

    def _added_term(self, a: cst.BaseStatement, b: cst.BaseStatement, shared: str, test: cst.BaseExpression,
                    originals: list):
        """`t = e + shared` and `t = shared` (either way round, either branch) as one statement
        `t = (e if test else 0.0) + shared`: exact where `shared` is never -0.0 (analysis/zeros.py),
        and the select of a 0.0 side costs one multiply (runtime/helpers._vz_where) where the
        select of the sum took three passes and the sum a fourth; `e` keeps its checks, masked by
        `test` as before. Floats only: `e if test else 0.0` must not mix an int with a float
        (`originals`: the branches' first values as analysed, where `e` has its type)."""
        values = [_assigned_value(a), _assigned_value(b)]
        targets = [_assigned_name(a), _assigned_name(b)]
        if targets[0] is None or targets[0] != targets[1]:
            return None
        for k in (0, 1):
            total, alone = values[k], values[1 - k]
            if not (isinstance(alone, cst.Name) and alone.value == shared and isinstance(total, cst.BinaryOperation)
                    and isinstance(total.operator, cst.Add)):
                continue
            for side, other in (("left", total.right), ("right", total.left)):
                term = getattr(total, side)
                typed = getattr(originals[k], side, None)
                if not (isinstance(other, cst.Name) and other.value == shared) or typed is None or not self._is_float(typed):
                    continue
                zero = cst.Float("0.0")
                body, orelse = (term, zero) if k == 0 else (zero, term)
                select = cst.IfExp(test=test, body=body, orelse=orelse, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                merged = assign(targets[0], total.with_changes(**{side: select}))
                return merged.with_changes(leading_lines=[*a.leading_lines, *b.leading_lines])  # "# line N"
        return None

    def _is_float(self, node: cst.BaseExpression) -> bool:
        val = self.facts.vals.get(node)
        return val is not None and val.type is FLOAT and not val.numpy

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


def _assigned_name(stmt: cst.BaseStatement) -> str | None:
    """The name `name = value` binds, or None for any other statement."""
    if _assigned_value(stmt) is None:
        return None
    return stmt.body[0].targets[0].target.value  # type: ignore[attr-defined]


def _magnitude(test: cst.BaseExpression, operands: tuple[cst.BaseExpression, cst.BaseExpression],
               chain: cst.BaseExpression, call_name) -> cst.BaseExpression | None:
    """`-math.fabs(x)` for `-x if x > 0.0 else x` (and `math.fabs(x)` for the mirror images),
    where the selected operand goes straight into exp, cos or cosh (analysis/zeros.py): the two
    differ only at zeros (+0.0 -> -0.0 here) and in a NaN's sign, which those calls do not show.
    Two passes over memory (fabs, negate) instead of a select's four."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
    if literal_number(left) == 0.0:
        left, right, op = right, left, MIRRORED.get(op)
    if not (isinstance(left, cst.Name) and literal_number(right) == 0.0) or op is None:
        return None
    name = left.value
    negated = [isinstance(o, cst.UnaryOperation) and isinstance(o.operator, cst.Minus)
               and isinstance(o.expression, cst.Name) and o.expression.value == name for o in operands]
    plain = [isinstance(o, cst.Name) and o.value == name for o in operands]
    if sorted(negated) != [False, True] or sorted(plain) != [False, True]:
        return None
    if op not in (cst.GreaterThan, cst.GreaterThanEqual, cst.LessThan, cst.LessThanEqual):
        return None
    if not zero_sign_blind_operand(chain, operands[0], call_name):
        return None
    positive_when_true = op in (cst.GreaterThan, cst.GreaterThanEqual)
    # The lanes the test picks (x >= 0, or x <= 0) get operands[0]; negating there means -|x|.
    fabs = cst.Call(func=cst.Attribute(value=cst.Name("math"), attr=cst.Name("fabs")), args=[cst.Arg(cst.Name(name))])
    return cst.UnaryOperation(operator=cst.Minus(), expression=fabs) if negated[0] == positive_when_true else fabs


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
