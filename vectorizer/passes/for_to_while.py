"""Lower `for` loops to while loops where lanes can leave them at different iterations: when a
range bound is batched, or when the body breaks (or returns, after early_returns). A loop over a
tuple that breaks is lowered too (break_continue only lowers `break` in while loops). Uniform
loops stay `for` loops: every lane runs the same iterations.

Before::

    for i in range(start, n + 1):      # n batched
        s = s + i

After::

    k = start
    k_stop = n + 1                     # (a bound that is a name or a literal is used as it is)
    while k < k_stop:
        i = k
        k = k + 1
        s = s + i

The counter advances before the body runs, so a later `continue` cannot skip it. With a step
that is not a literal, the test follows Python's range for either sign, and a zero step raises
`ValueError` on the lanes that have one, as `range()` does.

A loop over a tuple (module-level; a literal one is read with `x if k == 0 else ...`)::

    for c in COEFFS:                   k = 0
        if c > x:             ->       while k < 4:
            break                          c = COEFFS[k]
                                           k = k + 1
                                           if c > x:
                                               break

A loop that stays a `for` but whose step may be zero checks it first (the arguments are
evaluated once, in order, as Python does before `range()` raises)::

    for i in range(a, b, s):  ->   if s == 0:
        ...                            raise ValueError('range() arg 3 must not be zero')
                                   for i in range(a, b, s):
                                       ...
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import Facts
from .base import (
    Context,
    StatementTransformer,
    assign,
    block,
    code,
    contains,
    expr,
    if_stmt,
    paren,
    replace,
    stmt,
)

_ZERO_STEP = "raise ValueError('range() arg 3 must not be zero')"


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


class _Lower(StatementTransformer):
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts  # analysis facts, keyed by the original nodes

    def leave_For(self, original: cst.For, updated: cst.For):
        lower = self.facts.batched_test.get(original, False) or _breaks(original.body)
        if not isinstance(updated.iter, cst.Call):
            return cst.FlattenSentinel(self.lower_tuple(original, updated)) if lower else updated
        return cst.FlattenSentinel(self.lower(updated) if lower else self.check_step(updated))

    def evaluate(self, args: list[str], stems: tuple[str, ...]) -> tuple[list[cst.BaseStatement], list[str]]:
        """Each argument that is not a name or a literal, assigned to a fresh name (in order)."""
        pre: list[cst.BaseStatement] = []
        names: list[str] = []
        for arg, stem in zip(args, stems):
            if not _simple(arg):
                name = self.ctx.namer.fresh(stem)
                pre.append(assign(name, arg))
                arg = name
            names.append(arg)
        return pre, names

    def check_step(self, loop: cst.For) -> list[cst.BaseStatement]:
        """A uniform `for` over `range(a, b, s)`: raise as `range()` does when `s` is zero."""
        args = [code(a.value) for a in loop.iter.args]  # type: ignore[attr-defined]
        if len(args) < 3 or _literal_int(args[2]) not in (None, 0):
            return [loop]
        pre, names = self.evaluate(args, ("start", "stop", "step"))
        if _literal_int(names[2]) == 0:
            return replace(loop, pre + [stmt(_ZERO_STEP)])
        call = loop.iter.with_changes(args=[a.with_changes(value=expr(n)) for a, n in zip(loop.iter.args, names)])  # type: ignore[attr-defined]
        check = if_stmt(f"{names[2]} == 0", [stmt(_ZERO_STEP)])
        return replace(loop, pre + [check, loop.with_changes(iter=call, leading_lines=())])

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
            return replace(loop, pre + [stmt(_ZERO_STEP)])
        if literal_step is not None:
            test = f"{counter} {'<' if literal_step > 0 else '>'} {stop}"
        else:
            if not _simple(step):
                step_name = self.ctx.namer.fresh(f"{counter}_step")
                pre.append(assign(step_name, step))
                step = step_name
            pre.append(if_stmt(f"{step} == 0", [stmt(_ZERO_STEP)]))
            test = f"({step} > 0 and {counter} < {stop}) or ({step} < 0 and {counter} > {stop})"
        body = [assign(name, counter), assign(counter, f"{counter} + {paren(step)}"), *loop.body.body]
        new = cst.While(test=cst.parse_expression(test), body=block(body))
        return replace(loop, pre + [new])

    def lower_tuple(self, original: cst.For, loop: cst.For) -> list[cst.BaseStatement]:
        """`for v in T:` (a module-level tuple, or a literal one of numbers) as a counted loop."""
        width = len(self.facts.vals[original.iter].type.items)  # type: ignore[union-attr]
        counter = self.ctx.namer.fresh("k")
        name = loop.target.value  # type: ignore[attr-defined]
        body = [assign(name, _item(loop.iter, counter)), assign(counter, f"{counter} + 1"), *loop.body.body]
        new = cst.While(test=expr(f"{counter} < {width}"), body=block(body))
        return replace(loop, [assign(counter, "0"), new])


def _item(tup: cst.BaseExpression, counter: str) -> str:
    """`T[k]`; for a literal tuple `a if k == 0 else (b if k == 1 else c)` (no tuple values)."""
    if not isinstance(tup, cst.Tuple):
        return f"{code(tup)}[{counter}]"
    items = [code(el.value) for el in tup.elements]
    text = items[-1]
    for i in range(len(items) - 2, -1, -1):
        text = f"{items[i]} if {counter} == {i} else {paren(text)}"
    return text


def _simple(text: str) -> bool:
    return text.isidentifier() or _literal_int(text) is not None


def _literal_int(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        return None


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not contains(func.body, cst.For):
        return func
    facts = ctx.analyze(func)
    if not any(isinstance(n, cst.For) for n in facts.batched_test):
        return func
    return func.visit(_Lower(ctx, facts))
