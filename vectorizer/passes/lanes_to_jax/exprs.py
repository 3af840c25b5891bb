"""Expressions of lane code as JAX lane code: names through the current bindings (functional.py),
Python's `and`/`or`/`not`/`x if c else y` as the runtime's lane-wise forms, calls through the
runtime's vocabulary (`math.exp` -> `_vz.exp`, `float` -> `_vz.float_`...), a table's item by a
lane's index as `_vz.index`. Arithmetic and comparisons stay operators: the runtime's values
overload them (backends/jax/approx.py).

    (x if x > acc else acc)           ->  _vz.pick('>', x, acc)        (the lane code's max)
    (n < 100) and (zr * zr <= 4.0)    ->  _vz.and_(n < 100, zr * zr <= 4.0)
    int(np.floor(v))                  ->  _vz.int_(_vz.floor(v))

Anything the runtime cannot compute is refused (`Refusal`, with the lane line's origin).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .structure import VZ, call

# Calls the runtime implements: the lane code's name -> the runtime's (backends/jax/runtime.py).
MATH = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "atan2", "hypot",
        "copysign", "fabs", "isnan", "isinf", "isfinite", "fmod", "nextafter", "ldexp", "modf", "frexp", "pow")
NUMPY = {"exp2": "exp2", "rint": "rint", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "fmod": "fmod",
         "nextafter": "nextafter", "ldexp": "ldexp", "copysign": "copysign"}
BUILTINS = {"float": "float_", "int": "int_", "bool": "bool_", "min": "min_", "max": "max_", "round": "round_",
            "divmod": "divmod_", "abs": "abs_"}
HELPERS = {"_vz_pow": "pow_", "_vz_cbrt": "cbrt", "_vz_hypot": "hypot", "_vz_modf": "modf", "_vz_frexp": "frexp",
           "_vz_factorial": "factorial", "_vz_bit_length": "bit_length"}
# NumPy's own float64 loop of a ufunc on numbers (ops_to_lanes/numpy_calls.py): here the runtime's
# function of the same name, within XLA's measured bound like the C library's.
HELPERS.update({f"_vz_ufunc_{numpy}": runtime for numpy, runtime in {
    "exp": "exp", "expm1": "expm1", "exp2": "exp2", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "sqrt": "sqrt", "cbrt": "cbrt", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "arctan2": "atan2", "hypot": "hypot"}.items()})
RUNTIME_NAMES = frozenset({*MATH, "pow_", *NUMPY.values(), *BUILTINS.values(), *HELPERS.values()})
_NOT_IN_JAX = {
    "_vz_remainder": "math.remainder", "_vz_comb": "math.comb", "_vz_perm": "math.perm", "_vz_isqrt": "math.isqrt",
    "_vz_lcm": "math.lcm", "_vz_powmod": "pow(a, b, m)", "gcd": "math.gcd", "gamma": "math.gamma",
    "lgamma": "math.lgamma", "_vz_ufunc_power": "np.power", "_vz_ufunc_stepped_power": "np.power",
}
_PICK = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class Refusal(Exception):
    """A construct of the lane code the JAX runtime has no form for: `what`, in the user's words."""

    def __init__(self, what: str, hint: str = "") -> None:
        super().__init__(what)
        self.what, self.hint = what, hint


def _attr(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(VZ), name)


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))


def _unwrap(node: ast.expr) -> ast.expr:
    """`float(x)` -> x (a coercion the lane code adds around min/max operands)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1:
        return node.args[0]
    return node


class Expressions(ast.NodeTransformer):
    """Rewrites one expression; `name_of` maps a source name to its current binding, `callee`
    gives the arguments a call of a lane function of a callee takes first (the caller's path)."""

    def __init__(self, name_of: Callable[[str], str], callees: frozenset[str], path: Callable[[], ast.expr]) -> None:
        self.name_of = name_of
        self.callees = callees
        self.path = path

    def convert(self, node: ast.expr) -> ast.expr:
        return self.visit(node)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Name(self.name_of(node.id))

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id in ("math", "np") and node.attr in ("pi", "e", "tau", "inf", "nan"):
            return ast.Attribute(ast.Name("math"), node.attr)  # a Python float
        if isinstance(node.value, ast.Name) and node.value.id == VZ:
            return node
        raise Refusal(f"the attribute {ast.unparse(node)!r}")

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        left, right = self.visit(node.left), self.visit(node.right)
        if _literal(left) and _literal(right):  # `10 % 0` on a side no lane takes: the device's, not a Python error
            left = call("exact", left)
        return ast.BinOp(left, node.op, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return call("not_", operand)
        return ast.UnaryOp(node.op, operand)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        values = [self.visit(v) for v in node.values]
        out = values[-1]
        for v in reversed(values[:-1]):
            out = call(name, v, out)
        return out

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        if any(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in node.ops):
            raise Refusal(f"the comparison {ast.unparse(node)!r}")
        operands = [self.visit(o) for o in [node.left, *node.comparators]]
        parts: list[ast.expr] = [ast.Compare(operands[i], [op], [operands[i + 1]]) for i, op in enumerate(node.ops)]
        out = parts[-1]
        for p in reversed(parts[:-1]):
            out = call("and_", p, out)
        return out

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _PICK:
            left, right = ast.dump(test.left), ast.dump(test.comparators[0])
            if ast.dump(_unwrap(node.body)) == left and ast.dump(_unwrap(node.orelse)) == right:
                return call("pick", ast.Constant(_PICK[type(test.ops[0])]), self.visit(node.body), self.visit(node.orelse))
        return call("select", self.visit(test), self.visit(node.body), self.visit(node.orelse))

    def visit_Tuple(self, node: ast.Tuple) -> ast.expr:
        return ast.Tuple([self.visit(e) for e in node.elts])

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if isinstance(node.slice, ast.Slice):
            raise Refusal(f"the slice {ast.unparse(node)!r}")
        seq, index = self.visit(node.value), self.visit(node.slice)
        if isinstance(index, ast.Constant) or (isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant)):
            return ast.Subscript(seq, index)
        return call("index", seq, index)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if node.keywords:
            raise Refusal(f"the call {ast.unparse(node)!r} with keyword arguments")
        args = [self.visit(a) for a in node.args]
        return ast.Call(self._function(node.func), args, []) if not self._is_callee(node.func) else \
            ast.Call(ast.Name(node.func.id), [self.path(), *args], [])  # type: ignore[attr-defined]

    def _is_callee(self, func: ast.expr) -> bool:
        return isinstance(func, ast.Name) and func.id in self.callees

    def _function(self, func: ast.expr) -> ast.expr:
        if isinstance(func, ast.Name):
            if func.id in BUILTINS:
                return _attr(BUILTINS[func.id])
            if func.id in HELPERS:
                return _attr(HELPERS[func.id])
            if func.id == "len":
                return func
            what = _NOT_IN_JAX.get(func.id, f"{func.id}()")
            raise Refusal(f"{what} on the JAX backend", "no XLA form that keeps its exact result")
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module, name = func.value.id, func.attr
            if module == VZ:  # the runtime's own calls (structure.py writes them)
                return func
            if module == "math" and name in MATH:
                return _attr("pow_" if name == "pow" else name)
            if module == "np" and name in NUMPY:
                return _attr(NUMPY[name])
            what = _NOT_IN_JAX.get(name, f"{module}.{name}")
            raise Refusal(f"{what} on the JAX backend", "XLA has no function with CPython's bound for it")
        raise Refusal(f"the call {ast.unparse(func)}(...)")

    def generic_visit(self, node: ast.AST) -> ast.AST:
        raise Refusal(f"the expression {ast.unparse(node)!r}")  # type: ignore[arg-type]
