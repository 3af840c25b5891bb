"""Lower a scalar function to a per-lane kernel for Numba: the user's own control flow, with every
check of `rules.py` turned into an early `return <zeros>, True` (the lane is flagged and re-run by
the scalar function, exactly as for the array code).

Before::

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

After::

    def _lane_collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                t = n // 2
            else:
                if abs(float(3) * float(n)) >= 9.2e+18:
                    return (0, True)
                ...
            n = t
            ...
        return (steps, False)

A zero-divisor check of `b - a` goes where a comparison on the path rules out `a == b` (`if b <=
a: return ...`; `analysis/divisor.py`): a lane with no check left returns its value alone.

Laziness is kept: an operand of `and`/`or`/`x if c else y` whose checks need statements becomes an
`if` block. Checks are the array checks translated to scalar code (`np.where` -> `x if c else y`,
`~` -> `not`, `np.sin` -> `math.sin`, ...), so both backends flag the same lanes. Calls to other
functions of the module go to their own lane functions (one per argument-type signature).

The parts: `lane.Lane` lowers one lane function's statements and holds its state, with the
collaborator `exprs.LaneExpressions` for expressions (`scalarize` turns array check text into
scalar text, `numpy_calls` lowers NumPy functions on numbers, `unroll` runs two iterations of a
loop under one narrowed range check); `LaneModule` collects the lane functions of the callees.
The pass returns `LaneKernels`, which `lane_vector_math` edits.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ...analysis.counters import counters, positive
from ...analysis.decisions import decided
from ...analysis.facts import Facts
from ...core.types import Val
from ..base import Context, func_body
from .lane import Lane


@dataclass(frozen=True)
class LaneKernels:
    """What the pass makes of one specialization: the lane functions' sources (the callees'
    first, the main one `_lane_<name>` last) and the module constants they read."""

    sources: list[str]
    constants: dict[str, object]
    infallible: bool  # the main lane never fails: no flag array
    never_fail: frozenset[str] = frozenset()  # callees' lane functions that return their value alone

    def text(self) -> str:
        return "\n\n".join(self.sources)


class LaneModule:
    """The lane functions of one specialization (the function and its callees) and constants."""

    def __init__(self) -> None:
        self.functions: dict[tuple, tuple[str, str]] = {}  # (callee, param types) -> (name, source)
        self.constants: dict[str, object] = {}
        self.infallible = False  # the main lane never fails: no flag array
        self.never_fail: set[str] = set()  # lane functions of callees that return their value alone

    def lane_function(self, ctx: Context, glob, node: cst.Call, facts: Facts) -> str:
        parsed = ctx.callees.parse(glob)  # type: ignore[union-attr]
        from ...analysis.calls import default_val

        args = [facts.val(a.value) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: facts.val(a.value) for a in node.args if a.keyword is not None}
        params = ctx.callees.bind(parsed, args, keywords, default_val)  # type: ignore[union-attr]
        parsed = ctx.callees.for_call(parsed, params)  # type: ignore[union-attr]  # its kind checks decided
        key = (glob.name, tuple((v.type, v.batched, v.one_d) for v in params.values()))  # type: ignore[union-attr]
        if key not in self.functions:
            name = ctx.namer.fresh(f"_lane_{glob.name}")
            self.functions[key] = (name, "")
            child = ctx.child(glob.name, {n: Val(v.type, False, numpy=v.one_d is not False,  # type: ignore[union-attr]
                                                 zero_d=v.one_d, one_d=v.one_d) for n, v in params.items()}, parsed=parsed)
            func = ctx.prepare_callee(child)  # type: ignore[misc]  # the lanes passes before this one
            self.functions[key] = (name, lower_lane(func, child, self, name))
        return self.functions[key][0]


def lower_lane(func: cst.FunctionDef, ctx: Context, module: LaneModule, name: str, main: bool = False) -> str:
    """One lane function. Lanes return (value, failed); one that can never fail returns the
    value alone: the main lane's driver loop is then simple enough for LLVM to vectorize, and a
    callee's caller has no exit to test after the call (a loop calling it stays one block)."""
    facts = ctx.analyze(func)
    lanes = Lane(ctx, facts, module)
    lanes.counters = counters(func)
    lanes.nonzero = positive(func, lanes.counters)
    if main and not ctx.options.exact:
        lanes.decided = decided(func, facts, lanes.exprs.call_name)
    lanes.block(func_body(func))
    lines = lanes.lines
    if not any(lanes.fail in line for line in lines):
        lines = [ln[: ln.index("return ")] + "return " + ln.strip()[len("return ("): -len(", False)")]
                 if ln.strip().startswith("return (") and ln.endswith(", False)") else ln for ln in lines]
        if main:
            module.infallible = True
        else:
            module.never_fail.add(name)
    params = ", ".join(ctx.params)
    return f"def {name}({params}):\n" + "\n".join(lines) + "\n"


def transform(func: cst.FunctionDef, ctx: Context) -> LaneKernels:
    module = LaneModule()
    main = lower_lane(func, ctx, module, f"_lane_{ctx.name}", main=True)
    sources = [src for _, src in module.functions.values()] + [main]
    return LaneKernels(sources, module.constants, module.infallible, frozenset(module.never_fail))
