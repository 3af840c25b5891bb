"""Differences that a comparison on the path proves nonzero: their ZeroDivisionError check goes.

    if edge1 <= edge0:                       if edge1 <= edge0:
        return 0.0 if x < edge0 else 1.0  ->     ...
    t = (x - edge0) / (edge1 - edge0)        t = (x - edge0) / (edge1 - edge0)   # no `== 0` check

Past the `if`, `edge1 <= edge0` is false: edge1 > edge0, or one of them is NaN. For two floats,
`a - b == 0` only where a == b: the difference of two different finite floats is a nonzero
multiple of the smallest subnormal, so rounding keeps it nonzero (IEEE 754 gradual underflow,
as CPython and NumPy run), an infinite operand gives an infinite or NaN difference, and NaN is
not 0. For two ints, a - b == 0 only where a == b, even wrapped modulo 2**64 (int64). So any
comparison of a and b that rules out a == b rules out the zero divisor. Not for an int and a
float: Python compares them exactly but subtracts float(a) - b, which is 0 for a = 2**53 + 1,
b = 2.0**53; callers pass `same_kind` to say both are float or both int.

`guards.py` reads these facts from the lowered NumPy lines (a mask assigned `a <= b`, a temporary
assigned `a - b`); `PathFacts` tracks them along the Numba backend's per-lane control flow
(`passes/ops_to_lanes/lane.py`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from ..rules.base import Impl

Pair = tuple[str, str, str]  # `name op name`
PairFact = tuple[Pair, bool]  # the comparison, and whether it holds on the path

_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def pair_key(node: ast.expr, constants: dict[str, object] | Iterable[str] = ()) -> Pair | None:
    """`a op b` for two different names, neither a module constant; else None."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    op, left, right = _OPS.get(type(node.ops[0])), node.left, node.comparators[0]
    if op is None or not (isinstance(left, ast.Name) and isinstance(right, ast.Name)):
        return None
    if left.id == right.id or left.id in constants or right.id in constants:
        return None
    return (left.id, op, right.id)


def excludes_equal(op: str, holds: bool) -> bool:
    """`a op b` holding (or not) leaves no lane where a == b as numbers (on NaN lanes a difference
    is NaN, which is not 0 either)."""
    return op in ("<", ">", "!=") if holds else op in ("==", "<=", ">=")


def difference(node: ast.expr, constants: dict[str, object] | Iterable[str] = ()) -> tuple[str, str] | None:
    """`a - b` of two different names (not module constants) as (a, b)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub)):
        return None
    key = pair_key(ast.Compare(node.left, [ast.Eq()], [node.right]), constants)
    return None if key is None else (key[0], key[2])


def zero_difference(check: ast.expr, differences: dict[str, tuple[str, str]],
                    constants: dict[str, object] | Iterable[str] = ()) -> tuple[str, str] | None:
    """A check `t == 0` (or `0 == t`) where t is `a - b` or a name assigned it: (a, b)."""
    if not (isinstance(check, ast.Compare) and len(check.ops) == 1 and isinstance(check.ops[0], ast.Eq)):
        return None
    left, right = check.left, check.comparators[0]
    if _is_zero(left):
        left, right = right, left
    if not _is_zero(right):
        return None
    if isinstance(left, ast.Name):
        return differences.get(left.id)
    return difference(left, constants)


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) \
        and isinstance(node.value, int | float) and node.value == 0


def test_facts(node: ast.expr, holds: bool, constants: dict[str, object] | Iterable[str] = ()) -> set[PairFact]:
    """What a branch test tells on the path where it is `holds`: its comparisons of two names
    (through `not`, the `and` of a true test, the `or` of a false one)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return test_facts(node.operand, not holds, constants)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And if holds else ast.Or):
        return set().union(*(test_facts(v, holds, constants) for v in node.values))
    key = pair_key(node, constants)
    return {(key, holds)} if key is not None else set()


class PathFacts:
    """The pair facts that hold at the current point of structured code, and the differences
    assigned to names. A name assigned forgets what was known about it (`assigned`); callers
    snapshot and join at branches and forget everything at loops (`clear`)."""

    def __init__(self) -> None:
        self.facts: set[PairFact] = set()
        self.differences: dict[str, tuple[str, str]] = {}

    def snapshot(self) -> tuple[frozenset[PairFact], dict[str, tuple[str, str]]]:
        return frozenset(self.facts), dict(self.differences)

    def restore(self, state: tuple[frozenset[PairFact], dict[str, tuple[str, str]]]) -> None:
        self.facts, self.differences = set(state[0]), dict(state[1])

    def join(self, *states: tuple[frozenset[PairFact], dict[str, tuple[str, str]]]) -> None:
        """Where paths meet: what holds on every one of them."""
        facts = frozenset.intersection(*(s[0] for s in states))
        diffs = {n: d for n, d in states[0][1].items() if all(s[1].get(n) == d for s in states)}
        self.restore((facts, diffs))

    def clear(self) -> None:
        self.facts.clear()
        self.differences.clear()

    def assigned(self, name: str, value: ast.expr | None = None) -> None:
        self.facts = {f for f in self.facts if name not in (f[0][0], f[0][2])}
        self.differences = {n: d for n, d in self.differences.items() if name != n and name not in d}
        diff = difference(value) if value is not None else None
        if diff is not None and name not in diff:
            self.differences[name] = diff

    def nonzero(self, divisor: ast.expr) -> tuple[str, str] | None:
        """The (a, b) of a divisor `a - b` (or a name assigned it) that a fact proves nonzero."""
        pair = zero_difference(ast.Compare(divisor, [ast.Eq()], [ast.Constant(0)]), self.differences)
        if pair is None:
            return None
        known = any({key[0], key[2]} == set(pair) and excludes_equal(key[1], holds) for key, holds in self.facts)
        return pair if known else None


def without_divisor_check(impl: Impl) -> Impl:
    """`impl` less its zero-divisor check (the divisor is proven nonzero)."""
    return dataclasses.replace(impl, checks=tuple(c for c in impl.checks if not c.divisor))


def leaves(stmts: Sequence[cst.BaseStatement] | cst.BaseSuite) -> bool:
    """A block of statements that always ends in `return` or `raise`."""
    if isinstance(stmts, cst.SimpleStatementSuite):  # `if c: return x` on one line
        return bool(stmts.body) and isinstance(stmts.body[-1], cst.Return | cst.Raise)
    if isinstance(stmts, cst.IndentedBlock):
        stmts = stmts.body
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], cst.Return | cst.Raise)
    if isinstance(last, cst.If) and last.orelse is not None:
        other = [last.orelse] if isinstance(last.orelse, cst.If) else last.orelse.body
        return leaves(last.body) and leaves(other)
    return False
