"""Ints made from a float and read at once as a float: `math.floor(x) / m` with `m` a float.

`math.floor`, `math.ceil`, `math.trunc`, `int()` and `round()` (one argument) of a float `x`
return a Python int, unbounded: beyond int64 the array code cannot hold it, and the lanes where
|x| >= 2**63 were re-run. But an int made from a finite double is an integer-valued double
itself (floor, ceil, trunc and round-half-even of a double are exact in binary64), so it
converts back to that double exactly. Where the int is an operand of `+ - * / // % **` whose
other operand is a float, Python converts the int to a float first (`int.__truediv__(float)` is
NotImplemented; `float.__rtruediv__` converts it with PyLong_AsDouble, exact here) and does the
float operation: the value is the float operation on `np.floor(x)`, bit for bit, with no int64
range involved. Two details keep it exact:

* the int 0 converts to +0.0, where `np.floor(-0.0)`, `np.ceil(-0.5)`, `np.trunc(-0.5)` and
  `np.rint(-0.4)` are -0.0: the value is `np.floor(x) + 0.0` (only a -0.0 changes: to +0.0);
* Python raises where x is not finite (OverflowError for +-inf, ValueError for NaN): those lanes
  are flagged (`rules.float_valued_int`), the re-run raises.

An int used otherwise (named, compared, combined with an int) keeps the int rules.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..core.types import FLOAT
from .facts import BINOPS, Facts
from .signs import CallName

# The calls whose int result is the value of a NumPy rounding function of the float operand.
FLOAT_INTS = {"math.floor": "floor", "math.ceil": "ceil", "math.trunc": "trunc", "int": "trunc", "round": "rint"}
_FLOAT_OPS = frozenset({"+", "-", "*", "/", "//", "%", "**"})  # Python converts an int operand to float


def float_valued(node: cst.BaseExpression, facts: Facts, call_name: CallName) -> str | None:
    """The NumPy rounding function ("floor"...) when `node` is one of FLOAT_INTS called on one
    float argument; None otherwise."""
    if not isinstance(node, cst.Call) or len(node.args) != 1:
        return None
    arg = node.args[0]
    if arg.keyword is not None or arg.star or facts.vals.get(arg.value) is None:
        return None
    if facts.vals[arg.value].type is not FLOAT:
        return None
    return FLOAT_INTS.get(call_name(node))


def float_operands(node: cst.BinaryOperation, facts: Facts, call_name: CallName,
                   usable: Callable[[cst.BaseExpression], bool] = lambda _: True) -> list[cst.Call]:
    """The operands of `node` read as the floats they were made from (the module docstring):
    a FLOAT_INTS call of a float whose other operand is a float (`usable`: what the backend
    can lower so, the call's argument)."""
    if BINOPS[type(node.operator)] not in _FLOAT_OPS:
        return []
    out = []
    for this, other in ((node.left, node.right), (node.right, node.left)):
        v = facts.vals.get(other)
        if v is None or v.type is not FLOAT or v.numpy or v.zero_d is not False or v.one_d is not False:
            continue  # a NumPy float's arithmetic with a Python int is NumPy's
        if float_valued(this, facts, call_name) is not None and usable(this.args[0].value):  # type: ignore[attr-defined]
            out.append(this)
    return out  # type: ignore[return-value]
