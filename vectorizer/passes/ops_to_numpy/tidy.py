"""The lowered function's tree, finished: the loop masks' `& ~flag` placeholders settled, and
assignments nothing reads dropped (a block left with no code gets `pass`).

    active = __vz_not_flag__(c & (i < 40))     active = c & (i < 40) & ~flag    (with flags)
    m_2 = x > 0                          ->    (dropped: nothing reads m_2)
    return (y, flag)                           return (y, None)                 (without)
"""

from __future__ import annotations

import ast
from collections import Counter

from ...core.binding import bindings
from ...core.pyast import Comment, blocks, name, statements

NOT_FLAG = "__vz_not_flag__"  # `__vz_not_flag__(mask)`: `mask & ~flag` once we know the function has flags


def settle_flag(func: ast.FunctionDef, flag: str, flagged: bool) -> Counter[str]:
    """Settle the placeholders in place: with `flagged`, `__vz_not_flag__(v)` is `v & ~flag`;
    without, it is `v`, and the flag each `return` hands back is None. Returns how often each
    name is read or written (what `drop_dead_assignments` counts)."""
    names: Counter[str] = Counter()

    def settle(node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == NOT_FLAG:
            value = settle(node.args[0])
            if not flagged:
                return value
            names[flag] += 1
            return ast.BinOp(left=value, op=ast.BitAnd(), right=ast.UnaryOp(op=ast.Invert(), operand=name(flag)))
        if isinstance(node, ast.Name):
            if not flagged and node.id == flag:
                return ast.Constant(value=None)
            names[node.id] += 1
            return node
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, settle(value))
            elif isinstance(value, list):
                value[:] = [settle(v) if isinstance(v, ast.AST) else v for v in value]
        return node

    for stmt in func.body:
        settle(stmt)
    return names


def drop_dead_assignments(func: ast.FunctionDef, names: Counter[str]) -> None:
    """Drop `name = expr` statements whose name nothing else reads or writes (a branch mask whose
    checks all went away, say), in place; `names` counts each name's uses in the body. The
    lowered expressions are NumPy operations without effects, so dropping them changes nothing
    else; comments do not count as reads. A block left with no code gets `pass`; an `else` left
    with none keeps its `pass` too."""
    with_else = [n for n in statements(func.body) if isinstance(n, ast.If) and n.orelse]
    while dropped := _drop(func.body, names):
        for stmt in dropped:
            names.subtract(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
    for node in with_else:
        if not node.orelse:
            node.orelse.append(ast.Pass())
    _fill(func.body)


def _drop(block: list[ast.stmt], names: Counter[str]) -> list[ast.stmt]:
    """Take the dead assignments (by `names`) out of `block` and the blocks under it; return them."""
    dropped = [s for s in block if isinstance(s, ast.Assign) and len(s.targets) == 1
               and isinstance(s.targets[0], ast.Name) and names[s.targets[0].id] == 1
               and bindings(s) == [s.targets[0].id]]  # it binds nothing else (no walrus in its value)
    if dropped:
        gone = {id(s) for s in dropped}
        block[:] = [s for s in block if id(s) not in gone]
    for s in block:
        for inner in blocks(s):
            dropped += _drop(inner, names)
    return dropped


def _fill(block: list[ast.stmt]) -> None:
    """`pass` first in each block under `block` whose code all went (its comments after it)."""
    for s in block:
        for inner in blocks(s):
            if inner and all(isinstance(t, Comment) for t in inner):
                inner.insert(0, ast.Pass())
            elif not inner and inner is not getattr(s, "orelse", None):
                inner.append(ast.Pass())
            _fill(inner)
