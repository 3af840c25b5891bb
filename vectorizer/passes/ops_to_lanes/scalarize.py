"""A NumPy template of `rules.py` (a check or an operation, valid on arrays) as a scalar tree that
Numba compiles with libm calls, a tree transform: `np.where(c, a, b)` -> `a if c else b`, `~` on
a bool -> `not`, `np.sin` -> `math.sin`, `_vz_power` -> C's pow, NumPy's erf/erfc -> libm's::

    np.where(~(x < 0), np.sin(x), 0.0)   ->   math.sin(x) if not x < 0 else 0.0

A template is transformed once (its holes `{0}`... are the lane's nodes, already scalar) and
filled per use (core/lanenodes.py)."""

from __future__ import annotations

import ast
from functools import lru_cache

from ...core.lanenodes import call, dotted, fill
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
    """NumPy expression (valid on arrays) -> scalar code Numba compiles with libm calls."""

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
            return call(f"math.{f.id.removeprefix('_vz_')}", *node.args)
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np"):
            return node
        name = f.attr
        if name == "where":
            return ast.IfExp(node.args[0], node.args[1], node.args[2])
        if name in ("multiply", "power") and node.keywords:
            a, b = (call("float", x) for x in node.args)
            return ast.BinOp(a, ast.Mult(), b) if name == "multiply" else _pow(node.args)
        if name == "take":
            return ast.Subscript(node.args[0], node.args[1], ast.Load())
        if name == "clip":
            return call("min", call("max", node.args[0], node.args[1]), node.args[2])
        if name in ("floor_divide", "remainder"):
            return ast.BinOp(node.args[0], ast.FloorDiv() if name == "floor_divide" else ast.Mod(), node.args[1])
        if name == "divmod":
            return call("divmod", *node.args)
        if name == "power":
            return _pow(node.args)
        if name == "hypot":
            return call("_vz_hypot", *node.args)
        if name in ("cbrt", "exp2"):  # C's, as math.cbrt and exp2: Numba's np.cbrt is a pow LLVM may fold
            return call(f"_vz_{name}", *(call("float", a) for a in node.args))
        if name in _NP_TO_MATH:
            return call(f"math.{_NP_TO_MATH[name]}", *node.args)
        if name in _NP_SCALAR:
            return call(_NP_SCALAR[name], *node.args)
        return node  # np.floor, np.rint, np.fmod, np.nextafter...: Numba has scalar versions


def _pow(args: list[ast.expr]) -> ast.Call:
    """C's pow, which CPython calls, where Numba's math.pow would let LLVM turn pow(x, 2.0) into
    x * x (codegen/numba_helpers.py)."""
    return call("_vz_pow", *(call("float", a) for a in args))


def _is_boolish(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare | ast.BoolOp) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("isinf", "isnan", "isfinite"))


# exact=False: the libm-class calls a template may compute approximately, by what lane code calls
# them (`math.exp`, C's pow `_vz_pow`, cbrt `_vz_cbrt` and exp2 `_vz_exp2`) -> the marker's name.
_FAST = {**{("math", n): n for n in ("exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
                                     "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
                                     "erfc", "atan2")},
         ("_vz_pow",): "pow", ("_vz_cbrt",): "cbrt", ("_vz_exp2",): "exp2"}


def _path(func: ast.expr) -> tuple[str, ...]:
    """("math", "exp") for `math.exp`, ("_vz_pow",) for `_vz_pow`, () for anything else."""
    if isinstance(func, ast.Name):
        return (func.id,)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return (func.value.id, func.attr)
    return ()


@lru_cache(maxsize=4096)
def _scalar_template(template: str, marked: bool) -> ast.expr:
    """A template of rules.py (holes `{0}`... `{r}`) in scalar form; with `marked`, its own
    libm-class calls written `_vz_fast.<fn>(...)` (the holes' are the operands' own)."""
    tree = _Scalarize().visit(fill(template))
    if marked:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _path(node.func) in _FAST:
                node.func = dotted(f"_vz_fast.{_FAST[_path(node.func)]}")
    return tree


def scalar(template: str, *args: ast.expr, r: ast.expr | None = None, marked: bool = False) -> ast.expr:
    """The scalar form of a NumPy template of rules.py over the lane's nodes `args` (and the
    result `r`): `np.where(c, a, b)` -> `a if c else b`, `~` of a bool -> `not`... With `marked`
    (exact=False: values that decide nothing), the template's own libm-class calls are written
    `_vz_fast.<fn>(...)`, which passes/lane_vector_math.py renames to vector math or LLVM's
    functions (never hypot, whose overflow check reads its result)."""
    return fill(_scalar_template(template, marked), *args, r=r, invert=_is_boolish)
