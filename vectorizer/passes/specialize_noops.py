"""Statements a specialization leaves that do nothing: `p = p` of a parameter (part of
passes/specialize.py). Before (`T` a parameter, np.isscalar(T) decided True on its lanes)::

    T = T if np.isscalar(T) else np.atleast_1d(T)
    if not np.isscalar(T):
        ...

After the first round, `T = T`; it goes (a parameter is always bound: rebinding it to itself
changes nothing), so in the next round `T` still holds the argument where it is checked again,
and that check is decided too.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from ..frontend.parse import ParsedFunction
from ..frontend.paths import PathTransformer


def without_self_assignments(parsed: ParsedFunction) -> ParsedFunction | None:
    """`parsed` without its `p = p` statements (p a parameter), or None when it has none."""
    p = parsed.func.params
    params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    drop = _Drop(params)
    new = drop.rewrite(parsed.func)
    if not drop.found:
        return None
    positions = dict(parsed.positions)
    lines = dict(parsed.lines) if parsed.lines is not None else None
    for node, original in drop.rebuilt.values():
        if original in positions:
            positions[node] = positions[original]
        if lines is not None and original in lines:
            lines[node] = lines[original]
    out = dataclasses.replace(parsed, func=new, lines=lines)
    out.__dict__["positions"] = positions
    return out


class _Drop(PathTransformer):
    def __init__(self, params: set[str]) -> None:
        super().__init__()
        self.params = params
        self.found = False

    def wants(self, node: cst.CSTNode) -> bool:
        return self._noop(node)

    def _noop(self, node: cst.CSTNode) -> bool:
        if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
            return False
        a = node.body[0]
        return len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name) and isinstance(a.value, cst.Name) \
            and a.targets[0].target.value == a.value.value and a.value.value in self.params

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        kept = [s for s in updated.body if not self._noop(s)]
        if len(kept) == len(updated.body):
            return updated
        self.found = True
        return updated.with_changes(body=kept or [cst.SimpleStatementLine([cst.Pass()])])
