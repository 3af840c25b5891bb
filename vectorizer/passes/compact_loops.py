"""Compact masked loops: once few lanes remain active, the loop continues on those lanes alone,
and the last few of a long tail are left to the scalar function.

Masking alone makes a while loop cost (longest trip count) x (all lanes); a long tail of a few
slow lanes then dominates. Before::

    while np.any(active):
        zr_1 = zr * zr - zi * zi + cr
        ...
        active = active & (zr * zr + zi * zi <= 4.0) & ~flag

After::

    lanes = _vz_Compaction()
    while np.any(active):
        if lanes.worth(active):
            active, flag, cr, n, zi, zr = lanes.compact(active, flag, cr, n, zi, zr)
        zr_1 = zr * zr - zi * zi + cr
        ...
        active = active & (zr * zr + zi * zi <= 4.0) & ~flag
    flag, cr, n, zi, zr = lanes.expand(flag, cr, n, zi, zr)

The carried names are the flag array, then the loop's batched values that it reads from its
entry or writes for after it (recorded by ops_to_numpy), less any whose every assignment was
dropped as dead; `_vz_Compaction` (runtime.py) gathers them when at most half the lanes are
active and scatters them back after the loop. Temporaries computed inside the body need no
carrying. When only a few lanes have run on for long, `compact` flags them and clears the mask:
the runtime re-runs them with the scalar function, and every enclosing loop drops them (`&
~flag`), so ops_to_numpy gives every function with a masked loop a flag array.

This pass edits ops_to_numpy's text, one statement a line: a loop ends at the first line that is
not indented deeper than its `while`.
"""

from __future__ import annotations

from ..core.text import names_in
from .base import Context

_INDENT = "    "  # ops_to_numpy's text: one statement a line, four spaces a level


class _Loop:
    def __init__(self, start: int, end: int, indent: str, mask: str) -> None:
        self.start, self.end, self.indent, self.mask = start, end, indent, mask  # end: first line after it


def _loops(lines: list[str], ctx: Context) -> list[_Loop]:
    """The masked loops, innermost and first-ending first (the order names are handed out in)."""
    found = []
    for i, line in enumerate(lines):
        text = line.lstrip(" ")
        mask = _loop_mask(text)
        if mask is None or mask not in ctx.loop_vars:
            continue
        indent = line[: len(line) - len(text)]
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or _deeper(lines[end], indent)):
            end += 1
        while not lines[end - 1].strip():  # trailing blank lines belong to what follows
            end -= 1
        found.append(_Loop(i, end, indent, mask))
    return sorted(found, key=lambda loop: (loop.end, -len(loop.indent)))


def _deeper(line: str, indent: str) -> bool:
    return line.startswith(indent + " ")


def _loop_mask(text: str) -> str | None:
    """`while np.any(active):` -> "active"."""
    if text.startswith("while np.any(") and text.endswith("):"):
        mask = text[len("while np.any("):-2]
        return mask if mask.isidentifier() else None
    return None


def transform(text: str, ctx: Context) -> str:
    if not ctx.options.compact or not ctx.loop_vars:
        return text
    lines = text.split("\n")
    present = names_in(lines)  # a name whose every assignment was dropped as dead is not carried
    inserts: list[tuple[int, int, list[str]]] = []  # (before line, order among inserts there, lines)
    for order, loop in enumerate(_loops(lines, ctx)):
        carried = sorted(n for n in ctx.loop_vars[loop.mask] if n != ctx.flag and n in present)
        if not ctx.flag:
            continue  # ops_to_numpy gives every function with a masked loop a flag, when compacting
        carried = [ctx.flag, *carried]  # first: the lanes of a long tail are flagged there
        lanes = ctx.namer.fresh("lanes")
        names = ", ".join(carried)
        inner = loop.indent + _INDENT
        inserts.append((loop.start, order, [f"{loop.indent}{lanes} = _vz_Compaction()"]))
        # An enclosing loop's guard goes first in its body, before what its first statement brings.
        inserts.append((loop.start + 1, -1 - order, [
            f"{inner}if {lanes}.worth({loop.mask}):",
            f"{inner}{_INDENT}{loop.mask}, {names} = {lanes}.compact({loop.mask}, {names})"]))
        inserts.append((loop.end, order, [f"{loop.indent}{names}{',' if len(carried) == 1 else ''} = {lanes}.expand({names})"]))
    for at, _, new in sorted(inserts, key=lambda ins: (ins[0], ins[1]), reverse=True):
        lines[at:at] = new
    return "\n".join(lines)
