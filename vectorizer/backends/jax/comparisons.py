"""Comparisons of `Approx` values (approx.py): the decisions a float's error bound may not settle.

`a < b` is the device's comparison of the values, tainted (`unsure`) on the lanes where the
operands' bounds leave the answer open, `|a - b| > (err a + err b) * GROW` failing (NaN too): the
lane is flagged and the host re-runs it exactly. Two constants the device cannot hold are decided
apart: an emulated float64's constant outside its range (held as 0 or inf, `_against_outside`),
and an int beyond int64 against an int lane (`_beyond_int64`, its sign decides). Apart from
approx.py, which holds the value and its error arithmetic, because this is where an error bound
becomes a taint; approx.py imports this module at its end, after the names it reads here.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax.numpy as jnp

from .approx import (
    GROW,
    INT64,
    Approx,
    add,
    bounds,
    either,
    emulated,
    is_float,
    is_zero,
    outside_constant,
    parts,
    slack,
)


def compare(fn: Callable, x, y) -> Approx:
    beyond = _beyond_int64(fn, x, y)
    if beyond is not None:
        return beyond
    for const, lane, flipped in ((y, x, False), (x, y, True)):
        if outside_constant(const):
            return _against_outside(fn, lane, const, flipped)
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    u = either(ua, ub)
    e = add(ea, eb)
    if not is_zero(e):
        near = jnp.logical_not(jnp.abs(a - b) > e * GROW + slack(a, b))  # NaN anywhere: unsure
        if emulated():  # a lane whose operands are exact (a zero argument) decides exactly
            near = near & (e != 0)
        u = either(u, near)
    return Approx(fn(a, b), 0, u)


def _against_outside(fn: Callable, lane, c: float, flipped: bool) -> Approx:
    """A lane value against a constant an emulated float64 holds as 0 or inf: every lane value is
    inside the range (or tainted), so a huge c compares as inf of its sign, a tiny one as 0 but
    against a zero (the answer CPython gives), unsure where the value's bound reaches c."""
    a, ea, ua = parts(lane)
    a = jnp.asarray(a, jnp.float64)
    huge = abs(c) >= bounds().high
    s = math.copysign(math.inf, c) if huge else 0.0
    value = fn(s, a) if flipped else fn(a, s)
    if not huge:
        value = jnp.where(a == 0, fn(c, 0.0) if flipped else fn(0.0, c), value)
    u = ua
    if not is_zero(ea):
        if huge:  # |a - inf| > e * GROW, with no float64 subtraction (an emulated one's cost):
            # inf > e but where e is inf or NaN; a at s itself or NaN gives NaN
            near = jnp.logical_not(ea * GROW < jnp.inf) | (a == s) | jnp.isnan(a)
        else:
            near = jnp.logical_not(jnp.abs(a - s) > ea * GROW + abs(c))
        u = either(u, near & ~((a == 0) & (ea == 0)))  # an exact zero is known
    return Approx(value, 0, u)


def _beyond_int64(fn: Callable, x, y) -> Approx | None:
    """An int64 lane value against a Python int beyond int64: decided by the constant's sign."""
    for lane, const, flipped in ((x, y, False), (y, x, True)):
        if isinstance(const, int) and not isinstance(const, bool) and not INT64[0] <= const <= INT64[1]:
            a, _, u = parts(lane)
            if not is_float(a):
                inside = 0 if const > 0 else 0  # any int64 stands for the lane: the answer is the same
                truth = fn(const, inside) if flipped else fn(inside, const)
                return Approx(jnp.full(jnp.shape(a), bool(truth)), 0, u)
    return None
