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

NumPy's value stands in for Python's only within the contract's bound (`rules.ULP_BOUND` ulp, the
same sign, both NaN or both the same infinity): anything else is a different value, not a
rounding difference, and the shim gives Python's. (np.power(-0.0, 0.5) is -0.0 and
np.power(-inf, 0.5) NaN, NumPy's sqrt fast path, where Python gives 0.0 and inf: this oracle once
excused the NumPy backend's copy of that.)
"""

from __future__ import annotations

import math

import numpy as np
from oracle import same_value

from vectorizer.backends.numba import vecmath
from vectorizer.rules import scalar as rules
from vectorizer.runtime import special

# The harness sets this while it checks the backends "numpy_vm" and "numba_vm" (vector_math=True):
# the values are then those of vectorizer.backends.numba.vecmath (glibc's vector math), which the generated code
# calls instead of NumPy's (lanemath.py calls the same functions); a lane's value there depends on
# its arguments alone, so one call models the batch.
VECTOR_MATH = False


def _np(np_name: str, default):
    """What the generated code calls for `np.<np_name>` (or a special function's helper)."""
    return getattr(vecmath, np_name, default) if VECTOR_MATH else default


def _within_bound(python: object, numpy: float) -> object:
    """NumPy's value where it is Python's to within the ulp bound, else Python's own."""
    if not isinstance(python, float):
        return numpy
    # same_value lets a few ulp cross zero (5e-324 vs -5e-324); a value of the other sign is not
    # a rounding difference here
    close = same_value(python, numpy, rules.ULP_BOUND)
    return numpy if close and (math.isnan(python) or math.copysign(1.0, python) == math.copysign(1.0, numpy)) else python


def _f(x) -> np.float64:
    return np.float64(float(x))


def _unary(name: str, np_name: str | None = None):
    py = getattr(math, name)
    ufunc = getattr(np, np_name or name)

    def fn(x):
        r = py(x)
        try:
            return _within_bound(r, float(_np(np_name or name, ufunc)(_f(x))))
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
    """NumPy has no erf: the NumPy backend's own (vectorizer/runtime/special.py)."""
    r = math.erf(x)
    with np.errstate(all="ignore"):
        return _within_bound(r, float(_np("erf", special._vz_erf)(np.array([float(x)]))[0]))


def erfc(x):
    """As erf; lanes whose erfc is subnormal are flagged and computed with math.erfc."""
    r = math.erfc(x)
    v = np.array([float(x)])
    if special.erfc_subnormal(v)[0]:
        return r
    with np.errstate(all="ignore"):
        return _within_bound(r, float(_np("erfc", special._vz_erfc)(v)[0]))


def log(x, base=None):
    if base is None:
        return _log1(x)
    r = math.log(x, base)
    try:
        log = _np("log", np.log)
        return _within_bound(r, float(log(_f(x)) / log(_f(base))))
    except OverflowError:
        return r


def atan2(y, x):
    return _within_bound(math.atan2(y, x), float(_np("arctan2", np.arctan2)(_f(y), _f(x))))


def hypot(x, y):
    return _within_bound(math.hypot(x, y), float(np.hypot(_f(x), _f(y))))


def _power(x, y) -> float:
    """NumPy's power, or vecmath's (which keeps NumPy's for the exponents it computes exactly)."""
    return float(vecmath.power(_f(x), _f(y)) if VECTOR_MATH else np.power(_f(x), _f(y)))


def pow(x, y):  # noqa: A001 - math.pow
    return _within_bound(math.pow(x, y), _power(x, y))


def power(x, y):
    """`x ** y` and builtin `pow(x, y)`: exact ints stay Python's; float results are NumPy's."""
    r = x ** y
    if isinstance(r, float):
        try:
            return _within_bound(r, _power(x, y))
        except OverflowError:
            return r
    return r
