"""Calls in lane code (`ops_to_lanes`): builtins and `math` functions through the table of
`rules.py` (with the checks of their Python errors), `min`/`max` as selects, NumPy functions on
numbers (numpy_calls.py), table reductions (tables.py), and the functions of the module, each
through its own lane function::

    y = f(x) + 1.0          ->      f_result, failed = _lane_f(x)
                                    if failed:
                                        return (0.0, True)
                                    y = f_result + 1.0
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.float_ints import float_valued
from ...analysis.signs import sign, within_unit
from ...core.lanenodes import assign, call, const, fill, name
from ...core.types import BOOL, FLOAT, INT, join
from ...errors import VectorizeError
from ...frontend.fence_attributes import int_method
from ...rules import scalar as rules
from . import numpy_calls, tables

if TYPE_CHECKING:
    from .exprs import LaneExpressions

# CPython computes these itself; the C library's results differ by far more than a few ulp.
NOT_CPYTHONS = {"math.gamma": "up to 8 ulp measured", "math.lgamma": "up to 45,838 ulp near its zeros at 1 and 2"}


def lower(exprs: LaneExpressions, node: cst.Call) -> ast.expr:
    """A call: of a table reduction, a function of the module (its lane function), an int
    method, a NumPy function on numbers, or a builtin or `math` function (rules.py)."""
    if node in exprs.float_ints:  # an int read at once as a float: analysis/float_ints.py
        name_ = float_valued(node, exprs.facts, exprs.call_name)
        return exprs.apply(rules.float_valued_int(name_), [node.args[0].value])  # type: ignore[arg-type]
    reduced = tables.reduction(exprs, node)  # np.sum(table * x ** table): passes/ops_to_lanes/tables.py
    if reduced is not None:
        return reduced
    glob = exprs.facts.calls.get(node)
    if glob is not None:
        return module_call(exprs, node, glob)
    method = int_method(node)
    if method is not None and node in exprs.facts.vals and exprs.numpy_function(node) is None:  # n.bit_length()
        receiver = node.func.value  # type: ignore[attr-defined]
        return exprs.apply(rules.CALLS[method]([exprs.facts.val(receiver)]), [receiver])
    numpy_name = exprs.numpy_function(node)
    if numpy_name is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("any", "all") \
            and not node.args and exprs.facts.type(node.func.value) in (BOOL, INT, FLOAT):
        # On a lane the receiver is one number (a NumPy scalar, a 0-d array): NumPy's any() and
        # all() of one element are both whether it is nonzero (NaN is), a NumPy bool.
        receiver = exprs.expr(node.func.value)
        return receiver if exprs.facts.type(node.func.value) is BOOL else fill("{0} != 0", receiver)
    if numpy_name is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("item", "astype"):
        return numpy_calls.method(exprs, node)  # x.item(), x.astype(np.int64) of a NumPy value of a number
    if numpy_name is not None:  # NumPy's semantics, not Python's
        return numpy_calls.lower(exprs, numpy_name, node)
    name_ = exprs.call_name(node)
    args = [a.value for a in node.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    if name_ in NOT_CPYTHONS:
        raise VectorizeError(f"{name_} on the Numba backend: Numba calls the C library, whose {name_[5:]} "
                             f"differs from CPython's own ({NOT_CPYTHONS[name_]})",
                             hint="use backend='numpy' (or 'auto'), which runs CPython's own per element")
    if name_ in ("min", "max"):
        return min_max(exprs, name_, args)
    if name_ == "divmod" or (name_ == "pow" and len(args) == 2):  # pow(a, b, m): the op table's
        left, right = exprs.facts.val(args[0]), exprs.facts.val(args[1])
        rule = rules.BINARY["**"] if name_ == "pow" else rules.DIVMOD
        return exprs.apply(rule(left.type, right.type, left, right), args, node)
    if name_ in rules.KEYWORD_CALLS:
        impl = rules.KEYWORD_CALLS[name_]([exprs.facts.val(a) for a in args], {k: exprs.facts.val(v) for k, v in keywords.items()})
        return exprs.apply(impl, args)
    operands = args + list(keywords.values())
    impl = rules.CALLS[name_]([exprs.facts.val(o) for o in operands])
    if operands:  # exp(-x * x), sqrt(x * x + 1.0): checks that need the other sign go
        impl = rules.without_sign_checks(impl, sign(operands[0], exprs.call_name))
        impl = rules.without_unit_checks(impl, within_unit(operands[0], exprs.call_name))  # asin(sqrt(min(h, 1.0)))
    return exprs.apply(impl, operands, node)


def min_max(exprs: LaneExpressions, name_: str, operands: list[cst.BaseExpression]) -> ast.expr:
    """`min(a, b, ...)` / `max(...)`: a select a pair, Python's order of comparisons."""
    op = "<" if name_ == "min" else ">"
    acc = exprs.lane.temp(exprs.expr(operands[0]))
    acc_t = exprs.facts.type(operands[0])
    for operand in operands[1:]:
        nxt = exprs.lane.temp(exprs.expr(operand))
        nxt_t = exprs.facts.type(operand)
        for c in rules.compare(op, nxt_t, acc_t).checks:
            exprs.lane.check(c.pred, nxt, acc)
        t = join(acc_t, nxt_t)
        acc = exprs.lane.temp(ast.IfExp(test=fill(f"{{0}} {op} {{1}}", nxt, acc), body=exprs.coerce(nxt, nxt_t, t),
                                         orelse=exprs.coerce(acc, acc_t, t)))
        acc_t = t
    return acc


def module_call(exprs: LaneExpressions, node: cst.Call, glob) -> ast.expr:
    """A call of a function of the module: its lane function, then its flag tested (unless it
    never fails)."""
    callee = exprs.lane.module.lane_function(exprs.ctx, glob, node, exprs.facts)
    args = [exprs.expr(a.value) for a in node.args if a.keyword is None]
    parsed = exprs.ctx.callees.parse(glob)  # type: ignore[union-attr]
    keywords = {a.keyword.value: exprs.expr(a.value) for a in node.args if a.keyword is not None}
    from ...analysis.calls import default_value

    bound = exprs.ctx.callees.bind(parsed, args, keywords, lambda d: const(default_value(d)))  # type: ignore[union-attr]
    result = exprs.ctx.namer.fresh(f"{glob.name}_result")
    value = call(callee, *bound.values())  # type: ignore[arg-type]
    if callee in exprs.lane.module.never_fail:
        exprs.lane.emit(assign(result, value))
        return name(result)
    failed = exprs.ctx.namer.fresh("failed")
    exprs.lane.emit(assign([result, failed], value))
    exprs.lane.emit(ast.If(test=name(failed), body=[exprs.lane.fail()], orelse=[]))
    return name(result)
