"""The lowered function's text, tidied: each statement re-printed with the parentheses Python
needs, and assignments nothing reads dropped."""

from __future__ import annotations

import ast
import re

_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*) = ")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def drop_dead_assignments(lines: list[str]) -> list[str]:
    """Drop `name = expr` lines whose name nothing reads (a branch mask whose checks all went
    away, say). The lowered expressions are NumPy operations without effects, so dropping them
    changes nothing else; comments do not count as reads."""
    while True:
        reads: dict[str, int] = {}
        for ln in lines:
            if not ln.lstrip().startswith("#"):
                for word in _WORD.findall(ln):
                    reads[word] = reads.get(word, 0) + 1
        dead = {i for i, ln in enumerate(lines) if (m := _ASSIGN.match(ln)) and reads.get(m.group(1)) == 1}
        if not dead:
            return _fill_empty_blocks(lines)
        lines = [ln for i, ln in enumerate(lines) if i not in dead]


def _fill_empty_blocks(lines: list[str]) -> list[str]:
    """A block header whose body went away gets `pass`."""
    out: list[str] = []
    for i, ln in enumerate(lines):
        out.append(ln)
        if ln.rstrip().endswith(":") and not ln.lstrip().startswith("#"):
            indent = len(ln) - len(ln.lstrip())
            body = next((nxt for nxt in lines[i + 1:] if not nxt.lstrip().startswith("#")), "")
            if len(body) - len(body.lstrip()) <= indent or not body.strip():
                out.append(" " * (indent + 4) + "pass")
    return out


def minimal_parens(lines: list[str]) -> list[str]:
    """Re-print each statement with only the parentheses Python needs (comments pass through).
    The lines are parsed together, one statement each (a parse a line costs several times more)."""
    todo = [i for i, line in enumerate(lines) if not _kept(line.strip())]
    header = {i: lines[i].rstrip().endswith(":") for i in todo}  # `if m:`, `while ...:`: a body to parse
    texts = [lines[i].strip() + (" pass" if header[i] else "") for i in todo]
    body = ast.parse("\n".join(texts)).body
    if len(body) != len(texts):  # a line of several statements: they go one a line
        body = [ast.Module(ast.parse(text).body, []) for text in texts]
    out = list(lines)
    for i, node in zip(todo, body):
        text = ast.unparse(node if isinstance(node, ast.Module) else ast.Module([node], []))
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        out[i] = indent + (text.splitlines()[0] if header[i] else text)
    return out


def _kept(text: str) -> bool:
    return text.startswith("#") or text == "else:"
