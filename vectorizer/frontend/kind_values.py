"""Calls of functions of the code whose value depends on their batched arguments' kinds alone,
decided when the code is generated (issue 51; the stand-ins: frontend/lane_stand_ins.py).

Before (`a` a float lane; `shape` returns `()` for anything that is not a Sequence)::

    s = shape(a)
    l = len(s)
    if l == 0:
        return a
    return math.prod(flatiter(a, shape=s))

After (passes/specialize.py holds `s` and `l`, and drops what the decided `if` makes dead)::

    l = 0
    return a

The callee is interpreted (frontend/pure_eval.py), never run, with a stand-in for each lane
argument: its value is decided only when no step of it read a lane's value and it is a constant
(a number, a str, None, a tuple of those). Any other call is left as it was, and nothing is
refused here: the call is then the analysis's, as before.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import libcst as cst

from .lane_stand_ins import KIND_TYPES, LaneStandIn, holds_stand_in
from .static_calls import UNDECIDED, evaluate_call

if TYPE_CHECKING:
    from .static_values import Values

_BUDGET_STEPS = 20_000  # a kind decision is a few tests: a callee still running is computing


def kind_decided_call(values: Values, node: cst.Call, env: dict[str, object], func: types.FunctionType) -> object:
    """The value of `func(...)` at `node` when it depends on its lane arguments' kinds alone,
    else UNDECIDED."""
    args: list[object] = []
    kwargs: dict[str, object] = {}
    lanes = 0
    for a in node.args:
        if a.star:
            return UNDECIDED
        v = values.value(a.value, env)
        if v is UNDECIDED:
            v = _stand_in(values, a.value, env)
            if v is UNDECIDED:
                return UNDECIDED
            lanes += 1
        if a.keyword is not None:
            kwargs[a.keyword.value] = v
        else:
            args.append(v)
    if not lanes:
        return UNDECIDED  # every argument decided: static_methods.code_call's
    result = evaluate_call(values, node, func, tuple(args), kwargs, budget=_BUDGET_STEPS)
    values.why.pop(node, None)  # not decided by kind: the call is the analysis's, not refused
    if result is UNDECIDED or holds_stand_in(result):
        values.raised.pop(node, None)
        return UNDECIDED
    return result


def _stand_in(values: Values, arg: cst.BaseExpression, env: dict[str, object]) -> object:
    """A stand-in for a parameter that still holds its lanes (no assignment to it may have run
    here: frontend/kind_points.py), of the kind the specialization gives it."""
    if not isinstance(arg, cst.Name) or arg.value in env or values.kinds.get(arg.value) not in KIND_TYPES:
        return UNDECIDED
    if arg.value in values.assigned_before(arg):
        return UNDECIDED
    return LaneStandIn(values.kinds[arg.value], arg.value)
