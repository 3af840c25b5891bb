"""The attributes every real number has, read on a parameter (part of frontend/desugar.py; issue
51: electricpy's `R = abs(Z.real)` for an impedance that may be complex, given a float). Before::

    def f(Z, n):
        R = abs(Z.real)
        X = abs(Z.imag)
        return n.conjugate() + R + X

After::

    def f(Z, n):
        R = abs((+Z))
        X = abs((0 * Z ** 0))
        return (+n) + R + X

A lane's argument is a Python int, float or bool, and for those CPython's `x.real` and
`x.conjugate()` are `+x` (the number itself, a bool as its int: `True.real` is 1, `(-0.0).real`
is -0.0, NaN stays NaN), and `x.imag` is a zero of the number's own type (0 for an int or a bool,
0.0 for a float), which `0 * x ** 0` is for every value: `x ** 0` is 1 (1.0 for a float, NaN and
the infinities included: C's pow(x, 0) is 1). The vectorizer already computes `+x` and `x ** 0`
exactly on both backends.

Only a parameter the function never rebinds is rewritten (it holds its argument throughout), and
only one without a default or with a number default: a local may hold a NumPy array (`+` of a
bool array raises where `.real` does not), and a parameter defaulting to None, a str or a tuple
is specialized on that value. A parameter given an object the code is specialized on (an
instance of the user's class) is refused as a number after this rewrite, as any other use of it
as a number is; `.real` of anything else is left to the fence, which refuses it as before.
"""

from __future__ import annotations

import libcst as cst

from .paths import PathTransformer

_ATTRIBUTES = ("real", "imag")


def number_params(func: cst.FunctionDef, assigned: set[str]) -> set[str]:
    """The parameters that hold a lane's number throughout: never rebound, and without a default
    or with a number literal (or `-literal`, `True`/`False`) as their default."""
    p = func.params
    found = set()
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        name = param.name.value
        if name in assigned:
            continue
        default = param.default
        if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, cst.Minus | cst.Plus):
            default = default.expression
        if default is None or isinstance(default, cst.Integer | cst.Float) \
                or isinstance(default, cst.Name) and default.value in ("True", "False"):
            found.add(name)
    return found


class NumberAttributes(PathTransformer):
    """`p.real`, `p.conjugate()` -> `(+p)`; `p.imag` -> `(0 * p ** 0)` (the module docstring)."""

    def __init__(self, params: set[str]) -> None:
        super().__init__()
        self.params = params

    def wants(self, node: cst.CSTNode) -> bool:
        return self._attribute(node) is not None or self._conjugate(node) is not None

    def _attribute(self, node: cst.CSTNode) -> str | None:
        if isinstance(node, cst.Attribute) and node.attr.value in _ATTRIBUTES and isinstance(node.value, cst.Name) \
                and node.value.value in self.params:
            return node.value.value
        return None

    def _conjugate(self, node: cst.CSTNode) -> str | None:
        if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "conjugate" and isinstance(node.func.value, cst.Name) \
                and node.func.value.value in self.params:
            return node.func.value.value
        return None

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = self._attribute(original)
        if name is None:
            return updated
        paren = {"lpar": [cst.LeftParen()], "rpar": [cst.RightParen()]}
        if original.attr.value == "real":
            return cst.UnaryOperation(cst.Plus(), cst.Name(name), **paren)
        power = cst.BinaryOperation(cst.Name(name), cst.Power(), cst.Integer("0"))
        return cst.BinaryOperation(cst.Integer("0"), cst.Multiply(), power, **paren)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = self._conjugate(original)
        if name is None:
            return updated
        return cst.UnaryOperation(cst.Plus(), cst.Name(name), lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
