"""The first line of every statement of a parsed function, without libcst's position metadata.

libcst's `PositionProvider` re-prints the whole tree to find each node's range: ~3-5 ms a
function, a tenth of a cold transform. Statement lines (the `# line N:` comments of the
generated code) need no such thing: Python's own parser gives each statement's line, and its
statements come in the same order as libcst's. Both trees are walked side by side; on any
difference in shape (a construct not mapped here) the answer is None and the caller resolves
full positions instead. Exact columns, for error messages, are resolved only when an error
needs them (`ParsedFunction.location`).
"""

from __future__ import annotations

import ast

import libcst as cst


class _Mismatch(Exception):
    pass


def statement_lines(module: cst.Module, text: str) -> dict[cst.CSTNode, int] | None:
    """Each statement node of `module` (parsed from `text`) -> its first line, or None."""
    lines: dict[cst.CSTNode, int] = {}
    try:
        _block(module.body, ast.parse(text).body, lines)
    except (_Mismatch, SyntaxError, RecursionError):
        return None
    return lines


def _block(statements, nodes: list[ast.stmt], lines: dict[cst.CSTNode, int]) -> None:
    i = 0
    for s in statements:
        simple = isinstance(s, cst.SimpleStatementLine | cst.SimpleStatementSuite)
        count = len(s.body) if simple else 1  # `a = 1; b = 2` is one libcst line, two ast statements
        if i + count > len(nodes):
            raise _Mismatch
        if simple:
            lines[s] = nodes[i].lineno
        else:
            _compound(s, nodes[i], lines)
        i += count
    if i != len(nodes):
        raise _Mismatch


def _compound(s: cst.CSTNode, node: ast.stmt, lines: dict[cst.CSTNode, int]) -> None:
    lines[s] = node.lineno
    if isinstance(s, cst.If) and isinstance(node, ast.If):
        _block(_body(s.body), node.body, lines)
        if isinstance(s.orelse, cst.If):  # elif: the If in ast's orelse
            if len(node.orelse) != 1:
                raise _Mismatch
            _compound(s.orelse, node.orelse[0], lines)
        else:
            _else(s.orelse, node.orelse, lines)
    elif isinstance(s, cst.While) and isinstance(node, ast.While) or \
            isinstance(s, cst.For) and isinstance(node, ast.For | ast.AsyncFor):
        _block(_body(s.body), node.body, lines)
        _else(s.orelse, node.orelse, lines)
    elif isinstance(s, cst.FunctionDef) and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or \
            isinstance(s, cst.ClassDef) and isinstance(node, ast.ClassDef) or \
            isinstance(s, cst.With) and isinstance(node, ast.With | ast.AsyncWith):
        _block(_body(s.body), node.body, lines)
    elif isinstance(s, cst.Try) and isinstance(node, ast.Try):
        _block(_body(s.body), node.body, lines)
        if len(s.handlers) != len(node.handlers):
            raise _Mismatch
        for handler, h in zip(s.handlers, node.handlers):
            _block(_body(handler.body), h.body, lines)
        _else(s.orelse, node.orelse, lines)
        _block(_body(s.finalbody.body) if s.finalbody else [], node.finalbody, lines)
    else:  # match, try/except*, or a shape this walk does not know
        raise _Mismatch


def _else(orelse: cst.Else | None, nodes: list[ast.stmt], lines: dict[cst.CSTNode, int]) -> None:
    _block(_body(orelse.body) if orelse is not None else [], nodes, lines)


def _body(suite: cst.BaseSuite) -> list:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    if isinstance(suite, cst.SimpleStatementSuite):  # `if x: y = 1`: one line of small statements
        return [suite]
    raise _Mismatch
