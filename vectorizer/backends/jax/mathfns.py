"""`math` on Approx values: XLA's function, its measured bound (bounds.py) and, for an argument
that is itself within a bound, how far the function can move over that interval.

    err(f(a)) = moved(f, a, err a) * GROW + ulps(f) * 2**-52 * |f(a)| + 2**-1021

`moved` is a Lipschitz bound over [a - err a, a + err a] (sin, cos, atan, tanh: err a; exp:
|f(a)| err a (1 + err a); log: err a / (a - err a); ...), inf where none is finite (the argument
may reach a pole or the domain's edge), so that every decision on the result is unsure.

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
    outside_constant,
    parts,
    range_lost,
    slack,
)
from .approx import copysign as _copysign

INV_LN2 = 1.4426950408889634
INV_LN10 = 0.4342944819032518
TWO_OVER_SQRT_PI = 1.1283791670955126


def _within(e, limit: float, value):
    """value where e <= limit, else inf (the bound's series no longer holds)."""
    return jnp.where(e <= limit, value, jnp.inf)


# moved(a, e, r): how far f can move over [a - e, a + e]; r = f(a) on the device
MOVED: dict[str, Callable] = {
    "exp": lambda a, e, r: _within(e, 1.0, jnp.abs(r) * e * (1.0 + e)),
    "exp2": lambda a, e, r: _within(e, 1.0, jnp.abs(r) * (e / INV_LN2) * (1.0 + e)),
    "expm1": lambda a, e, r: _within(e, 1.0, jnp.abs(r + 1.0) * e * (1.0 + e)),
    "log": lambda a, e, r: jnp.where(a > e * GROW, e / (a - e), jnp.inf),
    "log2": lambda a, e, r: jnp.where(a > e * GROW, INV_LN2 * e / (a - e), jnp.inf),
    "log10": lambda a, e, r: jnp.where(a > e * GROW, INV_LN10 * e / (a - e), jnp.inf),
    "log1p": lambda a, e, r: jnp.where(1.0 + a > e * GROW, e / (1.0 + a - e), jnp.inf),
    "sqrt": lambda a, e, r: jnp.minimum(jnp.sqrt(e), jnp.where(r > 0, e / r, jnp.inf)),
    "cbrt": lambda a, e, r: 1.6 * jnp.cbrt(e),
    "sin": lambda a, e, r: e,
    "cos": lambda a, e, r: e,
    "tan": lambda a, e, r: jnp.where((e <= 1.0) & (jnp.abs(r) * 2.0 * e <= 0.5),
                                     e * (1.0 + 4.0 * (jnp.abs(r) + 2.0 * e) ** 2), jnp.inf),
    "asin": lambda a, e, r: _unit_slope(a, e),
    "acos": lambda a, e, r: _unit_slope(a, e),
    "atan": lambda a, e, r: e,
    "sinh": lambda a, e, r: _within(e, 1.0, (jnp.abs(r) + 1.0) * e * (1.0 + 2.0 * e)),
    "cosh": lambda a, e, r: _within(e, 1.0, jnp.abs(r) * e * (1.0 + 2.0 * e)),
    "tanh": lambda a, e, r: e,
    "asinh": lambda a, e, r: e,
    "acosh": lambda a, e, r: jnp.where(a - e > 1.0, e / jnp.sqrt((a - e - 1.0) * (a - e + 1.0)), jnp.inf),
    "atanh": lambda a, e, r: jnp.where(jnp.abs(a) + e < 1.0, e / ((1.0 - jnp.abs(a) - e) * (1.0 + jnp.abs(a) + e)), jnp.inf),
    "erf": lambda a, e, r: TWO_OVER_SQRT_PI * e,
    "erfc": lambda a, e, r: TWO_OVER_SQRT_PI * e,
}


def _unit_slope(a, e):
    """asin/acos: the slope 1 / sqrt(1 - x**2) at the interval's end nearest +-1."""
    m = jnp.abs(a) + e
    return jnp.where(m < 1.0, e / jnp.sqrt((1.0 - m) * (1.0 + m)), jnp.inf)


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


def _own_error(name: str, largest, r):
    """(The function's own error at result r, the lanes it has no bound for) by the band of its
    largest |argument| (one band, or sin, cos, tan's by size, or an emulated float64's,
    bounds.band): relative and absolute parts. A lane beyond the measured bands is tainted, as its
    value would be nowhere near a documented distance of CPython's."""
    band = bounds().band(name)
    if len(band) == 1:
        _, rel, absolute = band[0]
        own = rel * UNIT * jnp.abs(r) + FLUSH
        return (own if absolute == 0 else own + absolute * UNIT), False
    rel = absolute = jnp.inf
    for limit, r_ulps, a_ulps in reversed(band):
        inside = largest <= limit
        rel, absolute = jnp.where(inside, r_ulps, rel), jnp.where(inside, a_ulps, absolute)
    return rel * UNIT * jnp.abs(r) + absolute * UNIT + FLUSH, _unmeasured_lanes(band, largest)


def _unmeasured_lanes(band: list[tuple[float, float, float]], largest):
    """The lanes whose largest |argument| falls in a band without a finite bound, or beyond the
    last band (below the range's top: beyond it the lane is tainted already), as few comparisons
    as the bands allow (adjacent unbounded bands merged): they are live in every kernel."""
    gaps: list[list[float]] = []
    lower = -math.inf
    for limit, r_ulps, a_ulps in band:
        if math.isinf(r_ulps) or math.isinf(a_ulps):
            if gaps and gaps[-1][1] == lower:
                gaps[-1][1] = limit
            else:
                gaps.append([lower, limit])
        lower = limit
    if lower < bounds().high:
        gaps.append([lower, math.inf])
    taint = False
    for low, high in gaps:
        inside = largest > low if high >= bounds().high else (largest > low) & (largest <= high)
        taint = either(taint, inside)
    return taint


def _unmeasured(u):
    """fmod, nextafter, ldexp, modf, frexp on an emulated float64 (bits and exponents of a pair of
    float32 are not float64's; not measured): every lane is re-run on the host."""
    return True if bounds().emulated else u


def _emulated_taint(u, r, *args):
    """On an emulated float64, a result outside the device's range taints its lane (approx.py)."""
    return either(u, range_lost(r, *args)) if bounds().emulated else u


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
        err, unmeasured = _own_error(name, jnp.abs(a), r)
        u = either(u, unmeasured)
        if not is_zero(ea):
            err = MOVED[name](a, ea, r) * GROW + err
        return Approx(r, err, _emulated_taint(u, r, a))

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
    err, unmeasured = _own_error("pow", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    ua = either(ua, unmeasured)
    if not (is_zero(ea) and is_zero(eb)):
        abs_a = jnp.abs(a)
        near = jnp.where(abs_a > ea * GROW, ea / (abs_a - ea), jnp.inf) if not is_zero(ea) else 0.0
        delta = jnp.abs(b) * near + (eb * (jnp.abs(jnp.log(abs_a)) + near) if not is_zero(eb) else 0.0)
        err = _within(delta, 0.5, jnp.abs(r) * delta * (1.0 + 2.0 * delta)) * GROW + err
    return Approx(r, err, _emulated_taint(either(ua, ub), r, a, b))


def hypot(x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b) and is_zero(ea) and is_zero(eb):
        return _python(math.hypot, a, b)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.hypot(a, b)
    err, unmeasured = _own_error("hypot", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    ua = either(ua, unmeasured)
    moved = ea + eb if not (is_zero(ea) and is_zero(eb)) else 0
    return Approx(r, err if is_zero(moved) else moved * GROW + err, _emulated_taint(either(ua, ub), r, a, b))


def atan2(y, x) -> Approx:
    b, eb, ub = parts(y)
    a, ea, ua = parts(x)
    if is_python(a) and is_python(b) and is_zero(ea) and is_zero(eb):
        return _python(math.atan2, b, a)  # type: ignore[return-value]
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.arctan2(b, a)
    err, unmeasured = _own_error("atan2", jnp.maximum(jnp.abs(a), jnp.abs(b)), r)
    u = either(either(ua, ub), unmeasured)
    if bounds().emulated:  # the emulation loses the sign of a zero, which picks atan2's quadrant
        u = either(_emulated_taint(u, r, a, b), (a == 0) | (b == 0))
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


def _crossing(fn: Callable, a, e):
    """Where fn (floor, ceil, trunc, rint) may differ over [a - e, a + e]."""
    if is_zero(e):
        return False
    w = e * GROW + 2 * UNIT * jnp.abs(a) + 2 * slack(a)
    return fn(a - w) != fn(a + w)


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
        return Approx(r, err, either(ua, _crossing(fn, a, ea)))

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
        return Approx(r, FLUSH, _unmeasured(either(ua, ub)))
    q = jnp.trunc(a / b)
    from .arith import quotient_unsure

    moved = ea + jnp.abs(q) * eb if not is_zero(eb) else ea
    return Approx(r, moved * GROW + 2 * UNIT * jnp.abs(r) + FLUSH,
                  _unmeasured(either(either(ua, ub), quotient_unsure(a, b, ea, eb))))


def nextafter(x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    if is_python(a) and is_python(b):
        return _python(math.nextafter, a, b)
    a, b = jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64)
    r = jnp.nextafter(a, b)
    u = _unmeasured(either(ua, ub))
    e = ea if is_zero(eb) else add_e(ea, eb)
    if is_zero(e):
        return Approx(r, FLUSH, u)
    u = either(u, jnp.logical_not(jnp.abs(a - b) > e * GROW))  # which way it steps
    return Approx(r, ea * GROW + 2 * UNIT * jnp.abs(r) + FLUSH if not is_zero(ea) else FLUSH, u)


def add_e(e1, e2):
    return e1 if is_zero(e2) else e2 if is_zero(e1) else e1 + e2


def ldexp(x, n) -> Approx:
    a, ea, ua = parts(x)
    k, _, uk = parts(n)
    if is_python(a) and is_python(k):
        return _python(math.ldexp, a, k)  # type: ignore[return-value]
    k = jnp.clip(jnp.asarray(k, jnp.int64), -2200, 2200)
    r = jnp.ldexp(jnp.asarray(a, jnp.float64), k.astype(jnp.int32))
    err = FLUSH if is_zero(ea) else jnp.ldexp(ea * GROW, k.astype(jnp.int32)) + 2 * UNIT * jnp.abs(r) + FLUSH
    return Approx(r, err, _unmeasured(either(ua, uk)))


def modf(x) -> tuple[Approx, Approx]:
    a, ea, ua = parts(x)
    if is_python(a):
        return _python(math.modf, a)  # type: ignore[return-value]
    a = jnp.asarray(a, jnp.float64)
    whole = jnp.where(jnp.isinf(a), a, jnp.trunc(a))
    frac = jnp.where(jnp.isinf(a), _copysign(0.0, a), a - whole)
    u = _unmeasured(either(ua, _crossing(jnp.trunc, a, ea)))
    return Approx(frac, ea if is_zero(ea) else ea * GROW + FLUSH, u), Approx(whole, 0, u)


def frexp(x) -> tuple[Approx, Approx]:
    a, ea, ua = parts(x)
    if is_python(a):
        m, e = math.frexp(a)
        return lift(m), lift(e)
    a = jnp.asarray(a, jnp.float64)
    m, e = jnp.frexp(a)
    u = _unmeasured(ua)
    if not is_zero(ea):  # the exponent jumps at powers of two
        w = ea * GROW + 2 * UNIT * jnp.abs(a)
        u = either(u, (jnp.frexp(a - w)[1] != jnp.frexp(a + w)[1]) | (jnp.abs(a) <= w))
    merr = 0 if is_zero(ea) else jnp.ldexp(ea * GROW, -e) + FLUSH
    return Approx(m, merr, u), Approx(e.astype(jnp.int64), 0, u)
