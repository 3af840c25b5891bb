"""NumPy functions called on numbers in lane code (`np.arcsin(x)`, `np.maximum(a, b)`): NumPy's
semantics, not Python's. NumPy raises nothing (np.log(0.0) is -inf, np.arcsin(2.0) is nan), so
there are no Python checks, and the lane computes what NumPy computes on the lane's scalars:

* the C library's function where NumPy calls it on this CPU (sqrt, exp, log, sin, arcsin,
  arctan2, fmod...), as core/numpy_kernels.py measures per process;
* where NumPy runs its own SIMD kernel instead (exp, sin, tanh... on AVX-512 CPUs), that kernel:
  `_vz_ufunc_sin(x)` calls NumPy's float64 inner loop on one element (backends/numba/
  ufuncloops.py finds it in this process and checks it gives np.sin's bits; ufunclane.py is the
  call); where that loop cannot be found or fails its checks, the function is refused here and
  the NumPy backend runs it with NumPy's values; `x ** y` of a 0-d or one-element array calls
  np.power's loop as NumPy runs it there (array_power),
* NumPy's own formulas for the rest: maximum/minimum (NaN from either side, the second operand
  on a tie of zeros), fmax/fmin (NaN ignored), sign, signbit, degrees, radians, clip, where;
  np.around's rint of the scaled number (NumPy's power of ten), np.modf's C modf, and the numbers
  themselves for np.broadcast_arrays (rules/array_number_calls.py); logical_not/and/or/xor of the
  operands' truth (nonzero, NaN true);
* NumPy's integer results where C's operation would differ, measured in this process
  (core/numpy_ints.py): np.fmod of int64s (C's truncation; 0 for a zero divisor and for INT64_MIN
  by -1, without NumPy's warning, as the NumPy backend's batched code), and `.astype(np.int64)` of
  a float (truncation; NaN, infinities and values out of range give the one value NumPy's casts
  give here, or the cast is refused).

Int arithmetic wraps in NumPy: lanes where it may (int64 overflow) are flagged with the checks of
rules.py and re-run by the scalar function, which gives NumPy's wrapped value. A function whose
NumPy result lane code cannot reproduce is refused (`backend="auto"` then keeps NumPy code):
np.power of ints (its int errors), np.power of floats where NumPy's loop cannot be called (it
is called as NumPy's call on numbers runs it, with its shortcuts for some exponents), bool
arithmetic (np.fmod of two bools is int8's), and a measurement above that fails.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ...backends.numba import ufuncloops
from ...core import numpy_ints
from ...core.lanenodes import call, const, fill
from ...core.numpy_kernels import LIBM_TWINS, differs_from_libm
from ...core.types import BOOL, FLOAT, INT, Type
from ...errors import VectorizeError
from ...rules import scalar as rules
from ...rules.array_number_calls import power_of_ten

if TYPE_CHECKING:
    from .exprs import LaneExpressions

# NumPy's name -> the lane's function of float operands (C library calls)
_LIBM = {
    "sqrt": "math.sqrt", "exp": "math.exp", "expm1": "math.expm1", "exp2": "np.exp2", "log": "math.log",
    "log2": "math.log2", "log10": "math.log10", "log1p": "math.log1p", "sin": "math.sin", "cos": "math.cos",
    "tan": "math.tan", "tanh": "math.tanh", "arcsin": "math.asin", "arccos": "math.acos", "arctan": "math.atan", "sinh": "math.sinh",
    "cosh": "math.cosh", "arcsinh": "math.asinh", "arccosh": "math.acosh", "arctanh": "math.atanh",
    "cbrt": "_vz_cbrt", "rint": "np.rint", "arctan2": "math.atan2", "hypot": "math.hypot",
    "copysign": "math.copysign", "fmod": "np.fmod",
}
# Float templates over float operands {0}, {1}, {2} (each a name: used more than once).
_FLOAT = {
    "degrees": "{0} * 57.29577951308232", "rad2deg": "{0} * 57.29577951308232",
    "radians": "{0} * 0.017453292519943295", "deg2rad": "{0} * 0.017453292519943295",
    "divide": "{0} / {1}", "true_divide": "{0} / {1}", "add": "{0} + {1}", "subtract": "{0} - {1}",
    "multiply": "{0} * {1}", "square": "{0} * {0}", "negative": "-{0}", "abs": "abs({0})", "absolute": "abs({0})",
    "sign": "(1.0 if {0} > 0 else (-1.0 if {0} < 0 else (0.0 if {0} == 0 else {0})))",
    "signbit": "math.copysign(1.0, {0}) < 0.0",
    "maximum": "({0} if {0} > {1} or {0} != {0} else {1})", "minimum": "({0} if {0} < {1} or {0} != {0} else {1})",
    "fmax": "({0} if {0} >= {1} or {1} != {1} else {1})", "fmin": "({0} if {0} <= {1} or {1} != {1} else {1})",
    "remainder": "{0} % {1}", "floor": "np.floor({0})", "ceil": "np.ceil({0})", "trunc": "np.trunc({0})",
    "isnan": "math.isnan({0})", "isinf": "math.isinf({0})", "isfinite": "math.isfinite({0})",
}
# Int templates over int operands (the rules.py operator whose checks flag int64 overflow).
_INT_OPS = {"add": "+", "subtract": "-", "multiply": "*", "square": "*", "remainder": "%"}
_INT = {
    "sign": "(1 if {0} > 0 else (-1 if {0} < 0 else 0))", "signbit": "{0} < 0",
    "maximum": "({0} if {0} > {1} else {1})", "minimum": "({0} if {0} < {1} else {1})",
    "fmax": "({0} if {0} >= {1} else {1})", "fmin": "({0} if {0} <= {1} else {1})",
    "isnan": "False", "isinf": "False", "isfinite": "True",
}
_LOGICAL = {"logical_not": "not {0}", "logical_and": "{0} and {1}", "logical_or": "{0} or {1}",
            "logical_xor": "{0} != {1}"}
# np.min(x) and the like of a number: that number (utm's `mathlib.min(x)` on a scalar).
_REDUCTIONS = frozenset({"min", "max", "amin", "amax", "nanmin", "nanmax"})
REFUSED = {"power": "NumPy's power on numbers takes shortcuts for some exponents (x * x for 2.0) and raises for "
                    "negative int exponents"}


# NumPy values of a number (rules/array_numbers.py): on a lane, the number itself.
_CONVERSIONS = frozenset({"asarray", "asanyarray", "array", "float64", "int64", "atleast_1d"})
_ALIASES = {"mod": "remainder"}


def lower(exprs: LaneExpressions, name: str, node: cst.Call) -> ast.expr:
    """Lane code of `np.<name>(...)` on numbers, with NumPy's value."""
    args = [a.value for a in node.args]
    name = _ALIASES.get(name, name)
    if name in _SHAPED:  # np.around's scale, np.modf's and np.broadcast_arrays' tuples
        return _SHAPED[name](exprs, name, node)
    if name in _CONVERSIONS:  # dtype=float; int or bool of a number (rules/array_numbers.py): NumPy's cast
        src, dst = exprs.facts.type(args[0]), exprs.facts.type(node)
        return _convert(exprs, exprs.expr(args[0]), src, dst)
    power_loop = name == "power" and exprs.facts.type(node) is FLOAT and not ufuncloops.unavailable(name)
    if (name in REFUSED and not power_loop) or any(a.keyword is not None for a in node.args):
        why = REFUSED.get(name, "keyword arguments")
        raise VectorizeError(f"np.{name} on numbers on the Numba backend: {why}",
                             hint="use backend='numpy' (or 'auto'), which calls NumPy itself")
    types = [exprs.facts.type(a) for a in args]
    result = exprs.facts.type(node)
    if name in _REDUCTIONS and len(args) == 1:  # of one number: the number itself (NaN too), as NumPy
        return exprs.expr(args[0])
    if name in _LOGICAL:  # of each operand's truth (nonzero: NaN is true, -0.0 false), as NumPy
        truths = [exprs.lane.temp(exprs.truthy(exprs.expr(a), t)) for a, t in zip(args, types)]
        return fill(_LOGICAL[name], *truths)
    mixed = name == "fmod" and INT in types  # np.fmod(int, bool) is int64's (of two bools, int8's: refused)
    if BOOL in types and not mixed and name not in ("where", "isnan", "isinf", "isfinite", "abs", "absolute"):
        raise VectorizeError(f"np.{name} of a bool on the Numba backend",
                             hint="convert with int(...) or float(...) first, or use backend='numpy'")
    if name == "where":
        cond, yes, no = (exprs.expr(a) for a in args)
        return ast.IfExp(test=exprs.truthy(cond, types[0]), body=exprs.coerce(yes, types[1], result),
                         orelse=exprs.coerce(no, types[2], result))
    if name in ("abs", "absolute") and types[0] is BOOL:
        return exprs.expr(args[0])
    if result is INT or (result is BOOL and all(t is INT for t in types)):
        return _ints(exprs, name, args, types)
    values = [exprs.lane.temp(exprs.expr(a)) for a in args]
    if name in ("floor", "ceil", "trunc") and types[0] is INT:  # NumPy keeps the int: exact below 2**53
        exprs.lane.check(rules.beyond_exact("{0}"), values[0])
    ops = [exprs.lane.temp(_as_float(x, t)) for x, t in zip(values, types)]
    if power_loop:  # NumPy's loop as its call on numbers runs it: its shortcuts (x * x for 2.0) included
        return call("_vz_ufunc_power", *ops)
    if name in _LIBM:
        if name in LIBM_TWINS and differs_from_libm(name):  # NumPy's own kernel: call it, if it passes the checks
            why = ufuncloops.unavailable(name)
            if why:
                raise VectorizeError(f"np.{name} on numbers on the Numba backend: NumPy's own kernel for it on this "
                                     "CPU gives other last bits than the C library's, which lane code calls",
                                     hint=f"use backend='numpy' (or 'auto'), which calls NumPy itself (NumPy's loop "
                                          f"cannot be called from lane code here: {why})")
            return call(f"_vz_ufunc_{name}", *ops)
        return call(_LIBM[name], *ops)
    if name == "clip":  # NumPy's: minimum(maximum(x, lo), hi)
        return fill(_FLOAT["minimum"], exprs.lane.temp(fill(_FLOAT["maximum"], *ops[:2])), ops[2])
    if name in _FLOAT:
        return fill(_FLOAT[name], *ops)
    raise VectorizeError(f"np.{name} on numbers is not supported on the Numba backend",
                         hint="use backend='numpy' (or 'auto')")


def _around(exprs: LaneExpressions, name: str, node: cst.Call) -> ast.expr:
    """np.around(x, d) as NumPy computes it (rules/array_number_calls.py): rint(x * 10**d) / 10**d,
    rint(x / 10**-d) * 10**-d, rint(x), with NumPy's power of ten; of an int (d >= 0, the analysis
    allowed no other), the int."""
    x = node.args[0].value
    given = [a.value for a in node.args[1:]]
    d = exprs.facts.val(given[0]).const if given else 0
    if exprs.facts.type(x) is INT:
        return exprs.expr(x)
    value = exprs.lane.temp(_as_float(exprs.expr(x), exprs.facts.type(x)))
    if not isinstance(d, int):  # known when called: NumPy's power of ten computed then
        decimals = exprs.lane.temp(exprs.expr(given[0]))
        exprs.lane.check("({0} > 2147483647) | ({0} < -2147483647)", decimals)  # NumPy's C int: OverflowError
        return call("_vz_around", value, decimals)
    if d == 0:
        return call("np.rint", value)
    scale = const(power_of_ten(abs(d)))
    if d > 0:
        return fill("np.rint({0} * {1}) / {1}", value, scale)
    return fill("np.rint({0} / {1}) * {1}", value, scale)


def _modf(exprs: LaneExpressions, name: str, node: cst.Call) -> ast.expr:
    """np.modf(x): C's modf of the float, as math.modf's lane code (_vz_modf) computes it."""
    x = node.args[0].value
    return call("_vz_modf", _as_float(exprs.expr(x), exprs.facts.type(x)))


def _broadcast(exprs: LaneExpressions, name: str, node: cst.Call) -> ast.expr:
    """np.broadcast_arrays(a, b, ...) of numbers: on a lane, the numbers themselves."""
    return ast.Tuple(elts=[exprs.expr(a.value) for a in node.args], ctx=ast.Load())


_SHAPED = {"around": _around, "round": _around, "modf": _modf, "broadcast_arrays": _broadcast}


# NumPy's array `**` takes these of a float array for an exponent of 2, 0.5 or -1 (exact here).
_SHORTCUTS = {2: "{0} * {0}", 0.5: "np.sqrt({0})", -1: "1.0 / {0}"}
_ARRAY_POWER = (f"{_SHORTCUTS[2]} if {{1}} == 2.0 else ({_SHORTCUTS[0.5]} if {{1}} == 0.5 else "
                f"({_SHORTCUTS[-1]} if {{1}} == -1.0 else {{0}} ** {{1}}))")


def array_power(exprs: LaneExpressions, node: cst.BinaryOperation) -> ast.expr:
    """`x ** y` where x or y is a 0-d array (np.asarray of a number) or a one-element array
    (np.atleast_1d) and x a float: NumPy's power loop, as NumPy runs it there (measured:
    tests/backends/test_power_loops.py). An exponent that is a number (Python's, a NumPy scalar, a
    0-d array) has step 0: the loop's shortcuts for -1, 0, 0.5, 1 and 2 (those of the array
    `**` for a Python 2, 0.5 or -1 give the same bits), `_vz_ufunc_power`; a one-element array
    exponent has step 8: no shortcut, `_vz_ufunc_stepped_power`. Where the loop cannot be called,
    the C library's pow with the shortcuts, only where NumPy's loop is that pow on this CPU
    (core/numpy_kernels.py) and the exponent is a number."""
    x = exprs.lane.temp(exprs.expr(node.left))
    exponent = exprs.facts.val(node.right)
    stepped = bool(exponent.one_d)  # NumPy gives a one-element array's element the step 8
    const = exponent.const
    if not stepped and isinstance(const, int | float) and not isinstance(const, bool) and const in _SHORTCUTS:
        return fill(_SHORTCUTS[const], x)
    y = exprs.lane.temp(_as_float(exprs.expr(node.right), exprs.facts.type(node.right)))
    why = ufuncloops.unavailable("power", stepped=stepped)
    if not why:
        return call("_vz_ufunc_stepped_power" if stepped else "_vz_ufunc_power", x, y)
    where = dict(construct="BinaryOperation", hint="use backend='numpy' (or 'auto'), which calls NumPy itself")
    if stepped:  # the C library's pow gives NumPy's bits where its loop is that pow, but unchecked here
        raise VectorizeError("'**' of a one-element array (np.atleast_1d of a number) on the Numba backend: "
                             f"NumPy's power loop cannot be called from lane code here ({why})", **where)
    if differs_from_libm("power"):
        raise VectorizeError("'**' of a 0-d array (np.asarray of a number) on the Numba backend: NumPy's own kernel "
                             "for it on this CPU gives other last bits than the C library's, which lane code calls "
                             f"(NumPy's loop cannot be called from lane code here: {why})", **where)
    return fill(_ARRAY_POWER, x, y)


def _as_float(value: ast.expr, t: Type) -> ast.expr:
    return value if t is FLOAT else call("float", value)


def _ints(exprs: LaneExpressions, name: str, args: list[cst.BaseExpression], types: list[Type]) -> ast.expr:
    if name in ("negative", "abs", "absolute"):
        impl = rules.UNARY["-"](INT, exprs.facts.val(args[0])) if name == "negative" else rules.CALLS["abs"]([exprs.facts.val(args[0])])
        return exprs.apply(impl, args[:1])
    if name in _INT_OPS:
        pair = [args[0], args[0]] if name == "square" else args
        vals = [exprs.facts.val(a) for a in pair]
        # Python's checks: int64 overflow, and x % 0 (NumPy's 0 there comes from the re-run)
        return exprs.apply(rules.BINARY[_INT_OPS[name]](INT, INT, *vals), pair)
    ops = [exprs.lane.temp(exprs.expr(a)) for a in args]
    if name == "fmod":
        return _fmod_ints(exprs, [call("int", o) if t is BOOL else o for o, t in zip(ops, types)])
    if name in _INT:
        return fill(_INT[name], *ops)
    if name == "clip":
        low = exprs.lane.temp(fill(_INT["maximum"], *ops[:2]))
        return fill(_INT["minimum"], low, ops[2])
    raise VectorizeError(f"np.{name} of ints on the Numba backend",
                         hint="use backend='numpy' (or 'auto'), which calls NumPy itself")


def _fmod_ints(exprs: LaneExpressions, ops: list[ast.expr]) -> ast.expr:
    """np.fmod of int64s: C's truncating remainder, NumPy's 0 for a zero divisor and for INT64_MIN
    by -1 (core/numpy_ints.py's formula, checked against np.fmod in this process)."""
    why = numpy_ints.fmod_unavailable()
    if why:
        raise VectorizeError("np.fmod of ints on the Numba backend: NumPy's integer fmod here is not what lane code "
                             f"computes ({why})", hint="use backend='numpy' (or 'auto'), which calls NumPy itself")
    x, y = (exprs.lane.temp(o) for o in ops)
    floor = exprs.lane.temp(fill(numpy_ints.FMOD_GUARD, x, y), "m")
    return fill(numpy_ints.FMOD_SIGN, x, y, floor)


def _cast(exprs: LaneExpressions, value: ast.expr) -> ast.expr:
    """float64 -> int64 as NumPy casts: truncation in range; elsewhere (NaN, ±inf, out of range)
    the one value NumPy's casts give on this machine (core/numpy_ints.py), or refused."""
    constant = numpy_ints.cast_constant("int64")
    if constant is None:
        raise VectorizeError(".astype(np.int64) of a float on the Numba backend: NumPy's casts of NaN, infinities and "
                             "values out of range give different values on this machine (the CPU's conversion, "
                             "which lane code cannot reproduce)",
                             hint="use backend='numpy' (or 'auto'), or int(x) for Python's conversion")
    x = exprs.lane.temp(value)
    return ast.IfExp(test=fill(numpy_ints.CAST_RANGE["int64"], x), body=call("int", x), orelse=const(constant))


def method(exprs: LaneExpressions, node: cst.Call) -> ast.expr:
    """`x.item()` / `x.astype(dtype=...)` of a NumPy value of a number (rules/array_one_d.py): on a
    lane, the number (converted). NumPy's float-to-int cast is the CPU's conversion, which Numba's
    int() of a NaN, an infinity or a value out of range does not give: `_cast`."""
    receiver = node.func.value  # type: ignore[attr-defined]
    src, dst = exprs.facts.type(receiver), exprs.facts.type(node)
    return _convert(exprs, exprs.expr(receiver), src, dst)


def _convert(exprs: LaneExpressions, value: ast.expr, src: Type, dst: Type) -> ast.expr:
    """NumPy's cast of a number from `src` to `dst` (bool: nonzero, NaN true)."""
    if src is FLOAT and dst is INT:
        return _cast(exprs, value)
    if src is not BOOL and dst is BOOL:
        return fill("{0} != 0.0" if src is FLOAT else "{0} != 0", value)
    return exprs.coerce(value, src, dst)
