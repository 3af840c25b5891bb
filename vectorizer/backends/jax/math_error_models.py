"""The error models of `math` on Approx values (mathfns.py computes the functions): for XLA's
function, its measured bound (bounds.py) by the band of its argument, and for an argument that is
itself within a bound, how far the function can move over that interval.

    err(f(a)) = moved(f, a, err a) * GROW + ulps(f) * 2**-52 * |f(a)| + 2**-1021

`moved` (MOVED) is a Lipschitz bound over [a - err a, a + err a] (sin, cos, atan, tanh: err a;
exp: |f(a)| err a (1 + err a); log: err a / (a - err a); ...), inf where none is finite (the
argument may reach a pole or the domain's edge), so that every decision on the result is unsure.
`own_error` is the ulps(f) part; the lanes it has no bound for, and those an emulated float64
cannot hold, are tainted (re-run on the host) rather than given a wrong bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import jax.numpy as jnp
import numpy as np

from .approx import (
    FLUSH,
    GROW,
    UNIT,
    bounds,
    either,
    error_dtype,
    is_zero,
    mag,
    range_lost,
    slack,
)

INV_LN2 = 1.4426950408889634
INV_LN10 = 0.4342944819032518
TWO_OVER_SQRT_PI = 1.1283791670955126


def within(e, limit: float, value):
    """value where e <= limit, else inf (the bound's series no longer holds)."""
    return jnp.where(e <= limit, value, jnp.inf)


# moved(a, e, r): how far f can move over [a - e, a + e]; r = f(a) on the device. On an emulated
# float64 the terms are float32s (no emulated division, root or log): a and r enter as bounds
# (_low, mag_up, mag_down: past their float32 rounding), and GROW covers the float32 roundings
MOVED: dict[str, Callable] = {
    "exp": lambda a, e, r: within(e, 1.0, mag(r) * e * (1.0 + e)),
    "exp2": lambda a, e, r: within(e, 1.0, mag(r) * (e / INV_LN2) * (1.0 + e)),
    "expm1": lambda a, e, r: within(e, 1.0, mag(r + 1.0) * e * (1.0 + e)),
    "log": lambda a, e, r: _over_gap(e, _low(a), e),
    "log2": lambda a, e, r: INV_LN2 * _over_gap(e, _low(a), e),
    "log10": lambda a, e, r: INV_LN10 * _over_gap(e, _low(a), e),
    "log1p": lambda a, e, r: _over_gap(e, 1.0 + _low(a), e),
    "sqrt": lambda a, e, r: jnp.minimum(jnp.sqrt(e), jnp.where(r > 0, e / mag_down(r), jnp.inf)),
    "cbrt": lambda a, e, r: 1.6 * jnp.cbrt(e),
    "sin": lambda a, e, r: e,
    "cos": lambda a, e, r: e,
    "tan": lambda a, e, r: jnp.where((e <= 1.0) & (mag_up(r) * 2.0 * e <= 0.5),
                                     e * (1.0 + 4.0 * (mag_up(r) + 2.0 * e) ** 2), jnp.inf),
    "asin": lambda a, e, r: _unit_slope(a, e),
    "acos": lambda a, e, r: _unit_slope(a, e),
    "atan": lambda a, e, r: e,
    "sinh": lambda a, e, r: within(e, 1.0, (mag(r) + 1.0) * e * (1.0 + 2.0 * e)),
    "cosh": lambda a, e, r: within(e, 1.0, mag(r) * e * (1.0 + 2.0 * e)),
    "tanh": lambda a, e, r: e,
    "asinh": lambda a, e, r: e,
    "acosh": lambda a, e, r: _acosh(a, e),
    "atanh": lambda a, e, r: _atanh(a, e),
    "erf": lambda a, e, r: TWO_OVER_SQRT_PI * e,
    "erfc": lambda a, e, r: TWO_OVER_SQRT_PI * e,
}
_DOWN, _UP = 1.0 - 2.0 ** -22, 1.0 + 2.0 ** -22  # past a float32's rounding to nearest


def mag_down(v, up=False):
    """A lower (upper) bound of |v| in the error terms' type: |v| in float64, else its float32
    moved past that rounding (so that error terms need no emulated division, root or log)."""
    return mag(v) if error_dtype() == jnp.float64 else mag(v) * np.float32(_UP if up else _DOWN)


def mag_up(v):
    return mag_down(v, up=True)


def _f32() -> bool:
    return error_dtype() != jnp.float64


def _low(a):
    """A lower bound of a (signed), in the error terms' type."""
    return jnp.where(a >= 0, mag_down(a), -mag_up(a)) if _f32() else a


def _raised(x):
    """x, computed in float32 from bounds, moved past its own last rounding (exact in float64)."""
    return x * np.float32(_UP) if _f32() else x


def _over_gap(num, x, e):
    """num / (x - e) where x > e (GROW apart), else inf: x a lower bound."""
    return jnp.where(x > e * GROW, num / (x - e), jnp.inf)


def _unit_slope(a, e):
    """asin/acos: the slope 1 / sqrt(1 - x**2) at the interval's end nearest +-1."""
    m = _raised(mag_up(a) + e)
    return jnp.where(m < 1.0, e / jnp.sqrt((1.0 - m) * (1.0 + m)), jnp.inf)


def _acosh(a, e):
    x = _low(a) - e
    x = x * np.float32(_DOWN) if _f32() else x  # a lower bound of a - e
    return jnp.where(x > 1.0, e / (jnp.sqrt(x - 1.0) * jnp.sqrt(x + 1.0)), jnp.inf)  # no float32 overflow


def _atanh(a, e):
    m = _raised(mag_up(a) + e)
    return jnp.where(m < 1.0, e / ((1.0 - m) * (1.0 + m)), jnp.inf)


def log_bound(a):
    """An upper bound of |log |a||, in the error terms' type (float32's log of a's bounds, grown
    past its own error)."""
    if not _f32():
        return jnp.abs(jnp.log(jnp.abs(a)))
    top = jnp.maximum(jnp.abs(jnp.log(mag_down(a))), jnp.abs(jnp.log(mag_up(a))))
    return top * GROW + np.float32(2.0 ** -20)


def own_error(name: str, largest, r):
    """(The function's own error at result r, the lanes it has no bound for) by the band of its
    largest |argument| (one band, or sin, cos, tan's by size, or an emulated float64's,
    bounds.band): relative and absolute parts. A lane beyond the measured bands is tainted, as its
    value would be nowhere near a documented distance of CPython's."""
    band = bounds().band(name)
    if len(band) == 1:
        _, rel, absolute = band[0]
        own = rel * UNIT * mag(r) + FLUSH
        return (own if absolute == 0 else own + absolute * UNIT), False
    # the bands' bounds picked in the error terms' type (a float32's selects on a TPU, rounded up)
    dtype = np.dtype(error_dtype())
    groups = _groups(tuple(band))
    rel, absolute = (jnp.asarray(_up(u, dtype)) for u in groups[-1][1:])
    for limit, r_ulps, a_ulps in reversed(groups[:-1]):
        inside = largest <= limit
        rel, absolute = jnp.where(inside, _up(r_ulps, dtype), rel), jnp.where(inside, _up(a_ulps, dtype), absolute)
    return rel * UNIT * mag(r) + absolute * UNIT + FLUSH, _unmeasured_lanes(band, largest)


@cache
def _groups(band: tuple[tuple[float, float, float], ...]) -> list[tuple[float, float, float]]:
    """The measured bands a lane's bound is picked from, fewer: a band without a finite bound is
    left out (its lanes are tainted, `_unmeasured_lanes`: whichever bound they get is never
    trusted), neighbours within a factor of two (and two ulps) are merged, taking the larger
    bound, and the last group takes every lane above it (beyond it they are tainted too)."""
    out: list[list[float]] = []
    for limit, rel, ab in band:
        if math.isinf(rel) or math.isinf(ab):
            continue
        if out and all(max(u, v) <= 2.0 * min(u, v) + 2.0 for u, v in ((out[-1][1], rel), (out[-1][2], ab))):
            out[-1] = [limit, max(out[-1][1], rel), max(out[-1][2], ab)]
        else:
            out.append([limit, rel, ab])
    return [tuple(g) for g in out] or [(math.inf, math.inf, math.inf)]  # type: ignore[misc]


def _up(x: float, dtype: np.dtype):
    """x in dtype, rounded up (a bound)."""
    y = dtype.type(x)
    return np.nextafter(y, dtype.type(np.inf)) if y < x else y


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


def rerun_if_emulated(u):
    """fmod, nextafter, ldexp, modf, frexp on an emulated float64 (bits and exponents of a pair of
    float32 are not float64's; not measured): every lane is re-run on the host."""
    return True if bounds().emulated else u


def emulated_taint(u, r, *args):
    """On an emulated float64, a result outside the device's range taints its lane (approx.py)."""
    return either(u, range_lost(r, *args)) if bounds().emulated else u


def crossing(fn: Callable, a, e):
    """Where fn (floor, ceil, trunc, rint) may differ over [a - e, a + e]."""
    if is_zero(e):
        return False
    w = e * GROW + 2 * UNIT * jnp.abs(a) + 2 * slack(a)
    return fn(a - w) != fn(a + w)


def add_e(e1, e2):
    """e1 + e2, with no addition where either is the exact 0 (is_zero)."""
    return e1 if is_zero(e2) else e2 if is_zero(e1) else e1 + e2
