"""Expressions of `ops_to_lanes`: each scalar operation of a lane, with its checks of `rules.py`
as early `return <zeros>, True` lines (the array text of a check turned into scalar text by
`scalarize`).

A check is the array check translated (`np.where` -> `x if c else y`, `~` -> `not`, `np.sin` ->
`math.sin`, ...), so both backends flag the same lanes::

    y = a / b if b != 0 else 0.0   ->   if (b != 0):
                                            if b == 0:
                                                return (0.0, True)
                                            c = (a / b)
                                        else:
                                            c = 0.0
                                        y = c

(an operand whose checks need statements becomes an `if` block: only the side Python evaluates
runs). Calls of other functions of the module go to their own lane functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.counters import affine_parts, without_counter_checks
from ...analysis.facts import BINOPS, COMPARES, UNOPS
from ...analysis.signs import sign, within_unit, without_zero_divisor
from ...core.text import literal
from ...core.types import BOOL, FLOAT, INT, NUM, TupleType, Type, join
from ...errors import VectorizeError
from ...frontend.fence_exprs import int_method, tuple_call_item
from ...rules import scalar as rules
from ..base import paren, static_check
from . import numpy_calls, tables
from .scalarize import scalar, scalar_marked

if TYPE_CHECKING:
    from .lane import Lane

# CPython computes these itself; the C library's results differ by far more than a few ulp.
NOT_CPYTHONS = {"math.gamma": "up to 8 ulp measured", "math.lgamma": "up to 45,838 ulp near its zeros at 1 and 2"}


def static_false(pred: str, constants: dict[str, object]) -> bool:
    return static_check(pred, constants) is False


class LaneExpressions:
    """Lowers the expressions of one lane function; statements, checks and temporaries are the
    `Lane`'s (`self.lane`), which holds this object."""

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self.ctx = lane.ctx
        self.facts = lane.facts

    def truthy(self, text: str, t: Type) -> str:
        return text if t is BOOL else f"{paren(text)} != 0"

    def coerce(self, text: str, src: Type, dst: Type) -> str:
        if src is dst or (src is FLOAT and dst is NUM) or isinstance(dst, TupleType):
            return text
        if dst is INT:
            return f"int({text})"
        if dst in (FLOAT, NUM):
            if src is BOOL:  # Numba has no float(bool); and a bool is exact in a float
                return f"float(int({text}))"
            if src.is_intlike and dst is NUM:
                t = self.lane.temp(text)
                self.lane.check(rules.beyond_exact(t))
                return f"float({t})"
            return f"float({text})"
        return text

    def expr(self, node: cst.BaseExpression) -> str:
        val = self.facts.vals.get(node)
        if tables.is_array(val) and not isinstance(node, cst.Name):  # only inside np.sum / np.prod
            tables.refuse_array(self, node)
        if val is not None and val.const is not None and not isinstance(val.type, TupleType) and not isinstance(node, cst.Name):
            return literal(val.const)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value
            glob = None if self._local(node.value) else self.ctx.namespace.resolve(node.value)
            if glob is not None and glob.kind == "constant":
                self.lane.module.constants[node.value] = glob.value
            stored = self.lane.storage.get(node.value) if glob is None else None
            if val is not None and stored is not None and stored is not val.type:
                # One Numba variable holds every value the name takes (an int that is a float
                # elsewhere is stored as a float, exactly: see coerce): read it as it is here.
                if val.type is INT:
                    return f"int({node.value})"
                if val.type is BOOL:
                    return f"({node.value} != 0)"
            return node.value
        if isinstance(node, cst.Integer | cst.Float):
            return literal(val.const)  # type: ignore[union-attr]
        if isinstance(node, cst.Attribute):
            return rules.MATH_CONSTANTS[node.attr.value].replace("np.", "math.")
        if isinstance(node, cst.BinaryOperation):
            left, right = self.facts.val(node.left), self.facts.val(node.right)
            if (left.zero_d or right.zero_d) and isinstance(node.operator, cst.Power):
                return numpy_calls.array_power(self, node)  # NumPy's array `**`, not pow
            impl = rules.BINARY[BINOPS[type(node.operator)]](left.type, right.type, left, right)
            impl = without_counter_checks(impl, node, self.lane.counters, self.lane.nonzero)  # analysis/counters.py
            impl = without_zero_divisor(impl, node, self.call_name)  # 1.0 + exp(-x) is never 0
            impl = self.lane.without_proven_divisor(impl, node)  # not under `if b >= a: return`
            affine = affine_parts(node, self.facts)
            if affine is not None:  # c*x + d: one exact range test on x instead of two checks
                x, c, d = affine
                lo, hi = rules.affine_range(c, d)
                text = self.lane.temp(self.expr(x))
                self.lane.check(f"({text} < {lo}) | ({text} > {hi})", overflow=True)
                return f"({c} * {text} {'+' if d >= 0 else '-'} {abs(d)})"
            return self.apply(impl, [node.left, node.right], node)
        if isinstance(node, cst.UnaryOperation):
            op = UNOPS[type(node.operator)]
            operand = self.facts.val(node.expression)
            if op == "not":
                return f"(not {paren(self.truthy(self.expr(node.expression), operand.type))})"
            return self.apply(rules.UNARY[op](operand.type, operand), [node.expression])
        if isinstance(node, cst.BooleanOperation):
            return self.boolean(node)
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.IfExp):
            return self.select(node)
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, cst.Subscript):
            item = tuple_call_item(node)
            if item is not None:  # math.modf(x)[1]: a constant index of a tuple-valued call
                return f"{paren(self.expr(node.value))}[{item}]"
            seq = self.expr(node.value)
            size = len(self.facts.val(node.value).type.items)  # type: ignore[union-attr]
            index = self.lane.temp(self.expr(node.slice[0].slice.value))  # type: ignore[attr-defined]
            self.lane.check(f"({index} < {-size}) | ({index} >= {size})")
            return f"{seq}[{index}]"
        raise AssertionError(type(node).__name__)

    def _local(self, name: str) -> bool:
        return name in self.lane.storage

    def apply(self, impl: rules.Impl, operands: list[cst.BaseExpression], node: cst.CSTNode | None = None) -> str:
        args = [paren(self.expr(o)) for o in operands]  # `-1 ** 0` would be -(1 ** 0)
        if impl.result is not BOOL:
            # A bool used as a number is an int, as in Python: Numba has no float(bool) and no
            # math.fmod(bool, ...).
            args = [f"int({a})" if self.facts.type(o) is BOOL and not a.startswith("int(") else a
                    for a, o in zip(args, operands)]
        # exact=False: an approximate operation whose value decides nothing (analysis/decisions.py)
        # is marked for lane_vector_math (vector math, LLVM's pow); the others stay the C library's
        fast = not impl.exact and node is not None and self.lane.approximate(node)
        if not impl.checks:
            return paren(scalar_marked(impl.expr, args) if fast else scalar(impl.expr.format(*args)))
        args = [self.lane.temp(a) for a in args]
        result = scalar_marked(impl.expr, args) if fast else scalar(impl.expr.format(*args))
        preds = [(c.lane or c.pred, "int64 overflow" in c.why) for c in impl.checks]  # per-lane forms
        if any("{r}" in p for p, _ in preds):
            result = self.lane.temp(result, "r")
        for p, overflow in preds:
            pred = p.format(*args, r=result)
            if not static_false(pred, self.lane.module.constants):
                self.lane.check(pred, overflow)
        return paren(result)

    def lazy(self, node: cst.BaseExpression, target: str, t: Type) -> bool:
        """Lower `node` into `target = ...` inside the current block; True if it needed statements."""
        pre, text = self.lane.captured(lambda: self.expr(node))
        self.lane.lines += pre
        self.lane.emit(f"{target} = {self.coerce(text, self.facts.type(node), t)}")
        return bool(pre)

    def boolean(self, node: cst.BooleanOperation) -> str:
        t = self.facts.type(node)
        lt, rt = self.facts.type(node.left), self.facts.type(node.right)
        left = self.expr(node.left)
        # `0.5 and n`: an int result (the analysis knows 0.5 is true) whose float operand int()
        # would make false. Python tests the operand itself; so does the lane.
        truncated = t is INT and lt in (FLOAT, NUM)
        if truncated:
            left = self.lane.temp(left)
        pre, right = self.lane.captured(lambda: self.expr(node.right))
        op = "and" if isinstance(node.operator, cst.And) else "or"
        if not pre:
            if truncated:
                first, other = self.coerce(left, lt, t), self.coerce(right, rt, t)
                yes, no = (other, first) if op == "and" else (first, other)
                return f"({yes} if {self.truthy(left, lt)} else {no})"
            return f"({self.coerce(left, lt, t)} {op} {self.coerce(right, rt, t)})"
        name = self.ctx.namer.fresh("c")
        self.lane.emit(f"{name} = {self.coerce(left, lt, t)}")
        truth = self.truthy(left, lt) if truncated else self.truthy(name, t)
        self.lane.emit(f"if {truth}:" if op == "and" else f"if not {paren(truth)}:")
        self.lane.depth += 1
        self.lazy(node.right, name, t)
        self.lane.depth -= 1
        return name

    def select(self, node: cst.IfExp) -> str:
        t = self.facts.type(node)
        test = self.expr(node.test)
        under = self.lane.under  # each side knows its test's outcome (analysis/divisor.py)
        yes_pre, yes = under(node.test, True, lambda: self.lane.captured(lambda: self.expr(node.body)))
        no_pre, no = under(node.test, False, lambda: self.lane.captured(lambda: self.expr(node.orelse)))
        if not yes_pre and not no_pre:
            return f"({self.coerce(yes, self.facts.type(node.body), t)} if {test} else {self.coerce(no, self.facts.type(node.orelse), t)})"
        name = self.ctx.namer.fresh("c")
        self.lane.emit(f"if {test}:")
        self.lane.depth += 1
        under(node.test, True, lambda: self.lazy(node.body, name, t))
        self.lane.depth -= 1
        self.lane.emit("else:")
        self.lane.depth += 1
        under(node.test, False, lambda: self.lazy(node.orelse, name, t))
        self.lane.depth -= 1
        return name

    def comparison(self, node: cst.Comparison) -> str:
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
                prev_t, nxt_t = self.lane.temp(prev), self.lane.temp(nxt)
                self.lane.check(c.pred.format(prev_t, nxt_t))
            parts.append(f"{paren(prev)} {op} {paren(nxt)}")
            prev = nxt
        return "(" + " and ".join(parts) + ")"

    def call(self, node: cst.Call) -> str:
        reduced = tables.reduction(self, node)  # np.sum(table * x ** table): passes/ops_to_lanes/tables.py
        if reduced is not None:
            return reduced
        glob = self.facts.calls.get(node)
        if glob is not None:
            return self.module_call(node, glob)
        method = int_method(node)
        if method is not None and node in self.facts.vals and self.numpy_function(node) is None:  # n.bit_length()
            receiver = node.func.value  # type: ignore[attr-defined]
            return self.apply(rules.CALLS[method]([self.facts.val(receiver)]), [receiver])
        numpy_name = self.numpy_function(node)
        if numpy_name is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("item", "astype"):
            return numpy_calls.method(self, node)  # x.item(), x.astype(np.int64) of a NumPy value of a number
        if numpy_name is not None:  # NumPy's semantics, not Python's
            return numpy_calls.lower(self, numpy_name, node)
        name = self.call_name(node)
        args = [a.value for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if name in NOT_CPYTHONS:
            raise VectorizeError(f"{name} on the Numba backend: Numba calls the C library, whose {name[5:]} "
                                 f"differs from CPython's own ({NOT_CPYTHONS[name]})",
                                 hint="use backend='numpy' (or 'auto'), which runs CPython's own per element")
        if name in ("min", "max"):
            return self.min_max(name, args)
        if name == "divmod" or (name == "pow" and len(args) == 2):  # pow(a, b, m): the op table's
            left, right = self.facts.val(args[0]), self.facts.val(args[1])
            rule = rules.BINARY["**"] if name == "pow" else rules.DIVMOD
            return self.apply(rule(left.type, right.type, left, right), args, node)
        if name in rules.KEYWORD_CALLS:
            impl = rules.KEYWORD_CALLS[name]([self.facts.val(a) for a in args], {k: self.facts.val(v) for k, v in keywords.items()})
            return self.apply(impl, args)
        operands = args + list(keywords.values())
        impl = rules.CALLS[name]([self.facts.val(o) for o in operands])
        if operands:  # exp(-x * x), sqrt(x * x + 1.0): checks that need the other sign go
            impl = rules.without_sign_checks(impl, sign(operands[0], self.call_name))
            impl = rules.without_unit_checks(impl, within_unit(operands[0], self.call_name))  # asin(sqrt(min(h, 1.0)))
        return self.apply(impl, operands, node)

    def numpy_function(self, node: cst.Call) -> str | None:
        """"arcsin" for `np.arcsin(...)` (NumPy imported under any name), else None."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or self._local(func.value.value):
            return None
        return func.attr.value if self.ctx.namespace.resolve(func.value.value).kind == "numpy" else None

    def call_name(self, node: cst.Call) -> str | None:
        """"math.exp", "abs"...; None for a call of a user function."""
        return None if node in self.facts.calls else self.ctx.call_name(node)

    def min_max(self, name: str, operands: list[cst.BaseExpression]) -> str:
        op = "<" if name == "min" else ">"
        acc = self.lane.temp(self.expr(operands[0]))
        acc_t = self.facts.type(operands[0])
        for operand in operands[1:]:
            nxt = self.lane.temp(self.expr(operand))
            nxt_t = self.facts.type(operand)
            for c in rules.compare(op, nxt_t, acc_t).checks:
                self.lane.check(c.pred.format(nxt, acc))
            t = join(acc_t, nxt_t)
            acc = self.lane.temp(f"({self.coerce(nxt, nxt_t, t)} if {nxt} {op} {acc} else {self.coerce(acc, acc_t, t)})")
            acc_t = t
        return acc

    def module_call(self, node: cst.Call, glob) -> str:
        callee = self.lane.module.lane_function(self.ctx, glob, node, self.facts)
        args = [self.expr(a.value) for a in node.args if a.keyword is None]
        parsed = self.ctx.callees.parse(glob)  # type: ignore[union-attr]
        keywords = {a.keyword.value: self.expr(a.value) for a in node.args if a.keyword is not None}
        from ...analysis.calls import default_value

        bound = self.ctx.callees.bind(parsed, args, keywords, lambda d: literal(default_value(d)))  # type: ignore[union-attr]
        result = self.ctx.namer.fresh(f"{glob.name}_result")
        if callee in self.lane.module.never_fail:
            self.lane.emit(f"{result} = {callee}({', '.join(bound.values())})")
            return result
        failed = self.ctx.namer.fresh("failed")
        self.lane.emit(f"{result}, {failed} = {callee}({', '.join(bound.values())})")
        self.lane.emit(f"if {failed}:")
        self.lane.emit(f"    {self.lane.fail}")
        return result
