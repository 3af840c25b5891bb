"""What the analysis reads off a `for` loop's iterable: the value its target takes, whether the
loop runs at least once, and what that makes of the state after it."""

from __future__ import annotations

import libcst as cst

from ..core.types import INT, Val, join
from .facts import Binding, Env, Facts


def bind_for_target(facts: Facts, stmt: cst.For, env: Env) -> Env:
    env = dict(env)
    name = stmt.target.value  # type: ignore[attr-defined]
    if isinstance(stmt.iter, cst.Call):
        val = Val(INT, facts.batched_test[stmt] or any(facts.vals[a.value].batched for a in stmt.iter.args))
    else:
        items = facts.vals[stmt.iter].type.items  # type: ignore[union-attr]
        t = items[0]
        for other in items[1:]:
            t = join(t, other)
        val = Val(t, False)
    env[name] = Binding(val)
    facts.vals[stmt.target] = val
    return env


def always_true(test: cst.BaseExpression) -> bool:
    """`True` or a nonzero int literal: a `while` with this test never ends by its test."""
    if isinstance(test, cst.Name):
        return test.value == "True"
    return isinstance(test, cst.Integer) and int(test.value.replace("_", ""), 0) != 0


def runs_at_least_once(facts: Facts, stmt: cst.While | cst.For) -> bool:
    if not isinstance(stmt, cst.For):
        return False
    it = stmt.iter
    if not isinstance(it, cst.Call):
        return bool(facts.vals[it].type.items)  # type: ignore[union-attr]
    bounds = [facts.vals[a.value].const for a in it.args]
    known = all(isinstance(b, int) for b in bounds) and (len(bounds) < 3 or bounds[2] != 0)
    return known and len(range(*bounds)) > 0  # type: ignore[arg-type]


def after_iterations(facts: Facts, stmt: cst.While | cst.For, header: Env, back: Env | None) -> Env:
    """The state when the loop test fails. A `for` over a range or tuple that is never empty
    has run its body: a value that is a NumPy scalar after every iteration (`s += x[i]`) is
    one after the loop, so `t / s` has NumPy's semantics there (inf, no ZeroDivisionError).
    Only that bit comes from the body's end; everything else is the header's."""
    if back is None or not runs_at_least_once(facts, stmt):
        return header
    out = dict(header)
    for name, bind in header.items():
        end = back.get(name)
        if end is not None and end.val.numpy and not bind.val.numpy and end.val.type == bind.val.type:
            v = bind.val
            out[name] = Binding(Val(v.type, v.batched, v.const, True, v.fresh), bind.maybe_unbound)
    return out
