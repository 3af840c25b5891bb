"""`x in (3, 5)` with any left operand (part of frontend/desugar.py, before its tables and `in`
rewrites; issue 51). The left operand is evaluated ONCE in Python, before the values it is
compared with; desugar.py writes `in` over constants as `x == 3 or x == 5`, which names `x` once
a value. A left operand that is a name or a literal is written there as it is; a cheap pure one
(names and literals under arithmetic, bitwise and unary operators: `n & 7`) too, since running
it again gives the same value and, when it raises, raises at its first run, where Python raises.
Any other left operand (a call, a subscript...) is bound to a variable first. Before::

    if n & 7 in (3, 5):
        t = -t
    if g(x) not in SMALL:            # SMALL: a module-level tuple of numbers
        return 0.0

After (this module; desugar.py then writes each `in` out)::

    if n & 7 in (3, 5):
        t = -t
    value_1 = g(x)
    found_2 = value_1 not in SMALL
    if found_2:
        return 0.0

The binding keeps Python's order: it is made only where the comparison is evaluated first and
unconditionally in its statement (an assignment to a name, a `return`, an `assert`, the test of
an `if` that is no `elif`), what Python evaluates before it bound first, and a comparison under
`and`, `or` or `x if c else y` is reached by lowering those as frontend/short_circuit.py does.
Elsewhere (a `while` test, an `elif`) the comparison is left as it is, and the fence refuses it.
"""

from __future__ import annotations

import libcst as cst

from .namespace import Namespace
from .short_circuit import ShortCircuit, assign_to, bare

_CHEAP_OPS = 8  # the most operators and operands a left operand written again may have


def cheap(node: cst.BaseExpression) -> bool:
    """A left operand written once an item: names and number literals under arithmetic, bitwise
    and unary operators, at most `_CHEAP_OPS` nodes (no call, subscript or attribute)."""
    count = 0
    stack = [node]
    while stack:
        n = stack.pop()
        count += 1
        if isinstance(n, cst.BinaryOperation):
            stack += [n.left, n.right]
        elif isinstance(n, cst.UnaryOperation):
            stack.append(n.expression)
        elif not isinstance(n, cst.Name | cst.Integer | cst.Float):
            return False
    return count <= _CHEAP_OPS


def membership(node: cst.CSTNode) -> bool:
    """`left in C` / `left not in C` alone (no chain), C a display, `set(...)`/`frozenset(...)` or a name."""
    if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, cst.In | cst.NotIn)):
        return False
    c = node.comparisons[0].comparator
    return isinstance(c, cst.Tuple | cst.List | cst.Set | cst.Name) or isinstance(c, cst.Call) \
        and isinstance(c.func, cst.Name) and c.func.value in ("set", "frozenset")


def _hard(node: cst.CSTNode) -> bool:
    return membership(node) and not cheap(node.left)  # type: ignore[attr-defined]


def _holds_hard(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if _hard(n):
            return True
        stack.extend(n.children)
    return False


class Memberships(ShortCircuit):
    """Binds the left operand of each `in` that is not cheap (ShortCircuit's statement walk)."""

    def wants(self, node: cst.CSTNode) -> bool:
        if _hard(node):
            return True
        lazy = isinstance(node, cst.BooleanOperation | cst.IfExp) \
            or isinstance(node, cst.Comparison) and len(node.comparisons) > 1
        return lazy and _holds_hard(node)

    def _lower(self, node: cst.BaseExpression) -> tuple[str, list[cst.BaseStatement]]:
        if not _hard(node):
            return super()._lower(node)
        assert isinstance(node, cst.Comparison)
        value, found = self.fresh("value"), self.fresh("found")
        test = node.with_changes(left=cst.Name(value), lpar=[], rpar=[])
        return found, [assign_to(value, bare(node.left)), assign_to(found, test)]


def bind_left(func: cst.FunctionDef, ns: Namespace, local: set[str]) -> tuple[cst.FunctionDef, dict]:
    """`func` with the left operands that are not cheap bound first, and the rebuilt nodes."""
    taken = {n.value for n in _walk(func) if isinstance(n, cst.Name)}
    count = [0]

    def fresh(base: str) -> str:
        while True:
            count[0] += 1
            if f"{base}_{count[0]}" not in taken:
                taken.add(f"{base}_{count[0]}")
                return f"{base}_{count[0]}"

    rewriter = Memberships(ns, local, fresh)
    new = rewriter.rewrite(func)
    return new, rewriter.rebuilt  # type: ignore[return-value]


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
