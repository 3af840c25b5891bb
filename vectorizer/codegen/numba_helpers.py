"""Helpers a Numba module carries as text where its lane code calls them: the C library's `pow`
(and a square that is pow's value without the call) and `cbrt`, and CPython's own `hypot`, all bit
for bit what CPython computes.

`_vz_pow(x, y)` (and the intrinsic `_vz_libm_pow` it calls): Numba lowers `math.pow` and `**` to LLVM's `llvm.pow`, which LLVM simplifies:
pow(x, 2.0) -> x * x, pow(x, -1.0) -> 1.0 / x, pow(x, 0.5) -> sqrt, pow(2.0, x) -> exp2(x).
CPython calls C's `pow` itself, whose results differ from those on ~0.1% of inputs (x * x vs
pow(x, 2.0): 1,603 of 2,000,000 uniform doubles in [-100, 100]). So lane code calls `pow` through
a symbol LLVM does not know as a library function, `vz_libm_pow`, made an alias of the process's
`pow` (the one CPython's float power calls) with `llvmlite.binding.add_symbol` when the module is
imported: before any of its functions compiles or loads from Numba's on-disk cache, whose
machine code refers to the symbol by name.

`_vz_square(x)`, what `_vz_pow(x, 2.0)` runs: C's pow(x, 2.0) costs ~13 ns, x * x 0.2. glibc's pow
computes exp(2 * log(x)) in extra precision and rounds once; its documented worst case is 0.54
ulp: 0.509 from exp (0.5 of it the final rounding) and the rest the log's relative error
(1.3 * 2**-68) times |2 * log(x)|. For squares in [2**-100, 2**100) that puts its value within
~0.012 ulp of the exact square before the rounding, so pow gives the correctly rounded square,
x * x, wherever the exact square is more than that inside the interval that rounds to x * x. Two
fmas check 1/32 ulp or more (the exact square moved by p * 2**-57 either way still rounds to p);
the ~9% of squares nearer the interval's edge, squares outside the range, and C libraries other
than glibc (whose pow has no such published bound) call pow. Measured (scripts/probe_square.py):
glibc's pow and x * x differ on ~0.09% of squares, at most 0.0083 ulp from a midpoint on
150,000,000 squares in the range (0.0096 ulp on 200,000,000 to 2**+-1000);
tests/backends/test_numba_exact.py checks squares within 1/16 ulp of a midpoint.

`_vz_hypot(x, y)`: CPython's math.hypot is its own algorithm (scaled, compensated sum of
squares and a corrected square root), not the C library's `hypot`, whose results differ on ~0.6%
of inputs. This is that algorithm for two arguments, in the form of the running Python: up to
3.11 the squares are split in halves (Veltkamp) into three compensated sums; from 3.12 exact
products into two. Both are plain float arithmetic Numba compiles as written (no fastmath).
"""

from __future__ import annotations

import sys

from . import numba_intmath, numba_tables, numba_ufuncs
from .emit import code_names

LIBM = '''
def _vz_libm(name, arity):
    """An intrinsic: the C library's float64 `name` (the function CPython calls), under a symbol
    LLVM does not know as a library function, so it neither simplifies nor folds the call."""
    import ctypes
    import ctypes.util

    import llvmlite.binding
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    try:
        c_function = getattr(ctypes.CDLL(None), name)  # the one CPython itself calls
    except (AttributeError, OSError):
        c_function = getattr(ctypes.CDLL(ctypes.util.find_library("m") or ctypes.util.find_library("c")), name)
    symbol = "vz_libm_" + name
    llvmlite.binding.add_symbol(symbol, ctypes.cast(c_function, ctypes.c_void_p).value)

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * arity), symbol)
        fn.attributes.add("nounwind")
        return builder.call(fn, [context.cast(builder, a, t, types.float64) for a, t in zip(args, signature.args)])

    def signature(args):
        if all(isinstance(a, types.Float | types.Integer) for a in args):
            return types.float64(*args), codegen
        return None

    def unary(typingctx, x):  # an intrinsic's typer names its arguments (no *args)
        return signature((x,))

    def binary(typingctx, x, y):
        return signature((x, y))

    typer = unary if arity == 1 else binary
    typer.__name__ = typer.__qualname__ = "_vz_libm_" + name
    return intrinsic(typer)
'''

POW = '''
def _vz_fused_multiply_add():
    """An intrinsic: fma(x, y, z), x * y + z rounded once (one instruction on CPUs with FMA)."""
    from numba.core import types
    from numba.extending import intrinsic

    def _vz_fma(typingctx, x, y, z):
        def codegen(context, builder, signature, args):
            return builder.fma(*[context.cast(builder, a, t, types.float64) for a, t in zip(args, signature.args)])

        return types.float64(x, y, z), codegen

    return intrinsic(_vz_fma)


def _vz_glibc():
    """Whether the C library is glibc, whose pow's error bound _vz_square relies on."""
    import os

    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc ")
    except (AttributeError, OSError, ValueError):
        return False


_vz_libm_pow = _vz_libm("pow", 2)
_vz_fma = _vz_fused_multiply_add()
_VZ_GLIBC = _vz_glibc()


@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_square(x):
    """C's pow(x, 2.0): x * x where the exact square is 1/32 ulp or more inside the interval that
    rounds to x * x (glibc's pow is within ~0.012 ulp of it before its one rounding there), else pow."""
    v = float(x)
    p = v * v
    if _VZ_GLIBC and 7.888609052210118e-31 <= p < 1.2676506002282294e30:  # 2**-100 <= p < 2**100
        c = p * 6.938893903907228e-18  # p * 2**-57: 1/32 to 1/16 ulp of p
        if _vz_fma(v, v, -c) == p and _vz_fma(v, v, c) == p:  # the exact square, moved by c either way
            return p
    return _vz_libm_pow(x, 2.0)


@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_pow(x, y):
    """x ** y as CPython computes it: 1.0 for y == 0 or x == 1 before C's pow is called (which
    gives NaN for a signaling NaN there)."""
    if y == 0.0 or x == 1.0:
        return 1.0
    if y == 2.0:
        return _vz_square(x)
    return _vz_libm_pow(x, y)
'''

# math.cbrt calls C's cbrt; Numba's np.cbrt is a fast-math pow(x, 1/3), which LLVM turns into a
# cbrt call for a variable but folds for a constant: 3.0 for 27.0, where C's cbrt gives
# 3.0000000000000004 (found by the decisions fuzzer, tests/fuzz/regressions/reg_f6b1d6a89b.py).
CBRT = '''
_vz_libm_cbrt = _vz_libm("cbrt", 1)


@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_cbrt(x):
    """math.cbrt(x): C's cbrt."""
    return _vz_libm_cbrt(x)
'''

# math.exp2 calls C's exp2; lane code had Numba's np.exp2 (LLVM's exp2 intrinsic, which LLVM may
# fold for a constant, and which a replaced `numpy.exp2` would break: tests/libm_jitter.py).
EXP2 = '''
_vz_libm_exp2 = _vz_libm("exp2", 1)


@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_exp2(x):
    """math.exp2(x): C's exp2."""
    return _vz_libm_exp2(x)
'''

_HYPOT_HEAD = '''
@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_hypot(x, y):
    """CPython's math.hypot(x, y), bit for bit (Python {version})."""
    x = abs(x)
    y = abs(y)
    if math.isinf(x) or math.isinf(y):
        return math.inf
    if math.isnan(x) or math.isnan(y):
        return math.nan
    big = max(x, y)
    if big == 0.0:
        return big
    e = math.frexp(big)[1]
'''

# Python <= 3.11: each scaled value split in halves (hi + lo), its square added in three parts;
# below 2**-1024 (where 2**-e overflows) a plain compensated sum of (v / big) ** 2.
_HYPOT_SPLIT = '''    csum = 1.0
    frac1 = 0.0
    if e < -1023:
        for v in (x / big, y / big):
            sq = v * v
            old = csum
            csum += sq
            frac1 += (old - csum) + sq
        return big * math.sqrt(csum - 1.0 + frac1)
    scale = math.ldexp(1.0, -e)
    frac2 = 0.0
    frac3 = 0.0
    for v in (x * scale, y * scale):
        t = v * 134217729.0
        hi = t - (t - v)
        lo = v - hi
        sq = hi * hi
        old = csum
        csum += sq
        frac1 += (old - csum) + sq
        sq = 2.0 * hi * lo
        old = csum
        csum += sq
        frac2 += (old - csum) + sq
        frac3 += lo * lo
    h = math.sqrt(csum - 1.0 + (frac1 + frac2 + frac3))
    t = h * 134217729.0
    hi = t - (t - h)
    lo = h - hi
    sq = -hi * hi
    old = csum
    csum += sq
    frac1 += (old - csum) + sq
    sq = -2.0 * hi * lo
    old = csum
    csum += sq
    frac2 += (old - csum) + sq
    sq = -lo * lo
    old = csum
    csum += sq
    frac3 += (old - csum) + sq
    d = csum - 1.0 + (frac1 + frac2 + frac3)
    return (h + d / (2.0 * h)) / scale
'''

# Python >= 3.12: exact products p + q of the scaled values (CPython's fma, here Dekker's
# product, the same where nothing underflows), two compensated sums; below 2**-1024 everything
# is divided by DBL_MIN first (exact) and the result multiplied back.
_HYPOT_EXACT = '''    tiny = 1.0
    if e < -1023:
        x = x / 2.2250738585072014e-308
        y = y / 2.2250738585072014e-308
        tiny = 2.2250738585072014e-308
        e = math.frexp(max(x, y))[1]
    scale = math.ldexp(1.0, -e)
    csum = 1.0
    frac1 = 0.0
    frac2 = 0.0
    for v in (x * scale, y * scale):
        t = v * 134217729.0
        vh = t - (t - v)
        vl = v - vh
        p = v * v
        q = (((vh * vh - p) + vh * vl) + vl * vh) + vl * vl
        s = csum + p
        frac2 += p - (s - csum)
        csum = s
        frac1 += q
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    t = h * 134217729.0
    hh = t - (t - h)
    hl = h - hh
    p = -h * h
    q = (((-hh * hh - p) - hh * hl) - hl * hh) - hl * hl
    s = csum + p
    frac2 += p - (s - csum)
    csum = s
    frac1 += q
    d = csum - 1.0 + (frac1 + frac2)
    h += d / (2.0 * h)
    return tiny * (h / scale)
'''


def hypot_source(version: tuple[int, int] | None = None) -> str:
    version = version or sys.version_info[:2]
    body = _HYPOT_SPLIT if version < (3, 12) else _HYPOT_EXACT
    return _HYPOT_HEAD.replace("{version}", ">= 3.12" if version >= (3, 12) else "<= 3.11") + body


def helper_source(code: str) -> str:
    """The helpers `code` (lane functions) calls, as module text ("" if none)."""
    parts = []
    called = code_names(code).called
    pow_ = "_vz_pow" in called or "_vz_libm_pow" in called  # NumPy's float power calls pow itself
    cbrt = "_vz_cbrt" in called
    exp2 = "_vz_exp2" in called
    if pow_ or cbrt or exp2:
        parts.append(LIBM.strip("\n"))
    if pow_:
        parts.append(POW.strip("\n"))
    if cbrt:
        parts.append(CBRT.strip("\n"))
    if exp2:
        parts.append(EXP2.strip("\n"))
    if "_vz_hypot" in called:
        parts.append(hypot_source().strip("\n"))
    tables = numba_tables.table_source(called)  # np.sum of a uniform table: NumPy's pairwise sum
    if tables:
        parts.append(tables)
    intmath = numba_intmath.intmath_source(called)  # math.remainder, comb, factorial...
    if intmath:
        parts.append(intmath)
    ufuncs = numba_ufuncs.ufunc_source(called)  # np.sin of a number: NumPy's own loop
    if ufuncs:
        parts.append(ufuncs)
    return "\n\n\n".join(parts)
