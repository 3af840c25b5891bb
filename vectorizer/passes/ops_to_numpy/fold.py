"""Constant folding for `ops_to_numpy`: what can be decided at transform time.

An expression over literals and module constants is computed by Python itself (`2 ** 10`,
`math.sqrt(2.0)`), so its value is exactly the scalar function's; one that raises in Python is
a failure of every lane that evaluates it. A check whose literal parts decide it is simplified
(`(x < 0) & False` -> `False`: no flag line at all).
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import BINOPS, COMPARES, UNOPS
from ...core.types import TupleType

if TYPE_CHECKING:
    from .lowering import Lowering

_PY_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}


class NoFold(Exception):
    """The expression depends on a variable."""


class FoldRaised(Exception):
    """Python raises (or leaves int64) when computing the expression from its constants."""


class Folder:
    """Constant folding over the analysis facts, for one `ops_to_numpy` lowering."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.ctx = low.ctx
        self.facts = low.facts

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
            if node.value in self.low.facts_locals() or val.const is None or isinstance(val.type, TupleType):
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
