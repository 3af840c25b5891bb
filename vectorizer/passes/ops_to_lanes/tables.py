"""Reductions over uniform tables in lane code (`ops_to_lanes`): `np.sum(E)` / `np.prod(E)` where
`E` combines module-level 1-D arrays (core/tables.py) and the lane's numbers elementwise.

Before (one lane; `_N` float64, `_I` int64, module-level arrays)::

    suma = np.sum(n * (sigma - 1.09) ** _I)

After: the lane's numbers are computed (with their Python checks) in the lane, and a helper
computes every element with NumPy's own arithmetic, then reduces them as NumPy does::

    suma = _vz_table_sum(n, sigma - 1.09, _I)

    def _vz_table_sum(a0, s1, a2):
        out = np.empty(27, dtype=np.float64)
        for k in range(27):
            out[k] = a0[k] * _vz_ufunc_stepped_power(s1, float(a2[k]))
        return 0.0 + _vz_pairwise_sum(out, 0, 27)

Why it is exact: NumPy's element loops are IEEE operations on float64 after casting (Python
floats and ints are weak scalars: a Python float with an int64 array gives float64, a Python
int with an int64 array int64); `float ** array` is NumPy's float64 power loop run on an array exponent
(no shortcut: the loop takes x * x for an exponent of 2.0 only where the exponent's step is 0),
called on element k with every step 8 (`_vz_ufunc_stepped_power`: backends/numba/ufuncloops.py
checks it gives those bits; where it cannot be called and NumPy's loop is the C library's pow,
`_vz_libm_pow`, which LLVM cannot turn into multiplications); `np.sum` of float64 is `0.0 + pairwise_sum` (the
identity, then NumPy's pairwise summation: codegen/numba_tables.py, its halves above 128
elements unrolled by rules/tables.py); `np.prod` is a sequential
product from 1.0; int sums and products wrap in any order alike.

Everything else with an array in it is refused here with its location (the NumPy backend runs
it): array-valued locals other than a table's alias, `array ** number` (NumPy's scalar-exponent
shortcuts), int powers, bool arithmetic, NumPy functions inside the reduction, ints and floats
mixed in one variable (`num`), a one-element table broadcast against a longer one (its element k
is no element; NumPy gives it the step 0, its power the shortcuts).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import BINOPS, UNOPS, Facts
from ...backends.numba import ufuncloops
from ...core.lanenodes import assign, call, const, dotted, fill, function, store, target
from ...core.lanenodes import name as name_
from ...core.types import BOOL, FLOAT, INT, ArrayType, Type, Val
from ...errors import VectorizeError
from ...rules.tables import REDUCTIONS as _REDUCTIONS
from ...rules.tables import element_op, pairwise_sum

if TYPE_CHECKING:
    from .exprs import LaneExpressions

REDUCTIONS = tuple(_REDUCTIONS)
HINT = "use backend='numpy' (or 'auto'), which runs the array code"


def is_array(val: Val | None) -> bool:
    return val is not None and isinstance(val.type, ArrayType)


def reduced(name: str | None, node: cst.Call, facts: Facts) -> cst.BaseExpression | None:
    """The array `E` of `np.sum(E)` / `np.prod(E)` (`name`: the NumPy function called, or None)."""
    if name not in REDUCTIONS or len(node.args) != 1 or node.args[0].keyword is not None:
        return None
    arg = node.args[0].value
    return arg if is_array(facts.vals.get(arg)) else None


def element_of(name: str, arg: cst.BaseExpression, builder: Element) -> tuple[ast.expr, Type, int]:
    """(element, element type, size) of the reduced array `arg`, or the builder's refusal."""
    shape = builder.facts.val(arg).type.shape  # type: ignore[union-attr]
    if len(shape) != 1 or shape[0] is None:
        raise builder.refuse(arg, f"np.{name} of an array of shape {shape} on the Numba backend (tables of "
                             "one length only)")
    builder.shape = shape
    element, t, _ = builder.element(arg)
    if t is BOOL:
        raise builder.refuse(arg, f"np.{name} of a bool array on the Numba backend")
    return element, t, shape[0]


def reduction(exprs: LaneExpressions, node: cst.Call) -> ast.expr | None:
    """Lane code of `np.sum(E)` / `np.prod(E)` of an array expression; None if `node` is no such call."""
    name = exprs.numpy_function(node)
    arg = reduced(name, node, exprs.facts)
    if arg is None:
        return None
    builder = Element(exprs.facts, exprs.expr, lambda n, m: refusal(exprs, n, m))
    element, t, size = element_of(name, arg, builder)  # type: ignore[arg-type]
    helper = exprs.ctx.namer.fresh(f"_vz_table_{name}")
    dtype = "float64" if t is FLOAT else "int64"
    each = lambda *body: ast.For(target=store("k"), iter=call("range", const(size)), body=list(body),  # noqa: E731
                                 orelse=[], lineno=0)
    body: list[ast.stmt] = [
        assign("out", call("np.empty", const(size), keywords=[ast.keyword(arg="dtype", value=dotted(f"np.{dtype}"))])),
        each(assign(target(fill("out[k]")), element))]
    if name == "sum" and t is FLOAT:  # NumPy starts from the identity
        body.append(ast.Return(value=fill(f"0.0 + {pairwise_sum('out', 0, size)}")))
    else:
        op, start = _REDUCTIONS[name]  # type: ignore[index]
        body += [assign("acc", const(float(start) if t is FLOAT else int(start))),
                 each(assign("acc", fill(f"acc {op} out[k]"))), ast.Return(value=name_("acc"))]
    exprs.lane.module.functions[("table", helper)] = (helper, function(helper, [p for p, _ in builder.params], body))
    exprs.lane.module.never_fail.add(helper)
    return call(helper, *(value for _, value in builder.params))


def refuse_array(exprs: LaneExpressions, node: cst.BaseExpression) -> None:
    """An array-valued expression outside a supported reduction (the location is table_lanes')."""
    raise refusal(exprs, node, "an array-valued expression on the Numba backend (only np.sum / np.prod of "
                  "module-level 1-D arrays combined with numbers by + - * / ** are supported there)")


def refusal(exprs: LaneExpressions, node: cst.CSTNode, message: str) -> VectorizeError:
    parsed = exprs.ctx.parsed
    location = parsed.location(node) if parsed is not None else None
    return VectorizeError(message, location, hint=HINT, construct=type(node).__name__)


class Element:
    """The element `k` of an array expression, as an expression over the helper's parameters.
    `lower` gives the lane's expression of a number operand; `refuse(node, message)` the error
    (passes/table_lanes.py runs this on the user's tree first, to refuse with a location)."""

    def __init__(self, facts: Facts, lower: Callable[[cst.BaseExpression], ast.expr],
                 refuse: Callable[[cst.CSTNode, str], VectorizeError]) -> None:
        self.facts = facts
        self.lower = lower
        self.refuse = refuse
        self.params: list[tuple[str, ast.expr]] = []  # (helper parameter, the lane's value for it)
        self.shape: tuple[int | None, ...] | None = None  # the reduced array's (element_of)

    def param(self, value: ast.expr) -> ast.Name:
        param = f"p{len(self.params)}"
        self.params.append((param, value))
        return name_(param)

    def element(self, node: cst.BaseExpression) -> tuple[ast.expr, Type, bool]:
        """(element, its type, weak): weak for a Python number (NumPy's weak scalar promotion)."""
        val = self.facts.val(node)
        if not is_array(val):
            t = val.type
            if t not in (INT, FLOAT) or val.numpy:  # a bool: Numba has no float(bool); num: int or float per lane
                raise self.refuse(node, f"a {getattr(t, 'value', t)} value combined with an array on the Numba backend")
            return self.param(self.lower(node)), t, True  # the lane's own checks, in the lane
        if isinstance(node, cst.Name):
            shape = val.type.shape  # type: ignore[union-attr]
            if shape != self.shape:  # a one-element table broadcast: NumPy's step 0 for it (no [k])
                raise self.refuse(node, f"a table of shape {shape} broadcast against shape {self.shape} on the Numba "
                                  "backend (tables of one length only)")
            return fill("{0}[k]", self.param(self.lower(node))), val.type.elem, False  # type: ignore[union-attr]
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in BINOPS:
            op = BINOPS[type(node.operator)]
            left, right = self.element(node.left), self.element(node.right)
            return self.binary(node, op, left, right)
        if isinstance(node, cst.UnaryOperation) and UNOPS.get(type(node.operator)) in ("-", "+"):
            value, t, weak = self.element(node.expression)
            if t is BOOL:
                raise self.refuse(node, "a sign of a bool array on the Numba backend")
            return (fill("-{0}", value) if UNOPS[type(node.operator)] == "-" else value), t, weak
        raise self.refuse(node, f"{type(node).__name__} inside np.sum / np.prod of arrays on the Numba backend "
                      "(supported: + - * / ** of module-level 1-D arrays and numbers)")

    def binary(self, node: cst.CSTNode, op: str, left: tuple[ast.expr, Type, bool], right: tuple[ast.expr, Type, bool]
               ) -> tuple[ast.expr, Type, bool]:
        power_loop = ufuncloops.unavailable("power", stepped=True) if op == "**" else ""
        found = element_op(op, left[1], right[1], right[2], power_loop)  # rules/tables.py: NumPy's semantics per element
        if isinstance(found, str):
            raise self.refuse(node, f"{found} on the Numba backend")
        template, result = found
        return fill(template, left[0], right[0]), result, False

__all__ = ["REDUCTIONS", "Element", "element_of", "is_array", "reduced", "reduction", "refuse_array"]
