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
                c = n // 2
            else:
                if (n < -3074457345618258602) | (n > 3074457345618258602):
                    return (0, True)
                c = 3 * n + 1
            n = c
            steps = steps + 1
        return (steps, False)

A zero-divisor check of `b - a` goes where a comparison on the path rules out `a == b` (`if b <=
a: return ...`; `analysis/divisor.py`): a lane with no check left returns its value alone.

Laziness is kept: an operand of `and`/`or`/`x if c else y` whose checks need statements becomes an
`if` block. Checks are the array checks translated to scalar code (`np.where` -> `x if c else y`,
`~` -> `not`, `np.sin` -> `math.sin`, ...), so both backends flag the same lanes. Calls to other
functions of the module go to their own lane functions (one per argument-type signature).

Each lane function is an `ast.FunctionDef` (core/lanenodes.py: statements and expressions built
as nodes, comments as `Comment` statements), printed once, where a module is assembled.

The parts: `lane.Lane` lowers one lane function's statements and holds its state, with the
collaborator `exprs.LaneExpressions` for expressions (`scalarize` turns the array templates of
checks into scalar trees, `numpy_calls` lowers NumPy functions on numbers, `unroll` runs two
iterations of a loop under one narrowed range check); `LaneModule` collects the lane functions of
the callees. The pass returns `LaneKernels`, which `lane_vector_math` edits.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

import libcst as cst

from ...analysis.counters import counters, positive
from ...analysis.decisions import decided
from ...analysis.facts import Facts
from ...core import lanenodes
from ...core.types import Val
from ..base import Context, func_body
from .lane import Lane


@dataclass(frozen=True)
class LaneKernels:
    """What the pass makes of one specialization: the lane functions (the callees' first, the
    main one `_lane_<name>` last) and the module constants they read."""

    functions: list[ast.FunctionDef]
    constants: dict[str, object]
    infallible: bool  # the main lane never fails: no flag array
    never_fail: frozenset[str] = frozenset()  # callees' lane functions that return their value alone

    @property
    def sources(self) -> list[str]:
        """Each function's text, printed now (at emission: print once, keep the text)."""
        return [lanenodes.text(f) for f in self.functions]

    def text(self) -> str:
        return "\n\n".join(self.sources)

    def calls_libm(self) -> bool:
        """Whether the functions call the C library's math (`math.*`, vector math, C's pow or
        hypot): the cost class of the parallel threshold (codegen/numba_module.py)."""
        for node in (n for f in self.functions for n in ast.walk(f)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("math", "_vz_lm"):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_vz_pow", "_vz_hypot"):
                return True
        return False


class LaneModule:
    """The lane functions of one specialization (the function and its callees) and constants."""

    def __init__(self) -> None:
        self.functions: dict[tuple, tuple[str, ast.FunctionDef | None]] = {}  # (callee, param types) -> (name, function)
        self.constants: dict[str, object] = {}
        self.infallible = False  # the main lane never fails: no flag array
        self.never_fail: set[str] = set()  # lane functions of callees that return their value alone

    def lane_function(self, ctx: Context, glob, node: cst.Call, facts: Facts) -> str:
        parsed = ctx.callees.parse(glob)  # type: ignore[union-attr]
        from ...analysis.calls import default_val

        args = [facts.val(a.value) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: facts.val(a.value) for a in node.args if a.keyword is not None}
        params = ctx.callees.bind(parsed, args, keywords, default_val)  # type: ignore[union-attr]
        parsed = ctx.callees.for_call(parsed, params, node, lowering=True)  # type: ignore[union-attr]  # its kind checks decided
        key = (glob.name, tuple((v.type, v.batched, v.one_d) for v in params.values()), _depths(ctx, glob.name))  # type: ignore[union-attr]
        if key not in self.functions:
            name = ctx.namer.fresh(f"_lane_{glob.name}")
            self.functions[key] = (name, None)
            child = ctx.child(glob.name, {n: Val(v.type, False, numpy=v.one_d is not False,  # type: ignore[union-attr]
                                                 zero_d=v.one_d, one_d=v.one_d) for n, v in params.items()}, parsed=parsed)
            func = ctx.prepare_callee(child)  # type: ignore[misc]  # the lanes passes before this one
            self.functions[key] = (name, lower_lane(func, child, self, name))
        return self.functions[key][0]


def _depths(ctx: Context, callee: str) -> tuple[tuple[str, int], ...]:
    """How often each recursive function is on the callee's chain: a copy of a recursive function
    lowered deeper (passes/cut_recursion.py, UNROLL) cuts other calls, so it is a lane function
    of its own; () for the functions of a program without recursion, which share one each."""
    recursive = {key[0] for key in ctx.callees.assumed} if ctx.callees else set()  # analysis/recursion.py
    return tuple(sorted(Counter(n for n in (*ctx.chain, ctx.name, callee) if n in recursive).items()))


def lower_lane(func: cst.FunctionDef, ctx: Context, module: LaneModule, name: str, main: bool = False) -> ast.FunctionDef:
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
    lane = lanenodes.function(name, list(ctx.params), lanes.body)
    if not any(lanenodes.is_fail_return(s) for s in lanenodes.statements(lane.body)):
        lane = _ValueAlone().visit(lane)
        if main:
            module.infallible = True
        else:
            module.never_fail.add(name)
    return lane


class _ValueAlone(ast.NodeTransformer):
    """`return (value, False)` -> `return value`: a lane that never fails returns its value alone."""

    def visit_Return(self, node: ast.Return) -> ast.Return:
        value = node.value
        if isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[1], ast.Constant) \
                and value.elts[1].value is False:
            return ast.Return(value=value.elts[0])
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        return super().generic_visit(node) if isinstance(node, ast.stmt) else node  # no return in an expression


def transform(func: cst.FunctionDef, ctx: Context) -> LaneKernels:
    module = LaneModule()
    ctx.namer.reserve(f"_lane_{ctx.name}")  # a copy of a recursive function is not the main lane
    main = lower_lane(func, ctx, module, f"_lane_{ctx.name}", main=True)
    functions = [f for _, f in module.functions.values() if f is not None] + [main]
    return LaneKernels(functions, module.constants, module.infallible, frozenset(module.never_fail))
