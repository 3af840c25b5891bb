"""A costly batched branch run on the lanes that take it alone (NumPy backend).

if_to_select makes a branch whose static cost (analysis/branch_cost.py) is high one masked block
holding everything it became (its merges and nested masks too), and lists it in
`ctx.branch_lanes`. Where every name it reads has a value on entry, it is lowered between a
gather of the per-lane values it reads and a scatter of those it binds that are read after it
(runtime.BranchLanes). Before (if_to_select's output)::

    m_9 = c & m_8
    if m_9:                                 # region 1: 300 operations of a rational approximation
        h_4 = x / s
        ...
        ret = r if m_9 else ret

After::

    m_9 = c & m_8
    lanes_1 = _vz_BranchLanes(m_9)
    flag, ret, m_9, s, x = lanes_1.gather(flag, ret, m_9, s, x)
    flag |= m_9 & (s == 0)
    h_4 = x / s
    ...
    ret = _vz_where(m_9, r, ret)
    flag, ret, h_4, m_9, s, x = lanes_1.scatter(flag, ret, h_4, fresh=1)

Each lane computes the same operations on the same values, so values and flags are the same bits;
a lane outside the mask keeps the value it entered with, as the merges keep it, and the flag
array gets the branch's flags at its lanes (the first flagged lane in C order is the same one).
Gathered first: the names the branch rebinds (the flag array first), then those it only reads
(scatter hands those back as they were); `fresh=`: how many it binds first. A branch whose
reads may be unbound on entry, or that holds per-example arrays, stays a masked block.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.liveness import reads, writes
from ...core import nodes as n
from ...core.binding import bindings
from ...core.pyast import assign
from ...core.types import ArrayType
from ..base import body_of

if TYPE_CHECKING:
    from .lowering import Lowering

HELPER = "_vz_BranchLanes"


class BranchLanes:
    """Lowers the branches of one `ops_to_numpy` lowering that run on their own lanes."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.regions: list[ast.Assign] = []  # the gathers and scatters emitted (the flag may go)

    def carried(self, s: cst.If) -> tuple[list[str], list[str], list[str]] | None:
        """(per-lane names it reads, names it binds that are read after it with a value on
        entry, names it binds first that are read after it), or None where it cannot run apart."""
        live = self.low.live
        assert live is not None
        env = self.low.facts.env_before.get(s, {})
        local = self.low.facts_locals()  # not a module's name, a builtin or `math`
        read = live.live_in.get(s, frozenset()) & reads(s) & local
        out = writes(s) & live.live_out.get(s, frozenset())
        ins, kept, fresh = [], [], []
        for name in sorted(read | out):
            b = env.get(name)
            if b is None and name in self.low.ctx.params:
                b_val = self.low.ctx.params[name]
            elif b is None or b.maybe_unbound:
                if name in read:
                    return None  # read before the branch binds it, on some lane: left as it is
                fresh.append(name)
                continue
            else:
                b_val = b.val
            if isinstance(b_val.type, ArrayType):
                return None  # per-example arrays and tables: their shapes are not one a lane
            if name in out:
                kept.append(name)
            elif b_val.batched:
                ins.append(name)
        return ins, kept, fresh

    def lower(self, s: cst.If, test: ast.expr) -> bool:
        """The branch `s` (a masked block listed in ctx.branch_lanes) on its own lanes; False
        where it cannot be (then it is lowered as any masked block)."""
        low = self.low
        if low.ctx.options.compact is False:
            return False
        carried = self.carried(s)
        if carried is None:
            return False
        ins, kept, fresh = carried
        lanes = low.ctx.namer.fresh("lanes")
        low.emit(assign(lanes, n.call(HELPER, test)))
        gather = assign([low.flag], n.call(f"{lanes}.gather"), tuple_target=True)
        low.emit(gather)
        start = len(low.lines)
        witnesses, low.witness_names = low.witness_names, {}  # a value lowered outside is full size
        low.lanes.append(n.name(f"{lanes}.lanes"))
        low.block(body_of(s.body), test)
        low.lanes.pop()
        low.witness_names = witnesses
        bound = {v for _, line in low.lines[start:] for v in bindings(line)}
        rebound = [low.flag, *(v for v in kept if v in bound)]
        unbound = [v for v in kept if v not in bound]  # read after, bound before: as it was
        read_only = sorted({*ins, *unbound})
        gathered = [*rebound, *read_only]
        gather.targets = assign(gathered, gather.value, tuple_target=True).targets
        gather.value = n.call(f"{lanes}.gather", *(n.name(v) for v in gathered))
        fresh = [v for v in fresh if v in bound]
        scatter = n.call(f"{lanes}.scatter", *(n.name(v) for v in [*rebound, *fresh]))
        if fresh:
            scatter.keywords = [ast.keyword(arg="fresh", value=n.const(len(fresh)))]
        low.emit(assign([*rebound, *fresh, *read_only], scatter, tuple_target=True))
        self.regions += [gather, low.lines[-1][1]]  # type: ignore[list-item]
        return True

    def unflagged(self) -> None:
        """Without checks the function has no flag array: the gathers and scatters carry none."""
        flag = self.low.flag
        for stmt in self.regions:
            target, call = stmt.targets[0], stmt.value
            assert isinstance(target, ast.Tuple) and isinstance(call, ast.Call)
            target.elts = [e for e in target.elts if not (isinstance(e, ast.Name) and e.id == flag)]
            call.args = [a for a in call.args if not (isinstance(a, ast.Name) and a.id == flag)]
