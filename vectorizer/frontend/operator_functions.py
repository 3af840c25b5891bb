"""Functions of the `operator` module held as values (issue 51): `self.func = operator.mul` on a
callable object, `reduce_with(operator.add, ...)`, `fn=operator.lt` given as an argument. Python
defines each as its operator: `operator.mul(a, b)` is `a * b`, `operator.neg(a)` is `-a`,
`operator.lt(a, b)` is `a < b`, `operator.not_(a)` is `not a`, `operator.truth(a)` is `bool(a)`,
`operator.abs(a)` is `abs(a)`. A call of one decided when the code is generated (a local, a
parameter or an attribute of a static object holding it) is that expression of its arguments
(passes/specialize_calls.py), which the analysis then types like any other."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

# libcst's node classes by name: this module is imported by the cache's key (engine/contentkey.py),
# which a warm process served from the cache runs without the compiler (libcst) imported.
BINARY = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "truediv": "Divide", "floordiv": "FloorDivide",
          "mod": "Modulo", "pow": "Power", "lshift": "LeftShift", "rshift": "RightShift", "and_": "BitAnd",
          "or_": "BitOr", "xor": "BitXor"}
COMPARE = {"lt": "LessThan", "le": "LessThanEqual", "eq": "Equal", "ne": "NotEqual", "gt": "GreaterThan",
           "ge": "GreaterThanEqual"}
UNARY = {"neg": "Minus", "pos": "Plus", "invert": "BitInvert", "inv": "BitInvert", "not_": "Not"}
BUILTIN = {"truth": "bool", "abs": "abs"}  # (operator.abs is abs of its argument, as abs() is)

_NAMES = {getattr(operator, n): n for n in (*BINARY, *COMPARE, *UNARY, *BUILTIN)}


def operator_function(value: object) -> str | None:
    """The name of the `operator` function `value` is (`__mul__` is `mul`), else None."""
    try:
        return _NAMES.get(value)  # type: ignore[call-overload]
    except TypeError:  # an unhashable value
        return None


def arity(name: str) -> int:
    return 1 if name in UNARY or name in BUILTIN else 2


def expression(name: str, args: list[cst.BaseExpression]) -> cst.BaseExpression:
    """`operator.<name>(*args)` as the expression Python defines it to be, parenthesized."""
    import libcst as cst

    paren = {"lpar": [cst.LeftParen()], "rpar": [cst.RightParen()]}
    wrapped = [a if not isinstance(a, cst.BinaryOperation | cst.BooleanOperation | cst.Comparison | cst.UnaryOperation
                                     | cst.IfExp | cst.Lambda | cst.NamedExpr) or a.lpar
               else a.with_changes(**paren) for a in args]
    if name in BINARY:
        return cst.BinaryOperation(wrapped[0], getattr(cst, BINARY[name])(), wrapped[1], **paren)
    if name in COMPARE:
        return cst.Comparison(wrapped[0], [cst.ComparisonTarget(getattr(cst, COMPARE[name])(), wrapped[1])], **paren)
    if name in UNARY:
        return cst.UnaryOperation(getattr(cst, UNARY[name])(), wrapped[0], **paren)
    return cst.Call(cst.Name(BUILTIN[name]), [cst.Arg(args[0])])
