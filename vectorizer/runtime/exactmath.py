"""CPython's own `math` results for the NumPy backend, where a float decides something.

NumPy's float64 `power`, `exp`, `log`, `sin`, `tanh`... are SIMD kernels a few ulp from the C
library, and on some CPUs a lane's bits even depend on its position in the array. Within the
contract's ulp bound that is fine for a float that only flows to float results; it is not fine
where the value decides an int, a bool, a branch, a trip count or an exception
(analysis/decisions.py finds those operations). There, `ops_to_numpy` lowers the operation with
`exact_template`::

    np.power(x, 2, dtype=np.float64)   ->   _vz_exact(math.pow, x, 2)
    np.log({0}) / np.log({1})          ->   _vz_exact(math.log, {0}) / _vz_exact(math.log, {1})

`exact` (carried into generated modules as `_vz_exact`, NumPy and `math` only) calls the Python
function on every lane: bit-identical with the scalar function on every CPU. `x ** y` and
`math.pow(x, y)` give the same value wherever neither raises (both call C's pow after the same
special cases), so both become `math.pow`. A lane where the function raises gets inf (overflow)
or NaN: the rule's checks flag such lanes and the runtime re-runs them, or they are masked-off
lanes nobody reads.
Its cost is a Python call a lane (~0.1-1 us), paid only by the operations that decide. In
process, the engine binds `_vz_exact` to backends/numba/exactloops.py's `fast_exact` instead: the
same bits from Numba loops over libm where Numba is installed.
"""

from __future__ import annotations

import ast
import functools
import math

import numpy as np

# NumPy's function in a rule's expression -> the `math` function CPython calls for it.
NUMPY_TO_MATH = {
    "exp": "exp", "expm1": "expm1", "exp2": "exp2", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "cbrt": "cbrt", "arctan2": "atan2", "hypot": "hypot",
}
# Generated helpers that compute a `math` function approximately (runtime.power, special.py).
HELPER_TO_MATH = {"_vz_power": "pow", "_vz_erf": "erf", "_vz_erfc": "erfc"}


def exact(fn, *args):
    """fn(*lane) for each lane of the broadcast float64 arguments, by the Python function itself
    (so the bits are CPython's on every CPU); where it raises, inf for an OverflowError (the
    rules' overflow checks read |result|) and NaN otherwise. A NumPy scalar for scalars."""
    def safe(*lane):
        try:
            return fn(*lane)
        except OverflowError:
            return math.inf
        except (ValueError, ZeroDivisionError):
            return math.nan
    if all(np.ndim(a) == 0 for a in args):
        return np.float64(safe(*(float(a) for a in args)))
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in args))
    lists = [a.ravel().tolist() for a in arrays]
    try:
        values = list(map(fn, *lists))
    except (ValueError, OverflowError, ZeroDivisionError):  # some lane fails: go lane by lane
        values = list(map(safe, *lists))
    return np.array(values, dtype=np.float64).reshape(arrays[0].shape)


def c_pow(x, y):
    """C's pow(x, y): what `**` gives on float64 NumPy scalars (the elements of a per-example
    array), with IEEE's inf and NaN where Python's float power raises. For `exact`."""
    with np.errstate(all="ignore"):
        return float(np.float64(x) ** np.float64(y))


@functools.cache
def exact_template(expr: str) -> str | None:
    """A rule's NumPy expression (`{0}`, `{1}` for operands, `{r}` for the result) with every
    approximate call replaced by `_vz_exact(math.<fn>, ...)`; None if it has none."""
    slots = {f"__vz_slot_{s}__": "{" + s + "}" for s in ("0", "1", "2", "r")}
    text = expr
    for name, slot in slots.items():
        text = text.replace(slot, name)
    tree = ast.parse(text, mode="eval")
    changed = False

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            nonlocal changed
            self.generic_visit(node)
            fn = _math_name(node)
            if fn is None:
                return node
            changed = True
            target = ast.Attribute(ast.Name("math", ast.Load()), fn, ast.Load())
            return ast.Call(ast.Name("_vz_exact", ast.Load()), [target, *node.args], [])

    out = ast.unparse(Rewrite().visit(tree))
    if not changed:
        return None
    for name, slot in slots.items():
        out = out.replace(name, slot)
    return out


def approximate_calls(source: str) -> list[str]:
    """The `math` functions a generated module computes approximately (NumPy's `np.exp`, float
    `np.power`, `_vz_erfc`...), in order of first use."""
    found = [_math_name(node) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    return list(dict.fromkeys(name for name in found if name is not None))


def _math_name(node: ast.Call) -> str | None:
    """The `math` function an approximate call in a rule's expression stands for."""
    func = node.func
    if isinstance(func, ast.Name):
        return HELPER_TO_MATH.get(func.id)
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
        return None
    if func.attr == "power":
        # A float power (`dtype=np.float64`); without it, an int power, which is exact.
        float_power = any(k.arg == "dtype" and ast.unparse(k.value) == "np.float64" for k in node.keywords)
        return "pow" if float_power and len(node.args) == 2 else None
    return NUMPY_TO_MATH.get(func.attr) if not node.keywords else None
