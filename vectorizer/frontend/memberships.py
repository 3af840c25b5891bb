"""`x in (3, 5)` with any left operand (part of frontend/desugar.py, before its tables and `in`
rewrites; issue 51). The left operand is evaluated ONCE in Python, before the values it is
compared with; `in` over constants is written `x == 3 or x == 5` (`written_out`, which
desugar.py's rewrite applies), which names `x` once a value. A left operand that is a name or a
literal is written there as it is; a cheap pure one (names and literals under arithmetic,
bitwise and unary operators: `n & 7`) too, since running it again gives the same value and,
when it raises, raises at its first run, where Python raises.
Any other left operand (a call, a subscript...) is bound to a variable first. Before::

    if n & 7 in (3, 5):
        t = -t
    if g(x) not in SMALL:            # SMALL: a module-level tuple of numbers
        return 0.0

After (`bind_left`, before desugar.py's tables; its rewrite then writes each `in` out)::

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

import math

import libcst as cst

from .namespace import Namespace
from .sequence_values import number
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


def numbers_of(node: cst.BaseExpression) -> tuple | None:
    """The numbers of a tuple or list display of number literals, or None."""
    if not isinstance(node, cst.Tuple | cst.List) or not node.elements:
        return None
    values = []
    for el in node.elements:
        if isinstance(el, cst.StarredElement):
            return None
        v = number(el.value)
        if v is None:
            return None
        values.append(v)
    return tuple(values)


def written_out(updated: cst.Comparison, ns: Namespace, local: set[str]) -> cst.BaseExpression:
    """`left in C` with C constants and `left` a literal or cheap: `left == c1 or left == c2...`
    (`not in`: `!=` and `and`); anything else as it is (the fence refuses what is left)."""
    if len(updated.comparisons) != 1 or not isinstance(updated.comparisons[0].operator, cst.In | cst.NotIn):
        return updated
    left, target = updated.left, updated.comparisons[0]
    values = constants(target.comparator, ns, local)
    if values is None or not (cheap(left) or number(left) is not None):
        return updated
    if not values or any(isinstance(v, float) and not math.isfinite(v) for v in values):
        return updated  # nan is found by identity, inf has no literal; an empty tuple: left to the fence
    negated = isinstance(target.operator, cst.NotIn)
    op = cst.NotEqual() if negated else cst.Equal()
    tests = [cst.Comparison(left, [cst.ComparisonTarget(op, cst.parse_expression(repr(v)))]) for v in values]
    expr: cst.BaseExpression = tests[0]
    for t in tests[1:]:
        expr = cst.BooleanOperation(expr, cst.And() if negated else cst.Or(), t)
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def constants(node: cst.BaseExpression, ns: Namespace, local: set[str]) -> tuple | None:
    """The numbers of a display (a set's too: `in` tests equality, as the set's hash does for
    numbers), of `frozenset(display)` / `set(display)`, of a local table, a module-level
    tuple constant or a module-level frozenset (immutable: the Watch of its name suffices)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("frozenset", "set") \
            and node.func.value not in local and len(node.args) == 1 and not node.args[0].keyword \
            and not node.args[0].star and ns.resolve(node.func.value).name == node.func.value \
            and (ns.globals is None or node.func.value not in ns.globals):
        node = node.args[0].value
    values = numbers_of(cst.List(node.elements)) if isinstance(node, cst.Set) else numbers_of(node)
    if values is not None or not isinstance(node, cst.Name) or node.value in local:
        return values
    glob = ns.resolve(node.value)
    if glob.kind == "constant" and isinstance(glob.value, tuple):
        return glob.value
    held = ns.globals.get(node.value) if ns.globals is not None else None
    if type(held) is frozenset and held and all(type(v) in (int, float, bool) for v in held):
        return tuple(sorted(held))
    return None
