"""Lower a scalar function to a per-lane kernel for Numba: the user's own control flow, with every
check of `rules.py` turned into an early `return <zeros>, True` (the lane is flagged and re-run by
the scalar function, exactly as for the array code).

Before::

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

After::

    def _lane_collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                t = n // 2
            else:
                if abs(float(3) * float(n)) >= 9.2e+18:
                    return (0, True)
                ...
            n = t
            ...
        return (steps, False)

Laziness is kept: an operand of `and`/`or`/`x if c else y` whose checks need statements becomes an
`if` block. Checks are the array checks translated to scalar code (`np.where` -> `x if c else y`,
`~` -> `not`, `np.sin` -> `math.sin`, ...), so both backends flag the same lanes. Calls to other
functions of the module go to their own lane functions (one per argument-type signature).
"""

from __future__ import annotations

import ast

import libcst as cst

from .. import rules, special
from ..analysis.batched import BINOPS, COMPARES, UNOPS, Facts
from ..analysis.counters import affine_parts, counters, positive, without_counter_checks
from ..analysis.signs import sign
from ..analysis.types import BOOL, FLOAT, INT, NUM, TupleType, Type, Val, join
from ..errors import VectorizeError
from .base import Context, body_of, code, func_body, paren
from .numpy_fold import literal, static_check

ZERO = {BOOL: "False", INT: "0", FLOAT: "0.0", NUM: "0.0"}
_NP_TO_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "exp": "exp", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "hypot": "hypot",
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
        if isinstance(f, ast.Name) and f.id in special.HELPERS:  # NumPy's erf/erfc -> libm's
            return ast.Call(_math(f.id.removeprefix("_vz_")), node.args, [])
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np"):
            return node
        name = f.attr
        if name == "where":
            return ast.IfExp(node.args[0], node.args[1], node.args[2])
        if name in ("multiply", "power") and node.keywords:
            a, b = (ast.Call(ast.Name("float"), [x], []) for x in node.args)
            return ast.BinOp(a, ast.Mult(), b) if name == "multiply" else ast.Call(_math("pow"), [a, b], [])
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
            return ast.Call(_math("pow"), [ast.Call(ast.Name("float"), [a], []) for a in node.args], [])
        if name in _NP_TO_MATH:
            return ast.Call(_math(_NP_TO_MATH[name]), node.args, [])
        if name in _NP_SCALAR:
            return ast.Call(ast.Name(_NP_SCALAR[name]), node.args, [])
        return node  # np.floor, np.rint, np.fmod, np.nextafter...: Numba has scalar versions


def _math(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("math"), name)


def _is_boolish(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare | ast.BoolOp) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("isinf", "isnan", "isfinite"))


def scalar(text: str) -> str:
    return ast.unparse(_Scalarize().visit(ast.parse(text, mode="eval")))


class _Lanes:
    def __init__(self, ctx: Context, facts: Facts, lanes: LaneModule) -> None:
        self.ctx = ctx
        self.facts = facts
        self.module = lanes
        self.lines: list[str] = []
        self.depth = 1
        result = [v.type for v in facts.result]
        zeros = [ZERO[t] for t in result]  # type: ignore[index]
        self.fail = f"return (({', '.join(zeros)},), True)" if facts.returns_tuple else f"return ({zeros[0]}, True)"
        self.storage = _storage_types(facts, ctx.params)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.overflow_checks: set[str] = set()  # `if <int64 overflow test>:` lines, see if_stmt

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def temp(self, text: str, stem: str = "t") -> str:
        if text.isidentifier() or _number(text):
            return text
        name = self.ctx.namer.fresh(stem)
        self.emit(f"{name} = {text}")
        return name

    def check(self, pred: str, overflow: bool = False) -> None:
        if _static_false(pred, self.module.constants):
            return  # decided now: no lane can fail here
        line = f"if {scalar(pred)}:"
        if overflow:
            self.overflow_checks.add(line)
        self.emit(line)
        self.emit(f"    {self.fail}")

    def captured(self, run) -> tuple[list[str], str]:
        """Lower into a side buffer (to see whether an operand needs statements)."""
        saved, self.lines = self.lines, []
        try:
            text = run()
            return self.lines, text
        finally:
            self.lines = saved

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement]) -> None:
        for s in stmts:
            for line in getattr(s, "leading_lines", ()):
                if line.comment is not None:
                    self.emit(line.comment.value)
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    self.small(small)
            elif isinstance(s, cst.If):
                self.if_stmt(s)
            elif isinstance(s, cst.While):
                self.while_loop(s)
            elif isinstance(s, cst.For):
                self.for_loop(s)
            else:
                raise AssertionError(type(s).__name__)

    def nested(self, stmts: list[cst.BaseStatement]) -> None:
        self.depth += 1
        before = len(self.lines)
        self.block(stmts)
        if len(self.lines) == before:
            self.emit("pass")
        self.depth -= 1

    def small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            value = self.expr(small.value)
            if isinstance(target, cst.Name):
                src = self.facts.val(small.value).type
                dst = self.storage.get(target.value, src)
                value = self.coerce(value, src, dst)  # type: ignore[arg-type]
                self.emit(f"{target.value} = {value}")
            else:
                self.emit(f"{code(target)} = {value}")
        elif isinstance(small, cst.Return):
            self.ret(small.value)
        elif isinstance(small, cst.Raise):
            self.emit(self.fail)
        elif isinstance(small, cst.Assert):
            test = self.expr(small.test)
            self.emit(f"if not {paren(self.truthy(test, self.facts.type(small.test)))}:")
            self.emit(f"    {self.fail}")
        elif isinstance(small, cst.Break | cst.Continue | cst.Pass):
            self.emit(code(small).strip())
        else:
            raise AssertionError(type(small).__name__)

    def ret(self, value: cst.BaseExpression) -> None:
        items = value.elements if isinstance(value, cst.Tuple) else None
        if items is not None:
            parts = [self.coerce(self.expr(e.value), self.facts.type(e.value), t.type) for e, t in zip(items, self.facts.result)]  # type: ignore[arg-type]
            self.emit(f"return (({', '.join(parts)},), False)")
            return
        text = self.expr(value)
        val = self.facts.val(value)
        if isinstance(val.type, TupleType):
            self.emit(f"return ({text}, False)")
            return
        self.emit(f"return ({self.coerce(text, val.type, self.facts.result[0].type)}, False)")  # type: ignore[arg-type]

    def if_stmt(self, s: cst.If) -> None:
        test = self.expr(s.test)
        then, _ = self.captured(lambda: self.nested(body_of(s.body)))
        other, _ = self.captured(lambda: self.nested(body_of(s.orelse))) if s.orelse is not None else ([], "")
        # An int64 overflow test that opens a branch runs before the `if` instead: it holds only
        # beyond +-3e18 (a lane it flags on the other branch is re-run exactly, as any flagged
        # lane), and branches of plain arithmetic become selects. Collatz: 118 -> 80 ms a 1e6 call.
        for lines in (then, other):
            self.lines += self.hoist_overflow_checks(lines)
        self.emit(f"if {test}:")
        self.lines += then
        if s.orelse is not None:
            self.emit("else:")
            self.lines += other

    def hoist_overflow_checks(self, lines: list[str]) -> list[str]:
        """Take the overflow checks that open a branch's lines (after its comments) out of it."""
        out: list[str] = []
        i = next((k for k, ln in enumerate(lines) if not ln.lstrip().startswith("#")), len(lines))
        while i + 1 < len(lines) and lines[i].strip() in self.overflow_checks and lines[i + 1].strip() == self.fail:
            out += [ln[4:] for ln in lines[i:i + 2]]
            del lines[i:i + 2]
        if all(ln.lstrip().startswith("#") for ln in lines):
            lines.append("    " * (self.depth + 1) + "pass")
        return out

    def while_loop(self, s: cst.While) -> None:
        pre, test = self.captured(lambda: self.expr(s.test))
        if not pre:
            self.emit(f"while {test}:")
            self.nested(body_of(s.body))
            return
        # The test needs checks: evaluate it at the top of `while True` (`continue` comes back here).
        self.emit("while True:")
        self.depth += 1
        self.lines += ["    " + ln for ln in pre]
        self.emit(f"if not {paren(test)}:")
        self.emit("    break")
        self.depth -= 1
        self.nested(body_of(s.body))

    def for_loop(self, s: cst.For) -> None:
        it = s.iter
        if isinstance(it, cst.Call):
            args = [self.temp(self.expr(a.value)) for a in it.args]
            if len(args) == 3 and not _number(args[2]):
                self.check(f"{args[2]} == 0")  # range() arg 3 must not be zero
            head = f"range({', '.join(args)})"
        else:
            head = self.expr(it)
        self.emit(f"for {code(s.target)} in {head}:")
        self.nested(body_of(s.body))

    # -- expressions -------------------------------------------------------------------------
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
            if not _static_false(pred, self.module.constants):
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
        left = self.expr(node.left)
        pre, right = self.captured(lambda: self.expr(node.right))
        op = "and" if isinstance(node.operator, cst.And) else "or"
        if not pre:
            lt, rt = self.facts.type(node.left), self.facts.type(node.right)
            return f"({self.coerce(left, lt, t)} {op} {self.coerce(right, rt, t)})"
        name = self.ctx.namer.fresh("c")
        self.emit(f"{name} = {self.coerce(left, self.facts.type(node.left), t)}")
        truth = self.truthy(name, t)
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


# CPython computes these itself; the C library's results differ by far more than a few ulp.
NOT_CPYTHONS = {"math.gamma": "up to 8 ulp measured", "math.lgamma": "up to 45,838 ulp near its zeros at 1 and 2"}


def _storage_types(facts: Facts, params: dict[str, Val]) -> dict[str, Type]:
    """The type each local name is stored as where its paths meet (Numba unifies the same way)."""
    local = set(params)
    for env in facts.env_before.values():
        local |= env.keys()
    out: dict[str, Type] = {}
    for node, val in facts.vals.items():
        if isinstance(node, cst.Name) and node.value in local and isinstance(val.type, Type):
            out[node.value] = join(out[node.value], val.type) if node.value in out else val.type
    return out


def _static_false(pred: str, constants: dict[str, object]) -> bool:
    return static_check(pred, constants) is False


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


class LaneModule:
    """The lane functions of one specialization (the function and its callees) and constants."""

    def __init__(self) -> None:
        self.functions: dict[tuple, tuple[str, str]] = {}  # (callee, param types) -> (name, source)
        self.constants: dict[str, object] = {}
        self.infallible = False  # the main lane never fails: no flag array
        self.never_fail: set[str] = set()  # lane functions of callees that return their value alone

    def lane_function(self, ctx: Context, glob, node: cst.Call, facts: Facts) -> str:
        parsed = ctx.callees.parse(glob)  # type: ignore[union-attr]
        from ..analysis.calls import default_val

        args = [facts.val(a.value) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: facts.val(a.value) for a in node.args if a.keyword is not None}
        params = ctx.callees.bind(parsed, args, keywords, default_val)  # type: ignore[union-attr]
        key = (glob.name, tuple((v.type, v.batched) for v in params.values()))  # type: ignore[union-attr]
        if key not in self.functions:
            name = ctx.namer.fresh(f"_lane_{glob.name}")
            self.functions[key] = (name, "")
            from . import annotate_origins, canonicalize

            child = ctx.child(glob.name, {n: Val(v.type, False) for n, v in params.items()})  # type: ignore[union-attr]
            func = canonicalize.transform(annotate_origins.transform(parsed.func, parsed), child)
            self.functions[key] = (name, lower_lane(func, child, self, name))
        return self.functions[key][0]


def lower_lane(func: cst.FunctionDef, ctx: Context, module: LaneModule, name: str, main: bool = False) -> str:
    """One lane function. Lanes return (value, failed); one that can never fail returns the
    value alone: the main lane's driver loop is then simple enough for LLVM to vectorize, and a
    callee's caller has no exit to test after the call (a loop calling it stays one block)."""
    facts = ctx.analyze(func)
    lanes = _Lanes(ctx, facts, module)
    lanes.counters = counters(func)
    lanes.nonzero = positive(func, lanes.counters)
    lanes.block(func_body(func))
    lines = lanes.lines
    if not any(lanes.fail in line for line in lines):
        lines = [ln[: ln.index("return ")] + "return " + ln.strip()[len("return ("): -len(", False)")]
                 if ln.strip().startswith("return (") and ln.endswith(", False)") else ln for ln in lines]
        if main:
            module.infallible = True
        else:
            module.never_fail.add(name)
    params = ", ".join(ctx.params)
    return f"def {name}({params}):\n" + "\n".join(lines) + "\n"
