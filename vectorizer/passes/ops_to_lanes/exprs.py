"""Expressions of `ops_to_lanes`: each scalar operation of a lane as an `ast` expression, with its
checks of `rules.py` as early `return <zeros>, True` statements (the array template of a check
turned into a scalar tree by `scalarize`).

A check is the array check translated (`np.where` -> `x if c else y`, `~` -> `not`, `np.sin` ->
`math.sin`, ...), so both backends flag the same lanes::

    y = a / b if b != 0 else 0.0   ->   if b != 0:
                                            if b == 0:
                                                return (0.0, True)
                                            c = a / b
                                        else:
                                            c = 0.0
                                        y = c

(an operand whose checks need statements becomes an `if` block: only the side Python evaluates
runs). Calls are calls.py's: other functions of the module go to their own lane functions.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.counters import affine_parts, without_counter_checks
from ...analysis.facts import BINOPS, COMPARES, UNOPS
from ...analysis.float_ints import float_operands
from ...analysis.signs import without_zero_divisor
from ...core.lanenodes import (
    assign,
    call,
    const,
    dotted,
    expression,
    fill,
    is_call_of,
    name,
)
from ...core.types import BOOL, FLOAT, INT, NUM, TupleType, Type
from ...frontend.fence_exprs import tuple_call_item
from ...rules import scalar as rules
from ..base import static_node
from . import calls, numpy_calls, tables
from .calls import NOT_CPYTHONS  # noqa: F401 - tests and rules/base.py name it here
from .scalarize import scalar

if TYPE_CHECKING:
    from .lane import Lane

BEYOND_EXACT = rules.beyond_exact("{0}")  # |{0}| > 2**53


def static_false(pred: ast.expr, constants: dict[str, object]) -> bool:
    """Whether a check (NumPy or scalar form) is decided false now (passes/base.py's
    static_check), without compiling it where it cannot be: a part that reads a name other
    than NumPy or a module constant, and cannot short-circuit, evaluates to a NameError."""
    return _may_be_false(pred, constants) and static_node(pred, constants) is False


def _may_be_false(node: ast.expr, constants: dict[str, object]) -> bool:
    """False where static_node cannot give False (it splits `&` and `|`, as here)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        left, right = _may_be_false(node.left, constants), _may_be_false(node.right, constants)
        return (left or right) if isinstance(node.op, ast.BitAnd) else (left and right)
    free = False
    for n in ast.walk(node):
        if isinstance(n, ast.BoolOp | ast.IfExp) or (isinstance(n, ast.Compare) and len(n.ops) > 1):
            return True  # may skip the name
        if isinstance(n, ast.Name) and n.id != "np" and type(constants.get(n.id)) not in (int, float, bool):
            free = True
    return not free


def _not(node: ast.expr) -> ast.expr:
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _pick(yes: ast.expr, test: ast.expr, no: ast.expr) -> ast.expr:
    return ast.IfExp(test=test, body=yes, orelse=no)


class LaneExpressions:
    """Lowers the expressions of one lane function; statements, checks and temporaries are the
    `Lane`'s (`self.lane`), which holds this object."""

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self.ctx = lane.ctx
        self.facts = lane.facts
        self.float_ints: set[cst.BaseExpression] = set()  # calls lowered as floats (analysis/float_ints.py)

    def truthy(self, node: ast.expr, t: Type) -> ast.expr:
        return node if t is BOOL else fill("{0} != 0", node)

    def coerce(self, node: ast.expr, src: Type, dst: Type) -> ast.expr:
        if src is dst or (src is FLOAT and dst is NUM) or isinstance(dst, TupleType):
            return node
        if dst is INT:
            return call("int", node)
        if dst in (FLOAT, NUM):
            if src is BOOL:  # Numba has no float(bool); and a bool is exact in a float
                return call("float", call("int", node))
            if src.is_intlike and dst is NUM:
                t = self.lane.temp(node)
                self.lane.check(BEYOND_EXACT, t)
                return call("float", t)
            return call("float", node)
        return node

    def expr(self, node: cst.BaseExpression) -> ast.expr:
        val = self.facts.vals.get(node)
        if tables.is_array(val) and not isinstance(node, cst.Name):  # only inside np.sum / np.prod
            tables.refuse_array(self, node)
        if val is not None and val.const is not None and not isinstance(val.type, TupleType) and not isinstance(node, cst.Name):
            return const(val.const)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return ast.Constant(value=node.value == "True")
            glob = None if self._local(node.value) else self.ctx.namespace.resolve(node.value)
            if glob is not None and glob.kind == "constant":
                self.lane.module.constants[node.value] = glob.value
            stored = self.lane.storage.get(node.value) if glob is None else None
            if val is not None and stored is not None and stored is not val.type:
                # One Numba variable holds every value the name takes (an int that is a float
                # elsewhere is stored as a float, exactly: see coerce): read it as it is here.
                if val.type is INT:
                    return call("int", name(node.value))
                if val.type is BOOL:
                    return fill("{0} != 0", name(node.value))
            return name(node.value)
        if isinstance(node, cst.Integer | cst.Float):
            return const(val.const)  # type: ignore[union-attr]
        if isinstance(node, cst.Attribute):
            path = rules.MATH_CONSTANTS[node.attr.value]
            return dotted("math." + path[3:]) if path.startswith("np.") else expression(path)
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node)
        if isinstance(node, cst.UnaryOperation):
            op = UNOPS[type(node.operator)]
            operand = self.facts.val(node.expression)
            if op == "not":
                return _not(self.truthy(self.expr(node.expression), operand.type))
            return self.apply(rules.UNARY[op](operand.type, operand), [node.expression])
        if isinstance(node, cst.BooleanOperation):
            return self.boolean(node)
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.IfExp):
            return self.select(node)
        if isinstance(node, cst.Call):
            return calls.lower(self, node)
        if isinstance(node, cst.Subscript):
            item = tuple_call_item(node)
            if item is not None:  # math.modf(x)[1]: a constant index of a tuple-valued call
                return ast.Subscript(value=self.expr(node.value), slice=const(item), ctx=ast.Load())
            seq = self.expr(node.value)
            size = len(self.facts.val(node.value).type.items)  # type: ignore[union-attr]
            index = self.lane.temp(self.expr(node.slice[0].slice.value))  # type: ignore[attr-defined]
            self.lane.check("({0} < {1}) | ({0} >= {2})", index, const(-size), const(size))
            return ast.Subscript(value=seq, slice=index, ctx=ast.Load())
        raise AssertionError(type(node).__name__)

    def _local(self, name: str) -> bool:
        return name in self.lane.storage

    def binary(self, node: cst.BinaryOperation) -> ast.expr:
        left, right = self.facts.val(node.left), self.facts.val(node.right)
        if (left.zero_d or right.zero_d) and isinstance(node.operator, cst.Power):
            return numpy_calls.array_power(self, node)  # NumPy's array `**`, not pow
        floats = float_operands(node, self.facts, self.call_name)  # math.floor(x) / m: analysis/float_ints.py
        self.float_ints.update(floats)
        left, right = (dataclasses.replace(v, type=FLOAT) if o in floats else v
                       for v, o in ((left, node.left), (right, node.right)))
        impl = rules.BINARY[BINOPS[type(node.operator)]](left.type, right.type, left, right)
        impl = without_counter_checks(impl, node, self.lane.counters, self.lane.nonzero)  # analysis/counters.py
        impl = without_zero_divisor(impl, node, self.call_name)  # 1.0 + exp(-x) is never 0
        impl = self.lane.without_proven_divisor(impl, node)  # not under `if b >= a: return`
        affine = affine_parts(node, self.facts)
        if affine is not None:  # c*x + d: one exact range test on x instead of two checks
            x, c, d = affine
            lo, hi = rules.affine_range(c, d)
            t = self.lane.temp(self.expr(x))
            self.lane.check_node(fill("({0} < {1}) | ({0} > {2})", t, const(lo), const(hi)), overflow=True)
            return fill("{0} * {1} + {2}" if d >= 0 else "{0} * {1} - {2}", const(c), t, const(abs(d)))
        return self.apply(impl, [node.left, node.right], node)

    def apply(self, impl: rules.Impl, operands: list[cst.BaseExpression], node: cst.CSTNode | None = None) -> ast.expr:
        args = [self.expr(o) for o in operands]
        if impl.result is not BOOL:
            # A bool used as a number is an int, as in Python: Numba has no float(bool) and no
            # math.fmod(bool, ...).
            args = [call("int", a) if self.facts.type(o) is BOOL and not is_call_of(a, "int") else a
                    for a, o in zip(args, operands)]
        # exact=False: an approximate operation whose value decides nothing (analysis/decisions.py)
        # is marked for lane_vector_math (vector math, LLVM's pow); the others stay the C library's
        fast = not impl.exact and node is not None and self.lane.approximate(node)
        if not impl.checks:
            return scalar(impl.expr, *args, marked=fast)
        args = [self.lane.temp(a) for a in args]
        result = scalar(impl.expr, *args, marked=fast)
        preds = [(c.lane or c.pred, "int64 overflow" in c.why) for c in impl.checks]  # per-lane forms
        if any("{r}" in p for p, _ in preds):
            result = self.lane.temp(result, "r")
        for p, overflow in preds:
            self.lane.check(p, *args, r=result, overflow=overflow)
        return result

    def lazy(self, node: cst.BaseExpression, target: str, t: Type) -> bool:
        """Lower `node` into `target = ...` inside the current block; True if it needed statements."""
        pre, value = self.lane.captured(lambda: self.expr(node))
        self.lane.body += pre
        self.lane.emit(assign(target, self.coerce(value, self.facts.type(node), t)))  # type: ignore[arg-type]
        return bool(pre)

    def boolean(self, node: cst.BooleanOperation) -> ast.expr:
        t = self.facts.type(node)
        lt, rt = self.facts.type(node.left), self.facts.type(node.right)
        left = self.expr(node.left)
        # `0.5 and n`: an int result (the analysis knows 0.5 is true) whose float operand int()
        # would make false. Python tests the operand itself; so does the lane.
        truncated = t is INT and lt in (FLOAT, NUM)
        if truncated:
            left = self.lane.temp(left)
        pre, right = self.lane.captured(lambda: self.expr(node.right))
        is_and = isinstance(node.operator, cst.And)
        if not pre:
            if truncated:
                first, other = self.coerce(left, lt, t), self.coerce(right, rt, t)  # type: ignore[arg-type]
                yes, no = (other, first) if is_and else (first, other)
                return _pick(yes, self.truthy(left, lt), no)
            return ast.BoolOp(op=ast.And() if is_and else ast.Or(), values=[self.coerce(left, lt, t),
                                                                            self.coerce(right, rt, t)])  # type: ignore[arg-type]
        fresh = self.ctx.namer.fresh("c")
        self.lane.emit(assign(fresh, self.coerce(left, lt, t)))
        truth = self.truthy(left, lt) if truncated else self.truthy(name(fresh), t)
        block, _ = self.lane.captured(lambda: self.lazy(node.right, fresh, t))
        self.lane.emit(ast.If(test=truth if is_and else _not(truth), body=block, orelse=[]))  # type: ignore[arg-type]
        return name(fresh)

    def select(self, node: cst.IfExp) -> ast.expr:
        t = self.facts.type(node)
        test = self.expr(node.test)
        under = self.lane.under  # each side knows its test's outcome (analysis/divisor.py)
        yes_pre, yes = under(node.test, True, lambda: self.lane.captured(lambda: self.expr(node.body)))
        no_pre, no = under(node.test, False, lambda: self.lane.captured(lambda: self.expr(node.orelse)))
        if not yes_pre and not no_pre:
            return _pick(self.coerce(yes, self.facts.type(node.body), t), test,  # type: ignore[arg-type]
                         self.coerce(no, self.facts.type(node.orelse), t))  # type: ignore[arg-type]
        fresh = self.ctx.namer.fresh("c")
        then, _ = self.lane.captured(lambda: under(node.test, True, lambda: self.lazy(node.body, fresh, t)))
        other, _ = self.lane.captured(lambda: under(node.test, False, lambda: self.lazy(node.orelse, fresh, t)))
        self.lane.emit(ast.If(test=test, body=then, orelse=other))
        return name(fresh)

    def comparison(self, node: cst.Comparison) -> ast.expr:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        ops = [COMPARES[type(c.operator)] for c in node.comparisons]
        parts = []
        prev = self.lane.temp(self.expr(operands[0])) if len(ops) > 1 else self.expr(operands[0])
        for i, op in enumerate(ops):
            nxt = self.expr(operands[i + 1])
            if len(ops) > 1:
                nxt = self.lane.temp(nxt)
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            for c in impl.checks:  # chained: later checks only matter where earlier links hold; harmless
                self.lane.check(c.pred, self.lane.temp(prev), self.lane.temp(nxt))
            parts.append(fill(f"{{0}} {op} {{1}}", prev, nxt))
            prev = nxt
        return parts[0] if len(parts) == 1 else ast.BoolOp(op=ast.And(), values=parts)

    def numpy_function(self, node: cst.Call) -> str | None:
        """"arcsin" for `np.arcsin(...)` (NumPy imported under any name), else None."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or self._local(func.value.value):
            return None
        return func.attr.value if self.ctx.namespace.resolve(func.value.value).kind == "numpy" else None

    def call_name(self, node: cst.Call) -> str | None:
        """"math.exp", "abs"...; None for a call of a user function."""
        return None if node in self.facts.calls else self.ctx.call_name(node)
