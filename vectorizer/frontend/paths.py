"""Rewrite a libcst tree along the paths to the nodes that change, and remember what each rebuilt
node replaced: every other node keeps its identity, so positions (error messages) and statement
lines (origin comments) keyed by the parsed nodes stay valid, and a rebuilt node can take its
original's (frontend/desugar.py)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst


class Marks(cst.CSTVisitor):
    """The ids of every node on the path to a node `wants` accepts (itself included)."""

    def __init__(self, wants: Callable[[cst.CSTNode], bool]) -> None:
        self.wants, self.stack, self.on_path = wants, [], set()
        self.stack: list[cst.CSTNode]
        self.on_path: set[int]

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if self.wants(node):
            self.on_path.update(id(n) for n in self.stack)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class PathTransformer(cst.CSTTransformer):
    """Visits only the paths `Marks` found (`rewrite`); `rebuilt`: id(new) -> (new, original)."""

    def __init__(self) -> None:
        self.on_path: set[int] = set()
        self.rebuilt: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}

    def wants(self, node: cst.CSTNode) -> bool:
        raise NotImplementedError

    def rewrite(self, tree: cst.CSTNode) -> cst.CSTNode:
        marks = Marks(self.wants)
        tree.visit(marks)
        self.on_path = marks.on_path
        return tree.visit(self)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.on_path  # elsewhere the node is kept as it is (its identity too)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        out = super().on_leave(original_node, updated_node)
        if out is not original_node and isinstance(out, cst.CSTNode):
            self.rebuilt[id(out)] = (out, original_node)
        return out

    def split_displays(self, original: cst.IndentedBlock, updated: cst.IndentedBlock,
                       parts: Callable[[cst.BaseStatement, cst.BaseStatement], tuple[list[str], cst.BaseExpression] | None]
                       ) -> cst.IndentedBlock:
        """`updated` with each statement `parts(original, updated)` names (its item variables and the
        tuple or list display it binds) replaced by one assignment a variable (local_tuples, local_lists)."""
        body: list[cst.BaseStatement] = []
        for o, stmt in zip(original.body, updated.body):
            found = parts(o, stmt)
            if found is None:
                body.append(stmt)
                continue
            items, display = found
            for var, el in zip(items, display.elements):  # type: ignore[attr-defined]
                new = o.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(var))], el.value)])
                self.rebuilt[id(new)] = (new, o)
                body.append(new)
        return updated.with_changes(body=body)


class FreshNames:
    """`base_1`, `base_2`...: names no name of the function has (`taken`, which each new name joins);
    one counter for every base, so the names a rewrite makes differ in their suffix too."""

    def __init__(self, taken: set[str]) -> None:
        self.taken, self.count = taken, 0

    def __call__(self, base: str) -> str:
        while True:
            self.count += 1
            name = f"{base}_{self.count}"
            if name not in self.taken:
                self.taken.add(name)
                return name
