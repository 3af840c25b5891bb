"""Expressions of `ops_to_numpy`: names, constants, operations through the rule table (with
their flag checks), calls, and the storage changes (`coerce`) between types. Choices between
values (`and`, `or`, conditional expressions, comparisons, `min`/`max`) are `choices.py`'s."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.counters import affine_parts, without_counter_checks
from ...analysis.facts import BINOPS, UNOPS
from ...analysis.float_ints import float_operands, float_valued
from ...analysis.int_bounds import EXACT, exact_ints
from ...analysis.signs import sign, within_unit, without_zero_divisor
from ...analysis.witnesses import NEGATIVE_CHECK
from ...core import nodes as n
from ...core.nodes import Mask
from ...core.types import BOOL, FLOAT, INT, NUM, ArrayType, Type
from ...errors import VectorizeError
from ...frontend.fence_attributes import int_method
from ...frontend.fence_exprs import tuple_call_item
from ...rules import scalar as rules
from ...runtime.exactmath import exact_template
from ...runtime.helpers import HEAVY_CALLS
from .choices import decided_side
from .fold import FoldRaised, NoFold
from .loops import NP_SCALAR

if TYPE_CHECKING:
    from .lowering import Lowering


MAX_NESTING = 50  # operations nested in one generated expression (CPython's parser stops at 200 brackets)


class Expressions:
    """Lowers one expression to array code under a mask; checks go through `low.check`."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.ctx = low.ctx
        self.facts = low.facts
        self.float_ints: set[cst.BaseExpression] = set()  # calls lowered as floats (analysis/float_ints.py)

    # -- expressions -------------------------------------------------------------------------
    def lower(self, node: cst.BaseExpression, mask: Mask) -> ast.expr:
        out = self._fold_or_lower(node, mask)
        if node in self.low.witness_nodes:  # a sqrt's sign check tests it later: give it a name
            out = self.low.witness_names[node] = self.low.temp(out)
        elif n.depth(out) > MAX_NESTING:
            # A long chain `a + b + c + ...` nests an operation deeper each term: past CPython's
            # limits (200 nested brackets, its recursion in the compiler) the module would not
            # compile. A name for the operand so far keeps the order of evaluation (it is
            # computed first either way).
            out = self.low.temp(out)
        return out

    def _fold_or_lower(self, node: cst.BaseExpression, mask: Mask) -> ast.expr:
        if isinstance(node, cst.Name) and node.value not in self.low.facts_locals() and node.value not in ("True", "False"):
            return self._lower(node, mask)  # a module constant keeps its name (emitted at module level)
        try:
            return n.const(self.low.folder.fold(node))
        except NoFold:
            return self._lower(node, mask)
        except FoldRaised:
            self.low.check(mask, n.constant(True))  # every lane evaluating it raises: the re-run reports it
            result = self.facts.vals[node].type
            return n.const({BOOL: False, INT: 0}.get(result, 0.0))  # type: ignore[call-overload]

    def _lower(self, node: cst.BaseExpression, mask: Mask) -> ast.expr:
        val = self.facts.val(node)
        if isinstance(node, cst.Name):
            glob_val = self.ctx.namespace.resolve(node.value) if node.value not in self.low.facts_locals() else None
            if glob_val is not None and glob_val.kind == "constant":
                self.ctx.constants[node.value] = glob_val.value
            return n.name(node.value)
        if isinstance(node, cst.Attribute):
            if node.attr.value in rules.MATH_CONSTANTS and isinstance(node.value, cst.Name) \
                    and self.ctx.namespace.resolve(node.value.value).kind in ("math", "numpy"):
                return n.fill(rules.MATH_CONSTANTS[node.attr.value])
            return self.low.arrays.attribute(node, mask)
        if self.is_numpy(node):
            return self.numpy_expr(node, mask)
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS[type(node.operator)]
            left, right = self.facts.val(node.left), self.facts.val(node.right)
            # math.floor(x) / m: the int read as the float it came from (analysis/float_ints.py)
            floats = float_operands(node, self.facts, self.call_name, lambda a: self.facts.val(a).batched)
            self.float_ints.update(floats)
            left, right = (dataclasses.replace(v, type=FLOAT) if o in floats else v
                           for v, o in ((left, node.left), (right, node.right)))
            impl = self.exactly(rules.BINARY[op](left.type, right.type, left, right), node)
            impl = without_counter_checks(impl, node, self.low.counters, self.low.nonzero)  # analysis/counters.py
            impl = without_zero_divisor(impl, node, self.call_name)  # 1.0 + exp(-x) is never 0
            if impl.checks and exact_ints(node, self.low.int_bounds, self.facts, self.call_name):
                impl = dataclasses.replace(impl, checks=tuple(c for c in impl.checks if c.why != rules.NUM_EXACT_WHY))
            affine = affine_parts(node, self.facts)
            if affine is not None:  # c*x + d: one exact range test on x instead of two checks
                x, c, d = affine
                lo, hi = rules.affine_range(c, d)
                t = self.low.temp(self.lower(x, mask))
                check = self.low.check if self.facts.val(x).batched else self.low.check_uniform
                check(mask, n.fill("({0} < {1}) | ({0} > {2})", t, n.const(lo), n.const(hi)))
                return n.binop(n.binop(n.const(c), "*", t), "+" if d >= 0 else "-", n.const(abs(d)))
            return self.apply(impl, [node.left, node.right], mask)
        if isinstance(node, cst.UnaryOperation):
            op = UNOPS[type(node.operator)]
            operand = self.facts.val(node.expression)
            if op == "not" and not operand.batched:
                return n.unary("not", self.lower(node.expression, mask))
            return self.apply(rules.UNARY[op](operand.type, operand), [node.expression], mask)
        if isinstance(node, cst.BooleanOperation):
            return self.low.choices.boolean(node, mask)
        if isinstance(node, cst.Comparison):
            return self.low.choices.comparison(node, mask)
        if isinstance(node, cst.IfExp):
            test = self.facts.val(node.test)
            decided = decided_side(test, node.orelse, node.body)
            if decided is not None:  # `a if True else b` is `a`, typed as `a` by the analysis
                return self.lower(decided, mask)
            cond = self.lower(node.test, mask)
            if test.batched:
                # The test becomes the mask of each side: a number's truth value, as a bool array.
                cond = self.low.temp(cond if test.type is BOOL else self.truthy(cond, test.type), "c")
            # A uniform test picks one side, batched or not: a Python conditional, never `~` on it.
            return self.low.choices.select(cond, node.body, node.orelse, val.type, mask, batched=test.batched)
        if isinstance(node, cst.Call):
            return self.call(node, mask)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, mask)
        raise VectorizeError(f"cannot lower {type(node).__name__} (vectorizer bug)")

    def is_numpy(self, node: cst.BaseExpression) -> bool:
        """An operation on arrays or NumPy scalars (NumPy semantics, no Python checks)."""
        vals = []
        if isinstance(node, cst.BinaryOperation):
            vals = [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation) and UNOPS[type(node.operator)] != "not":
            vals = [node.expression]
        elif isinstance(node, cst.Comparison):
            vals = [node.left] + [c.comparator for c in node.comparisons]
        elif isinstance(node, cst.Subscript):
            return isinstance(self.facts.val(node.value).type, ArrayType)
        elif isinstance(node, cst.Call):
            return self.array_call(node) is not None
        return any(isinstance(self.facts.val(v).type, ArrayType) or self.facts.val(v).numpy for v in vals)

    def array_call(self, node: cst.Call) -> str | None:
        func = node.func
        if self.int_method(node) is not None:
            return None
        if isinstance(func, cst.Attribute):
            base = func.value
            if isinstance(base, cst.Attribute) and base.attr.value == "linalg":
                return f"np.linalg.{func.attr.value}"
            if isinstance(base, cst.Name) and base.value not in self.low.facts_locals():
                kind = self.ctx.namespace.resolve(base.value).kind
                return f"np.{func.attr.value}" if kind == "numpy" else None
            return f"np.{func.attr.value}"  # a method of an array
        if isinstance(func, cst.Name):
            name = self.ctx.namespace.resolve(func.value).name
            args = [a.value for a in node.args]
            if name in ("len", "abs") and args and isinstance(self.facts.val(args[0]).type, ArrayType):
                return name
        return None

    def numpy_expr(self, node: cst.BaseExpression, mask: Mask) -> ast.expr:
        if isinstance(node, cst.BinaryOperation):
            return self.low.arrays.binary(node, mask)
        if isinstance(node, cst.UnaryOperation):
            return self.low.arrays.unary(node, mask)
        if isinstance(node, cst.Comparison):
            return self.low.arrays.compare(node, mask)
        if isinstance(node, cst.Subscript):
            return self.low.arrays.index(node, mask)
        name = self.array_call(node)  # type: ignore[arg-type]
        if name == "len":
            return self.low.arrays.length(node.args[0].value, mask)  # type: ignore[attr-defined]
        return self.low.arrays.call("np.abs" if name == "abs" else name, node, mask)  # type: ignore[arg-type]

    def apply(self, impl: rules.Impl, operands: list[cst.BaseExpression], mask: Mask) -> ast.expr:
        """The rule's template filled with the lowered operands, and its checks."""
        args = [self.lower(o, mask) for o in operands]
        # An operand the expression uses twice is computed once.
        args = [self.low.temp(a) if impl.expr.count(f"{{{i}}}") > 1 else a for i, a in enumerate(args)]
        if not impl.checks:
            return self.on_mask(n.fill(impl.expr, *args), impl, operands, mask)
        args = [self.low.temp(a) for a in args]
        uses_result = any("{r}" in c.pred for c in impl.checks)
        uniform = not any(self.facts.vals[o].batched for o in operands if o in self.facts.vals)
        values = args
        if uniform and mask is not None:
            # Only some lanes get here, and the check flags them: the value must not raise for the
            # others, as Python's `1 / 0` would. NumPy scalars give inf/nan instead (unobserved).
            values = [self.as_numpy_scalar(a, o) for a, o in zip(args, operands)] + args[len(operands):]
        result = self.on_mask(n.fill(impl.expr, *values), impl, operands, mask)
        if uses_result:
            result = self.low.temp(result, "r")
        for c in impl.checks:
            # A uniform int is a Python int, which never wraps: test the operands (c.lane), not
            # the wrapped result an int64 would give.
            pred = (c.lane or c.pred) if uniform else c.pred
            if not uniform and c.pred == NEGATIVE_CHECK and operands[0] in self.low.witnesses:
                self.low.check(mask, self.witness_test(operands[0]))
                continue
            (self.low.check_uniform if uniform else self.low.check)(mask, n.fill(pred, *args, r=result))
        return result

    def witness_test(self, operand: cst.BaseExpression) -> ast.expr:
        """The lanes where a sqrt operand may be negative, by its witness (analysis/witnesses.py):
        a superset of those, which the scalar re-run settles. Every lane if a witness's value was
        not lowered to a name (it always is: that would be a vectorizer bug, slow but not wrong)."""
        tests = []
        for term in self.low.witnesses[operand]:
            value = n.name(term.node.value) if isinstance(term.node, cst.Name) else self.low.witness_names.get(term.node)
            if value is None:
                return n.constant(True)
            tests.append(n.fill(term.text("{0}"), value))
        return n.chain("|", tests) if tests else n.constant(False)

    def on_mask(self, expr: ast.expr, impl: rules.Impl, operands: list[cst.BaseExpression], mask: Mask) -> ast.expr:
        """A costly call (`np.exp(...)`, `_vz_power(...)`) of lanes under a batched mask, outside
        loops, as `_vz_masked(mask, fn, ...)`: computed on those lanes alone when at most half the
        lanes take the branch (runtime.masked). Lanes outside the mask are never read: a masked
        block's values reach other lanes only through a select on its mask."""
        if mask is None or self.low.loop_depth or impl.result is not FLOAT or not isinstance(expr, ast.Call):
            return expr
        func = n.path(expr.func)  # np.exp, or a generated helper: _vz_erfc, _vz_power
        if func is None or not func.startswith(("np.", "_vz_")):
            return expr
        vals = [self.facts.vals.get(o) for o in operands]
        if not any(v is not None and v.batched for v in vals) or any(v is None or not isinstance(v.type, Type) for v in vals):
            return expr
        if any(isinstance(a, ast.Starred) for a in expr.args) or any(k.arg is None for k in expr.keywords):
            return expr
        if func.removeprefix("np.") not in HEAVY_CALLS and func != "_vz_exact":
            return expr
        return ast.Call(func=n.name("_vz_masked"), args=[mask, expr.func, *expr.args], keywords=expr.keywords)

    def as_numpy_scalar(self, value: ast.expr, node: cst.BaseExpression) -> ast.expr:
        t = self.facts.vals[node].type if node in self.facts.vals else None
        return n.call(f"np.{NP_SCALAR[t]}", value) if t in NP_SCALAR else value

    def numpy_scalar(self, value: ast.expr, node: cst.BaseExpression, t: Type, batched_use: bool = False) -> ast.expr:
        """A literal or module constant picked by a uniform select becomes a NumPy scalar, so the
        arithmetic that follows has NumPy's (checked) semantics, not Python's (which raises). So
        does any uniform value picked where the result is batched (`batched_use`: `v in T or x > 0`
        picks `v in T` for every lane when it holds), since the code after it takes it for an
        array: a Python bool's `~` is -1 or -2, an int, which `flag |= ~m & ...` cannot store and
        `not c` reads as true; a Python int never wraps, so the checks on the int64 it stands for
        do not flag the lanes; a Python float raises where a float64 gives inf."""
        val = self.facts.vals.get(node)
        if val is None or val.batched:
            return value
        if val.const is not None or self.low.folder.folded(node) is not None or (batched_use and isinstance(t, Type)):
            scalar = f"np.{NP_SCALAR[t]}" if isinstance(t, Type) else f"np.{t.dtype}"
            return value if n.calls(value, scalar) else n.call(scalar, value)
        return value

    def truthy(self, value: ast.expr, t: Type) -> ast.expr:
        return n.fill(rules.truthy(t), value)

    def coerce(self, value: ast.expr, src: Type, dst: Type, mask: Mask) -> ast.expr:
        if src is dst or (src is FLOAT and dst is NUM):
            return value
        if dst is INT:  # from BOOL
            return n.call("np.int64", value)
        if dst is NUM and src is BOOL:
            return n.call("np.float64", value)  # 0.0 or 1.0: exact
        if dst is NUM and src.is_intlike:
            literal = n.int_literal(value)
            if literal is not None and abs(literal) <= 2**53:
                return n.const(float(literal))  # an exact int literal: 0 -> 0.0
            if isinstance(value, ast.Name) and self.low.int_bounds.get(value.id, EXACT + 1) <= EXACT:
                return n.call("np.float64", value)  # its ints are exact there (analysis/int_bounds.py)
            t = self.low.temp(value)
            self.low.check(mask, n.fill(rules.beyond_exact("{0}"), t))
            return n.call("np.float64", t)
        if dst is FLOAT:
            return n.call("np.float64", value)
        raise AssertionError((src, dst))

    def exactly(self, impl: rules.Impl, node: cst.CSTNode) -> rules.Impl:
        """`impl`, computed by CPython's `math` (exactmath.py) everywhere with exact=True (the
        default), else where its value decides an int, a bool, a branch, a trip count or an
        exception (analysis/decisions.py)."""
        if impl.exact or (node not in self.low.decided and not self.ctx.options.exact):
            return impl
        expr = exact_template(impl.expr)
        return impl if expr is None else dataclasses.replace(impl, expr=expr, exact=True)

    def call_name(self, node: cst.Call) -> str:
        return self.ctx.call_name(node)

    def int_method(self, node: cst.Call) -> str | None:
        """"int.bit_length" for `n.bit_length()` on an int value (the analysis typed it so)."""
        method = int_method(node)
        func = node.func
        return method if method is not None and not isinstance(self.facts.val(func.value).type, ArrayType) else None  # type: ignore[attr-defined]

    def call(self, node: cst.Call, mask: Mask) -> ast.expr:
        if node in self.float_ints:  # an int read at once as a float: analysis/float_ints.py
            arg = node.args[0].value
            return self.apply(rules.float_valued_int(float_valued(node, self.facts, self.call_name)), [arg], mask)  # type: ignore[arg-type]
        method = self.int_method(node)
        if method is not None:  # n.bit_length(): the receiver is the operand
            receiver = node.func.value  # type: ignore[attr-defined]
            return self.apply(rules.CALLS[method]([self.facts.val(receiver)]), [receiver], mask)
        name = self.call_name(node)
        args = [a for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        val = self.facts.val(node)
        if name in ("min", "max"):
            return self.low.choices.min_max(name, [a.value for a in args], val.type, mask, val.batched)
        if name == "pow" and len(args) == 2:  # pow(a, b, m) is the op table's "pow"
            left, right = self.facts.val(args[0].value), self.facts.val(args[1].value)
            impl = self.exactly(rules.BINARY["**"](left.type, right.type, left, right), node)
            return self.apply(impl, [a.value for a in args], mask)
        if name == "divmod":
            left, right = self.facts.val(args[0].value), self.facts.val(args[1].value)
            return self.apply(rules.DIVMOD(left.type, right.type, left, right), [a.value for a in args], mask)
        vals = [self.facts.val(a.value) for a in args]
        if name in rules.KEYWORD_CALLS:
            impl = rules.KEYWORD_CALLS[name](vals, {k: self.facts.val(a.value) for k, a in keywords.items()})
            return self.apply(impl, [a.value for a in args], mask)
        operands = [a.value for a in args] + [a.value for a in keywords.values()]
        impl = self.exactly(rules.CALLS[name]([self.facts.val(o) for o in operands]), node)
        if operands:  # log1p(exp(x)), exp(-x * x), exp(-x if x > 0 else x): checks that need the other sign go
            impl = rules.without_sign_checks(impl, sign(operands[0], self.call_name, self.low.signs))
            impl = rules.without_unit_checks(impl, within_unit(operands[0], self.call_name, self.low.signs))
        return self.apply(impl, operands, mask)

    def subscript(self, node: cst.Subscript, mask: Mask) -> ast.expr:
        item = tuple_call_item(node)
        if item is not None:  # math.modf(x)[1]: a constant index of a tuple-valued call
            return n.subscript(self.lower(node.value, mask), [n.const(item)])
        seq = self.lower(node.value, mask)
        size = len(self.facts.val(node.value).type.items)  # type: ignore[union-attr]
        index = self.low.temp(self.lower(node.slice[0].slice.value, mask))  # type: ignore[attr-defined]
        self.low.check(mask, n.fill("({0} < {1}) | ({0} >= {2})", index, n.const(-size), n.const(size)))
        return n.fill("np.take({0}, np.clip({1}, {2}, {3}))", seq, index, n.const(-size), n.const(size - 1))

