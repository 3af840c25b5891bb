"""A chain of `if i == k: ... return` that covers every value `i % n` can take (part of
frontend/desugar.py): the last test is always true where it is reached, so its body runs
unconditionally, and the function no longer seems to reach its end without `return`. Before
(colorsys.hsv_to_rgb)::

    i = int(h * 6.0)
    ...
    i = i % 6
    if i == 0:
        return v, t, p
    ...
    if i == 5:
        return v, p, q

After::

    i = int(h * 6.0)
    ...
    i = i % 6
    if i == 0:
        return v, t, p
    ...
    return v, p, q

Exact because `i` is an int (bound to `int(...)`, or to `j % n` with such a `j`) and `n` a positive
int literal: Python's `i % n` is then one of 0 .. n-1, and each earlier `if` of the chain returns
(or raises) on its value. The chain must end the function's top-level body, every `if` of it
test `i == k` (or `k == i`) with an int literal k, have no `else`, and end its body with `return`
or `raise`; nothing between the `%` and the chain, nor inside it, may rebind `i` (nor the name
`int` anywhere in the function). Anything else is left as it is.
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bound_names
from ..core.tree import walk


def rewrite(func: cst.FunctionDef) -> tuple[cst.FunctionDef, dict[int, tuple[cst.CSTNode, cst.CSTNode]]]:
    """`func` with the last `if` of such a chain made unconditional, and what was rebuilt."""
    if not isinstance(func.body, cst.IndentedBlock):
        return func, {}
    body = list(func.body.body)
    start = len(body)
    while start > 0 and _case(body[start - 1]) is not None:
        start -= 1
    if start == len(body) or _binds(func, "int"):
        return func, {}
    name = _case(body[start])[0]  # type: ignore[index]
    cases = [_case(s) for s in body[start:]]
    if any(c is None or c[0] != name for c in cases) or any(_binds(s, name) for s in body[start:]):
        return func, {}
    n = _modulus(body[:start], name)
    if n is None or sorted({c[1] for c in cases}) != list(range(n)):  # type: ignore[index]
        return func, {}
    last = body[-1]
    assert isinstance(last, cst.If)
    inner = last.body.body if isinstance(last.body, cst.IndentedBlock) else [cst.SimpleStatementLine(list(last.body.body))]
    block = func.body.with_changes(body=[*body[:-1], *inner])
    new = func.with_changes(body=block)
    return new, {id(block): (block, func.body), id(new): (new, func)}


def _case(stmt: cst.CSTNode) -> tuple[str, int] | None:
    """(i, k) for `if i == k:` with no else whose body ends in `return` or `raise`."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    test = stmt.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return None
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(right, cst.Name) and isinstance(left, cst.Integer):
        left, right = right, left
    if not (isinstance(left, cst.Name) and isinstance(right, cst.Integer)):
        return None
    stmts = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body]
    tail = stmts[-1]
    smalls = tail.body if isinstance(tail, cst.SimpleStatementLine | cst.SimpleStatementSuite) else []
    if not smalls or not isinstance(smalls[-1], cst.Return | cst.Raise):
        return None
    return left.value, int(right.value.replace("_", ""), 0)


def _modulus(before: list[cst.BaseStatement], name: str) -> int | None:
    """n where the last top-level binding of `name` in `before` is `name = j % n` with j an int."""
    for i in range(len(before) - 1, -1, -1):
        value = _assigned(before[i], name)
        if value is None:
            if _binds(before[i], name):
                return None  # bound some other way (in a branch, a loop...)
            continue
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo)
                and isinstance(value.right, cst.Integer)):
            return None
        n = int(value.right.value.replace("_", ""), 0)
        return n if n > 0 and _is_int(value.left, before[:i]) else None
    return None


def _is_int(node: cst.BaseExpression, before: list[cst.BaseStatement]) -> bool:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "int" \
            and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
        return True
    if not isinstance(node, cst.Name):
        return False
    for i in range(len(before) - 1, -1, -1):
        value = _assigned(before[i], node.value)
        if value is not None:
            return _is_int(value, before[:i])
        if _binds(before[i], node.value):
            return False
    return False


def _assigned(stmt: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of `name = value` when `stmt` is that statement alone on its line."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        small = stmt.body[0]
        if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and small.targets[0].target.value == name:
            return small.value
    return None


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` may rebind `name`: a binding of it (a comprehension's target too), or a
    scope or declaration this rewrite does not follow (conservative)."""
    if any(isinstance(n, cst.Import | cst.ImportFrom | cst.Global | cst.Nonlocal | cst.FunctionDef | cst.ClassDef)
           and n is not node for n in walk(node)):
        return True
    return name in bound_names(node, comprehensions=True)

