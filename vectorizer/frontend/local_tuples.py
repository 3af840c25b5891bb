"""Local tuples and lists of values (part of frontend/desugar.py, after its tables of literals):
each item gets a variable where the tuple is built, and reads pick the variable. Before::

    t = (a, b * 2.0, c)
    return t[0] + t[i] + len(t) + (x in t)

After (`_tbl_f_t` = (0, 1, 2), a namespace constant: indexing it raises `IndexError` exactly
where `t[i]` does, and maps a negative index to its item)::

    t_1 = a
    t_2 = b * 2.0
    t_3 = c
    return t_1 + (t_2 if _tbl_f_t[i] == 1 else t_3 if _tbl_f_t[i] == 2 else t_1) + 3 + \\
        (x == t_1 or x == t_2 or x == t_3)

The items are evaluated where Python builds the tuple, in the same order, so their exceptions
and values are Python's. A tuple qualifies when it is bound once, by a statement of the
function's top level, to a display without `*`, and every later read is `t[...]`, `x in t` (x a
name, a literal or cheap arithmetic: frontend/memberships.py), `len(t)`, `a, b, c = t` (the items:
with another count, the `ValueError` Python raises there) or `return t` (`return t_1, t_2, t_3`,
which a caller unpacks).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from .memberships import cheap
from .namespace import Namespace
from .paths import PathTransformer


class LocalTuples(PathTransformer):
    def __init__(self, tuples: dict[str, tuple[list[str], str, cst.SimpleStatementLine]]) -> None:
        super().__init__()
        self.tuples = tuples  # name -> (item variables, positions table, binding statement)
        self.bindings = {id(stmt): (name, items) for name, (items, _, stmt) in tuples.items()}

    def wants(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.tuples
        return id(node) in self.bindings

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return self.split_displays(original, updated, lambda o, stmt: None if id(o) not in self.bindings else
                                   (self.bindings[id(o)][1], o.body[0].value))  # type: ignore[attr-defined]

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not (isinstance(original.value, cst.Name) and original.value.value in self.tuples):
            return updated
        items, positions, _ = self.tuples[original.value.value]
        index = updated.slice[0].slice.value  # type: ignore[attr-defined]
        k = _int(index)
        if k is not None and -len(items) <= k < len(items):
            return cst.Name(items[k])
        at = cst.Subscript(cst.Name(positions), [cst.SubscriptElement(cst.Index(index))])
        expr: cst.BaseExpression = cst.Name(items[0])
        for j in range(len(items) - 1, 0, -1):
            test = cst.Comparison(at, [cst.ComparisonTarget(cst.Equal(), cst.Integer(str(j)))])
            expr = cst.IfExp(test, cst.Name(items[j]), expr)
        if len(items) == 1:  # still index, for the IndexError
            expr = cst.IfExp(cst.Comparison(at, [cst.ComparisonTarget(cst.Equal(), cst.Integer("0"))]),
                             expr, cst.Name(items[0]))
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        value = original.value
        if not (isinstance(value, cst.Name) and value.value in self.tuples):
            return updated
        return updated.with_changes(value=cst.Tuple([cst.Element(cst.Name(v)) for v in self.tuples[value.value][0]]))

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        value = original.value
        if not (isinstance(value, cst.Name) and value.value in self.tuples):
            return updated
        items, wanted = self.tuples[value.value][0], len(original.targets[0].target.elements)  # type: ignore[attr-defined]
        if wanted != len(items):  # Python raises here (the names bound first are never read: the types stay known)
            targets = [e.value for e in original.targets[0].target.elements]  # type: ignore[attr-defined]
            binds = [cst.Assign([cst.AssignTarget(t)], cst.Name(items[min(j, len(items) - 1)])) for j, t in enumerate(targets)]
            raised = cst.Raise(cst.parse_expression(f"ValueError({_unpack_message(wanted, len(items))!r})"))
            return cst.FlattenSentinel([*binds, raised])
        return updated.with_changes(value=cst.Tuple([cst.Element(cst.Name(v)) for v in items]))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if isinstance(original.func, cst.Name) and original.func.value == "len" and len(original.args) == 1:
            arg = original.args[0].value
            if isinstance(arg, cst.Name) and arg.value in self.tuples:
                return cst.Integer(str(len(self.tuples[arg.value][0])))
        return updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        if len(original.comparisons) != 1:
            return updated
        target = original.comparisons[0]
        if not (isinstance(target.operator, cst.In | cst.NotIn) and isinstance(target.comparator, cst.Name)
                and target.comparator.value in self.tuples):
            return updated
        negated = isinstance(target.operator, cst.NotIn)
        op = cst.NotEqual() if negated else cst.Equal()
        tests = [cst.Comparison(updated.left, [cst.ComparisonTarget(op, cst.Name(v))])
                 for v in self.tuples[target.comparator.value][0]]
        expr: cst.BaseExpression = tests[0]
        for t in tests[1:]:
            expr = cst.BooleanOperation(expr, cst.And() if negated else cst.Or(), t)
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _unpack_message(wanted: int, got: int) -> str:
    """Python's own message for unpacking `got` items into `wanted` names (it differs by version)."""
    try:
        exec(f"{', '.join(f'_{k}' for k in range(wanted))}, = t", {"t": tuple(range(got))})  # noqa: S102
    except ValueError as exc:
        return str(exc)
    raise AssertionError("unpacked")  # pragma: no cover - wanted != got


def _int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _int(node.expression)
        return None if inner is None else -inner
    return int(node.value.replace("_", ""), 0) if isinstance(node, cst.Integer) else None


def find(func: cst.FunctionDef, ns: Namespace, fname: str, binds: dict[str, int], params: set[str],
         taken: set[str], fresh: Callable[[str], str]) -> dict[str, tuple[list[str], str, cst.SimpleStatementLine]]:
    """The local tuples of values this module rewrites (`binds`: how often each name is bound)."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else []
    found: dict[str, tuple[list[str], str, cst.SimpleStatementLine]] = {}
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Tuple | cst.List) and small.value.elements
                and not any(isinstance(e, cst.StarredElement) for e in small.value.elements)):
            continue
        name, n = small.targets[0].target.value, len(small.value.elements)
        if binds.get(name) != 1 or name in params or not all(_only_read(s, name, n if isinstance(small.value, cst.Tuple) else 0) for s in body[i + 1:]) \
                or any(_mentions(s, name) for s in body[:i]) or _mentions(small.value, name):
            continue
        positions = ns.define_table(f"_tbl_{fname}_{name}", tuple(range(n)), taken)
        taken.add(positions)
        found[name] = ([fresh(name) for _ in range(n)], positions, stmt)
    return found


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _only_read(stmt: cst.CSTNode, name: str, n: int) -> bool:
    """Every mention of `name` in `stmt` is `name[i]` (one plain index), `x in name`, `len(name)`,
    `a, b = name` (names, no `*`) or `return name` (`n`: its items, 0 for a list: Python returns the list)."""
    allowed: set[int] = set()
    for node in _walk(stmt):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Tuple | cst.List) \
                and all(isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement)
                        for e in node.targets[0].target.elements):
            allowed.add(id(node.value))
        elif isinstance(node, cst.Return) and n >= 2:
            allowed.add(id(node.value))
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            allowed.add(id(node.value))
        elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1 \
                and isinstance(node.comparisons[0].operator, cst.In | cst.NotIn) \
                and cheap(node.left):
            allowed.add(id(node.comparisons[0].comparator))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" \
                and len(node.args) == 1:
            allowed.add(id(node.args[0].value))
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in allowed:
            return False
    return True
