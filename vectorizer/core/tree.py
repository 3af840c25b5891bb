"""Fast read-only traversal of libcst trees, for analyses that only look.

libcst's `node.children` and its visitors rebuild each node's child list through the visitor
machinery, ~10 µs a node; a cold transform walks its trees dozens of times, and that was most of
its time. Here a node's children are read straight from its dataclass fields, with each field
type's role decided once: ~1 µs a node. Whitespace, comments and parentheses are skipped (no
analysis looks at them); children come in field order, not source order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst

_SKIPPED = (cst.BaseParenthesizableWhitespace, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment,
            cst.LeftParen, cst.RightParen)
_NODE, _SEQUENCE, _OTHER = 1, 2, 3
_ROLE: dict[type, int] = {}
_FIELDS: dict[type, tuple[str, ...]] = {}
# Fields that only ever hold whitespace, comments or parentheses: never read.
_LAYOUT_FIELDS = frozenset({"lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer",
                            "newline", "trailing_whitespace"})


def _role(kind: type) -> int:
    role = _ROLE.get(kind)
    if role is None:
        role = _ROLE[kind] = (_NODE if issubclass(kind, cst.CSTNode) and not issubclass(kind, _SKIPPED)
                              else _SEQUENCE if kind in (list, tuple) else _OTHER)
    return role


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)  # type: ignore[arg-type]
                                  if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace"))
    return names


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes directly under `node` (no whitespace, comments or parentheses)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _fields(type(node))
    roles = _ROLE
    out: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        role = roles.get(type(value)) or _role(type(value))
        if role == _NODE:
            out.append(value)
        elif role == _SEQUENCE:
            for v in value:
                if (roles.get(type(v)) or _role(type(v))) == _NODE:
                    out.append(v)
    return out


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node under it (iteratively: no recursion limit, no generator chain)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child_nodes(n))


def is_raise(stmt: cst.CSTNode) -> bool:
    """A statement line that ends in `raise`."""
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[-1], cst.Raise)


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds (`a`, `a, (b, c)`); none for `x[i]` or `x.y`."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [n for el in target.elements for n in target_names(el.value)]
    return []
