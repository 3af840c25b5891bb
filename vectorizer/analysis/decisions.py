"""Which operations' values decide something discrete: they must be CPython's bits, not NumPy's.

The contract lets a float that only flows to float results be a few ulp from CPython's (NumPy's
SIMD `power`, `exp`, `sin`...), but ints, bools, branch decisions, loop trip counts and
exceptions must be the scalar function's on every CPU: `v = n ** (1/3); v * v * v == n` is False
for 27 where `np.power` is 1 ulp low. This analysis finds the backward slice of every DECISION
and `ops_to_numpy` computes the approximate operations in it exactly (exactmath.py).

Roots (expressions whose value decides something), found on the tree `ops_to_numpy` lowers:

* `if`/`while` tests, `a if c else b`'s `c`, the left side of `and`/`or`, `not x`, `assert`;
* comparisons (every operand), `//`, `%`, bitwise operators and shifts, subscripts' indices;
* calls that turn a float into something discrete or discontinuous: int, round, bool, floor,
  ceil, trunc, isinf, isnan, isfinite, isclose, copysign, fmod, nextafter, atan2, divmod,
  `range`, and min/max unless every operand is a float (then they are 1-Lipschitz);
* the operands a rule's checks read (`1 / d` reads `d == 0`; `math.log(v)` reads `v <= 0`): a
  lane that raises in Python must be flagged. A check of the operation's own result is settled by
  its margin (pow's `|r| > 1e308`); erfc's subnormal test only picks the exact path for a value;
  a `math.sqrt` operand with a sign witness (witnesses.py) is tested by the witness on NumPy's
  values; asin's and acos's operand within [-1, 1] by its shape (signs.within_unit) has no check;
* returned ints, bools and mixed int/float values.

The slice is name-level and flow-insensitive (an over-approximation, never a miss): a name read
by a root, or by the value assigned to a name in the slice, is in the slice, and every operation
inside a root or inside any value assigned to a slice name is decided.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable

import libcst as cst
import numpy as np

from ..core.tree import target_names, walk
from ..core.types import FLOAT, Type
from ..errors import VectorizeError
from ..rules import scalar as rules
from .facts import BINOPS, Facts
from .liveness import reads
from .signs import sign, within_unit, without_zero_divisor
from .witnesses import NEGATIVE_CHECK

CallName = Callable[[cst.Call], "str | None"]

DECIDING_CALLS = frozenset({
    "int", "round", "bool", "math.floor", "math.ceil", "math.trunc", "math.isinf", "math.isnan",
    "math.isfinite", "math.isclose", "math.copysign", "math.fmod", "math.nextafter", "math.atan2",
    "divmod", "range", "len",
})
DECIDING_OPS = frozenset({"//", "%", "&", "|", "^", "<<", ">>"})
# Functions whose value is finite for every finite argument, and NaN only for NaN or inf ones.
BOUNDED_CALLS = frozenset({"math.sin", "math.cos", "math.tanh", "math.atan", "math.asin", "math.acos",
                           "math.atan2", "math.erf", "math.erfc"})
_CLASSIFY = frozenset({"np.isfinite", "np.isinf", "np.isnan"})
# Checks that choose how a value is computed, not whether the lane raises.
_VALUE_ONLY = ("erfc below",)


def decided(func: cst.FunctionDef, facts: Facts, call_name: CallName,
            witnessed: frozenset[cst.CSTNode] = frozenset()) -> frozenset[cst.CSTNode]:
    """The nodes (operations) whose value may decide an int, a bool, a branch, a trip count or
    an exception somewhere in `func`. `witnessed`: operands of `math.sqrt` whose sign check is
    made on NumPy's values by a sign witness (analysis/witnesses.py), not a root."""
    roots: list[cst.CSTNode] = []
    defs: dict[str, list[cst.CSTNode]] = {}
    for node in walk(func):
        kind = type(node)
        if kind is cst.Assign:
            for t in node.targets:
                _define(t.target, node.value, defs, roots)
        elif kind is cst.AugAssign or (kind is cst.AnnAssign and node.value is not None):
            _define(node.target, node.value, defs, roots)
        elif kind is cst.For:
            roots.append(node.iter)
            _define(node.target, node.iter, defs, roots)
        elif kind in (cst.If, cst.While, cst.IfExp, cst.Assert):
            roots.append(node.test)
        elif kind is cst.UnaryOperation and isinstance(node.operator, cst.Not):
            roots.append(node.expression)
        elif kind is cst.BooleanOperation:
            roots.append(node.left)
        elif kind is cst.Comparison:
            roots.append(node)
        elif kind is cst.Subscript:
            roots.extend(el.slice for el in node.slice)
        elif kind is cst.Return and node.value is not None:
            if _discrete(node.value, facts):
                roots.append(node.value)
        elif kind is cst.BinaryOperation:
            roots.extend(_binary_roots(node, facts, call_name))
        elif kind is cst.Call:
            roots.extend(_call_roots(node, facts, call_name, witnessed))
    return _slice(roots, defs)


def _define(target: cst.BaseExpression, value: cst.BaseExpression, defs: dict[str, list[cst.CSTNode]],
            roots: list[cst.CSTNode]) -> None:
    names = target_names(target)
    if not names:  # x[i] = v, x.a = v: x depends on v (and on i, which decides where)
        base = target
        while isinstance(base, cst.Subscript | cst.Attribute):
            if isinstance(base, cst.Subscript):
                roots.extend(el.slice for el in base.slice)
            base = base.value
        names = [base.value] if isinstance(base, cst.Name) else []
    for name in names:
        defs.setdefault(name, []).append(value)


def _discrete(value: cst.BaseExpression, facts: Facts) -> bool:
    """A returned value that is not a float for every lane (ints, bools, mixed, tuples of them)."""
    val = facts.vals.get(value)
    if val is None:
        return True
    t = val.type
    if isinstance(t, Type):
        return t is not FLOAT
    return True  # tuples and arrays: conservatively all of it


def _binary_roots(node: cst.BinaryOperation, facts: Facts, call_name: CallName) -> list[cst.CSTNode]:
    op = BINOPS.get(type(node.operator))
    operands = [node.left, node.right]
    if op is None or op in DECIDING_OPS:
        return operands
    vals = [facts.vals.get(o) for o in operands]
    if any(v is None or not isinstance(v.type, Type) for v in vals):
        return operands
    try:
        impl = rules.BINARY[op](vals[0].type, vals[1].type, vals[0], vals[1])  # type: ignore[union-attr]
    except VectorizeError:
        return operands
    impl = without_zero_divisor(impl, node, call_name)  # as ops_to_numpy: 1 / (1.0 + exp(-x)) decides nothing
    return _checked(impl, operands, facts, call_name)


def _call_roots(node: cst.Call, facts: Facts, call_name: CallName, witnessed: frozenset[cst.CSTNode]) -> list[cst.CSTNode]:
    name = call_name(node)
    operands = [a.value for a in node.args if a.keyword is None] + [a.value for a in node.args if a.keyword is not None]
    if name is None or name in DECIDING_CALLS:
        return operands
    vals = [facts.vals.get(o) for o in operands]
    if any(v is None or not isinstance(v.type, Type) for v in vals):
        return operands
    if name in ("min", "max"):
        return [] if all(v.type is FLOAT for v in vals) else operands  # type: ignore[union-attr]
    try:
        if name == "pow" and len(vals) == 2:
            impl = rules.BINARY["**"](vals[0].type, vals[1].type, vals[0], vals[1])  # type: ignore[union-attr]
        elif name in rules.CALLS:
            impl = rules.CALLS[name](vals)  # type: ignore[arg-type]
        else:
            return operands
    except (VectorizeError, ValueError, IndexError):
        return operands
    if operands:  # as ops_to_numpy: log1p(exp(x)) has no domain check to decide
        impl = rules.without_sign_checks(impl, sign(operands[0], call_name))
        impl = rules.without_unit_checks(impl, within_unit(operands[0], call_name))
        if operands[0] in witnessed:
            impl = dataclasses.replace(impl, checks=tuple(c for c in impl.checks if c.pred != NEGATIVE_CHECK))
    return _checked(impl, operands, facts, call_name)


def _checked(impl: rules.Impl, operands: list[cst.BaseExpression], facts: Facts, call_name: CallName) -> list[cst.CSTNode]:
    """The operands a rule's checks read: whether the lane raises must be exactly Python's. A
    check that a constant operand decides (`x ** 2` is never a complex power) reads nothing, and
    whether a bounded function's value is finite or NaN is exact (`math.sin(x) ** 2`)."""
    consts = [facts.vals[o].const for o in operands]
    bounded = [isinstance(o, cst.Call) and call_name(o) in BOUNDED_CALLS for o in operands]
    out: list[cst.CSTNode] = []
    for check in impl.checks:
        if check.why.startswith(_VALUE_ONLY):
            continue
        for pred in (check.pred, check.lane) if check.lane else (check.pred,):
            read, classified = _reads(pred, consts)
            out.extend(o for i, o in enumerate(operands) if i in (classified if bounded[i] else read))
    return out


def _reads(pred: str, consts: list[object]) -> tuple[set[int], set[int]]:
    """The operand slots a check predicate still reads once its constant operands are known
    (conjuncts that are always true and disjuncts that are always false drop out); and those it
    reads other than by np.isfinite/isinf/isnan."""
    slots = {f"{{{i}}}": (repr(c) if type(c) in (int, float, bool) else f"__vz_{i}") for i, c in enumerate(consts)}
    text = pred.replace("{r}", "__vz_r")
    for slot, value in slots.items():
        text = text.replace(slot, value)
    left = _decide(ast.parse(text, mode="eval").body)
    if isinstance(left, bool):
        return set(), set()
    names = {n.id for n in ast.walk(left) if isinstance(n, ast.Name)}
    classes = {n.id for c in ast.walk(left) if isinstance(c, ast.Call) and ast.unparse(c.func) in _CLASSIFY
               for n in ast.walk(c) if isinstance(n, ast.Name)}
    slots = {i for i in range(len(consts)) if f"__vz_{i}" in names}
    return slots, {i for i in slots if f"__vz_{i}" not in classes or _outside_classes(left, f"__vz_{i}")}


def _outside_classes(node: ast.AST, name: str) -> bool:
    """Whether `name` occurs in `node` other than as the argument of np.isfinite/isinf/isnan."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in _CLASSIFY:
        return False
    if isinstance(node, ast.Name):
        return node.id == name
    return any(_outside_classes(child, name) for child in ast.iter_child_nodes(node))


def _decide(node: ast.expr) -> bool | ast.expr:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        left, right = _decide(node.left), _decide(node.right)
        neutral = isinstance(node.op, ast.BitAnd)
        for side, other in ((left, right), (right, left)):
            if isinstance(side, bool):
                return other if side is neutral else side
        return ast.BinOp(left, node.op, right)
    try:
        with np.errstate(all="ignore"):
            return bool(eval(compile(ast.Expression(node), "<check>", "eval"), {"__builtins__": {}, "np": np}))  # noqa: S307
    except (NameError, TypeError, ValueError, ArithmeticError):
        return node


def _slice(roots: list[cst.CSTNode], defs: dict[str, list[cst.CSTNode]]) -> frozenset[cst.CSTNode]:
    decided: set[cst.CSTNode] = set()
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        expr = todo.pop()
        if expr in decided:
            continue
        decided.update(walk(expr))
        for name in reads(expr) - seen:
            seen.add(name)
            todo.extend(defs.get(name, ()))
    return frozenset(decided)
