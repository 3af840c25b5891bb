"""Expressions of `ops_to_lanes`: each scalar operation of a lane, with its checks of `rules.py`
as early `return <zeros>, True` lines, and the array text of a check turned into scalar text.

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

import ast

import libcst as cst

from ..analysis.batched import BINOPS, COMPARES, UNOPS, Facts
from ..analysis.counters import affine_parts, without_counter_checks
from ..analysis.signs import sign
from ..core.text import literal
from ..core.types import BOOL, FLOAT, INT, NUM, TupleType, Type, join
from ..errors import VectorizeError
from ..rules import scalar as rules
from ..runtime import special
from . import lane_numpy
from .base import Context, paren, static_check

_NP_TO_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "exp": "exp", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "copysign": "copysign", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
}  # cbrt and exp2 stay np.cbrt / np.exp2: Numba has no math.cbrt or math.exp2
_NP_SCALAR = {"int64": "int", "float64": "float", "bool_": "bool", "abs": "abs", "minimum": "min", "maximum": "max"}


class _Scalarize(ast.NodeTransformer):
    """NumPy expression text (valid on arrays) -> scalar text Numba compiles with libm calls."""

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Invert) and _is_boolish(node.operand):
            return ast.UnaryOp(ast.Not(), node.operand)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Call) and isinstance(f.func, ast.Attribute) and f.func.attr == "vectorize":
            return ast.Call(f.args[0], node.args, [])  # np.vectorize(math.gamma, ...)(x) -> math.gamma(x)
        if isinstance(f, ast.Name) and f.id == "_vz_power":  # runtime.power -> libm's pow
            return _pow(node.args)
        if isinstance(f, ast.Name) and f.id in special.HELPERS:  # NumPy's erf/erfc -> libm's
            return ast.Call(_math(f.id.removeprefix("_vz_")), node.args, [])
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np"):
            return node
        name = f.attr
        if name == "where":
            return ast.IfExp(node.args[0], node.args[1], node.args[2])
        if name in ("multiply", "power") and node.keywords:
            a, b = (ast.Call(ast.Name("float"), [x], []) for x in node.args)
            return ast.BinOp(a, ast.Mult(), b) if name == "multiply" else _pow(node.args)
        if name == "take":
            return ast.Subscript(node.args[0], node.args[1])
        if name == "clip":
            inner = ast.Call(ast.Name("max"), [node.args[0], node.args[1]], [])
            return ast.Call(ast.Name("min"), [inner, node.args[2]], [])
        if name in ("floor_divide", "remainder"):
            return ast.BinOp(node.args[0], ast.FloorDiv() if name == "floor_divide" else ast.Mod(), node.args[1])
        if name == "divmod":
            return ast.Call(ast.Name("divmod"), node.args, [])
        if name == "power":
            return _pow(node.args)
        if name == "hypot":
            return ast.Call(ast.Name("_vz_hypot"), node.args, [])
        if name in _NP_TO_MATH:
            return ast.Call(_math(_NP_TO_MATH[name]), node.args, [])
        if name in _NP_SCALAR:
            return ast.Call(ast.Name(_NP_SCALAR[name]), node.args, [])
        return node  # np.floor, np.rint, np.fmod, np.nextafter...: Numba has scalar versions


def _pow(args: list[ast.expr]) -> ast.Call:
    """C's pow, which CPython calls, where Numba's math.pow would let LLVM turn pow(x, 2.0) into
    x * x (codegen/numba_helpers.py)."""
    return ast.Call(ast.Name("_vz_pow"), [ast.Call(ast.Name("float"), [a], []) for a in args], [])


def _math(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("math"), name)


def _is_boolish(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare | ast.BoolOp) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("isinf", "isnan", "isfinite"))


def scalar(text: str) -> str:
    return ast.unparse(_Scalarize().visit(ast.parse(text, mode="eval")))


def static_false(pred: str, constants: dict[str, object]) -> bool:
    return static_check(pred, constants) is False


def is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# CPython computes these itself; the C library's results differ by far more than a few ulp.
NOT_CPYTHONS = {"math.gamma": "up to 8 ulp measured", "math.lgamma": "up to 45,838 ulp near its zeros at 1 and 2"}


class LaneExpressions:
    """Mixed into ops_to_lanes' lowering, whose `emit`, `temp`, `check`, `captured`, ... these use."""

    ctx: Context
    facts: Facts
    lines: list[str]
    depth: int
    fail: str
    storage: dict[str, Type]
    counters: frozenset[str]
    nonzero: frozenset[str]

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
                t = self.temp(text)
                self.check(rules.beyond_exact(t))
                return f"float({t})"
            return f"float({text})"
        return text

    def expr(self, node: cst.BaseExpression) -> str:
        val = self.facts.vals.get(node)
        if val is not None and val.const is not None and not isinstance(val.type, TupleType) and not isinstance(node, cst.Name):
            return literal(val.const)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value
            glob = None if self._local(node.value) else self.ctx.namespace.resolve(node.value)
            if glob is not None and glob.kind == "constant":
                self.module.constants[node.value] = glob.value
            stored = self.storage.get(node.value) if glob is None else None
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
            impl = rules.BINARY[BINOPS[type(node.operator)]](left.type, right.type, left, right)
            impl = without_counter_checks(impl, node, self.counters, self.nonzero)  # analysis/counters.py
            affine = affine_parts(node, self.facts)
            if affine is not None:  # c*x + d: one exact range test on x instead of two checks
                x, c, d = affine
                lo, hi = rules.affine_range(c, d)
                text = self.temp(self.expr(x))
                self.check(f"({text} < {lo}) | ({text} > {hi})", overflow=True)
                return f"({c} * {text} {'+' if d >= 0 else '-'} {abs(d)})"
            return self.apply(impl, [node.left, node.right])
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
            seq = self.expr(node.value)
            size = len(self.facts.val(node.value).type.items)  # type: ignore[union-attr]
            index = self.temp(self.expr(node.slice[0].slice.value))  # type: ignore[attr-defined]
            self.check(f"({index} < {-size}) | ({index} >= {size})")
            return f"{seq}[{index}]"
        raise AssertionError(type(node).__name__)

    def _local(self, name: str) -> bool:
        return name in self.storage

    def apply(self, impl: rules.Impl, operands: list[cst.BaseExpression]) -> str:
        args = [paren(self.expr(o)) for o in operands]  # `-1 ** 0` would be -(1 ** 0)
        if impl.result is not BOOL:
            # A bool used as a number is an int, as in Python: Numba has no float(bool) and no
            # math.fmod(bool, ...).
            args = [f"int({a})" if self.facts.type(o) is BOOL and not a.startswith("int(") else a
                    for a, o in zip(args, operands)]
        if not impl.checks:
            return paren(scalar(impl.expr.format(*args)))
        args = [self.temp(a) for a in args]
        result = scalar(impl.expr.format(*args))
        preds = [(c.lane or c.pred, "int64 overflow" in c.why) for c in impl.checks]  # per-lane forms
        if any("{r}" in p for p, _ in preds):
            result = self.temp(result, "r")
        for p, overflow in preds:
            pred = p.format(*args, r=result)
            if not static_false(pred, self.module.constants):
                self.check(pred, overflow)
        return paren(result)

    def lazy(self, node: cst.BaseExpression, target: str, t: Type) -> bool:
        """Lower `node` into `target = ...` inside the current block; True if it needed statements."""
        pre, text = self.captured(lambda: self.expr(node))
        self.lines += pre
        self.emit(f"{target} = {self.coerce(text, self.facts.type(node), t)}")
        return bool(pre)

    def boolean(self, node: cst.BooleanOperation) -> str:
        t = self.facts.type(node)
        lt, rt = self.facts.type(node.left), self.facts.type(node.right)
        left = self.expr(node.left)
        # `0.5 and n`: an int result (the analysis knows 0.5 is true) whose float operand int()
        # would make false. Python tests the operand itself; so does the lane.
        truncated = t is INT and lt in (FLOAT, NUM)
        if truncated:
            left = self.temp(left)
        pre, right = self.captured(lambda: self.expr(node.right))
        op = "and" if isinstance(node.operator, cst.And) else "or"
        if not pre:
            if truncated:
                first, other = self.coerce(left, lt, t), self.coerce(right, rt, t)
                yes, no = (other, first) if op == "and" else (first, other)
                return f"({yes} if {self.truthy(left, lt)} else {no})"
            return f"({self.coerce(left, lt, t)} {op} {self.coerce(right, rt, t)})"
        name = self.ctx.namer.fresh("c")
        self.emit(f"{name} = {self.coerce(left, lt, t)}")
        truth = self.truthy(left, lt) if truncated else self.truthy(name, t)
        self.emit(f"if {truth}:" if op == "and" else f"if not {paren(truth)}:")
        self.depth += 1
        self.lazy(node.right, name, t)
        self.depth -= 1
        return name

    def select(self, node: cst.IfExp) -> str:
        t = self.facts.type(node)
        test = self.expr(node.test)
        yes_pre, yes = self.captured(lambda: self.expr(node.body))
        no_pre, no = self.captured(lambda: self.expr(node.orelse))
        if not yes_pre and not no_pre:
            return f"({self.coerce(yes, self.facts.type(node.body), t)} if {test} else {self.coerce(no, self.facts.type(node.orelse), t)})"
        name = self.ctx.namer.fresh("c")
        self.emit(f"if {test}:")
        self.depth += 1
        self.lazy(node.body, name, t)
        self.depth -= 1
        self.emit("else:")
        self.depth += 1
        self.lazy(node.orelse, name, t)
        self.depth -= 1
        return name

    def comparison(self, node: cst.Comparison) -> str:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        ops = [COMPARES[type(c.operator)] for c in node.comparisons]
        parts = []
        prev = self.temp(self.expr(operands[0])) if len(ops) > 1 else self.expr(operands[0])
        for i, op in enumerate(ops):
            nxt = self.expr(operands[i + 1])
            if len(ops) > 1:
                nxt = self.temp(nxt)
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            for c in impl.checks:  # chained: later checks only matter where earlier links hold; harmless
                prev_t, nxt_t = self.temp(prev), self.temp(nxt)
                self.check(c.pred.format(prev_t, nxt_t))
            parts.append(f"{paren(prev)} {op} {paren(nxt)}")
            prev = nxt
        return "(" + " and ".join(parts) + ")"

    def call(self, node: cst.Call) -> str:
        glob = self.facts.calls.get(node)
        if glob is not None:
            return self.module_call(node, glob)
        numpy_name = self.numpy_function(node)
        if numpy_name is not None:  # NumPy's semantics, not Python's
            return lane_numpy.lower(self, numpy_name, node)
        name = self.call_name(node)
        args = [a.value for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if name in NOT_CPYTHONS:
            raise VectorizeError(f"{name} on the Numba backend: Numba calls the C library, whose {name[5:]} "
                                 f"differs from CPython's own ({NOT_CPYTHONS[name]})",
                                 hint="use backend='numpy' (or 'auto'), which runs CPython's own per element")
        if name in ("min", "max"):
            return self.min_max(name, args)
        if name in ("pow", "divmod"):
            left, right = self.facts.val(args[0]), self.facts.val(args[1])
            rule = rules.BINARY["**"] if name == "pow" else rules.DIVMOD
            return self.apply(rule(left.type, right.type, left, right), args)
        if name in rules.KEYWORD_CALLS:
            impl = rules.KEYWORD_CALLS[name]([self.facts.val(a) for a in args], {k: self.facts.val(v) for k, v in keywords.items()})
            return self.apply(impl, args)
        operands = args + list(keywords.values())
        impl = rules.CALLS[name]([self.facts.val(o) for o in operands])
        if operands:  # exp(-x * x), sqrt(x * x + 1.0): checks that need the other sign go
            impl = rules.without_sign_checks(impl, sign(operands[0], self.call_name))
        return self.apply(impl, operands)

    def numpy_function(self, node: cst.Call) -> str | None:
        """"arcsin" for `np.arcsin(...)` (NumPy imported under any name), else None."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or self._local(func.value.value):
            return None
        return func.attr.value if self.ctx.namespace.resolve(func.value.value).kind == "numpy" else None

    def call_name(self, node: cst.Call) -> str | None:
        """"math.exp", "abs"...; None for a call of a user function."""
        if node in self.facts.calls:
            return None
        func = node.func
        return f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else self.ctx.namespace.resolve(func.value).name  # type: ignore[union-attr]

    def min_max(self, name: str, operands: list[cst.BaseExpression]) -> str:
        op = "<" if name == "min" else ">"
        acc = self.temp(self.expr(operands[0]))
        acc_t = self.facts.type(operands[0])
        for operand in operands[1:]:
            nxt = self.temp(self.expr(operand))
            nxt_t = self.facts.type(operand)
            for c in rules.compare(op, nxt_t, acc_t).checks:
                self.check(c.pred.format(nxt, acc))
            t = join(acc_t, nxt_t)
            acc = self.temp(f"({self.coerce(nxt, nxt_t, t)} if {nxt} {op} {acc} else {self.coerce(acc, acc_t, t)})")
            acc_t = t
        return acc

    def module_call(self, node: cst.Call, glob) -> str:
        callee = self.module.lane_function(self.ctx, glob, node, self.facts)
        args = [self.expr(a.value) for a in node.args if a.keyword is None]
        parsed = self.ctx.callees.parse(glob)  # type: ignore[union-attr]
        keywords = {a.keyword.value: self.expr(a.value) for a in node.args if a.keyword is not None}
        from ..analysis.calls import default_value

        bound = self.ctx.callees.bind(parsed, args, keywords, lambda d: literal(default_value(d)))  # type: ignore[union-attr]
        result = self.ctx.namer.fresh(f"{glob.name}_result")
        if callee in self.module.never_fail:
            self.emit(f"{result} = {callee}({', '.join(bound.values())})")
            return result
        failed = self.ctx.namer.fresh("failed")
        self.emit(f"{result}, {failed} = {callee}({', '.join(bound.values())})")
        self.emit(f"if {failed}:")
        self.emit(f"    {self.fail}")
        return result
