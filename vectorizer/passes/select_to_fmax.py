"""A select between a value and a constant on the value's own comparison with that constant
becomes one np.fmax / np.fmin pass, and the comparison goes where nothing else reads it.

`if x > 0.0: return x + s` / `return s` (softplus, ReLU) leaves a mask and a select: a
comparison pass, a count of the mask and a multiply (runtime/helpers._vz_where). np.fmax is one
pass, and where the constant is 0.0, adding 0.0 turns fmax's -0.0 (for x = -0.0, which NumPy's
SIMD and scalar loops return either way) into the 0.0 the select gives. Before::

    c = x > 0.0
    arg = -np.abs(x)
    shared = np.log1p(np.exp(arg))
    ret = _vz_where(c, x, 0.0) + shared

After::

    arg = -np.abs(x)
    shared = np.log1p(np.exp(arg))
    ret = (np.fmax(x, 0.0) + 0.0) + shared

The same bits on every lane: `x > k` picks x, otherwise (x <= k, or NaN) k, and fmax returns the
larger number beside a NaN; `x < k` is fmin. `>=` and `<=` only for k != 0.0 (at x == k both give
k's bits). Only for a float constant in the select: an int one makes an int select, and fmax's
result is a float. Only where the mask and x are each assigned once, x before the mask, and the
mask and the select in one block (nothing between them at a shallower indent): the mask then
always holds the comparison of the x the select reads. NumPy backend, on the array text of
ops_to_numpy.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter

from ..core.binding import bindings, bound_names
from .base import Context

_OPS = {">": "np.fmax", ">=": "np.fmax", "<": "np.fmin", "<=": "np.fmin"}
_MIRROR = {">": "<", "<": ">", ">=": "<=", "<=": ">="}
_NUMBER = r"-?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[+-]?\d+)?"
_MASK = re.compile(rf"^(\s*)(\w+) = \(?(?:(\w+) (>=|<=|>|<) ({_NUMBER})|({_NUMBER}) (>=|<=|>|<) (\w+))\)?$")
_SELECT = re.compile(rf"_vz_where\((\w+), (\w+), ({_NUMBER})\)")


def _stores(text: str) -> Counter[str] | None:
    """How many times each name is assigned (parameters count once), or None for text ast cannot read."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    counts = Counter(name for stmt in tree.body for name in bindings(stmt))  # each def's body, as its own
    counts.update(node.arg for node in ast.walk(tree) if isinstance(node, ast.arg))
    return counts


def _masks(lines: list[str]) -> dict[str, tuple[int, str, str, str]]:
    """mask name -> (its line, x, comparison as `x <op> k`, k)."""
    found = {}
    for i, ln in enumerate(lines):
        m = _MASK.match(ln)
        if m is None:
            continue
        _, name, x, op, k, k2, op2, x2 = m.groups()
        if x is None:
            x, op, k = x2, _MIRROR[op2], k2
        found[name] = (i, x, op, k)
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _one_block(lines: list[str], first: int, last: int) -> bool:
    """No line between `first` and `last` (blank and comment lines aside) is shallower than `first`."""
    depth = _indent(lines[first])
    return all(_indent(ln) >= depth for ln in lines[first:last + 1] if ln.strip() and not ln.lstrip().startswith("#"))


def _float_literal(text: str) -> bool:
    return any(ch in text for ch in ".eE")


def _assigns(line: str, name: str) -> bool:
    """Whether the line binds `name` (`name = ...`, `a, name = ...`, `name |= ...`, a `for`)."""
    text = line.strip()
    if not re.search(rf"\b{re.escape(name)}\b", text) or text.startswith("#"):
        return False
    try:
        tree = ast.parse(text + " pass" if text.endswith(":") else text)
    except SyntaxError:
        return True  # a line it cannot read alone: taken as binding it
    return any(name in bound_names(stmt) for stmt in tree.body)  # a `def` header: its body (`pass`) binds nothing


def _alias(lines: list[str], name: str, i: int) -> str | None:
    """What `name` holds at line i where its last assignment before it, in the same block, is a
    copy of another name (`ret = x`, as if_to_select writes a branch's `return x`)."""
    for j in range(i - 1, -1, -1):
        if _assigns(lines[j], name):
            m = re.match(rf"^\s*{re.escape(name)} = (\w+)$", lines[j])
            return m.group(1) if m is not None and _one_block(lines, j, i) else None
    return None


def _fmax(op: str, x: str, k: str) -> str | None:
    value = float(k)
    if math.isnan(value) or math.copysign(1.0, value) < 0 and value == 0.0:
        return None  # -0.0: adding it would not make fmax's zero the select's
    if value == 0.0:
        return None if op in (">=", "<=") else f"({_OPS[op]}({x}, {k}) + 0.0)"
    return f"{_OPS[op]}({x}, {k})"


def transform(text: str, ctx: Context) -> str:
    if "_vz_where(" not in text:
        return text
    stores = _stores(text)
    if stores is None:
        return text
    lines = text.split("\n")
    masks = _masks(lines)
    changed: set[str] = set()
    for i, ln in enumerate(lines):
        def replace(m: re.Match[str], i: int = i) -> str:
            fused = _fused(m, i, lines, masks, stores)
            if fused is not None:
                changed.add(m.group(1))
            return m.group(0) if fused is None else fused
        lines[i] = _SELECT.sub(replace, ln)
    dead = set()
    for mask in changed:  # a mask nothing reads any more goes
        at = masks[mask][0]
        if not any(re.search(rf"\b{re.escape(mask)}\b", ln) for j, ln in enumerate(lines) if j != at):
            dead.add(at)
    return "\n".join(ln for j, ln in enumerate(lines) if j not in dead)


def _fused(m: re.Match[str], i: int, lines: list[str], masks: dict[str, tuple[int, str, str, str]],
           stores: Counter[str]) -> str | None:
    """The fmax/fmin text for the select `m` on line i, or None to keep it."""
    mask, yes, no = m.groups()
    if mask not in masks or stores[mask] != 1:
        return None
    at, x, op, k = masks[mask]
    if yes != x and _alias(lines, yes, i) != x:
        return None
    if not _float_literal(no) or repr(float(no)) != repr(float(k)) or stores[x] > 1 or at >= i:
        return None  # an int `no` makes an int select, which fmax's float result is not
    x_at = next((j for j, line in enumerate(lines[1:], start=1) if _assigns(line, x)), -1)  # -1: a parameter
    if x_at > at or not _one_block(lines, at, i) or (x_at >= 0 and not _one_block(lines, x_at, i)):
        return None
    return _fmax(op, x, k)
