"""Lower `for i in range(...)` to a while loop where lanes can leave it at different iterations:
when a bound is batched, or when the body breaks (or returns, after early_returns) under a
batched test. Uniform loops stay `for` loops: every lane runs the same iterations.

Before::

    for i in range(start, n):          # n batched
        s = s + i

After::

    k = start
    k_stop = n
    while k < k_stop:
        i = k
        k = k + 1
        s = s + i

The counter advances before the body runs, so a later `continue` cannot skip it. With a step
that is not a literal, the test follows Python's range for either sign, and a zero step raises
`ValueError` on the lanes that have one, as `range()` does.
"""

from __future__ import annotations

import libcst as cst

from .base import Context, assign, block, code, if_stmt, paren, replace, stmt


def _breaks(body: cst.BaseSuite) -> bool:
    """A `break` that belongs to this loop (not to a nested one)."""
    found = False

    class Find(cst.CSTVisitor):
        def visit_Break(self, node: cst.Break) -> None:
            nonlocal found
            found = True

        def visit_For(self, node: cst.For) -> bool:
            return False

        def visit_While(self, node: cst.While) -> bool:
            return False

    body.visit(Find())
    return found


class _Lower(cst.CSTTransformer):
    def __init__(self, ctx: Context, batched: dict[cst.CSTNode, bool]) -> None:
        self.ctx = ctx
        self.batched = batched  # analysis facts, keyed by the original nodes

    def leave_For(self, original: cst.For, updated: cst.For):
        if not isinstance(updated.iter, cst.Call):
            return updated  # a tuple constant: uniform
        if not (self.batched.get(original, False) or _breaks(original.body)):
            return updated
        return cst.FlattenSentinel(self.lower(updated))

    def lower(self, loop: cst.For) -> list[cst.BaseStatement]:
        args = [code(a.value) for a in loop.iter.args]  # type: ignore[attr-defined]
        start, stop, step = ("0", args[0], "1") if len(args) == 1 else (*args[:2], args[2] if len(args) == 3 else "1")
        name = loop.target.value  # type: ignore[attr-defined]
        counter = self.ctx.namer.fresh("k")
        pre: list[cst.BaseStatement] = [assign(counter, start)]
        if not _simple(stop):
            stop_name = self.ctx.namer.fresh(f"{counter}_stop")
            pre.append(assign(stop_name, stop))
            stop = stop_name
        literal_step = _literal_int(step)
        if literal_step == 0:
            return replace(loop, pre + [stmt("raise ValueError('range() arg 3 must not be zero')")])
        if literal_step is not None:
            test = f"{counter} {'<' if literal_step > 0 else '>'} {stop}"
        else:
            if not _simple(step):
                step_name = self.ctx.namer.fresh(f"{counter}_step")
                pre.append(assign(step_name, step))
                step = step_name
            pre.append(if_stmt(f"{step} == 0", [stmt("raise ValueError('range() arg 3 must not be zero')")]))
            test = f"({step} > 0 and {counter} < {stop}) or ({step} < 0 and {counter} > {stop})"
        body = [assign(name, counter), assign(counter, f"{counter} + {paren(step)}"), *loop.body.body]
        new = cst.While(test=cst.parse_expression(test), body=block(body))
        return replace(loop, pre + [new])


def _simple(text: str) -> bool:
    return text.isidentifier() or _literal_int(text) is not None


def _literal_int(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        return None


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    facts = ctx.analyze(func)
    if not any(isinstance(n, cst.For) for n in facts.batched_test):
        return func
    return func.visit(_Lower(ctx, facts.batched_test))
