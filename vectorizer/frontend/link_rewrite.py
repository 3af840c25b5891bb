"""One function's tree, linked: the rewriting the Linker (frontend/linking.py) runs on each tree.

Every global name and attribute chain (`units.SCALE`, `Math.remainder`) that is not a local is
looked up in the function's OWN module (a closure's cells first) and replaced by the name the
vectorized function's namespace gives that meaning (`Linker.name_for`), by `np.<name>` for a NumPy
function, or left alone; what other modules gave is recorded for the Watch (`Linker.reads`).
`relocated` gives the new nodes their originals' positions, so errors point at the real source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .namespace import ABSENT, Global, Namespace
from .parse import ParsedFunction
from .reach import CELL, attribute, namespace_like
from .static_objects import is_static, static_callable

if TYPE_CHECKING:
    from .linking import Linker


class LinkRewriter(cst.CSTTransformer):
    """Rewrites the global names and attribute chains of one function (see frontend/linking.py's
    docstring); `pairs` maps each new node to the node it replaces."""

    def __init__(self, linker: Linker, own: Namespace, locals_: set[str]) -> None:
        self.linker, self.own, self.locals, self.avoid = linker, own, locals_, locals_
        self.pairs: dict[cst.CSTNode, cst.CSTNode] = {}
        self.skip: set[int] = set()  # ids of names that are not references: attributes, keywords

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.skip.add(id(node.name))
        return True

    def visit_Parameters(self, node: cst.Parameters) -> bool:
        return False  # defaults must be literals (analysis/calls.py); names there are parameters

    def on_leave(self, original, updated):
        new = super().on_leave(original, updated)
        if isinstance(new, cst.CSTNode) and new is not original:
            self.pairs[new] = original
        return new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.skip:
            return updated
        return self._global(original.value, [original.value], original) or updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        chain = _chain(original)
        if chain is not None and chain[0] not in self.locals:
            found = self._global(".".join(chain), chain, original)
            if found is not None:
                return found
        return updated

    def _global(self, spelled: str, chain: list[str], node: cst.CSTNode) -> cst.BaseExpression | None:
        if chain[0] in self.locals or len(chain) > 3:  # `pkg.mod.f` at most: what the cache key covers (reach.py)
            return None
        obj = self.own.value_of(chain[0])  # a closure's cell, else the module's global
        if obj is ABSENT:
            if len(chain) == 1 and self.own is not self.linker.root:
                return self._builtin_or_unknown(chain[0])
            return None
        for attr in chain[1:]:
            if not namespace_like(obj):
                return None
            obj = attribute(obj, attr)
            if obj is ABSENT:
                return None
        self._record(chain)
        meaning = self.linker.meaning(obj, spelled)
        if isinstance(meaning, tuple):
            return cst.Attribute(cst.Name(self.linker.numpy_base(self.avoid)), cst.Name(meaning[1]))
        if meaning is None:
            if len(chain) == 1 and self.own is not self.linker.root:
                return self._foreign(chain[0])
            return None
        name = self.linker.name_for(meaning, self.own, spelled, self.avoid)
        return None if (len(chain) == 1 and name == chain[0]) else cst.Name(name)

    def _record(self, chain: list[str]) -> None:
        """What another module (or a module's or class's attribute, or a closure's cell) gave:
        Watch checks it still does."""
        container: object = self.own.globals
        for i, part in enumerate(chain):
            if not i and part in self.own.cells:
                container = self.own.cells[part]
                obj = self.own.value_of(part)
                self.linker.reads.append((container, CELL, obj))  # the root's cells too: not in `seen`
            else:
                obj = container.get(part, ABSENT) if isinstance(container, dict) else attribute(container, part)
                if i or self.own is not self.linker.root:  # the root's own names: Namespace.seen has them
                    self.linker.reads.append((container, part, obj))
            container = obj

    def _builtin_or_unknown(self, name: str) -> cst.BaseExpression | None:
        """A name another module does not bind: a builtin there (the same one here unless the
        root binds the name), or unbound: a link to nothing, which the fence refuses."""
        if name not in self.linker.root.globals:  # type: ignore[operator]
            return None  # the root does not bind it either: same builtin, or unknown in both
        return self._foreign(name)

    def _foreign(self, name: str) -> cst.BaseExpression | None:
        """A name of another module with no linked meaning: what its own module says, kept apart
        from the root's name when the root reads that name differently."""
        glob = self.own.resolve(name)
        root = self.linker.root_reads(name)
        obj = self.own.value_of(name)
        if glob.kind == root.kind == "unknown":
            if obj is ABSENT or (self.linker.root.globals or {}).get(name, ABSENT) is obj:
                return None  # the same object, or unbound in both: the same meaning
            # The root binds the name to another object (its own `MODE`, its own class): what
            # this module means is linked apart, as a value the specialization reads where it is
            # one (a str, None, an enum member, a class, a static object), else unknown.
            glob = Global("value", name, obj) if is_static(obj) or static_callable(obj) \
                else Global("unknown", f"{self.own.module}.{name}")
        elif glob == root:
            return None
        linked = self.linker.name_for(glob if glob.kind != "unknown" else Global("unknown", glob.name),
                                      self.own, f"{self.own.module.rsplit('.', 1)[-1]}.{name}", self.avoid)
        return cst.Name(linked)


def relocated(parsed: ParsedFunction, func: cst.FunctionDef, pairs: dict) -> ParsedFunction:
    """A ParsedFunction over the linked tree whose new nodes have their originals' positions."""
    positions = dict(parsed.positions)
    lines = dict(parsed.lines) if parsed.lines is not None else None
    for new, old in pairs.items():
        if old in positions:
            positions[new] = positions[old]
        if lines is not None and old in lines:
            lines[new] = lines[old]
    linked = ParsedFunction(parsed.source, func, parsed.module, lines)
    linked.__dict__["positions"] = positions  # the cached_property's slot: the originals' ranges
    return linked


def _chain(node: cst.BaseExpression) -> list[str] | None:
    """`a.b.c` as ['a', 'b', 'c'], None for anything but names joined by dots."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return [node.value, *reversed(parts)]
