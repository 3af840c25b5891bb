"""NumPy expression text (a check or template of `rules.py`, valid on arrays) as scalar text that
Numba compiles with libm calls: `np.where(c, a, b)` -> `a if c else b`, `~` on a bool -> `not`,
`np.sin` -> `math.sin`, `_vz_power` -> C's pow, NumPy's erf/erfc -> libm's."""

from __future__ import annotations

import ast

from ...runtime import special

_NP_TO_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arctan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "exp": "exp", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "copysign": "copysign", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
}  # exp2 and cbrt are C's, through _vz_exp2 and _vz_cbrt (Numba has no math.exp2 or math.cbrt)
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
        if name in ("cbrt", "exp2"):  # C's, as math.cbrt and exp2: Numba's np.cbrt is a pow LLVM may fold
            return ast.Call(ast.Name(f"_vz_{name}"), [ast.Call(ast.Name("float"), [a], []) for a in node.args], [])
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
    """The scalar form of NumPy expression text."""
    return ast.unparse(_Scalarize().visit(ast.parse(text, mode="eval")))


# exact=False: the libm-class calls a template may compute approximately, by what lane code calls
# them (`math.exp`, C's pow `_vz_pow`, cbrt `_vz_cbrt` and exp2 `_vz_exp2`) -> the marker's name.
_FAST = {**{f"math.{n}": n for n in ("exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
                                      "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
                                      "erfc", "atan2")},
         "_vz_pow": "pow", "_vz_cbrt": "cbrt", "_vz_exp2": "exp2"}


def scalar_marked(template: str, args: list[str]) -> str:
    """`scalar(template.format(*args))` with the template's own libm-class calls (not those in
    `args`) written `_vz_fast.<fn>(...)`: values exact=False may compute approximately, which
    passes/lane_vector_math.py renames to vector math or LLVM's functions (never hypot, whose
    overflow check reads its result)."""
    names = [f"__vz_arg{i}__" for i in range(len(args))]
    tree = ast.parse(scalar(template.format(*names)), mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in _FAST:
            node.func = ast.Attribute(ast.Name("_vz_fast"), _FAST[ast.unparse(node.func)])
    out = ast.unparse(tree)
    for name, arg in zip(names, args):
        out = out.replace(name, arg)
    return out
