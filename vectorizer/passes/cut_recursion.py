"""Cut recursive calls: a statement that calls a function already `ctx.unroll` times (2) on the
call chain (the function itself and the callers it is being inlined or lowered into) becomes a
raise, so the lanes that reach it are flagged and re-run by the scalar function
(analysis/recursion.py says why this is exact). Below that depth a recursive call is an ordinary
call of a copy of the function (its own lane function; or inlined, where the NumPy backend runs
a costly copy on the lanes reaching it alone, ops_to_numpy/branch_lanes.py, and unrolls only the
function vectorized and callees that call themselves at one place, `unroll_callees` False: the
copy of a callee with several such calls would be inlined at each of them, and with it the code
would grow as their number to the power `unroll`): the lanes whose recursion
ends within that many levels (`f(x)` for x > 0 returning `g(x) + f(-x, s)`, a base case for
x <= 0) are computed batched, only the deeper ones re-run. Where a copy cannot be lowered (a
call inside `and` the cut would have split off), pipeline.py lowers the function again with
`unroll` 1: every recursive call cut, as before.

Before (the innermost copy: gcd already `unroll` times on the chain)::

    def gcd(a, b):
        if b == 0:
            return a
        return gcd(b, a % b)

After::

    def gcd(a, b):
        if b == 0:
            return a
        raise RecursionError()

`return a if b == 0 else gcd(b, a % b)` is first split into the `if` above. Runs first (after the
origin comments), on the function and on every callee, in both pass lists.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from ..analysis.recursion import cut
from ..core.tree import walk
from .base import Context


def targets(chain: tuple[str, ...], unroll: int, callees: bool = True, linear: str | None = None) -> frozenset[str]:
    """The functions whose calls are cut in the last function of `chain` (callers first); without
    `callees`, only the first function of the chain (the one vectorized) is unrolled, and `linear`,
    a callee that calls itself at one place only (its copy at most doubles its code)."""
    unrolled = lambda n: callees or n == chain[0] or n == linear  # noqa: E731
    return frozenset(n for n, count in Counter(chain).items() if count >= (unroll if unrolled(n) else 1))


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    self_calls = sum(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == ctx.name
                     for n in walk(func.body))
    return cut(func, targets((*ctx.chain, ctx.name), ctx.unroll, ctx.unroll_callees,
                             ctx.name if self_calls == 1 else None))
