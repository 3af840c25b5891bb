"""Mixed int/float names whose ints are small: where a NUM value's 2**53 check cannot fire.

A name that holds an int on some lanes and a float on others (type NUM) is stored as float64,
so each `+ - *` whose result may be an int is checked: an int beyond 2**53 is not exact there,
and its lane is re-run by the scalar function. A common source of such names is a float variable
reset to a literal, `ds = 0`, or started at one, `ds_previous = 0`, then `ds * ds_previous` in a
loop: every lane is checked, and a lane whose floats are large (beyond 2**53 in magnitude,
product or not) is flagged and re-run, though its values are floats.

What an int can be is read from the names' assignments, as a bound on its magnitude:

    ds = s                 a float: no int (bound 0)
    ds = 0                 an int literal: its magnitude
    ds = max(-0.5 * s, ds) one of its arguments: the larger bound
    ds_previous = ds       ds's bound

An expression's bound: an int literal's magnitude; 0 for a float, 1 for a bool; a name's bound;
the operand's for `-e`, `+e`, `abs(e)`; the largest for `max`/`min` (Python returns one of its
arguments) and `a if c else b`; the sum for `a + b` and `a - b`, the product for `a * b`; no bound
for anything else (`//`, `%`, `**`, calls, parameters, subscripts). A name's bound is the largest
of its assignments' (a name bound any other way, `+=`, a for target, unpacking, has none). The
bounds are found by iteration from 0: a name whose bound still grows after a few rounds (`k = k +
1` in a loop) or passes 2**53 has none. A `+ - *` whose bound is at most 2**53 gives ints that
float64 holds exactly: its check goes (passes/ops_to_numpy/exprs.py), as does the check of a name
of such a bound converted from int to the NUM storage at a loop's entry.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..core.tree import walk
from ..core.types import BOOL, FLOAT
from .facts import Facts

EXACT = 2**53  # ints up to this magnitude are exact in float64
_ROUNDS = 4  # rounds a bound may grow in before it is given up (a loop's `k = k + 1`)
_SELECTING_CALLS = frozenset({"max", "min", "abs"})  # the value is an argument's, or its magnitude
Bounds = dict[str, int]
CallName = Callable[[cst.Call], "str | None"]


def int_bounds(func: cst.FunctionDef, facts: Facts, call_name: CallName) -> Bounds:
    """The names of `func` whose ints (on any lane) are bounded in magnitude, with the bound."""
    values: dict[str, list[cst.BaseExpression]] = {}
    excluded: set[str] = {p.name.value for p in (*func.params.posonly_params, *func.params.params,
                                                 *func.params.kwonly_params)}
    for node in walk(func.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    values.setdefault(target.target.value, []).append(node.value)
                else:
                    excluded.update(_bound_names(target.target))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            values.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor | cst.NamedExpr):
            excluded.update(_bound_names(node.target))
        elif isinstance(node, cst.AsName):
            excluded.update(_bound_names(node.name))
        elif isinstance(node, cst.FunctionDef | cst.ClassDef | cst.Param):
            excluded.add(node.name.value)  # (a nested function's or lambda's parameter too: it shadows)
        elif isinstance(node, cst.Global | cst.Nonlocal | cst.Import | cst.ImportFrom | cst.Match):
            excluded.update(_bound_names(node))  # bound elsewhere, or by a pattern
    bounds: Bounds = {name: 0 for name in values if name not in excluded}
    grown: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for name in sorted(bounds):
            found = [int_bound(v, bounds, facts, call_name) for v in values[name]]
            new = None if None in found else max(found, default=0)
            if new is None or new > EXACT or grown.get(name, 0) >= _ROUNDS:
                if new != bounds[name]:
                    del bounds[name]
                    changed = True
            elif new > bounds[name]:
                bounds[name] = new
                grown[name] = grown.get(name, 0) + 1
                changed = True
    return bounds


def int_bound(node: cst.BaseExpression, bounds: Bounds, facts: Facts, call_name: CallName) -> int | None:
    """The largest magnitude of an int `node` can be on any lane; None where not known."""
    val = facts.vals.get(node)
    if val is not None and val.type is FLOAT:
        return 0  # a float has no int part
    if val is not None and val.type is BOOL:
        return 1
    if val is not None and isinstance(val.const, bool | int | float) and val.const is not None:
        return 0 if isinstance(val.const, float) else abs(int(val.const))
    if isinstance(node, cst.Integer):
        return abs(int(node.evaluated_value))
    if isinstance(node, cst.Float):
        return 0
    if isinstance(node, cst.Name):
        return bounds.get(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return int_bound(node.expression, bounds, facts, call_name)
    if isinstance(node, cst.IfExp):
        return _largest([node.body, node.orelse], bounds, facts, call_name)
    if isinstance(node, cst.Call) and call_name(node) in _SELECTING_CALLS and node.args \
            and all(a.keyword is None and not a.star for a in node.args):
        return _largest([a.value for a in node.args], bounds, facts, call_name)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Subtract | cst.Multiply):
        left, right = int_bound(node.left, bounds, facts, call_name), int_bound(node.right, bounds, facts, call_name)
        if left is None or right is None:
            return None
        return left * right if isinstance(node.operator, cst.Multiply) else left + right
    return None


def exact_ints(node: cst.BaseExpression, bounds: Bounds, facts: Facts, call_name: CallName) -> bool:
    """True where every int `node` can be is exact in float64."""
    bound = int_bound(node, bounds, facts, call_name)
    return bound is not None and bound <= EXACT


def _largest(nodes: list[cst.BaseExpression], bounds: Bounds, facts: Facts, call_name: CallName) -> int | None:
    found = [int_bound(n, bounds, facts, call_name) for n in nodes]
    return None if None in found else max(found)  # type: ignore[type-var]


def _bound_names(target: cst.BaseExpression) -> set[str]:
    return {n.value for n in walk(target) if isinstance(n, cst.Name)}
