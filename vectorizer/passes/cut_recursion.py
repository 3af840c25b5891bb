"""Cut recursive calls: a statement that calls a function on the call chain (the function itself,
or a caller it is being inlined or lowered into) becomes a raise, so the lanes that reach it are
flagged and re-run by the scalar function (analysis/recursion.py says why this is exact).

Before::

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

import libcst as cst

from ..analysis.recursion import cut
from .base import Context


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    return cut(func, frozenset((*ctx.chain, ctx.name)))
