"""What the CLI reads from a source file or an output before it needs the compiler: the functions
a source selects, and whether an output still carries the checksum vectorizer wrote.

Standard library only, so that an up-to-date `vectorizer generate` (every source's incremental
record fresh) decides everything without importing libcst, NumPy or the compiler.
"""

from __future__ import annotations

import ast
import hashlib

from .cliio import parse_python

CHECKSUM_PREFIX = "# vectorizer-checksum: sha256:"


def selected_functions(text: str, names: tuple[str, ...] = ()) -> list[str]:
    """Top-level functions decorated with `vectorize` (bare, called, or as an attribute), plus `names`.
    A file CPython cannot parse raises SyntaxError (cliio.parse_python)."""
    tree = parse_python(text, "<source>")
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and (node.name in names or any(_is_vectorize(d) for d in node.decorator_list)):
            out.append(node.name)
    return out


def _is_vectorize(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "vectorize") or (
        isinstance(target, ast.Attribute) and target.attr == "vectorize")


def checksum_ok(text: str) -> bool:
    """False when a generated module was edited by hand since it was written."""
    lines = text.split("\n", 2)
    if len(lines) < 3 or not lines[1].startswith(CHECKSUM_PREFIX):
        return False
    return hashlib.sha256(lines[2].encode()).hexdigest() == lines[1][len(CHECKSUM_PREFIX):]
