"""A select between a value and a constant on the value's own comparison with that constant
becomes one np.fmax / np.fmin pass, and the comparison goes where nothing else reads it.

`if x > 0.0: return x + s` / `return s` (softplus, ReLU) leaves a mask and a select: a
comparison pass, a count of the mask and a multiply (runtime/helpers._vz_where). np.fmax is one
pass, and where the constant is 0.0, adding 0.0 turns fmax's -0.0 (for x = -0.0, which NumPy's
SIMD and scalar loops return either way) into the 0.0 the select gives. Before::

    c = x > 0.0
    arg = -np.abs(x)
    shared = np.log1p(np.exp(arg))
    ret = _vz_where(c, x, 0.0) + shared

After::

    arg = -np.abs(x)
    shared = np.log1p(np.exp(arg))
    ret = np.fmax(x, 0.0) + 0.0 + shared

The same bits on every lane: `x > k` picks x, otherwise (x <= k, or NaN) k, and fmax returns the
larger number beside a NaN; `x < k` is fmin. `>=` and `<=` only for k != 0.0 (at x == k both give
k's bits). Only for a float constant in the select: an int one makes an int select, and fmax's
result is a float. Only where the mask and x are each assigned once, x before the mask, and the
mask and the select in one block (nothing between them at a shallower indent): the mask then
always holds the comparison of the x the select reads. NumPy backend, on ops_to_numpy's array
code (core/pyast.py): "before", "between" and "one block" are read off its printed lines
(`pyast.lines`), the select is replaced in the tree.
"""

from __future__ import annotations

import ast
import copy
import math
from collections import Counter

from ..core import pyast
from ..core.binding import bindings, bound_names
from ..core.pyast import ArrayCode, Line
from .base import Context

_OPS = {ast.Gt: "np.fmax", ast.GtE: "np.fmax", ast.Lt: "np.fmin", ast.LtE: "np.fmin"}
_MIRROR = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}
Mask = tuple[int, str, type, ast.expr]  # (its line, x, the comparison's operator as `x <op> k`, k)


def _number(node: ast.expr) -> float | None:
    """The value of a number literal (`2`, `0.5`, `-1e-05`) as a float, else None."""
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    if negated:
        node = node.operand  # type: ignore[attr-defined]
    if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
        return None
    return -float(node.value) if negated else float(node.value)


def _masks(table: list[Line]) -> dict[str, Mask]:
    """mask name -> its line, x, op and k, for each `mask = x <op> k` (or `k <op> x`)."""
    found = {}
    for i, line in enumerate(table):
        node = line.node
        if line.kind != "stmt" or not (isinstance(node, ast.Assign) and len(node.targets) == 1
                                       and isinstance(node.targets[0], ast.Name)):
            continue
        test = node.value
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS):
            continue
        left, op, right = test.left, type(test.ops[0]), test.comparators[0]
        if isinstance(left, ast.Name) and _number(right) is not None:
            found[node.targets[0].id] = (i, left.id, op, right)
        elif isinstance(right, ast.Name) and _number(left) is not None:
            found[node.targets[0].id] = (i, right.id, _MIRROR[op], left)
    return found


def _selects(table: list[Line]) -> list[tuple[int, ast.Call]]:
    """(line, call) for each `_vz_where(mask, yes, number)` of two names and a number literal."""
    found = []
    for i, line in enumerate(table):
        for part in pyast.own_parts(line):
            for node in ast.walk(part):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_vz_where" \
                        and len(node.args) == 3 and not node.keywords and isinstance(node.args[0], ast.Name) \
                        and isinstance(node.args[1], ast.Name) and _number(node.args[2]) is not None:
                    found.append((i, node))
    return found


def _one_block(table: list[Line], first: int, last: int) -> bool:
    """No line from `first` to `last` (comments aside) is shallower than `first`."""
    depth = table[first].depth
    return all(ln.depth >= depth for ln in table[first:last + 1] if ln.kind != "comment")


def _assigns(line: Line, name: str) -> bool:
    """Whether the line binds `name` (`name = ...`, `a, name = ...`, `name |= ...`, a `for`, a
    walrus in a header's test); a header's block does not count, nor the `def`."""
    node = line.node
    if line.kind == "stmt":
        return name in bound_names(node)
    if line.kind != "header":
        return False
    if isinstance(node, ast.For):
        return name in bound_names(ast.For(target=node.target, iter=node.iter, body=[], orelse=[]))
    return name in bound_names(node.test)  # type: ignore[attr-defined]


def _alias(table: list[Line], name: str, i: int) -> str | None:
    """What `name` holds at line i where its last assignment before it, in the same block, is a
    copy of another name (`ret = x`, as if_to_select writes a branch's `return x`)."""
    for j in range(i - 1, -1, -1):
        if _assigns(table[j], name):
            node = table[j].node
            copied = isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name)
            return node.value.id if copied and _one_block(table, j, i) else None  # type: ignore[attr-defined]
    return None


def _fmax(op: type, x: str, k: ast.expr) -> ast.expr | None:
    value = _number(k)
    assert value is not None
    if math.isnan(value) or math.copysign(1.0, value) < 0 and value == 0.0:
        return None  # -0.0: adding it would not make fmax's zero the select's
    fused = pyast.call(_OPS[op], pyast.name(x), copy.deepcopy(k))
    if value == 0.0:
        return None if op in (ast.GtE, ast.LtE) else ast.BinOp(left=fused, op=ast.Add(), right=ast.Constant(0.0))
    return fused


def transform(code: ArrayCode, ctx: Context) -> ArrayCode:
    table = pyast.lines(code.func)
    selects = _selects(table)
    if not selects:
        return code
    stores = Counter(bindings(code.func))  # the body's; parameters count once
    stores.update(a.arg for a in code.func.args.args)
    masks = _masks(table)
    fused: dict[int, ast.expr] = {}
    changed: set[str] = set()
    for i, call in selects:
        new = _fused(call, i, table, masks, stores)
        if new is not None:
            fused[id(call)] = new
            changed.add(call.args[0].id)  # type: ignore[attr-defined]
    if not fused:
        return code
    _Replace(fused).visit(code.func)
    reads = Counter(n.id for n in ast.walk(code.func) if isinstance(n, ast.Name) and n.id in changed)
    for mask in changed:  # a mask nothing reads any more goes (comments do not read it)
        line = table[masks[mask][0]]
        own = sum(isinstance(n, ast.Name) and n.id == mask for n in ast.walk(line.node))
        if reads[mask] == own and line.block is not None:
            line.block.remove(line.node)
    return code


class _Replace(ast.NodeTransformer):
    def __init__(self, fused: dict[int, ast.expr]) -> None:
        self.fused = fused

    def visit_Call(self, node: ast.Call) -> ast.AST:
        new = self.fused.get(id(node))
        return new if new is not None else self.generic_visit(node)


def _fused(call: ast.Call, i: int, table: list[Line], masks: dict[str, Mask], stores: Counter[str]) -> ast.expr | None:
    """The fmax/fmin expression for the select `call` on line i, or None to keep it."""
    mask, yes, no = call.args[0].id, call.args[1].id, call.args[2]  # type: ignore[attr-defined]
    if mask not in masks or stores[mask] != 1:
        return None
    at, x, op, k = masks[mask]
    if yes != x and _alias(table, yes, i) != x:
        return None
    if _float(no) is None or repr(_number(no)) != repr(_number(k)) or stores[x] > 1 or at >= i:
        return None  # an int `no` makes an int select, which fmax's float result is not
    x_at = next((j for j, line in enumerate(table[1:], start=1) if _assigns(line, x)), -1)  # -1: a parameter
    if x_at > at or not _one_block(table, at, i) or (x_at >= 0 and not _one_block(table, x_at, i)):
        return None
    return _fmax(op, x, k)


def _float(node: ast.expr) -> float | None:
    """A float literal's value (an int literal is not one)."""
    inner = node.operand if isinstance(node, ast.UnaryOp) else node  # type: ignore[attr-defined]
    return _number(node) if isinstance(inner, ast.Constant) and isinstance(inner.value, float) else None
