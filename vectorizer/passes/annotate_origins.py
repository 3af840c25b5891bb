"""Attach the user's source line to every statement, as a leading comment that passes carry along.

Before::

    while zr * zr + zi * zi <= 4.0 and n < max_iter:  # escape test
        n += 1

After::

    # line 7: while zr * zr + zi * zi <= 4.0 and n < max_iter:
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        # line 8: n += 1
        n += 1

User comments are dropped: after lowering they would sit next to code they no longer describe. A
callee defined in another file says which: `# line 10 (units.py): return d * math.pi / 180.0`.
"""

from __future__ import annotations

import os

import libcst as cst

from ..core.text import ORIGIN_PREFIX
from ..frontend.parse import ParsedFunction
from .base import Context, StatementTransformer


class _Annotate(StatementTransformer):
    def __init__(self, parsed: ParsedFunction, where: str = "") -> None:
        self.parsed = parsed
        self.lines = parsed.source.text.splitlines()
        self.where = where  # " (other.py)" for a callee of another file (frontend/linking.py)

    def _origin(self, original: cst.CSTNode) -> list[cst.EmptyLine]:
        at = self.parsed.line_of(original)
        if at is None:
            return []
        text = self.lines[at - 1].strip() if at <= len(self.lines) else ""
        text = text.split("  #")[0].rstrip() if "#" in text else text
        line = self.parsed.source.first_line + at - 1
        return [cst.EmptyLine(comment=cst.Comment(f"{ORIGIN_PREFIX}{line}{self.where}: {text}"))]

    def _leave(self, original, updated):
        return updated.with_changes(leading_lines=self._origin(original))

    def leave_SimpleStatementLine(self, original, updated):
        return self._leave(original, updated).with_changes(trailing_whitespace=cst.TrailingWhitespace())

    leave_If = _leave
    leave_While = _leave
    leave_For = _leave

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(header=cst.TrailingWhitespace(), footer=())

    def leave_Else(self, original, updated):
        return updated.with_changes(leading_lines=())


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    # `func` must be the parsed node itself (`ctx.parsed.func`): lines are keyed by the original nodes.
    assert ctx.parsed is not None and func is ctx.parsed.func
    root_file = getattr(ctx.namespace.linker, "root_file", None)
    filename = ctx.parsed.source.filename
    where = f" ({os.path.basename(filename)})" if root_file is not None and filename != root_file else ""
    return func.visit(_Annotate(ctx.parsed, where))
