"""Constant folding for `ops_to_numpy`: what can be decided at transform time.

An expression over literals and module constants is computed by Python itself (`2 ** 10`,
`math.sqrt(2.0)`), so its value is exactly the scalar function's; one that raises in Python is
a failure of every lane that evaluates it. A check whose literal parts decide it is simplified
(`(x < 0) & False` -> `False`: no flag line at all).
"""

from __future__ import annotations

import ast
import math
import operator
import re

import libcst as cst
import numpy as np

from ..analysis.batched import BINOPS, COMPARES, UNOPS, Facts
from ..core.types import TupleType
from .base import Context

_PY_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}


class NoFold(Exception):
    """The expression depends on a variable."""


class FoldRaised(Exception):
    """Python raises (or leaves int64) when computing the expression from its constants."""


def literal(value: object) -> str:
    """Python source for a constant, valid in generated code."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "np.nan"
        if math.isinf(value):
            return "np.inf" if value > 0 else "-np.inf"
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    raise TypeError(value)


class Folding:
    """Constant folding over the analysis facts (mixed into ops_to_numpy's lowering)."""

    ctx: Context
    facts: Facts

    def facts_locals(self) -> set[str]:
        raise NotImplementedError

    def folded(self, node: cst.BaseExpression) -> object:
        try:
            return self.fold(node)
        except (NoFold, FoldRaised):
            return None

    def fold(self, node: cst.BaseExpression) -> object:
        """The value of an expression over literals and module constants, computed by Python.

        Raises `NoFold` when it depends on a variable, `FoldRaised` when Python raises (or
        returns a value int64 cannot hold): then every lane that evaluates it is flagged.
        """
        val = self.facts.vals.get(node)
        if val is None or val.batched:
            raise NoFold
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value == "True"
            if node.value in self.facts_locals() or val.const is None or isinstance(val.type, TupleType):
                raise NoFold
            return val.const
        if val.const is not None and not isinstance(val.type, TupleType):
            return val.const  # literals, math constants, constant-index subscripts
        if isinstance(node, cst.BinaryOperation):
            a, b = self.fold(node.left), self.fold(node.right)
            op = BINOPS[type(node.operator)]
            if op == "**" and isinstance(b, int) and isinstance(a, int) and abs(b) > 256:
                raise FoldRaised
            return self._python(lambda: _PY_BINOPS[op](a, b))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            a, b = self.fold(node.left), self.fold(node.comparisons[0].comparator)
            compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
                       "!=": operator.ne}[COMPARES[type(node.comparisons[0].operator)]]
            return self._python(lambda: compare(a, b))
        if isinstance(node, cst.UnaryOperation):
            a = self.fold(node.expression)
            op = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}[UNOPS[type(node.operator)]]
            return self._python(lambda: op(a))
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute):
                base = func.value
                if not (isinstance(base, cst.Name) and self.ctx.namespace.resolve(base.value).kind == "math"):
                    raise NoFold  # NumPy calls and array methods
                target = getattr(math, func.attr.value)
            else:
                name = self.ctx.namespace.resolve(func.value).name  # type: ignore[union-attr]
                target = {"abs": abs, "min": min, "max": max, "round": round, "int": int,
                          "float": float, "bool": bool, "pow": pow}.get(name)
                if target is None:
                    raise NoFold
            args = [self.fold(a.value) for a in node.args if a.keyword is None]
            kwargs = {a.keyword.value: self.fold(a.value) for a in node.args if a.keyword is not None}
            return self._python(lambda: target(*args, **kwargs))
        raise NoFold

    def _python(self, compute) -> object:
        try:
            value = compute()
        except (ArithmeticError, ValueError, TypeError):
            raise FoldRaised from None
        if isinstance(value, complex) or (
            isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63
        ):
            raise FoldRaised
        return value


def static_check(pred: str, constants: dict[str, object] | None = None) -> bool | None | str:
    """Decide a check now where its literal parts allow: True/False, or the simplified predicate
    text with the always-true conjuncts (and always-false disjuncts) removed. Module constants
    count as literals: the generated module carries their values as of the transform."""
    tree = ast.parse(pred, mode="eval").body
    known = {k: v for k, v in (constants or {}).items() if type(v) in (int, float, bool)}
    result = _decide(tree, {"__builtins__": {}, "np": np, **known})
    if isinstance(result, bool):
        return result
    return ast.unparse(result)


def _decide(node: ast.expr, names: dict[str, object]) -> bool | ast.expr:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        left, right = _decide(node.left, names), _decide(node.right, names)
        neutral = isinstance(node.op, ast.BitAnd)  # True is neutral for &, False for |
        for side, other in ((left, right), (right, left)):
            if isinstance(side, bool):
                return other if side is neutral else side
        return ast.BinOp(left, node.op, right)
    try:
        with np.errstate(all="ignore"):  # `np.inf - np.inf` in a literal check: no warning at transform time
            return bool(eval(compile(ast.Expression(node), "<check>", "eval"), dict(names)))  # noqa: S307
    except NameError:
        return node


_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*) = ")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names_in(lines: list[str]) -> set[str]:
    """Every identifier the code lines mention (comments aside)."""
    return {word for ln in lines if not ln.lstrip().startswith("#") for word in _WORD.findall(ln)}


def drop_dead_assignments(lines: list[str]) -> list[str]:
    """Drop `name = expr` lines whose name nothing reads (a branch mask whose checks all went
    away, say). The lowered expressions are NumPy operations without effects, so dropping them
    changes nothing else; comments do not count as reads."""
    while True:
        reads: dict[str, int] = {}
        for ln in lines:
            if not ln.lstrip().startswith("#"):
                for word in _WORD.findall(ln):
                    reads[word] = reads.get(word, 0) + 1
        dead = {i for i, ln in enumerate(lines) if (m := _ASSIGN.match(ln)) and reads.get(m.group(1)) == 1}
        if not dead:
            return _fill_empty_blocks(lines)
        lines = [ln for i, ln in enumerate(lines) if i not in dead]


def _fill_empty_blocks(lines: list[str]) -> list[str]:
    """A block header whose body went away gets `pass`."""
    out: list[str] = []
    for i, ln in enumerate(lines):
        out.append(ln)
        if ln.rstrip().endswith(":") and not ln.lstrip().startswith("#"):
            indent = len(ln) - len(ln.lstrip())
            body = next((nxt for nxt in lines[i + 1:] if not nxt.lstrip().startswith("#")), "")
            if len(body) - len(body.lstrip()) <= indent or not body.strip():
                out.append(" " * (indent + 4) + "pass")
    return out
