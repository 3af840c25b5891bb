"""The libm-dependent operations with NumPy's values and Python's exceptions: the second oracle.

CPython's `math.exp` calls the C library; vectorizer's NumPy code calls NumPy's SIMD kernels,
which differ by an ulp or two on some inputs (a documented Class B difference), and a
program can magnify that without bound (a branch on `math.sin(x) > 0.5` flips). So programs with
transcendental functions are also run through this shim: each function first calls Python's own
(so it raises exactly what Python raises), then returns NumPy's value for the same operation, as
the generated code computes it. A batched lane must equal the libm oracle or this one, exactly
(a lane the runtime patches is computed by the scalar function, an unpatched one by NumPy).

On this machine NumPy's scalar path and array path give bit-identical results for all of these
functions (checked on 50 000 inputs each), so one scalar call models the batched call.
"""

from __future__ import annotations

import math

import numpy as np

from vectorizer import special


def _f(x) -> np.float64:
    return np.float64(float(x))


def _unary(name: str, np_name: str | None = None):
    py = getattr(math, name)
    ufunc = getattr(np, np_name or name)

    def fn(x):
        r = py(x)
        try:
            return float(ufunc(_f(x)))
        except OverflowError:  # an int too large for a float that Python's math accepts (log)
            return r

    fn.__name__ = name
    return fn


exp = _unary("exp")
expm1 = _unary("expm1")
exp2 = _unary("exp2")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin", "arcsin")
acos = _unary("acos", "arccos")
atan = _unary("atan", "arctan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
asinh = _unary("asinh", "arcsinh")
acosh = _unary("acosh", "arccosh")
atanh = _unary("atanh", "arctanh")
cbrt = _unary("cbrt")
_log1 = _unary("log")


def erf(x):
    """NumPy has no erf: the NumPy backend's own (vectorizer/special.py)."""
    math.erf(x)
    with np.errstate(all="ignore"):
        return float(special._vz_erf(np.array([float(x)]))[0])


def erfc(x):
    """As erf; lanes whose erfc is subnormal are flagged and computed with math.erfc."""
    r = math.erfc(x)
    v = np.array([float(x)])
    if special.erfc_subnormal(v)[0]:
        return r
    with np.errstate(all="ignore"):
        return float(special._vz_erfc(v)[0])


def log(x, base=None):
    if base is None:
        return _log1(x)
    r = math.log(x, base)
    try:
        return float(np.log(_f(x)) / np.log(_f(base)))
    except OverflowError:
        return r


def atan2(y, x):
    math.atan2(y, x)
    return float(np.arctan2(_f(y), _f(x)))


def hypot(x, y):
    math.hypot(x, y)
    return float(np.hypot(_f(x), _f(y)))


def pow(x, y):  # noqa: A001 - math.pow
    math.pow(x, y)
    return float(np.power(_f(x), _f(y)))


def power(x, y):
    """`x ** y` and builtin `pow(x, y)`: exact ints stay Python's; float results are NumPy's."""
    r = x ** y
    if isinstance(r, float):
        try:
            return float(np.power(_f(x), _f(y)))
        except OverflowError:
            return r
    return r
