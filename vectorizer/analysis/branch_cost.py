"""A static estimate of what a batched branch costs when the array code runs it on every lane:
the operations of its statements, counted from the code alone (never timed).

    if x < s * k:                                  (cost 3: two products and a sum: cheap)
        y = x + 1.0
    if 0.5 * s < tau:                              (a callee inlined: its rational approximation,
        a = 1 + h * erfcx(-h)                       its loops of constant trip counts, its exp
        ...                                         calls: hundreds of operations)

An arithmetic operation, comparison, subscript or boolean operator counts 1; a call of a math
function CALL_COST (CPython's libm, lane by lane); a nested `if` both of its sides (the array
code runs both); a `for` over `range` of constants its trip count times its body; any other
loop LOOP_TRIPS times its body. passes/if_to_select.py runs a branch of at least EXPENSIVE on
the lanes that take it alone (passes/ops_to_numpy/branch_lanes.py): gathering and scattering its
values costs a few operations a value, paid back many times over.
"""

from __future__ import annotations

import libcst as cst

EXPENSIVE = 60  # operations: a branch this costly is run on its own lanes
CALL_COST = 10
LOOP_TRIPS = 10

_OPS = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation, cst.Subscript, cst.IfExp,
        cst.AugAssign)


def cost(stmts: list[cst.BaseStatement] | tuple[cst.BaseStatement, ...]) -> int:
    return sum(_statement(s) for s in stmts)


def _statement(s: cst.CSTNode) -> int:
    if isinstance(s, cst.For):
        return _trips(s.iter) * (cost(_body(s.body)) + 1) + _expr(s.iter)
    if isinstance(s, cst.While):
        return LOOP_TRIPS * (cost(_body(s.body)) + _expr(s.test))
    if isinstance(s, cst.If):
        other = 0 if s.orelse is None else _statement(s.orelse) if isinstance(s.orelse, cst.If) \
            else cost(_body(s.orelse.body))
        return _expr(s.test) + cost(_body(s.body)) + other
    return _expr(s)


def _expr(node: cst.CSTNode) -> int:
    total = 0
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            total += CALL_COST
        elif isinstance(node, _OPS):
            total += 1
        stack.extend(node.children)
    return total


def _trips(it: cst.BaseExpression) -> int:
    """A `range` of integer literals: its length; anything else LOOP_TRIPS."""
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" \
            and 1 <= len(it.args) <= 2 and all(isinstance(a.value, cst.Integer) for a in it.args):
        bounds = [int(a.value.value) for a in it.args]  # type: ignore[attr-defined]
        return max(0, bounds[-1] - (bounds[0] if len(bounds) == 2 else 0))
    return LOOP_TRIPS


def _body(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else [cst.SimpleStatementLine(suite.body)]
