"""Local lists and tuples read only at constant positions (part of frontend/desugar.py, after its
tables and local_tuples.py, which take the displays bound once): each item gets a variable at
every binding, and each read `t[k]`, `k` an integer literal, is that variable. Before::

    if isIP():
        BOUNDS = [-148, 392]
    else:
        BOUNDS = [-100, 200]
    T = max(T, BOUNDS[0])
    T = min(T, BOUNDS[-1])

After::

    if isIP():
        BOUNDS_1 = -148
        BOUNDS_2 = 392
    else:
        BOUNDS_1 = -100
        BOUNDS_2 = 200
    T = max(T, BOUNDS_1)
    T = min(T, BOUNDS_2)

A name qualifies when every statement that binds it is `t = [a, b, ...]` or `t = (a, b, ...)`
(one target, no `*`, alone on its line in an indented block), all of one length n, no item reads
`t`, and every other mention of `t` reads `t[k]` with `-n <= k < n`. The items are evaluated in
order where Python builds the list, and nothing can see the list between items (it is not bound
until all are built, and no item reads it), so the values and exceptions are Python's. A read
where the list may be unbound is one of `t_1`... unbound there, which the analysis reports as it
would for `t`. Anything else (appends, item assignment, a computed index, passing the list on) is
left to the fence, which refuses lists.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..core.tree import walk
from .paths import PathTransformer


class LocalLists(PathTransformer):
    def __init__(self, lists: dict[str, list[str]], bindings: dict[int, str]) -> None:
        super().__init__()
        self.lists = lists  # name -> its item variables
        self.bindings = bindings  # id(binding statement) -> name

    def wants(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Subscript):
            return isinstance(node.value, cst.Name) and node.value.value in self.lists
        return id(node) in self.bindings

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return self.split_displays(original, updated, lambda o, stmt: None if id(o) not in self.bindings else
                                   (self.lists[self.bindings[id(o)]], stmt.body[0].value))  # type: ignore[attr-defined]

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not (isinstance(original.value, cst.Name) and original.value.value in self.lists):
            return updated
        items = self.lists[original.value.value]
        return cst.Name(items[_index(original)])  # type: ignore[index]


def find(func: cst.FunctionDef, params: set[str], fresh: Callable[[str], str]) -> LocalLists | None:
    """The rewrite of the lists of `func` that qualify, or None when none does."""
    statements: dict[str, list[cst.SimpleStatementLine]] = {}
    for block in walk(func.body):
        if isinstance(block, cst.IndentedBlock):
            for stmt in block.body:
                name = _binding(stmt)
                if name is not None:
                    statements.setdefault(name, []).append(stmt)  # type: ignore[arg-type]
    lists: dict[str, list[str]] = {}
    bindings: dict[int, str] = {}
    for name, stmts in statements.items():
        sizes = {len(s.body[0].value.elements) for s in stmts}  # type: ignore[attr-defined]
        if name in params or len(sizes) != 1 or not _only_reads(func, name, stmts, sizes.pop()):
            continue
        n = len(stmts[0].body[0].value.elements)  # type: ignore[attr-defined]
        lists[name] = [fresh(name) for _ in range(n)]
        bindings.update({id(s): name for s in stmts})
    return LocalLists(lists, bindings) if lists else None


def _binding(stmt: cst.CSTNode) -> str | None:
    """The name `stmt` binds to a display `[a, b]` or `(a, b)` (no `*`), else None."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.List | cst.Tuple) and small.value.elements
            and not any(isinstance(e, cst.StarredElement) for e in small.value.elements)):
        return None
    return small.targets[0].target.value


def _only_reads(func: cst.FunctionDef, name: str, stmts: list[cst.SimpleStatementLine], n: int) -> bool:
    """Every mention of `name` outside its binding targets is a read `name[k]`, -n <= k < n, and
    no item of a binding reads it; it is bound by nothing but `stmts`."""
    targets = {id(s.body[0].targets[0].target) for s in stmts}  # type: ignore[attr-defined]
    stored: set[int] = set()  # subscripts that are assigned to, not read
    reads: set[int] = set()
    for node in walk(func.body):
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.Del):
            target = node.target
            stored.add(id(target))
            if any(isinstance(t, cst.Name) and t.value == name and id(t) not in targets for t in walk(target)) \
                    and not isinstance(target, cst.Subscript):
                return False  # bound by another kind of statement
        elif isinstance(node, cst.NamedExpr | cst.CompFor | cst.Import | cst.ImportFrom | cst.Global | cst.Nonlocal
                        | cst.FunctionDef | cst.Lambda | cst.ClassDef):
            return False  # scopes and bindings this rewrite does not follow
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            k = _index(node)
            if id(node) in stored or k is None or not -n <= k < n:
                return False
            reads.add(id(node.value))
    for s in stmts:
        if any(isinstance(t, cst.Name) and t.value == name for t in walk(s.body[0].value)):  # type: ignore[attr-defined]
            return False
    mentions = [t for t in walk(func.body) if isinstance(t, cst.Name) and t.value == name]
    return all(id(t) in reads or id(t) in targets for t in mentions)


def _index(node: cst.Subscript) -> int | None:
    """The integer literal (or -literal) of a plain one-index subscript."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    sign = 1
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        sign, value = -1, value.expression
    if not isinstance(value, cst.Integer):
        return None
    return sign * int(value.value.replace("_", ""), 0)
