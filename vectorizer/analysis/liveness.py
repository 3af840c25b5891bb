"""Live variables after each statement (standard backward dataflow over the structured body).

`if_to_select` asks one question of it: after this batched `if` (or masked loop), may the old
value of `v` still be read? Only then does an assignment in a branch need a merge
(`v = e if m else v`); otherwise the branch may overwrite `v` on every lane.
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bound_names
from ..core.tree import child_nodes, target_names


def reads(node: cst.CSTNode | None) -> set[str]:
    """Names read (loaded) anywhere inside an expression or statement: every Name except
    assignment targets that are names or tuples, attribute names, keyword names and `for` targets
    (a `for`'s else block is not looked at)."""
    found: set[str] = set()
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is cst.Name:
            found.add(n.value)
        elif kind is cst.AssignTarget:
            if not isinstance(n.target, cst.Name | cst.Tuple):
                stack.append(n.target)
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(n.value)
        elif kind is cst.For:
            stack += (n.iter, n.body)
        else:
            stack.extend(child_nodes(n))
    return found


def writes(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere inside a statement (or block): core/binding.py's rule."""
    return bound_names(node)


class Liveness:
    """`live_out[stmt]`: names whose current value may be read after `stmt`."""

    def __init__(self, func: cst.FunctionDef, masked_blocks: frozenset[cst.CSTNode] = frozenset()) -> None:
        """`masked_blocks`: `if` statements whose body runs unconditionally (array code)."""
        self.live_out: dict[cst.CSTNode, frozenset[str]] = {}
        self.live_in: dict[cst.CSTNode, frozenset[str]] = {}
        self.masked_blocks = masked_blocks
        self.masked_depth = 0  # inside a masked block, `raise` ends only the lanes of its mask
        self.block(func.body, frozenset())

    def block(self, block: cst.BaseSuite, out: frozenset[str]) -> frozenset[str]:
        stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
        live = out
        for stmt in reversed(stmts):
            live = self.stmt(stmt, live)
        return live

    def stmt(self, stmt: cst.CSTNode, out: frozenset[str]) -> frozenset[str]:
        live = self._stmt(stmt, out)
        self.live_in[stmt] = live
        return live

    def _stmt(self, stmt: cst.CSTNode, out: frozenset[str]) -> frozenset[str]:
        self.live_out[stmt] = out
        if isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            live = out
            for small in reversed(stmt.body):
                live = self.small(small, live)
            return live
        if isinstance(stmt, cst.If) and stmt in self.masked_blocks:
            self.masked_depth += 1
            try:
                return self.block(stmt.body, out) | reads(stmt.test)
            finally:
                self.masked_depth -= 1
        if isinstance(stmt, cst.If):
            then = self.block(stmt.body, out)
            if isinstance(stmt.orelse, cst.If):
                other = self.stmt(stmt.orelse, out)
            elif isinstance(stmt.orelse, cst.Else):
                other = self.block(stmt.orelse.body, out)
            else:
                other = out
            return then | other | reads(stmt.test)
        if isinstance(stmt, cst.While):
            live = out | reads(stmt.test)
            while True:
                new = out | reads(stmt.test) | self.block(stmt.body, live)
                if new == live:
                    return live
                live = new
        if isinstance(stmt, cst.For):
            target = frozenset(target_names(stmt.target))
            live = out
            while True:
                body_in = self.block(stmt.body, live | out)
                new = out | (body_in - target)
                if new == live:
                    return live | reads(stmt.iter)
                live = new
        raise AssertionError(f"unexpected statement {type(stmt).__name__}")

    def small(self, small: cst.CSTNode, out: frozenset[str]) -> frozenset[str]:
        self.live_out[small] = out
        if isinstance(small, cst.Assign):
            killed = {n for t in small.targets for n in target_names(t.target)}
            return (out - killed) | reads(small.value)
        if isinstance(small, cst.Return):
            return frozenset(reads(small.value))
        if isinstance(small, cst.Raise):
            # The path ends (the message is only built by the scalar re-run); in array code the
            # other lanes go on past it.
            return out if self.masked_depth else frozenset()
        if isinstance(small, cst.Assert):
            return out | reads(small.test)
        if isinstance(small, cst.AugAssign):
            return out | reads(small.value) | reads(small.target)
        return out
