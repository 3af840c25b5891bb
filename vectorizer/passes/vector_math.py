"""With `vector_math=True`: libm-class NumPy calls go through glibc's vector math (vecmath.py).

Before::

    t_4 = _vz_masked(~m, np.log, t_3) + (rate + 0.5 * vol * vol) * t
    norm_cdf_result = 0.5 * _vz_masked(~m, _vz_erfc, t_7)
    flag |= (y >= 0) & (np.abs(np.power(x, y, dtype=np.float64)) > 9007199254740992)

After::

    t_4 = _vz_masked(~m, _vz_vm.log, t_3) + (rate + 0.5 * vol * vol) * t
    norm_cdf_result = 0.5 * _vz_masked(~m, _vz_vm.erfc, t_7)
    flag |= (y >= 0) & (np.abs(np.power(x, y, dtype=np.float64)) > 9007199254740992)

A function is renamed wherever it is referenced (called, or handed to `_vz_masked`), except:

* in the statements that compute the flags: a check compares its estimate with a threshold, and
  whether a lane is re-run must not move with the last bits of a vector function;
* `np.power` by a literal 2, 0.5, 1, 0 or -1: NumPy computes those as x * x, sqrt... (exact,
  and ~10x cheaper than any pow).

The module imports `_vz_vm` (codegen/emit.py). Last in the list: it edits the finished array code.
"""

from __future__ import annotations

import ast

from ..vecmath import ALIASES, CHEAP_EXPONENTS, FUNCTIONS
from .base import Context


def _name(node: ast.AST) -> str | None:
    """The vecmath function `node` refers to (`np.exp`, `_vz_erfc`), if any."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np" \
            and node.attr in FUNCTIONS:
        return node.attr
    return ALIASES.get(node.id) if isinstance(node, ast.Name) else None


def _literal(node: ast.AST) -> object:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value if isinstance(node.operand.value, int | float) else None
    return node.value if isinstance(node, ast.Constant) else None


def _cheap_powers(tree: ast.AST) -> set[int]:
    """The ids of `np.power` / `_vz_power` references whose exponent is a cheap literal, called
    directly or through `_vz_masked(mask, fn, x, y)`."""
    cheap = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn, args = node.func, node.args
        if isinstance(fn, ast.Name) and fn.id == "_vz_masked" and len(args) > 1:
            fn, args = args[1], args[2:]
        exponent = _literal(args[1]) if len(args) == 2 else None
        if _name(fn) == "power" and type(exponent) in (int, float) and exponent in CHEAP_EXPONENTS:
            cheap.add(id(fn))
    return cheap


def _renames(tree: ast.AST, flag: str | None) -> list[tuple[int, int, int, str]]:
    """(line, start column, end column in UTF-8 bytes, new text) for each reference to rename."""
    found: list[tuple[int, int, int, str]] = []
    cheap = _cheap_powers(tree)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.AugAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AugAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == flag for t in targets):
                return
        name = _name(node)
        if name is not None and id(node) not in cheap:
            assert node.end_lineno == node.lineno and node.end_col_offset is not None
            found.append((node.lineno, node.col_offset, node.end_col_offset, f"_vz_vm.{name}"))
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def transform(text: str, ctx: Context) -> str:
    if not ctx.options.vector_math:
        return text
    lines = text.split("\n")
    for line, start, end, new in sorted(_renames(ast.parse(text), ctx.flag), reverse=True):
        data = lines[line - 1].encode()
        lines[line - 1] = (data[:start] + new.encode() + data[end:]).decode()
    return "\n".join(lines)
