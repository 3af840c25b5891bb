"""Which names may have been assigned, in a function, by the time each expression in it runs: the
flow-sensitive half of the kind checks (frontend/static_checks.py, issue 51).

`isinstance(S, complex)` is decided from the parameter's kind only where `S` still holds the
argument: at that point no assignment to `S` may have run. Python's own order decides it:

* statements run in order: what an earlier statement of the block binds is assigned after it;
* an `if`'s test runs before its branches, and each branch sees only what the test binds (a
  walrus) besides what came before; after the `if`, anything either branch binds may be assigned;
* a loop's test and body see everything the loop binds (a later iteration runs after them); a
  `for`'s iterable is evaluated once, before the first iteration;
* a `try`'s handlers, `else` and `finally` see what its body binds (they run after some of it);
* in an assignment the value runs before the targets are bound; a walrus anywhere in an
  expression, or a comprehension's own target, counts for the whole expression (conservatively).

Before (S a parameter, `V` assigned on the first line, `S` in the branch)::

    V = abs(V)
    if isinstance(S, complex) or PF is not None:
        P, Q, S, PF = powerset(S=S, PF=PF)
    return V * V / S

`reassigned_at(func)[the isinstance call]` is `{"V"}`: `S` still holds the argument there, so the
check is decided from its kind; after the `if`, `S` may be assigned, and a check there is not.
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bound_names
from ..core.tree import walk


def reassigned_at(func: cst.FunctionDef) -> dict[cst.CSTNode, frozenset[str]]:
    """Each call and comparison of `func` -> the names that may have been assigned when it runs
    (see the module docstring); a node it does not list: any name the function binds."""
    out: dict[cst.CSTNode, frozenset[str]] = {}
    _block(func.body, frozenset(), out)
    return out


def _expr(node: cst.CSTNode, dirty: frozenset[str], out: dict) -> None:
    seen = dirty | bound_names(node, comprehensions=True)  # a walrus, a comprehension's target
    for n in walk(node):
        if isinstance(n, cst.Call | cst.Comparison):
            out[n] = seen


def _block(body: cst.BaseSuite, dirty: frozenset[str], out: dict) -> frozenset[str]:
    stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for stmt in stmts:
        dirty = _statement(stmt, dirty, out)
    return dirty


def _statement(stmt: cst.CSTNode, dirty: frozenset[str], out: dict) -> frozenset[str]:
    after = dirty | bound_names(stmt)
    if isinstance(stmt, cst.If):
        _expr(stmt.test, dirty, out)
        inside = dirty | bound_names(stmt.test)
        _block(stmt.body, inside, out)
        if isinstance(stmt.orelse, cst.If):
            _statement(stmt.orelse, inside, out)
        elif isinstance(stmt.orelse, cst.Else):
            _block(stmt.orelse.body, inside, out)
    elif isinstance(stmt, cst.For):
        _expr(stmt.iter, dirty, out)
        _block(stmt.body, after, out)
        if stmt.orelse is not None:
            _block(stmt.orelse.body, after, out)
    elif isinstance(stmt, cst.While):
        _expr(stmt.test, after, out)
        _block(stmt.body, after, out)
        if stmt.orelse is not None:
            _block(stmt.orelse.body, after, out)
    elif isinstance(stmt, cst.Try):
        _block(stmt.body, dirty, out)
        rest = [h.body for h in stmt.handlers] + [x.body for x in (stmt.orelse, stmt.finalbody) if x is not None]
        for part in rest:
            _block(part, after, out)  # (what `except ... as e` binds is in `after`)
    elif isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        for small in stmt.body:
            value = small.value if isinstance(small, cst.Assign | cst.AugAssign | cst.AnnAssign) else small
            if value is not None:
                _expr(value, dirty, out)  # the value runs before its targets are bound
            dirty = dirty | bound_names(small)
    else:  # with, match, a nested def...: what the statement binds counts everywhere in it
        _expr(stmt, after, out)
    return after
