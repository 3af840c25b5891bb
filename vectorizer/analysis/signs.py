"""Signs of expressions, from their shape alone: checks that need an operand of the other sign go.

`math.exp(-0.5 * x * x)` cannot overflow, whatever `x` is: its operand is a product with `x`
twice and one negative constant, so it is <= 0 or NaN, and exp's overflow test (`t > 709.7`)
cannot hold. `math.sqrt(x * x + y * y)` cannot raise for the same reason. Dropping such checks
matters in loops: on the Numba backend a lane function with no check returns a plain value and
its caller's loop has no exit to test (simpson_gauss: 33 exps a lane).

NaN satisfies every sign here (no comparison with NaN holds, so no check fires on it) and so does
-0.0. Only shapes whose sign holds for every value are recognised:

* number literals; `-e`, `+e`; library calls that never return a negative number
  (rules.NONNEGATIVE_CALLS);
* a product or quotient of factors, each of known sign or appearing an even number of times as
  the same name (`x * x`, `-0.5 * x * x`, `-x * x / (y * y)`; only names pair up, not calls);
* `e ** k` for an even integer literal `k`;
* sums and differences whose terms agree (`a + b` with both >= 0, `a - b` with a >= 0, b <= 0).

A divisor can also be known never to be zero: a positive literal plus terms >= 0 (`1.0 +
math.exp(-x)`: rounding is monotonic, so the sum is at least the literal). Its ZeroDivisionError
check goes, and with it the need to compute the divisor exactly (analysis/decisions.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from ..rules.base import Impl
from ..rules.scalar import NONNEGATIVE_CALLS

NONNEG, NONPOS = 1, -1
CallName = Callable[[cst.Call], "str | None"]  # "math.exp", "abs"...; None for a user function


def sign(node: cst.BaseExpression, call_name: CallName) -> int | None:
    """NONNEG (>= 0 or NaN), NONPOS (<= 0 or NaN), or None when the shape does not tell."""
    if isinstance(node, cst.Integer | cst.Float):
        value = float(node.evaluated_value)
        return NONNEG if value >= 0 else NONPOS
    if isinstance(node, cst.UnaryOperation):
        inner = sign(node.expression, call_name)
        if isinstance(node.operator, cst.Minus):
            return None if inner is None else -inner
        return inner if isinstance(node.operator, cst.Plus) else None
    if isinstance(node, cst.Call):
        return NONNEG if call_name(node) in NONNEGATIVE_CALLS else None
    if isinstance(node, cst.BinaryOperation):
        op = node.operator
        if isinstance(op, cst.Multiply | cst.Divide):
            return _product(node, call_name)
        if isinstance(op, cst.Power):
            k = node.right
            even = isinstance(k, cst.Integer) and int(k.evaluated_value) % 2 == 0
            return NONNEG if even else None
        if isinstance(op, cst.Add | cst.Subtract):
            left, right = sign(node.left, call_name), sign(node.right, call_name)
            if left is None or right is None:
                return None
            right = right if isinstance(op, cst.Add) else -right
            return left if left == right else None
    return None


def _product(node: cst.BinaryOperation, call_name: CallName) -> int | None:
    factors: list[cst.BaseExpression] = []
    negations = _factors(node, factors)
    names: dict[str, int] = {}
    result = NONPOS if negations % 2 else NONNEG
    for f in factors:
        if isinstance(f, cst.Name):
            names[f.value] = names.get(f.value, 0) + 1
            continue
        s = sign(f, call_name)
        if s is None:
            return None
        result *= s
    if any(count % 2 for count in names.values()):  # an unpaired name: its sign decides, unknown here
        return None
    return result


def _factors(node: cst.BaseExpression, out: list[cst.BaseExpression]) -> int:
    """Collect the factors of a product or quotient; the number of negations among them
    (`-x * x`: factors x, x and one negation)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply | cst.Divide):
        return _factors(node.left, out) + _factors(node.right, out)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return 1 + _factors(node.expression, out)
    out.append(node)
    return 0


def positive(node: cst.BaseExpression, call_name: CallName) -> bool:
    """> 0 or NaN for every value (never 0): a positive literal, or a sum of one and terms >= 0."""
    if isinstance(node, cst.Integer | cst.Float):
        return float(node.evaluated_value) > 0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Plus):
        return positive(node.expression, call_name)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return (positive(node.left, call_name) and sign(node.right, call_name) == NONNEG) \
            or (sign(node.left, call_name) == NONNEG and positive(node.right, call_name))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        return positive(node.left, call_name) and sign(node.right, call_name) == NONPOS
    return False


def without_zero_divisor(impl: Impl, node: cst.BaseExpression, call_name: CallName) -> Impl:
    """`impl` for `node` less its zero-divisor check where the divisor is `positive`."""
    if not (isinstance(node, cst.BinaryOperation) and any(c.divisor for c in impl.checks)
            and positive(node.right, call_name)):
        return impl
    return dataclasses.replace(impl, checks=tuple(c for c in impl.checks if not c.divisor))
