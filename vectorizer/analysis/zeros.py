"""The sign of zero, from an expression's shape: where it cannot be -0.0, and where it cannot matter.

IEEE arithmetic has two zeros, and Python keeps them apart (`math.copysign(1.0, -0.0)` is -1.0),
so a rewrite that may turn one into the other is exact only where something tells the two apart
no further. Two facts let passes/share_branch_math.py select less:

* `exp`, `exp2`, `cos` and `cosh` give 1.0 for both zeros: an operand that differs from the
  original only in the sign of a zero (and of a NaN, which no comparison or result tells apart)
  gives the same value there (`-abs(x)` for `-x if x > 0.0 else x`, which reads -0.0 at +0.0);
* a value that is never -0.0 is its own sum with +0.0 (`s + 0.0` is +0.0 only where `s` is
  -0.0), so `x + s if c else s` is `(x if c else 0.0) + s`, and the select has a zero side.

NaN is allowed in both: it is never -0.0, and `NaN + 0.0` is that NaN.
"""

from __future__ import annotations

import libcst as cst

from .signs import CallName

# f(+0.0) == f(-0.0), and f is exact there: the sign of a zero operand cannot show in the result.
ZERO_SIGN_BLIND = frozenset({"math.exp", "math.exp2", "math.cos", "math.cosh"})

# Never -0.0 whatever the operand: 1.0 at zero (exp, cosh), or +0.0 at 1.0 and a domain error
# at -0.0 (log), or a magnitude (fabs, hypot, abs).
_NEVER_NEGATIVE_ZERO = frozenset({"math.exp", "math.exp2", "math.cosh", "math.log", "math.log2", "math.log10",
                                  "math.fabs", "math.hypot", "abs"})
# -0.0 only at -0.0: odd near zero, and zero nowhere else in the floats (f(x) rounds to x or more).
_KEEPS_ZERO_SIGN = frozenset({"math.log1p", "math.expm1", "math.sqrt", "math.sin", "math.tan", "math.tanh",
                              "math.sinh", "math.asin", "math.atan", "math.asinh", "math.atanh", "math.erf"})


def never_negative_zero(node: cst.BaseExpression, call_name: CallName) -> bool:
    """True when no value of `node` is -0.0 (NaN allowed); False when the shape does not tell."""
    if isinstance(node, cst.Integer | cst.Float):
        return True  # a literal is unsigned: `-0.0` is a unary minus
    if isinstance(node, cst.Call) and all(a.keyword is None and not a.star for a in node.args):
        name = call_name(node)
        if name in _NEVER_NEGATIVE_ZERO:
            return True
        return name in _KEEPS_ZERO_SIGN and len(node.args) == 1 and never_negative_zero(node.args[0].value, call_name)
    if isinstance(node, cst.BinaryOperation):
        # Rounded to nearest, a + b is -0.0 only when both are -0.0, and a - b only when a is
        # -0.0 and b is +0.0 (x - x and x + -x are +0.0).
        if isinstance(node.operator, cst.Add):
            return never_negative_zero(node.left, call_name) or never_negative_zero(node.right, call_name)
        if isinstance(node.operator, cst.Subtract):
            return never_negative_zero(node.left, call_name)
    return False


def zero_sign_blind_operand(chain: cst.BaseExpression, operand: cst.BaseExpression, call_name: CallName) -> bool:
    """`operand` (the very node) is the one argument of a ZERO_SIGN_BLIND call inside `chain`."""
    stack: list[cst.CSTNode] = [chain]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].value is operand:
            arg = node.args[0]
            return arg.keyword is None and not arg.star and call_name(node) in ZERO_SIGN_BLIND
        stack.extend(node.children)
    return False
