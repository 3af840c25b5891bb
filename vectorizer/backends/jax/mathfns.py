"""`math` on Approx values: XLA's function with its error (math_error_models.py: the measured
bound by band, and how far the function can move over an argument's own interval).

On Python numbers (constants of the lane code) the function is CPython's own, computed when the
kernel is traced: exact. A domain error there gives NaN (the lane code flags such lanes first).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax.numpy as jnp
from jax import lax
from jax.scipy import special

from .approx import (
    FLUSH,
    GROW,
    UNIT,
    Approx,
    bounds,
    either,
    entry_error,
    is_float,
    is_python,
    is_zero,
    lift,
    mag,
    outside_constant,
    parts,
)
from .approx import copysign as _copysign
from .math_error_models import (
    MOVED,
    add_e,
    crossing,
    emulated_taint,
    log_bound,
    mag_down,
    mag_up,
    own_error,
    rerun_if_emulated,
    within,
)

XLA: dict[str, Callable] = {
    "exp": jnp.exp, "exp2": jnp.exp2, "expm1": jnp.expm1, "log": jnp.log, "log2": jnp.log2,
    "log10": jnp.log10, "log1p": jnp.log1p, "sqrt": jnp.sqrt, "cbrt": jnp.cbrt, "sin": jnp.sin,
    "cos": jnp.cos, "tan": jnp.tan, "asin": jnp.arcsin, "acos": jnp.arccos, "atan": jnp.arctan,
    "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh, "asinh": jnp.arcsinh, "acosh": jnp.arccosh,
    "atanh": jnp.arctanh, "erf": special.erf, "erfc": special.erfc,
}
PYTHON: dict[str, Callable] = {name: getattr(math, name) for name in XLA if hasattr(math, name)}
PYTHON["exp2"] = lambda x: 2.0 ** x
PYTHON["cbrt"] = getattr(math, "cbrt", lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x))


def _python(fn: Callable, *args: float):
    """CPython's value on constants, as a device value (no Python arithmetic follows it)."""
    try:
        value = fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError):
        value = math.nan  # the lane code's check flags this lane
    return lift(tuple(float(v) for v in value) if isinstance(value, tuple) else float(value))


def unary(name: str) -> Callable:
    def fn(x):
        a, ea, ua = parts(x)
        if is_python(a) and is_zero(ea):
            return _python(PYTHON[name], a)
        u = True if outside_constant(a) else ua  # its device copy is 0 or inf
        a = jnp.asarray(a, jnp.float64)
        r = XLA[name](a)
        if name == "sqrt" and is_zero(ea) and bounds().exact_arithmetic:
            return Approx(r, 0, ua)  # IEEE's correctly rounded square root (never subnormal)
        err, unmeasured = own_error(name, jnp.abs(a), r)
        u = either(u, unmeasured)
        if not is_zero(ea):
            err = MOVED[name](a, ea, r) * GROW + err
        return Approx(r, err, emulated_taint(u, r, a))

    fn.__name__ = name
    return fn


def pow_(x, y) -> Approx:
    """C's pow as CPython calls it: 1.0 where y == 0 or x == 1 (NaN included), else XLA's."""
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b) and is_zero(ea) and is_zero(eb):
        return _python(math.pow, a, b)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.where((b == 0.0) | (a == 1.0), 1.0, jnp.power(a, b))
    err, unmeasured = own_error("pow", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    ua = either(ua, unmeasured)
    if not (is_zero(ea) and is_zero(eb)):
        low_a = mag_down(a)  # the terms in the error terms' type (math_error_models.MOVED)
        near = jnp.where(low_a > ea * GROW, ea / (low_a - ea), jnp.inf) if not is_zero(ea) else 0.0
        delta = mag_up(b) * near + (eb * (log_bound(a) + near) if not is_zero(eb) else 0.0)
        err = within(delta, 0.5, mag(r) * delta * (1.0 + 2.0 * delta)) * GROW + err
    return Approx(r, err, emulated_taint(either(ua, ub), r, a, b))


def hypot(x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b) and is_zero(ea) and is_zero(eb):
        return _python(math.hypot, a, b)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.hypot(a, b)
    err, unmeasured = own_error("hypot", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    ua = either(ua, unmeasured)
    moved = ea + eb if not (is_zero(ea) and is_zero(eb)) else 0
    return Approx(r, err if is_zero(moved) else moved * GROW + err, emulated_taint(either(ua, ub), r, a, b))


def atan2(y, x) -> Approx:
    b, eb, ub = parts(y)
    a, ea, ua = parts(x)
    if is_python(a) and is_python(b) and is_zero(ea) and is_zero(eb):
        return _python(math.atan2, b, a)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.arctan2(b, a)
    err, unmeasured = own_error("atan2", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    u = either(either(ua, ub), unmeasured)
    if bounds().emulated:  # the emulation loses the sign of a zero, which picks atan2's quadrant
        u = either(emulated_taint(u, r, a, b), (a == 0) | (b == 0))
    if not (is_zero(ea) and is_zero(eb)):
        e = ea + eb
        h = jnp.hypot(a, b)
        err = jnp.where(h > e * GROW, e / (h - e), jnp.inf) * GROW + err
        if not is_zero(eb):  # across y = 0 (x < 0) the angle jumps by 2 pi
            u = either(u, jnp.logical_not(jnp.abs(b) > eb * GROW))
    return Approx(r, err, u)


def copysign(x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b):
        return _python(math.copysign, a, b)
    b = jnp.asarray(b, jnp.float64)
    r = _copysign(jnp.asarray(a, jnp.float64), b)
    u = either(ua, ub)
    if bounds().emulated:  # the emulation loses the sign of a zero
        u = either(u, b == 0)
    if not is_zero(eb):  # the sign of y decides
        u = either(u, jnp.logical_not(jnp.abs(b) > eb * GROW))
    return Approx(r, ea, u)


def fabs(x) -> Approx:
    a, ea, ua = parts(x)
    if is_python(a):
        return _python(math.fabs, a)
    return Approx(jnp.abs(jnp.asarray(a, jnp.float64)), ea, ua)


def rounded(fn: Callable, name: str) -> Callable:
    """np.floor, np.ceil, np.trunc, np.rint: a float with an integer's value, exact or unsure."""
    def wrapped(x) -> Approx:
        a, ea, ua = parts(x)
        if not is_float(a):
            return x
        a = jnp.asarray(a, jnp.float64)
        r = fn(a)
        # an emulated float64 holds an integer beyond its ~49 bits inexactly: no exact result there
        err = entry_error(r) if bounds().emulated else 0
        return Approx(r, err, either(ua, crossing(fn, a, ea)))

    wrapped.__name__ = name
    return wrapped


floor = rounded(jnp.floor, "floor")
ceil = rounded(jnp.ceil, "ceil")
trunc = rounded(jnp.trunc, "trunc")
rint = rounded(jnp.rint, "rint")  # half to even, as Python's round


def classify(fn: Callable, name: str, python: Callable) -> Callable:
    """isnan, isinf, isfinite: exact on exact values; on a value within a bound, unsure unless it
    is finite and stays finite over its interval."""
    def wrapped(x) -> Approx:
        a, ea, ua = parts(x)
        if is_python(a):
            return lift(python(a))
        if not is_float(a):
            return Approx(fn(a), 0, ua)
        u = ua if is_zero(ea) else either(ua, jnp.logical_not(jnp.abs(a) + ea * GROW < 1.7976931348623157e308))
        return Approx(fn(a), 0, u)

    wrapped.__name__ = name
    return wrapped


isnan = classify(jnp.isnan, "isnan", math.isnan)
isinf = classify(jnp.isinf, "isinf", math.isinf)
isfinite = classify(jnp.isfinite, "isfinite", math.isfinite)


def fmod(x, y) -> Approx:
    """C's fmod (exact); discontinuous where x / y crosses an integer."""
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b):
        return _python(math.fmod, a, b)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = lax.rem(a, b)
    if is_zero(ea) and is_zero(eb):
        return Approx(r, FLUSH, rerun_if_emulated(either(ua, ub)))
    q = jnp.trunc(a / b)
    from .arith import quotient_unsure

    moved = ea + jnp.abs(q) * eb if not is_zero(eb) else ea
    return Approx(r, moved * GROW + 2 * UNIT * jnp.abs(r) + FLUSH,
                  rerun_if_emulated(either(either(ua, ub), quotient_unsure(a, b, ea, eb))))


def nextafter(x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b):
        return _python(math.nextafter, a, b)
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.nextafter(a, b)
    u = rerun_if_emulated(either(ua, ub))
    e = ea if is_zero(eb) else add_e(ea, eb)
    if is_zero(e):
        return Approx(r, FLUSH, u)
    u = either(u, jnp.logical_not(jnp.abs(a - b) > e * GROW))  # which way it steps
    return Approx(r, ea * GROW + 2 * UNIT * jnp.abs(r) + FLUSH if not is_zero(ea) else FLUSH, u)


def ldexp(x, n) -> Approx:
    a, ea, ua = parts(x)
    k, _, uk = parts(n)
    if is_python(a) and is_python(k):
        return _python(math.ldexp, a, k)  # type: ignore[return-value]
    k = jnp.clip(jnp.asarray(k, jnp.int64), -2200, 2200)
    r = jnp.ldexp(jnp.asarray(a, jnp.float64), k.astype(jnp.int32))
    err = FLUSH if is_zero(ea) else jnp.ldexp(ea * GROW, k.astype(jnp.int32)) + 2 * UNIT * jnp.abs(r) + FLUSH
    return Approx(r, err, rerun_if_emulated(either(ua, uk)))


def modf(x) -> tuple[Approx, Approx]:
    a, ea, ua = parts(x)
    if is_python(a):
        return _python(math.modf, a)  # type: ignore[return-value]
    a = jnp.asarray(a, jnp.float64)
    whole = jnp.where(jnp.isinf(a), a, jnp.trunc(a))
    frac = jnp.where(jnp.isinf(a), _copysign(0.0, a), a - whole)
    u = rerun_if_emulated(either(ua, crossing(jnp.trunc, a, ea)))
    return Approx(frac, ea if is_zero(ea) else ea * GROW + FLUSH, u), Approx(whole, 0, u)


def frexp(x) -> tuple[Approx, Approx]:
    a, ea, ua = parts(x)
    if is_python(a):
        m, e = math.frexp(a)
        return lift(m), lift(e)
    a = jnp.asarray(a, jnp.float64)
    m, e = jnp.frexp(a)
    u = rerun_if_emulated(ua)
    if not is_zero(ea):  # the exponent jumps at powers of two
        w = ea * GROW + 2 * UNIT * jnp.abs(a)
        u = either(u, (jnp.frexp(a - w)[1] != jnp.frexp(a + w)[1]) | (jnp.abs(a) <= w))
    merr = 0 if is_zero(ea) else jnp.ldexp(ea * GROW, -e) + FLUSH
    return Approx(m, merr, u), Approx(e.astype(jnp.int64), 0, u)
