"""Arithmetic on lane values (approx.py): + - * / // % **, as CPython computes them where XLA can
be made to, within an error bound where it cannot.

XLA rewrites float arithmetic in ways CPython does not round: it contracts `a * b + c` into a
fused multiply-add, turns `x / c` into `x * (1 / c)` (a broadcast divisor too), reassociates
constants (`(x + c1) - c2` into `x + (c1 - c2)`, `x + 0.0` into `x`), and flushes subnormal
operands and results to zero. Written as below, none of the rewrites applies:

* a constant enters the device as `c + zero`, with `zero` each lane's -0.0 computed from a lane
  value (`-0.0 * (x == x)`): exactly c, but no constant to XLA (and a divisor no broadcast);
* a product passes through a select XLA cannot fold (`where(flushed, 0.0, a * b)`, else
  `where(isnan(a), a, a * b)`): no add can take the unrounded product.

On a platform where that arithmetic measured CPython's bits (bounds.Bounds.exact_arithmetic), an
operation on exact operands is exact, but for a flush: its result is 0 where CPython's is a
subnormal, so the lanes where a result is 0 though it would not be in exact arithmetic are
tainted (`unsure`: flagged, re-run on the host). The conditions (a and b normal or zero, since
arguments that are not were flagged at the lane's entry):

    a * b: r == 0, a != 0, b != 0          (never for a constant |c| >= 1)
    a / b: r == 0, a != 0, b finite        (never for a constant 0 < |c| <= 1)
    a + b: r == 0, a != -b                 (never with a constant |c| >= 2**-969: a sum of such
                                            doubles is a multiple of 2**-1022)

Operands within a bound (a transcendental function's result, or a platform whose arithmetic is
not exact) take the error model of approx.py's docstring instead. On an emulated float64 (a
TPU's, bounds.py) a sum's rounding is relative to its operands (|a| + |b|), not to its cancelled
result, each result that leaves the range where the device keeps precision taints its lane
(`approx.range_lost`; a divisor's reciprocal too, which the emulation multiplies by), and float
`//` and `%` taint every lane (their emulated remainders are not measured).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import jax.numpy as jnp
from jax import lax

from .approx import (
    FLUSH,
    GROW,
    UNIT,
    Approx,
    _Active,
    add,
    bounds,
    copysign,
    either,
    is_float,
    is_python,
    is_zero,
    mag,
    outside_constant,
    parts,
    range_lost,
)

_ARITH: dict[str, Callable] = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
TINY_SUM = 2.0 ** -969  # a sum with an operand at least this large is never subnormal


def opaque(c):
    """A Python number as a device value XLA cannot fold: c + (-0.0) per lane. On an emulated
    float64 the constant itself: XLA's rewrites with it (x / c as x * (1 / c), which is how the
    emulation divides anyway; constants reassociated; `a * b + c` fused) stay within the bounds,
    which are relative to an emulated sum's operands, not its result, and the sign of a zero is
    never trusted there (mathfns.copysign, atan2): the extra emulated addition per constant would
    buy nothing."""
    zero = _Active.zero
    if zero is None or bounds().emulated:
        return jnp.asarray(c, jnp.float64)
    return jnp.asarray(c, jnp.float64) + zero


def rounding(v, op: str, scale=None):
    """An operation's own rounding and flush, for its device result v (relative to `scale` where
    given: an emulated sum's operands)."""
    return bounds().arithmetic(op) * UNIT * (mag(v) if scale is None else scale) + FLUSH


def grown(delta, v, op: str, scale=None):
    """The error of an operation: what its operands' errors move it by, and its rounding."""
    own = rounding(v, op, scale)
    return own if is_zero(delta) else delta * GROW + own


def emulated_lost(op: str, a, b, v):
    """The lanes where an emulated operation's result left the device's range (a sum that cancels
    exactly keeps its zero; a divisor whose reciprocal leaves the range loses it too)."""
    lost = range_lost(v, a, b)
    if op in ("add", "sub"):
        return lost & ~((v == 0) & (a == (-b if op == "add" else b)))
    if op == "div":
        return lost | (jnp.isfinite(b) & (mag(b) * bounds().precise_low > 1.0))
    return lost


def arith(op: str, x, y) -> Approx:
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    u = either(ua, ub)
    if not (is_float(a) or is_float(b) or op == "div"):
        return Approx(_ARITH[op](a, b), 0, u)  # ints: exact (the lane code checked the range)
    const_a, const_b = (c if is_python(c) else None for c in (a, b))
    a = opaque(a) if const_a is not None else a
    b = opaque(b) if const_b is not None else b
    if is_zero(ea) and is_zero(eb) and bounds().exact_arithmetic:
        v, flushed = _exact(op, a, b, const_a, const_b)
        return Approx(v, 0, either(u, flushed))
    v = _ARITH[op](a, b)
    scale = None
    if bounds().emulated:
        u = either(u, emulated_lost(op, a, b, v))
        if outside_constant(const_a) or outside_constant(const_b):
            u = True
        scale = mag(a) + mag(b) if op in ("add", "sub") else None
    if op in ("add", "sub"):
        delta = add(ea, eb)
    elif op == "mul":
        delta = add(0 if is_zero(eb) else (mag(a) + ea if not is_zero(ea) else mag(a)) * eb,
                    0 if is_zero(ea) else mag(b) * ea)
    else:
        delta = div_delta(a, b, ea, eb)
    return Approx(v, grown(delta, v, op, scale), u)


def _exact(op: str, a, b, const_a, const_b):
    """(CPython's result where no flush happened, the lanes where one did)."""
    if not bounds().flushes:  # no subnormal flushed here: IEEE's results
        const_a = const_b = 1.0
    if op in ("add", "sub"):
        r = a + b if op == "add" else a - b
        if any(c is not None and (c == 0 or abs(c) >= TINY_SUM) for c in (const_a, const_b)):
            return r, False
        return r, (r == 0) & (a != (-b if op == "add" else b))
    if op == "mul":
        r = a * b
        if any(c is not None and (c == 0 or abs(c) >= 1) for c in (const_a, const_b)):
            traced = a if const_a is None else b
            return jnp.where(jnp.isnan(traced), traced, r), False  # blocks contraction into an add
        flushed = (r == 0) & (a != 0) & (b != 0)
        return jnp.where(flushed, 0.0, r), flushed
    divisor = b if const_b is not None else b + _zero_like(b)  # a divisor XLA cannot take for a broadcast
    r = a / divisor
    if (const_b is not None and 0 < abs(const_b) <= 1) or (const_a is not None and const_a == 0):
        return r, False
    return r, (r == 0) & (a != 0) & (jnp.abs(b) < jnp.inf)


def _zero_like(b):
    zero = _Active.zero
    return 0.0 if zero is None or bounds().emulated else zero


def div_delta(a, b, ea, eb):
    """How far a / b can move when a and b move by ea and eb (inf where b may reach zero):
    (|b| ea + |a| eb) / |b| / (|b| - eb), no product of two magnitudes in a denominator (on an
    emulated float64 the error terms are float32s, where |b|**2 may overflow: a numerator's
    overflow is inf, a bound still)."""
    if is_zero(ea) and is_zero(eb):
        return 0
    abs_b = mag(b)
    if is_zero(eb):
        return ea / abs_b
    num = add(0 if is_zero(ea) else abs_b * ea, mag(a) * eb)
    return jnp.where(abs_b > eb * GROW, num / abs_b / (abs_b - eb), jnp.inf)


def floor_parts(a, b):
    """CPython's float divmod (floatobject.c): (floor quotient, modulo), exact on exact operands."""
    b = b + _zero_like(b)
    m = lax.rem(a, b)
    div = (a - m) / b
    fix = (m != 0) & ((b < 0) != (m < 0))
    m = jnp.where(fix, m + b, jnp.where(m != 0, m, copysign(0.0, b)))
    div = jnp.where(fix, div - 1.0, div)
    q = jnp.floor(div)
    q = jnp.where(div - q > 0.5, q + 1.0, q)
    q = jnp.where(div != 0, q, copysign(0.0, a / b))
    return q, m


def quotient_unsure(a, b, ea, eb):
    """Where the floor of a / b may differ for operands within their bounds."""
    if is_zero(ea) and is_zero(eb):
        return False
    t = a / b
    et = div_delta(a, b, ea, eb) * GROW + 2 * UNIT * mag(t) + FLUSH
    return jnp.floor(t - et) != jnp.floor(t + et)


def _floats(x, y):
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    a = opaque(a) if is_python(a) else jnp.asarray(a, jnp.float64)
    b = opaque(b) if is_python(b) else jnp.asarray(b, jnp.float64)
    return a, ea, b, eb, either(ua, ub)


def floordiv(x, y) -> Approx:
    a, _, ua = parts(x)
    b, _, ub = parts(y)
    if not (is_float(a) or is_float(b)):
        return Approx(jnp.floor_divide(a, b), 0, either(ua, ub))
    a, ea, b, eb, u = _floats(x, y)
    if bounds().emulated:
        u = True
    q, m = floor_parts(a, b)
    return Approx(q, 0, either(u, _flushed_mod(a, b, m, ea, eb) if is_zero(ea) and is_zero(eb) else quotient_unsure(a, b, ea, eb)))


def mod(x, y) -> Approx:
    a, _, ua = parts(x)
    b, _, ub = parts(y)
    if not (is_float(a) or is_float(b)):
        return Approx(jnp.remainder(a, b), 0, either(ua, ub))
    a, ea, b, eb, u = _floats(x, y)
    if bounds().emulated:
        u = True
    q, m = floor_parts(a, b)
    if is_zero(ea) and is_zero(eb) and bounds().exact_arithmetic:
        return Approx(m, 0, either(u, _flushed_mod(a, b, m, ea, eb)))
    delta = add(ea, 0 if is_zero(eb) else mag(q) * eb)
    err = FLUSH if is_zero(delta) else delta * GROW + 2 * UNIT * mag(m) + FLUSH
    return Approx(m, err, either(u, quotient_unsure(a, b, ea, eb)))


def _flushed_mod(a, b, m, ea, eb):
    """A remainder is exact, and subnormal (flushed) only by a divisor below 2**-969."""
    if not bounds().exact_arithmetic:
        return quotient_unsure(a, b, ea, eb)
    return (m == 0) & (a != 0) & (jnp.abs(b) < TINY_SUM)


def power(x, y) -> Approx:
    """`**`: ints by ints exactly (the lane code checked the range); floats as C's pow."""
    a, _, ua = parts(x)
    b, _, ub = parts(y)
    if not (is_float(a) or is_float(b)):
        return Approx(jnp.power(a, b), 0, either(ua, ub))
    from .mathfns import pow_

    return pow_(x, y)
