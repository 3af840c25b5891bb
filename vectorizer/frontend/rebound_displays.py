"""A name rebound to a new tuple or list display at the function's top level becomes one name a
binding (part of frontend/desugar.py, first among its rewrites of displays). Code ported from
Fortran or MATLAB reuses a name for each equation's coefficients; the rewrites after this one
(tables of literals, local_tuples.py, local_lists.py) take a display bound once. Before::

    a = (-7.64357, 0.1072763, -1.38385e-3)
    cp0 = a[0] + (a[1] + a[2] * t) * t
    a = (-4.9592e-1, 1.45747e-2, -3.13885e-4, 2.0357e-6, 1.7168e-8)
    cp1 = (((a[4] * t + a[3]) * t + a[2]) * t + a[1]) * t + a[0]

After::

    a = (-7.64357, 0.1072763, -1.38385e-3)
    cp0 = a[0] + (a[1] + a[2] * t) * t
    a_1 = (-4.9592e-1, 1.45747e-2, -3.13885e-4, 2.0357e-6, 1.7168e-8)
    cp1 = (((a_1[4] * t + a_1[3]) * t + a_1[2]) * t + a_1[1]) * t + a_1[0]

A name qualifies when every binding of it in the function is a top-level statement `name =
<display>` (one target, alone on its line), there are at least two, no statement before the
first mentions it, it is not a parameter, and the body has no nested function, lambda, class,
`global` or `nonlocal` (scopes whose reads this does not follow). Top-level statements run in
order, so every mention in the statements after a binding, up to the next one, reads that
binding's object (a comprehension among them reads it when the statement runs); the value of a
binding statement reads the binding before it. One name a binding changes no value and no
exception: each display still builds its own object where it did, and whatever is done to that
object (an item read, `len`, a mutation, an alias) is done to the same object under its name.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from ..core.binding import bindings
from .paths import PathTransformer

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Global, cst.Nonlocal)


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _display_target(stmt: cst.BaseStatement) -> str | None:
    """The name `stmt` binds when it is `name = <tuple or list display>` alone on its line."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and isinstance(small.value, cst.Tuple | cst.List):
        return small.targets[0].target.value
    return None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def find(func: cst.FunctionDef, params: set[str]) -> dict[str, int]:
    """name -> how many display bindings it has, for the names this module splits."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else []
    if any(isinstance(node, _SCOPES) for node in _walk(func.body)):
        return {}
    counts = Counter(bindings(func.body, comprehensions=True))
    displays = Counter(name for stmt in body if (name := _display_target(stmt)) is not None)
    found = {}
    for name, n in displays.items():
        if n < 2 or counts[name] != n or name in params:
            continue
        first = next(i for i, stmt in enumerate(body) if _display_target(stmt) == name)
        if not any(_mentions(stmt, name) for stmt in body[:first]):
            found[name] = n
    return found


class _Rename(PathTransformer):
    """Every variable mention of `old` becomes `new` (not an attribute's or a keyword's name);
    the nodes off the paths to them keep their identity (and so their positions)."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and node.value == self.old

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.new) if updated.value == self.old else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


class ReboundDisplays(PathTransformer):
    """Splits the names `find` gave; `rebuilt` maps each new node to its original."""

    def __init__(self, names: dict[str, int], taken: set[str]) -> None:
        super().__init__()
        self.names = names
        self.taken = set(taken)  # the function's names: a new one is none of them

    def fresh(self, base: str) -> str:
        """`base_1`, `base_2`...: the first name the function does not have yet."""
        k = 1
        while f"{base}_{k}" in self.taken:
            k += 1
        self.taken.add(f"{base}_{k}")
        return f"{base}_{k}"

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.IndentedBlock)

    def rewrite(self, tree: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(tree, cst.FunctionDef) and isinstance(tree.body, cst.IndentedBlock)
        body = list(tree.body.body)
        for name in self.names:
            current = name  # the first binding keeps the user's name
            seen = 0
            for i, stmt in enumerate(body):
                if _display_target(stmt) == name:
                    seen += 1
                    small = stmt.body[0]  # type: ignore[attr-defined]
                    target = name if seen == 1 else self.fresh(name)
                    value = self._renamed(small.value, name, current)
                    new = stmt.with_changes(body=[small.with_changes(
                        targets=[small.targets[0].with_changes(target=cst.Name(target))], value=value)])
                    self._record(new, stmt)
                    current = target
                elif current != name and _mentions(stmt, name):
                    new = self._renamed(stmt, name, current)
                else:
                    continue
                body[i] = new
        block = tree.body.with_changes(body=body)
        out = tree.with_changes(body=block)
        self._record(block, tree.body)
        self._record(out, tree)
        return out

    def _renamed(self, node, old: str, new: str):
        if old == new:
            return node
        rename = _Rename(old, new)
        out = rename.rewrite(node)
        for made, original in rename.rebuilt.values():
            self._record(made, original)
        return out

    def _record(self, made: cst.CSTNode, original: cst.CSTNode) -> None:
        """`made` stands for the parsed node `original` stood for (a node may be rebuilt twice)."""
        self.rebuilt[id(made)] = (made, self.rebuilt[id(original)][1] if id(original) in self.rebuilt else original)
