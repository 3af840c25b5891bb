"""What a generated JAX module calls, as `_vz.<name>` (`from vectorizer.backends.jax import runtime
as _vz`): the lane values and their bounds (approx.py), `math` (mathfns.py), control flow and the
lane's flag (control.py), and the kernel that runs a lane function over a batch (driver.py).

passes/lanes_to_jax/exprs.py names the calls lane code may make; tests/backends/test_jax_runtime.py
checks that each of them is here.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from .approx import Approx, emulated, entry_error, is_float, lift, parts
from .control import (
    UNDEF,
    abs_,
    and_,
    bool_,
    callee_result,
    decide,
    divmod_,
    fail,
    float_,
    index,
    int_,
    max_,
    min_,
    not_,
    or_,
    pick,
    put,
    range_live,
    result,
    round_,
    select,
    start,
    truth,
)
from .driver import Kernel
from .loops import while_loop
from .mathfns import (
    atan2,
    ceil,
    copysign,
    fabs,
    floor,
    fmod,
    frexp,
    hypot,
    isfinite,
    isinf,
    isnan,
    ldexp,
    modf,
    nextafter,
    pow_,
    rint,
    trunc,
    unary,
)

exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt = (unary(n) for n in (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt"))
sin, cos, tan, asin, acos, atan = (unary(n) for n in ("sin", "cos", "tan", "asin", "acos", "atan"))
sinh, cosh, tanh, asinh, acosh, atanh, erf, erfc = (unary(n) for n in (
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc"))
_FACTORIALS = tuple(math.factorial(k) for k in range(21))


def exact(value):
    """A literal of the lane code as a device value (so that XLA, not Python, computes with it)."""
    return lift(value)


def arguments(*values):
    """A lane's arguments as lane values (a tuple, also for one): exact, but on an emulated float64,
    whose copy of a float on the device is within the measured entry rounding of it (bounds.py)."""
    lanes = tuple(lift(v) for v in values)
    if not emulated():
        return lanes
    return tuple(Approx(v.value, entry_error(v.value), v.unsure) if is_float(v.value) else v for v in lanes)


def factorial(n):
    """math.factorial for 0 <= n <= 20 (the lane code flags the others)."""
    return index(_FACTORIALS, n)


def bit_length(n):
    """int.bit_length: 64 minus the leading zeros of |n| (abs(-2**63) wraps to itself: 64, right)."""
    a, _, u = parts(n)
    return Approx(64 - lax.clz(jnp.abs(jnp.asarray(a, jnp.int64))), 0, u)


def active(done, *path):
    """The lanes a callee runs on: not done, and on the caller's path."""
    out = not_(Approx(jnp.asarray(parts(done)[0], jnp.bool_)))
    for p in path:
        out = and_(p, out)
    return out


def start_callee(path):
    """(failed, done) at a callee's entry: lanes off the caller's path are done."""
    t = truth(path)
    live = t.value if isinstance(t, Approx) else jnp.asarray(t)
    return jnp.zeros((), jnp.bool_), jnp.logical_not(live)


def kernel(lane, name: str, *, batched: tuple[bool, ...], result: tuple[str, ...], returns_tuple: bool) -> Kernel:
    return Kernel(lane, name, batched, result, returns_tuple)


__all__ = [
    "UNDEF", "Approx", "abs_", "arguments", "acos", "acosh", "active", "and_", "asin", "asinh", "atan", "atan2", "atanh", "bit_length",
    "bool_", "callee_result", "cbrt", "ceil", "copysign", "cos", "cosh", "decide", "divmod_", "erf", "erfc", "exact",
    "exp", "exp2", "expm1", "fabs", "factorial", "fail", "float_", "floor", "fmod", "frexp", "hypot", "index", "int_",
    "isfinite", "isinf", "isnan", "kernel", "ldexp", "log", "log10", "log1p", "log2", "max_", "min_", "modf",
    "nextafter", "not_", "or_", "pick", "pow_", "put", "range_live", "result", "rint", "round_", "select", "sin",
    "sinh", "sqrt", "start", "start_callee", "tan", "tanh", "trunc", "truth", "while_loop",
]
