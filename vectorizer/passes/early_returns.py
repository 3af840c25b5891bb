"""Lower early returns to one exit: every `return e` assigns the result, the function ends in one
`return`.

Guard clauses move the rest of the block into the branch that falls through (no flags)::

    if x < 0:                    if x < 0:
        return 0.0                   ret = 0.0
    y = math.sqrt(x)      ->     else:
    return y * 2                     y = math.sqrt(x)
                                     ret = y * 2
                                 return ret

Returns inside loops (or branches that only sometimes return) use a `done` flag: the loop is left
with `break`, enclosing loops follow with `if done: break`, and the code after the statement runs
under `if not done:`::

    while n < 10:                done = False
        if f(n) > x:             while n < 10:
            return n      ->         if f(n) > x:
        n += 1                           ret = n
    return -1                            done = True
                                         break
                                     n = n + 1
                                 if not done:
                                     ret = -1
                                     done = True
                                 return ret

A tuple return `return a, b` assigns `ret = a` and `ret_1 = b`.
"""

from __future__ import annotations

import libcst as cst

from ..core.tree import is_raise
from .base import (
    Context,
    assign,
    block,
    body_of,
    contains,
    func_body,
    if_stmt,
    replace,
    stmt,
    walk,
)


class _NeedFlags(Exception):
    """The push strategy would duplicate code; use the `done` flag instead."""


def _is_return(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[-1], cst.Return)


def _contains_return(node: cst.CSTNode) -> bool:
    return contains(node, cst.Return)


def _always_exits(stmts: list[cst.BaseStatement]) -> bool:
    """True when no path through the statements falls through to what follows."""
    for s in stmts:
        if _is_return(s) or is_raise(s):
            return True
        if isinstance(s, cst.If) and _always_exits(body_of(s.body)) and _always_exits(body_of(s.orelse)):
            return True
    return False


class _Lower:
    def __init__(self, ctx: Context, width: int) -> None:
        self.ctx = ctx
        self.rets = [ctx.namer.fresh("ret") for _ in range(width)]
        self.done: str | None = None

    def result(self, ret: cst.Return) -> list[cst.BaseStatement]:
        value = ret.value
        if len(self.rets) == 1:
            return [assign(self.rets[0], value)]
        if isinstance(value, cst.Tuple):
            return [assign(name, el.value) for name, el in zip(self.rets, value.elements)]
        targets = cst.Tuple([cst.Element(cst.Name(n)) for n in self.rets], lpar=[], rpar=[])
        return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(targets)], value)])]

    def final(self) -> cst.BaseStatement:
        return stmt("return " + ", ".join(self.rets))

    # -- guard clauses: push the rest into the branch that falls through ---------------------------
    def push(self, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for i, s in enumerate(stmts):
            if _is_return(s):
                return out + replace(s, self.result(s.body[-1]))  # type: ignore[union-attr]
            if isinstance(s, cst.If) and _contains_return(s):
                rest = stmts[i + 1:]
                then, other = body_of(s.body), body_of(s.orelse)
                t_exits, e_exits = _always_exits(then), _always_exits(other)
                if t_exits and not e_exits:
                    other = other + rest
                elif e_exits and not t_exits:
                    then = then + rest
                elif not (t_exits and e_exits):
                    raise _NeedFlags
                new = s.with_changes(body=block(self.push(then)),
                                     orelse=cst.Else(block(self.push(other))) if other else None)
                return out + [new]
            if _contains_return(s):
                raise _NeedFlags  # a return inside a loop
            out.append(s)
        return out

    # -- the general case: a `done` flag --------------------------------------------------------
    def flagged(self, stmts: list[cst.BaseStatement], in_loop: bool) -> list[cst.BaseStatement]:
        assert self.done is not None
        out: list[cst.BaseStatement] = []
        for i, s in enumerate(stmts):
            if _is_return(s):
                tail = [assign(self.done, "True")] + ([stmt("break")] if in_loop else [])
                return out + replace(s, self.result(s.body[-1]) + tail)  # type: ignore[union-attr]
            if not _contains_return(s):
                out.append(s)
                continue
            if isinstance(s, cst.If):
                orelse = self.flagged(body_of(s.orelse), in_loop)
                out.append(s.with_changes(body=block(self.flagged(body_of(s.body), in_loop)),
                                          orelse=cst.Else(block(orelse)) if orelse else None))
            else:  # a loop with a return inside
                out.append(s.with_changes(body=block(self.flagged(body_of(s.body), True))))
                if in_loop:
                    out.append(if_stmt(self.done, [stmt("break")]))
            rest = self.flagged(stmts[i + 1:], in_loop)
            if rest and not in_loop:
                rest = [if_stmt(f"not {self.done}", rest)]
            return out + rest
        return out


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    body = func_body(func)
    n_returns = sum(type(n) is cst.Return for n in walk(func))
    if n_returns <= 1 and body and _is_return(body[-1]):
        return func  # already a single exit
    width = len(ctx.analyze(func).result)
    lower = _Lower(ctx, width)
    try:
        new_body = lower.push(body)
    except _NeedFlags:
        lower.done = ctx.namer.fresh("done")
        new_body = [assign(lower.done, "False")] + lower.flagged(body, in_loop=False)
    return func.with_changes(body=block(new_body + [lower.final()]))


