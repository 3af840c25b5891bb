"""Lower `break` and `continue` to flags, so that every loop has a single exit: its test.

Before::

    while n < 100:
        n = n + 1
        if x < 0:
            break
        if n % 2 == 0:
            continue
        x = x - 1

After::

    brk = False
    while not brk and n < 100:
        cont = False
        n = n + 1
        if x < 0:
            brk = True
        else:
            if n % 2 == 0:
                cont = True
            else:
                x = x - 1

A branch that always leaves takes the rest of the block into its sibling branch (no test of the
flag needed); otherwise the rest runs under `if not brk:` / `if not cont:`. Each loop handles only
its own `break`/`continue`; inner loops are lowered first.

The new test is a bool: `while True:` or `while 2.5:` becomes `while not brk:`, and `while x:`
with a number x becomes `while not brk and bool(x):`.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import Facts
from ..core.tree import child_nodes
from .base import (
    Context,
    StatementTransformer,
    as_bool,
    assign,
    block,
    body_of,
    contains,
    expr,
    if_stmt,
    replace,
)


def _is(s: cst.CSTNode, kind: type) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[-1], kind)


def _own(node: cst.CSTNode, kind: type) -> bool:
    """Does `node` hold a `kind` (Break/Continue) of the loop being lowered, not of an inner loop?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if not isinstance(n, cst.For | cst.While):  # an inner loop's own break/continue
            stack.extend(child_nodes(n))
    return False


def _always_leaves(stmts: list[cst.BaseStatement]) -> bool:
    for s in stmts:
        if _is(s, cst.Break) or _is(s, cst.Continue) or _is(s, cst.Raise):
            return True
        if isinstance(s, cst.If) and _always_leaves(body_of(s.body)) and _always_leaves(body_of(s.orelse)):
            return True
    return False


class _Loop:
    def __init__(self, brk: str | None, cont: str | None) -> None:
        self.brk, self.cont = brk, cont

    def lower(self, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for i, s in enumerate(stmts):
            if _is(s, cst.Break):
                return out + replace(s, [assign(self.brk, "True")])  # type: ignore[arg-type]
            if _is(s, cst.Continue):
                return out + replace(s, [assign(self.cont, "True")])  # type: ignore[arg-type]
            if not (isinstance(s, cst.If) and (_own(s, cst.Break) or _own(s, cst.Continue))):
                out.append(s)
                continue
            then, other, rest = body_of(s.body), body_of(s.orelse), stmts[i + 1:]
            t_leaves, e_leaves = _always_leaves(then), _always_leaves(other)
            if t_leaves and not e_leaves:
                other, rest = other + rest, []
            elif e_leaves and not t_leaves:
                then, rest = then + rest, []
            new_then, new_other = self.lower(then), self.lower(other)
            out.append(s.with_changes(body=block(new_then),
                                      orelse=cst.Else(block(new_other)) if new_other else None))
            if t_leaves and e_leaves:
                return out  # the rest is unreachable
            lowered_rest = self.lower(rest)
            if lowered_rest:
                flags = [f for f, kind in ((self.brk, cst.Break), (self.cont, cst.Continue)) if f and _own(s, kind)]
                test = f"not {flags[0]}" if len(flags) == 1 else f"not ({' or '.join(flags)})"
                out.append(if_stmt(test, lowered_rest))
            return out
        return out


class _Lower(StatementTransformer):
    def __init__(self, ctx: Context, func: cst.FunctionDef) -> None:
        self.ctx = ctx
        self.func = func
        self._facts: Facts | None = None

    @property
    def facts(self) -> Facts:
        """Analysis facts of the function, keyed by the original nodes (only loops that break
        need them: computed on first use)."""
        if self._facts is None:
            self._facts = self.ctx.analyze(self.func)
        return self._facts

    def _loop(self, original: cst.For | cst.While, updated: cst.For | cst.While):
        stmts = body_of(updated.body)
        has_break = any(_is(s, cst.Break) or _own(s, cst.Break) for s in stmts)
        has_cont = any(_is(s, cst.Continue) or _own(s, cst.Continue) for s in stmts)
        if not (has_break or has_cont):
            return updated
        loop = _Loop(self.ctx.namer.fresh("brk") if has_break else None,
                     self.ctx.namer.fresh("cont") if has_cont else None)
        body = loop.lower(stmts)
        if loop.cont:
            body = [assign(loop.cont, "False")] + body
        new = updated.with_changes(body=block(body))
        if not loop.brk:
            return new
        assert isinstance(updated, cst.While), "for_to_while lowers loops that break"
        new_test = self.exit_test(loop.brk, original.test, updated.test)  # type: ignore[union-attr]
        return cst.FlattenSentinel(replace(updated, [assign(loop.brk, "False"), new.with_changes(test=new_test, leading_lines=())]))

    def exit_test(self, brk: str, original: cst.BaseExpression, test: cst.BaseExpression) -> cst.BaseExpression:
        """`not brk and test`: a test that is a true constant (`while True:`, `while 2.5:`) drops
        out, and a number is tested as `bool(test)`, so that both operands are bools."""
        val = self.facts.vals.get(original)
        true = isinstance(test, cst.Name) and test.value == "True"
        if true or (_constant(test) and val is not None and not val.batched and bool(val.const)):
            return expr(f"not {brk}")
        test = as_bool(test, self.facts, original)
        if isinstance(test, cst.BooleanOperation | cst.IfExp) and not test.lpar:
            test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.BooleanOperation(expr(f"not {brk}"), cst.And(), test)

    def leave_While(self, original, updated):
        return self._loop(original, updated)

    def leave_For(self, original, updated):
        return self._loop(original, updated)


def _constant(test: cst.BaseExpression) -> bool:
    """A name or a number: evaluating it cannot raise, so a constant one can be left out (a name
    the analysis found constant holds that value at every test)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Minus | cst.Plus):
        test = test.expression
    return isinstance(test, cst.Name | cst.Integer | cst.Float)


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not contains(func.body, (cst.Break, cst.Continue)):
        return func
    return func.visit(_Lower(ctx, func))
