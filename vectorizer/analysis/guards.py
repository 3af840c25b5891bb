"""What a mask guarantees about the lanes it selects, so that checks it rules out are not emitted
(NumPy backend, `ops_to_numpy`).

A branch often guards the very operation a check is for: under `if a == 0.0: ... else: c / a`
no lane that divides has `a == 0`. After `if_to_select` the branch is a mask, and each check is
an array operation over every lane (`flag |= m_1 & (a == 0)`: three passes over memory), so a
check the mask rules out is worth dropping::

    m = a == 0.0                       m = a == 0.0
    m_1 = not m            ->          m_1 = ~m
    if m_1:                            r = c / a          # no `flag |= m_1 & (a == 0)`
        r = c / a

Facts are read from the lowered lines as they are emitted, so they describe the code that runs:
a comparison of a local with a number (or a module constant) assigned to a name, `~` of such a
name, and `&` of those. A fact holds while neither its local nor the mask is assigned again:
`emitted` forgets the targets of every assignment, and everything at any other statement;
`ops_to_numpy` also forgets everything at a change of indentation (a uniform `if` or a loop: its
body may not run, or run again with other values), and consults no fact inside a loop. A false
comparison also holds on NaN lanes, so a fact rules a check out only when no number and no NaN
satisfies both; checks with `!=` (true on NaN) are never ruled out.

A comparison of two locals of the same kind (both float, or both int) rules out a zero
difference of the two (`divisor.py`: under `if edge1 <= edge0: return ...` no lane that divides
by `edge1 - edge0` has it 0): the `t_2 == 0` check of `t_2 = edge1 - edge0` goes too.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from .divisor import Pair, difference, excludes_equal, pair_key, zero_difference

Key = tuple[str, str, float]  # `name op number` (or a Pair, `name op name`: divisor.py)
Fact = tuple[Key, bool]  # the comparison, and whether it holds on the selected lanes

_AST_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def _number(value: object) -> float | None:
    """A number that float64 holds exactly (a comparison with it means the same in both types)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if not math.isnan(number) and (isinstance(value, float) or int(number) == value) else None


def check_key(pred: str, constants: dict[str, object] | None = None) -> Key | None:
    """A check's predicate (`a == 0`, `disc < 0`) as a Key, else None."""
    try:
        node = ast.parse(pred.strip(), mode="eval").body
    except SyntaxError:
        return None
    return _key(node, constants or {})


def _key(node: ast.expr, constants: dict[str, object]) -> Key | None:
    """`name op number` or `number op name` as a Key (module constants count as numbers)."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    op = _AST_OPS.get(type(node.ops[0]))
    left, right = node.left, node.comparators[0]
    if op is None:
        return None
    if isinstance(left, ast.Name) and left.id not in constants and (number := _ast_number(right, constants)) is not None:
        return (left.id, op, number)
    if isinstance(right, ast.Name) and right.id not in constants and (number := _ast_number(left, constants)) is not None:
        return (right.id, _FLIPPED[op], number)
    return None


def _ast_number(node: ast.expr, constants: dict[str, object]) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _ast_number(node.operand, constants)
        return None if inner is None else -inner
    if isinstance(node, ast.Name):
        return _number(constants.get(node.id))
    return _number(node.value) if isinstance(node, ast.Constant) else None


def _interval(op: str, c: float) -> tuple[float, bool, float, bool] | None:
    """The floats x with `x op c` as (low, low included, high, high included), infinities
    included (`x <= inf` holds at inf); None for `!=`."""
    inf = math.inf
    return {"<": (-inf, True, c, False), "<=": (-inf, True, c, True), ">": (c, False, inf, True),
            ">=": (c, True, inf, True), "==": (c, True, c, True)}.get(op)


def rules_out(fact: Fact, check: Key) -> bool:
    """No lane where `fact` holds satisfies `check`."""
    (name, op, c), holds = fact
    check_name, check_op, k = check
    if isinstance(c, str) or isinstance(k, str) or name != check_name or check_op == "!=":
        return False
    op = op if holds else _NEGATED[op]  # a false comparison: also NaN, which no check satisfies
    wanted = _interval(check_op, k)
    assert wanted is not None
    if op == "!=":
        return check_op == "==" and k == c
    allowed = _interval(op, c)
    assert allowed is not None
    (lo1, lo1_in, hi1, hi1_in), (lo2, lo2_in, hi2, hi2_in) = allowed, wanted
    lo, lo_in = max((lo1, lo1_in), (lo2, lo2_in), key=lambda b: (b[0], not b[1]))
    hi, hi_in = min((hi1, hi1_in), (hi2, hi2_in), key=lambda b: (b[0], b[1]))
    return lo > hi or (lo == hi and not (lo_in and hi_in))


class Guards:
    """The facts each mask name guarantees, kept while they hold."""

    def __init__(self, constants: dict[str, object], same_kind: Callable[[str, str], bool] | None = None) -> None:
        self.constants = constants  # module constants (their values as of the transform)
        self.atoms: dict[str, Key | Pair] = {}  # name -> the comparison it was assigned
        self.holds: dict[str, frozenset[Fact]] = {}  # mask name -> facts on the lanes it selects
        self.negated: set[str] = set()  # names assigned `~(comparison)`: their atom is false on them
        self.differences: dict[str, tuple[str, str]] = {}  # `t = a - b` -> (a, b)
        self.same_kind = same_kind or (lambda a, b: False)  # both float or both int (divisor.py)

    def _of_name(self, name: str) -> frozenset[Fact]:
        atom = self.atoms.get(name)
        own = self.holds.get(name, frozenset())
        return own | {(atom, name not in self.negated)} if atom is not None else own

    def assigned(self, name: str) -> None:
        """`name` changed: forget what it guaranteed and what was known about it."""
        self.atoms.pop(name, None)
        self.holds.pop(name, None)
        self.negated.discard(name)
        self.differences.pop(name, None)
        self.atoms = {n: k for n, k in self.atoms.items() if name not in (k[0], k[2])}
        self.holds = {n: kept for n, facts in self.holds.items()
                      if (kept := frozenset(f for f in facts if name not in (f[0][0], f[0][2])))}
        self.differences = {n: d for n, d in self.differences.items() if name not in d}

    def clear(self) -> None:
        self.atoms.clear()
        self.holds.clear()
        self.negated.clear()
        self.differences.clear()

    def ruled_out(self, mask: str | None, pred: str) -> bool:
        """The check `pred`, on the lanes of `mask` (lowered text: names, `~`, `&`), cannot hold."""
        if mask is None:
            return False
        try:
            tree = ast.parse(mask.strip(), mode="eval").body
            check_node = ast.parse(pred.strip(), mode="eval").body
        except SyntaxError:
            return False
        return self.ruled_out_node(tree, check_node)

    def ruled_out_node(self, mask: ast.expr | None, check_node: ast.expr) -> bool:
        """`ruled_out` of the lowered nodes."""
        if mask is None:
            return False
        pair = zero_difference(check_node, self.differences, self.constants)
        if pair is not None and self.same_kind(*pair) and any(  # `t == 0`, t = a - b: is a == b ruled out?
                isinstance(key[2], str) and {key[0], key[2]} == set(pair) and excludes_equal(key[1], holds)
                for key, holds in self._mask_facts(mask)):
            return True
        check = _key(check_node, self.constants)
        return check is not None and any(rules_out(f, check) for f in self._mask_facts(mask))  # type: ignore[arg-type]

    def _mask_facts(self, node: ast.expr) -> frozenset[Fact]:
        if isinstance(node, ast.Name):
            return self._of_name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert) and isinstance(node.operand, ast.Name):
            atom = self.atoms.get(node.operand.id)
            return frozenset({(atom, node.operand.id in self.negated)}) if atom is not None else frozenset()
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):  # ~(a > b): false here
            key = self._compare_key(node.operand)
            return frozenset({(key, False)}) if key is not None else frozenset()
        if isinstance(node, ast.Compare) and (key := self._compare_key(node)) is not None:
            return frozenset({(key, True)})
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            return self._mask_facts(node.left) | self._mask_facts(node.right)
        return frozenset()

    def _compare_key(self, node: ast.expr) -> Key | Pair | None:
        return _key(node, self.constants) or pair_key(node, self.constants)

    def emitted(self, line: str) -> None:
        """A line of lowered code (without its indentation) was emitted: `emitted_node` of its
        statement (a block's header, `if m:` or `else:`, is no statement alone: None)."""
        try:
            (node,) = ast.parse(line).body
        except (SyntaxError, ValueError):
            node = None
        self.emitted_node(node)

    def emitted_node(self, node: ast.stmt | None) -> None:
        """A statement of lowered code was emitted (None: a block boundary): forget what it may
        change, and learn what a mask it assigns guarantees. Assignments to names forget their
        targets; any other statement but `return` and `pass` (a block's header too) forgets
        everything."""
        targets = _assigned(node)
        if targets is None:
            if not isinstance(node, ast.Return | ast.Pass):
                self.clear()
            return
        for name in targets:
            self.assigned(name)
        if len(targets) == 1 and isinstance(node, ast.Assign):  # `name = value`, not `name += value`
            self._learn(targets[0], node.value)

    def _learn(self, name: str, node: ast.expr) -> None:
        """`name = node` (plain assignment): what `name` now guarantees."""
        negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert)
        key = self._compare_key(node.operand if negated else node)  # type: ignore[attr-defined]
        if key is not None and name not in (key[0], key[2]):
            self.atoms[name] = key
            if negated:
                self.negated.add(name)
        diff = difference(node, self.constants)
        if diff is not None and name not in diff:
            self.differences[name] = diff
        facts = frozenset(f for f in self._mask_facts(node) if name not in (f[0][0], f[0][2]))
        if facts:
            self.holds[name] = facts


def _assigned(node: ast.stmt | None) -> list[str] | None:
    """The names `a = ...`, `a, b = ...` or `a += ...` assigns; None for any other statement (a
    subscript or attribute target, several targets)."""
    if isinstance(node, ast.AugAssign):
        return [node.target.id] if isinstance(node.target, ast.Name) else None
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0]
    elts = target.elts if isinstance(target, ast.Tuple) else [target]
    return [e.id for e in elts] if all(isinstance(e, ast.Name) for e in elts) else None  # type: ignore[attr-defined]
