"""`D[k]` of a module-level dict of numbers (part of frontend/desugar.py): a choice among its
values, with the lanes whose key it lacks flagged. Before::

    SIZES = {8: 1.5, 16: 2.25, 32: 4.0}

    def f(width, x):
        return x * SIZES[width]

After::

    def f(width, x):
        if not (width == 8 or width == 16 or width == 32):
            raise KeyError(width)         # never raised: flags the lanes the scalar re-run raises on
        return x * (1.5 if width == 8 else 2.25 if width == 16 else 4.0)

Why this is exact: for numbers a dict finds the key equal to `k` (its hash agrees with ==: 1,
1.0 and True are one key, 0.0 and -0.0 too; a NaN key is found by no lane's NaN, which is another
object), and raises KeyError when there is none, which the re-run of the flagged lane raises
itself. The test stands before the statement that reads `D[k]`: a lane it flags that would not
have read it (under `and`, `or`, `if-else`, a later `elif`), or that raises first, is re-run all
the same, so only its speed changes. A key that is not a name or a number literal is bound to a
fresh name first (reading it has no effect: the fence allows no calls with effects).

What qualifies: a dict bound to a module-level name, with number keys and finite number values,
read where a statement is evaluated once (an assignment, a `return`, an `if` test, a `for`
iterable; not a `while` test, which is evaluated again). The dict is watched on every call
(engine/fingerprint.py): an item assigned since makes the kernel stale, as a rebound name does.
Anything else is left to the fence, which refuses dicts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer
from .pure_builtins import SNAPSHOT, items

_NUMBER = (int, float, bool)


def number_dict(ns: Namespace, name: str) -> dict | None:
    """The module-level dict of numbers `name` is bound to, or None."""
    if ns.globals is None or type(ns.globals.get(name)) is not dict:
        return None
    ns.resolve(name)  # recorded: the Watch checks the name still holds this dict
    found = ns.globals[name]
    if not found or len(found) > 256:
        return None
    if not all(type(k) in _NUMBER and type(v) in _NUMBER and math.isfinite(v) for k, v in found.items()):
        return None
    return found


class DictLookups(PathTransformer):
    def __init__(self, ns: Namespace, local: set[str], fresh: Callable[[str], str]) -> None:
        super().__init__()
        self.ns, self.local, self.fresh = ns, local, fresh
        self.dicts: dict[str, dict] = {}

    def lookup(self, node: cst.CSTNode) -> dict | None:
        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value not in self.local
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
            return None
        name = node.value.value
        if name not in self.dicts:
            found = number_dict(self.ns, name)
            if found is None:
                return None
            self.dicts[name] = found
            reads = self.ns.linker.reads if self.ns.linker is not None else self.ns.watched
            reads.append((found, SNAPSHOT, items(found)))  # an item assigned since: a new kernel
        return self.dicts[name]

    def wants(self, node: cst.CSTNode) -> bool:
        return self.lookup(node) is not None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        for stmt in updated.body:
            before, new = self.statement(stmt)
            if before:
                new = new.with_changes(leading_lines=())
                before[0] = before[0].with_changes(leading_lines=stmt.leading_lines)
            body += [*before, new]
        return updated.with_changes(body=body) if len(body) != len(updated.body) else updated

    def statement(self, stmt: cst.BaseStatement) -> tuple[list[cst.BaseStatement], cst.BaseStatement]:
        """(the tests to put before `stmt`, `stmt` with its lookups as choices)."""
        rewrite = _Choices(self)
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            new = stmt.with_changes(body=[stmt.body[0].visit(rewrite)])
        elif isinstance(stmt, cst.If):
            new = _if_tests(stmt, rewrite)
        elif isinstance(stmt, cst.For):
            new = stmt.with_changes(iter=stmt.iter.visit(rewrite))
        else:
            return [], stmt
        return rewrite.before, new


def _if_tests(stmt: cst.If, rewrite: _Choices) -> cst.If:
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):
        orelse = _if_tests(orelse, rewrite)
    return stmt.with_changes(test=stmt.test.visit(rewrite), orelse=orelse)


class _Choices(cst.CSTTransformer):
    """Replaces the lookups of one statement's expressions; `before` collects their tests."""

    def __init__(self, owner: DictLookups) -> None:
        self.owner = owner
        self.before: list[cst.BaseStatement] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        found = self.owner.lookup(original)
        if found is None:
            return updated
        key = updated.slice[0].slice.value  # type: ignore[attr-defined]
        if not isinstance(key, cst.Name | cst.Integer | cst.Float):
            name = self.owner.fresh("key")
            self.before.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], key)]))
            key = cst.Name(name)
        keys = [k for k in found if not (isinstance(k, float) and math.isnan(k))]
        tests = " or ".join(f"{_text(key)} == {_literal(k)}" for k in keys) or "False"
        self.before.append(cst.parse_statement(f"if not ({tests}):\n    raise KeyError({_text(key)})\n"))
        values = [found[k] for k in keys]
        choice = _literal(values[-1])
        for k, v in zip(reversed(keys[:-1]), reversed(values[:-1])):
            choice = f"{_literal(v)} if {_text(key)} == {_literal(k)} else {choice}"
        return cst.parse_expression(f"({choice})")


def _literal(v: object) -> str:
    return repr(v) if not isinstance(v, float) or v >= 0 else f"({v!r})"


def _text(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)
