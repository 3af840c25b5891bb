"""Loop counters: names whose every assignment is a small literal or the name itself plus or
minus a small literal (`n = 0` ... `n += 1`, or its predicated form `n = n + 1 if m else n`).

A counter that starts at 1 or more and only counts up (`d = 3` ... `d += 2`) is never 0: dividing
by it cannot raise, and the lowerings drop that check too.

Such a counter cannot overflow int64 in any run that finishes: from |start| <= 2**32 with steps of
at most 2**16, reaching 2**63 takes more than 2**46 executed increments (about a day of one core
doing nothing else, per lane). The lowerings drop its overflow checks, which matters in tight
loops (a check costs as much as the increment). README, "The contract", states this.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from ..core.tree import walk
from ..core.types import INT

if TYPE_CHECKING:
    from ..rules.scalar import Impl

START_LIMIT = 2**32
STEP_LIMIT = 2**16


def counters(func: cst.FunctionDef) -> frozenset[str]:
    ok: dict[str, bool] = {}
    for node in walk(func.body):
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    ok[name] = ok.get(name, True) and _counter_value(name, node.value)
                else:
                    for el in getattr(target.target, "elements", ()):
                        if isinstance(el.value, cst.Name):
                            ok[el.value.value] = False
        elif kind is cst.AugAssign and isinstance(node.target, cst.Name):
            name = node.target.value
            step = _small(node.value, STEP_LIMIT)
            ok[name] = ok.get(name, True) and step and isinstance(node.operator, cst.AddAssign | cst.SubtractAssign)
        elif kind is cst.For and isinstance(node.target, cst.Name):
            ok[node.target.value] = False
    params = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
    return frozenset(n for n, good in ok.items() if good and n not in params)


def _small(node: cst.BaseExpression, limit: int) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0) <= limit
    return False


def _counter_value(name: str, value: cst.BaseExpression) -> bool:
    if _small(value, START_LIMIT):
        return True
    if isinstance(value, cst.IfExp):  # a predicated update: one side is the name itself
        sides = [value.body, value.orelse]
        return any(isinstance(s, cst.Name) and s.value == name for s in sides) and \
            all((isinstance(s, cst.Name) and s.value == name) or _counter_value(name, s) for s in sides)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add | cst.Subtract):
        return isinstance(value.left, cst.Name) and value.left.value == name and _small(value.right, STEP_LIMIT)
    return False


def positive(func: cst.FunctionDef, names: frozenset[str]) -> frozenset[str]:
    """The counters among `names` whose every value is >= 1: a start of 1 or more, steps up."""
    ok = dict.fromkeys(names, True)
    for node in walk(func.body):
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value in ok:
                    ok[target.target.value] &= _grows(target.target.value, node.value)
        elif kind is cst.AugAssign and isinstance(node.target, cst.Name) and node.target.value in ok:
            ok[node.target.value] &= isinstance(node.operator, cst.AddAssign) and _literal(node.value) >= 0
    return frozenset(n for n, good in ok.items() if good)


def _literal(node: cst.BaseExpression) -> int:
    """A non-negative int literal's value, else -1."""
    return int(node.value.replace("_", ""), 0) if isinstance(node, cst.Integer) else -1


def _grows(name: str, value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.IfExp):
        return all((isinstance(s, cst.Name) and s.value == name) or _grows(name, s) for s in (value.body, value.orelse))
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        return isinstance(value.left, cst.Name) and value.left.value == name and _literal(value.right) >= 0
    return _literal(value) >= 1


def without_counter_checks(impl: Impl, node: cst.BaseExpression, names: frozenset[str],
                           nonzero: frozenset[str]) -> Impl:
    """`impl` for `node`, less the checks counters make unnecessary: a step's overflow, and a
    zero divisor where the divisor is a counter that is never 0."""
    if is_counter_step(node, names):
        return dataclasses.replace(impl, checks=())
    if isinstance(node, cst.BinaryOperation) and isinstance(node.right, cst.Name) and node.right.value in nonzero:
        return dataclasses.replace(impl, checks=tuple(c for c in impl.checks if not c.divisor))
    return impl


def is_counter_step(node: cst.BaseExpression, names: frozenset[str]) -> bool:
    """`n + 1` / `n - 2` with `n` a counter: the lowering skips its overflow check."""
    return (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Subtract)
            and isinstance(node.left, cst.Name) and node.left.value in names and _small(node.right, STEP_LIMIT))


def affine_parts(node: cst.BaseExpression, facts) -> tuple[cst.BaseExpression, int, int] | None:
    """`c * x + d` (or `x * c - d`, ...) with int constants c != 0 and d and an int x: (x, c, d)."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Subtract)):
        return None
    inner, outer = node.left, facts.vals.get(node.right)
    if not (isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Multiply)) or outer is None \
            or not isinstance(outer.const, int) or isinstance(outer.const, bool):
        return None
    a, b = facts.vals.get(inner.left), facts.vals.get(inner.right)
    if a is None or b is None:
        return None
    x, c = (inner.right, a.const) if isinstance(a.const, int) and not isinstance(a.const, bool) else (inner.left, b.const)
    xv = facts.vals.get(x)
    if not isinstance(c, int) or isinstance(c, bool) or c == 0 or xv is None or xv.type is not INT or xv.const is not None:
        return None
    d = outer.const if isinstance(node.operator, cst.Add) else -outer.const
    return x, c, d
