"""With `exact=False`: libm-class NumPy calls go through glibc's vector math (vecmath.py), except
those NumPy runs as AVX-512 SIMD kernels on this CPU (exp, log, power...: faster still).

Before::

    t_4 = _vz_masked(~m, np.log, t_3) + (rate + 0.5 * vol * vol) * t
    norm_cdf_result = 0.5 * _vz_masked(~m, _vz_erfc, t_7)
    flag |= (y >= 0) & (np.abs(np.power(x, y, dtype=np.float64)) > 9007199254740992)

After::

    t_4 = _vz_masked(~m, _vz_vm.log, t_3) + (rate + 0.5 * vol * vol) * t
    norm_cdf_result = 0.5 * _vz_masked(~m, _vz_vm.erfc, t_7)
    flag |= (y >= 0) & (np.abs(np.power(x, y, dtype=np.float64)) > 9007199254740992)

A function is renamed wherever it is referenced (called, or handed to `_vz_masked`), except:

* in the statements that compute the flags: a check compares its estimate with a threshold, and
  whether a lane is re-run must not move with the last bits of a vector function;
* `np.power` without `dtype=np.float64`, which may be an int power (int64 in NumPy, as Python's
  ints; libmvec's `pow` is a float one), and `np.power` by a literal 2, 0.5, 1, 0 or -1, which
  NumPy computes as x * x, sqrt... (exact, and ~10x cheaper than any pow).

The module imports `_vz_vm` (codegen/emit.py). Last in the list: a tree transform of the finished
array code (core/pyast.py).
"""

from __future__ import annotations

import ast

from ..backends.numba import vecmath
from ..backends.numba.vecmath import ALIASES, CHEAP_EXPONENTS, FUNCTIONS, NUMPY_SIMD
from ..core.pyast import ArrayCode
from .base import Context


def _name(node: ast.AST) -> str | None:
    """The vecmath function `node` refers to (`np.exp`, `_vz_erfc`), if any: not one NumPy runs
    as an AVX-512 SIMD kernel here (`vecmath.NUMPY_SIMD`), which is faster than vector math."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np" \
            and node.attr in FUNCTIONS:
        name = node.attr
    else:
        name = ALIASES.get(node.id) if isinstance(node, ast.Name) else None
    return None if name in NUMPY_SIMD and vecmath.numpy_simd() else name


def _is_np(node: ast.AST, attr: str) -> bool:
    """`np.<attr>`."""
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "np"


def cheap_exponent(node: ast.AST) -> bool:
    """A literal exponent computed without pow (2, 0.5, -1...; lane code writes `float(2)`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" \
            and len(node.args) == 1:
        node = node.args[0]
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    if negated:
        node = node.operand
    value = node.value if isinstance(node, ast.Constant) else None
    return type(value) in (int, float) and (-value if negated else value) in CHEAP_EXPONENTS


def _float_powers(tree: ast.AST) -> set[int]:
    """The ids of the `np.power` / `_vz_power` references to rename: called (directly or through
    `_vz_masked(mask, fn, x, y)`) in float64 and by an exponent that is not a cheap literal."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn, args = node.func, node.args
        if isinstance(fn, ast.Name) and fn.id == "_vz_masked" and len(args) > 1:
            fn, args = args[1], args[2:]
        if _name(fn) != "power" or len(args) != 2:
            continue
        in_float = isinstance(fn, ast.Name) or any(  # `_vz_power` is float by construction
            k.arg == "dtype" and _is_np(k.value, "float64") for k in node.keywords)
        if in_float and not cheap_exponent(args[1]):
            found.add(id(fn))
    return found


class _Rename(ast.NodeTransformer):
    """Each reference to a vecmath function becomes `_vz_vm.<name>`, except in the statements
    that compute the flags (and `np.power` outside `powers`)."""

    def __init__(self, flag: str | None, powers: set[int]) -> None:
        self.flag, self.powers = flag, powers

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.AugAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AugAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == self.flag for t in targets):
                return node
        name = _name(node)
        if name is not None and (name != "power" or id(node) in self.powers):
            return ast.Attribute(value=ast.Name(id="_vz_vm", ctx=ast.Load()), attr=name, ctx=ast.Load())
        return self.generic_visit(node)


def transform(code: ArrayCode, ctx: Context) -> ArrayCode:
    if not ctx.options.vector_math:
        return code
    _Rename(ctx.flag, _float_powers(code.func)).visit(code.func)
    return code
