"""Sign witnesses: where only the sign of an approximate value decides an exception, the lanes its
NumPy value could get wrong are flagged instead of computing the value exactly.

`math.sqrt(v)` raises where `v < 0`. If `v` holds approximate operations (NumPy's SIMD `sin`,
`cos`, `pow`: a few ulp from CPython's), analysis/decisions.py would have them computed exactly
(`_vz_exact`, one Python call a lane), since a value near 0 could change sign. Often the sign of
`v` follows from signs NumPy gets right. haversine's

    h = math.sin(dphi / 2.0) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlam / 2.0) ** 2
    math.sqrt(min(h, 1.0))

can only be negative where the product is: the first term is a square (analysis/signs.py), and a
sum of terms >= 0 rounds to a value >= 0. Each factor of the product has CPython's sign:
`math.cos` of an exactly computed operand is within a few ulp of the C library's value, so it has
its sign (a relative error below 1 cannot flip it), and an IEEE product's sign is the exclusive or
of its factors' signs, underflow to ±0.0 included. So the check becomes, on NumPy's values,

    t_6 = np.cos(phi1) * np.cos(phi2) * r_1
    flag |= np.signbit(t_6) | np.isnan(t_6)

a superset of the lanes that raise in Python. A flagged lane is re-run by the scalar function,
which raises or gives the lane's value (docs/internals.md, the contract: flag the lanes the ulp bound cannot settle).
A lane not flagged has `h >= 0` in NumPy's values too, so `sqrt` sees no negative number.

A witness of `v < 0` is a list of terms, one of which holds on every lane where Python's `v < 0`:

* `[]` where signs.py proves `v >= 0` (`x ** 2`);
* an exactly computed value (parameters, `+ - * /`, `math.sqrt`, `math.radians`...: the same bits
  in NumPy): `v < 0` itself;
* a *sign-faithful* value: a function of SIGN_FAITHFUL applied to an exact value; a product,
  quotient, negation or integer power of such values: `np.signbit(v) | np.isnan(v)`;
* `a + b`: the terms of `a` and of `b` (a sum of numbers >= 0 is >= 0); `a - b` and `-b` where
  signs.py proves `b <= 0`;
* `min(...)`, `max(...)`: the terms of every operand (each returns one of them);
* a name bound once at the top of the body: its value's terms.

Anything else (a constant or a term that may be positive under a minus: most lanes would be
flagged) has no witness and is computed exactly, as before.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from ..core.tree import walk
from ..core.types import FLOAT, Type
from ..errors import VectorizeError
from ..rules import scalar as rules
from .facts import BINOPS, Facts
from .signs import NONNEG, NONPOS, CallName, Env, literal_number, sign

# Functions whose NumPy value has CPython's sign wherever CPython's is not zero (measured on both
# CPU kinds over hostile and random inputs: tests/analysis/test_witnesses.py).
SIGN_FAITHFUL = frozenset({
    "math.sin", "math.cos", "math.tan", "math.tanh", "math.atan", "math.sinh", "math.asinh", "math.expm1",
    "math.exp", "math.exp2", "math.cosh", "math.log", "math.log2", "math.log10", "math.log1p", "math.erf",
    "math.erfc", "math.cbrt",
})
_DEPTH = 12  # names and operations followed at most this deep
# The check a witness stands for: math.sqrt's (rules/calls.py).
NEGATIVE_CHECK = "{0} < 0"


@dataclasses.dataclass(frozen=True)
class Term:
    node: cst.BaseExpression
    exact: bool  # the value is the same bits in NumPy: compare it, no sign-bit test

    def text(self, value: str) -> str:
        return f"({value} < 0)" if self.exact else f"(np.signbit({value}) | np.isnan({value}))"


class Witnesses:
    """The witnesses of one function's `math.sqrt` operands: `of[operand]`, the terms."""

    def __init__(self, func: cst.FunctionDef, facts: Facts, call_name: CallName, env: Env) -> None:
        self.facts, self.call_name, self.env = facts, call_name, env
        self.of: dict[cst.BaseExpression, tuple[Term, ...]] = {}
        for node in _calls(func):
            if call_name(node) != "math.sqrt" or len(node.args) != 1 or node.args[0].keyword is not None:
                continue
            operand = node.args[0].value
            val = facts.vals.get(operand)
            if val is None or val.type is not FLOAT or not val.batched or sign(operand, call_name, env) == NONNEG:
                continue
            terms = self._terms(operand, -1, 0)
            if terms is not None and not self._exact(operand, 0):  # an exact operand needs nothing
                self.of[operand] = tuple(terms)

    def nodes(self) -> frozenset[cst.BaseExpression]:
        """The values the lowering must name for the witnesses' tests (names already are)."""
        return frozenset(t.node for terms in self.of.values() for t in terms if not isinstance(t.node, cst.Name))

    def _terms(self, node: cst.BaseExpression, sense: int, depth: int) -> list[Term] | None:
        """Terms one of which holds where `node` may be < 0 (sense -1), or [] where signs.py
        proves `node`'s sign is not `sense`. Only negative terms are witnessed: a sqrt's operand
        is a sum of terms meant to be >= 0, so the flags they raise are rare; a term that may be
        positive (`a - b`) would flag most lanes, and is computed exactly instead."""
        if sign(node, self.call_name, self.env) == (NONNEG if sense < 0 else NONPOS):
            return []
        if sense > 0 or depth >= _DEPTH or self._constant(node):
            return None
        if self._exact(node, 0):  # each question its own depth: names chain in both
            return [Term(node, exact=True)]
        if self._faithful(node, 0):
            return [Term(node, exact=False)]
        if isinstance(node, cst.Name):
            value = self.env.values.get(node.value)
            return None if value is None else self._terms(value, sense, depth + 1)
        parts: list[tuple[cst.BaseExpression, int]] | None = None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Subtract):
            parts = [(node.left, sense), (node.right, sense if isinstance(node.operator, cst.Add) else -sense)]
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            parts = [(node.expression, -sense if isinstance(node.operator, cst.Minus) else sense)]
        elif isinstance(node, cst.Call) and self.call_name(node) in ("min", "max") and _plain(node):
            parts = [(a.value, sense) for a in node.args]
        if parts is None:
            return None
        out: list[Term] = []
        for part, s in parts:
            terms = self._terms(part, s, depth + 1)
            if terms is None:
                return None
            out.extend(terms)
        return out

    def _constant(self, node: cst.BaseExpression) -> bool:
        """A literal or module constant (of the wrong sign, or signs.py would have said so)."""
        val = self.facts.vals.get(node)
        return literal_number(node) is not None or (val is not None and not val.batched and val.const is not None)

    def _exact(self, node: cst.BaseExpression, depth: int) -> bool:
        """The same bits in NumPy as in CPython: literals, parameters and names bound once to
        such values, and operations the rule table computes exactly."""
        if depth >= _DEPTH:
            return False
        if literal_number(node) is not None:
            return True
        if isinstance(node, cst.Name):
            val = self.facts.vals.get(node)
            if val is not None and not val.batched and type(val.const) in (int, float):
                return True  # a module constant
            if node.value in self.env.values:
                return self._exact(self.env.values[node.value], depth + 1)
            return node.value in self.env.fixed  # a parameter never bound again
        operands = _operands(node)
        if operands is None or not all(self._exact(o, depth + 1) for o in operands):
            return False
        impl = self._impl(node)
        return impl is not None and impl.exact

    def _faithful(self, node: cst.BaseExpression, depth: int) -> bool:
        """NumPy's value has CPython's sign wherever CPython's is not zero (and is NaN where it is)."""
        if depth >= _DEPTH:
            return False
        if self._exact(node, depth):
            return True
        if isinstance(node, cst.Name):
            value = self.env.values.get(node.value)
            return value is not None and self._faithful(value, depth + 1)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            return self._faithful(node.expression, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply | cst.Divide):
            return self._float(node) and self._faithful(node.left, depth + 1) and self._faithful(node.right, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
            return isinstance(node.right, cst.Integer) and self._float(node) and self._faithful(node.left, depth + 1)
        if isinstance(node, cst.Call) and self.call_name(node) in SIGN_FAITHFUL and _plain(node) and len(node.args) == 1:
            return self._float(node) and self._exact(node.args[0].value, depth + 1)
        return False

    def _float(self, node: cst.BaseExpression) -> bool:
        val = self.facts.vals.get(node)
        return val is not None and val.type is FLOAT

    def _impl(self, node: cst.BaseExpression) -> rules.Impl | None:
        operands = _operands(node) or []
        vals = [self.facts.vals.get(o) for o in operands]
        if any(v is None or not isinstance(v.type, Type) for v in vals):
            return None
        try:
            if isinstance(node, cst.BinaryOperation):
                return rules.BINARY[BINOPS[type(node.operator)]](vals[0].type, vals[1].type, vals[0], vals[1])  # type: ignore[union-attr]
            if isinstance(node, cst.UnaryOperation):
                return rules.UNARY["-" if isinstance(node.operator, cst.Minus) else "+"](vals[0].type, vals[0])  # type: ignore[union-attr]
            name = self.call_name(node)  # type: ignore[arg-type]
            return rules.CALLS[name](vals) if name in rules.CALLS else None  # type: ignore[arg-type]
        except (VectorizeError, ValueError, IndexError, KeyError):
            return None


def _operands(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in BINOPS:
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return [node.expression]
    if isinstance(node, cst.Call) and _plain(node):
        return [a.value for a in node.args]
    return None


def _plain(node: cst.Call) -> bool:
    return bool(node.args) and all(a.keyword is None and not a.star for a in node.args)


def _calls(func: cst.FunctionDef) -> list[cst.Call]:
    return [n for n in walk(func) if isinstance(n, cst.Call)]
