"""A conditional expression choosing between tuple displays, assigned to names or returned, is the
`if` statement it stands for (part of frontend/desugar.py; issue 51: primefac's `mlucas`, the
Lucas-chain step `v1, v2 = (a, b) if bit == "0" else (c, d)`). Before::

    for k in range(m): v1, v2 = ((v1 * v1) % n, (v1 * v2) % n) if k == 0 else ((v1 * v2) % n, v2)
    return (x, y) if x < y else (y, x)

After::

    for k in range(m):
        if k == 0:
            v1, v2 = (v1 * v1) % n, (v1 * v2) % n
        else:
            v1, v2 = (v1 * v2) % n, v2
    if x < y:
        return x, y
    return y, x                           # (as `else: return y, x`)

Python evaluates the test, then the chosen tuple's items left to right, then unpacks (or
returns): the `if` statement does exactly that. Rewritten where the value is the whole right side
of an assignment to one target (a name, or a tuple of names as long as every display), or of a
`return`, and both sides are tuple displays without `*` (an `else` side may itself be such a
choice: an `elif`). A line holding several statements is split into one statement a line first
(the same statements in the same order).
"""

from __future__ import annotations

import libcst as cst

from .paths import PathTransformer


def _choice(value: cst.BaseExpression | None, width: int | None) -> bool:
    """Whether `value` is `(..) if c else (..)` of tuple displays of `width` items (any width: None)."""
    if not isinstance(value, cst.IfExp):
        return False
    body = value.body
    if not isinstance(body, cst.Tuple) or any(isinstance(e, cst.StarredElement) for e in body.elements):
        return False
    if width is not None and len(body.elements) != width:
        return False
    other = value.orelse
    if isinstance(other, cst.IfExp):
        return _choice(other, len(body.elements))
    return isinstance(other, cst.Tuple) and len(other.elements) == len(body.elements) \
        and not any(isinstance(e, cst.StarredElement) for e in other.elements)


def qualifies(small: cst.BaseSmallStatement) -> bool:
    if isinstance(small, cst.Return):
        return _choice(small.value, None)
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return False
    target = small.targets[0].target
    if isinstance(target, cst.Name):
        return _choice(small.value, None)
    if isinstance(target, cst.Tuple | cst.List) and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                                                      for e in target.elements):
        return _choice(small.value, len(target.elements))
    return False


class TupleChoices(PathTransformer):
    """The rewrite of the module docstring."""

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.BaseSmallStatement) and qualifies(node)

    def _statement(self, small: cst.BaseSmallStatement, line: cst.CSTNode) -> cst.BaseStatement:
        """The `if` for `small` (qualifies), each new node mapped to `small` or `line`."""
        def branch(value: cst.BaseExpression) -> cst.IndentedBlock:
            bare = value.with_changes(lpar=[], rpar=[]) if isinstance(value, cst.Tuple) else value
            new = small.with_changes(value=bare, semicolon=cst.MaybeSentinel.DEFAULT)
            stmt = cst.SimpleStatementLine([new])
            self.rebuilt[id(new)] = (new, small)
            self.rebuilt[id(stmt)] = (stmt, line)
            return cst.IndentedBlock([stmt])

        def chain(choice: cst.IfExp) -> cst.If:
            other = choice.orelse
            orelse = chain(other) if isinstance(other, cst.IfExp) else cst.Else(branch(other))
            node = cst.If(test=choice.test, body=branch(choice.body), orelse=orelse)
            self.rebuilt[id(node)] = (node, line)
            return node

        return chain(small.value)  # type: ignore[arg-type]

    def _lines(self, original: cst.BaseStatement, updated: cst.BaseStatement) -> list[cst.BaseStatement]:
        if not (isinstance(updated, cst.SimpleStatementLine) and any(qualifies(s) for s in updated.body)):
            return [updated]
        out: list[cst.BaseStatement] = []
        for small in updated.body:
            if qualifies(small):
                out.append(self._statement(small, original))
            else:
                line = cst.SimpleStatementLine([small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                self.rebuilt[id(line)] = (line, original)
                out.append(line)
        return out

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = [s for o, u in zip(original.body, updated.body) for s in self._lines(o, u)]
        return updated.with_changes(body=body)

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite,
                                   updated: cst.SimpleStatementSuite) -> cst.BaseSuite:
        if not any(qualifies(s) for s in updated.body):
            return updated
        line = cst.SimpleStatementLine(list(updated.body))
        self.rebuilt[id(line)] = (line, original)
        return cst.IndentedBlock(self._lines(original, line))  # type: ignore[arg-type]
