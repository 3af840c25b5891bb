"""The control flow of a generated JAX lane function: selects, loops, decisions and the lane's
flag, on Approx values (approx.py).

* `decide(test, failed, done)` -> (the test's value, failed, done): a test the error bounds cannot
  settle flags the lane (failed) and stops it (done): the host re-runs it. `fail(cond, ...)` is a
  check of the lane code (`if cond: return <zeros>, True`): flag where cond holds or is unsure.
* `select(c, a, b)` merges the two sides of an `if` (and is `a if c else b`): values, bounds and
  taints, tuples item by item; `UNDEF` (a name bound on one side only) takes the other side.
* `while_loop` (loops.py): `lax.while_loop` over the names a loop carries.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from .approx import (
    GROW,
    UNIT,
    Approx,
    add,
    bounds,
    constant_error,
    either,
    error_dtype,
    is_false,
    is_float,
    is_python,
    is_zero,
    lift,
    mag,
    outside_constant,
    parts,
    slack,
    subnormal_constant,
)
from .comparisons import compare


class _Undefined:
    def __repr__(self) -> str:
        return "UNDEF"


UNDEF = _Undefined()  # a name not bound yet on this path


# -- truth, and/or/not, selects ------------------------------------------------------------------
def truth(x):
    """Python's truth of a lane value: a bool (Approx), exact or unsure."""
    if is_python(x):
        return bool(x)
    if isinstance(x, Approx) and jnp.result_type(x.value) == jnp.bool_:
        return x
    if not isinstance(x, Approx):
        return Approx(jnp.asarray(x) != 0, 0, False) if jnp.result_type(x) != jnp.bool_ else Approx(x)
    return compare(lambda a, b: a != b, x, 0)


def not_(x):
    t = truth(x)
    if isinstance(t, bool):
        return lift(not t)
    return Approx(jnp.logical_not(t.value), 0, t.unsure)


def and_(x, y):
    """`x and y`: y where x is true, else x."""
    t = truth(x)
    if isinstance(t, bool):
        return lift(y if t else x)
    return select(t, y, x)


def or_(x, y):
    """`x or y`: x where x is true, else y."""
    t = truth(x)
    if isinstance(t, bool):
        return lift(x if t else y)
    return select(t, x, y)


def select(c, x, y):
    """`x if c else y`, lane by lane."""
    if x is UNDEF:
        return y
    if y is UNDEF:
        return x
    if isinstance(x, tuple):
        return tuple(select(c, xi, yi) for xi, yi in zip(x, y))
    t = truth(c)
    if isinstance(t, bool):
        return lift(x if t else y)
    cv = t.value
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    v = jnp.where(cv, a, b)
    err = 0 if (is_zero(ea) and is_zero(eb)) or not is_float(v) else jnp.where(cv, ea, eb)
    return Approx(v, err, either(t.unsure, _pick(cv, ua, ub)))


def _pick(cv, ua, ub):
    """The taint of the side each lane takes."""
    if is_false(ua) and is_false(ub):
        return False
    return jnp.where(cv, ua, ub)


_ORDER = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def pick(op: str, x, y):
    """`x if x <op> y else y` (the lane code's min and max): where the comparison is unsure the
    result is one of two values within a bound of each other, so it is no decision: the result's
    bound grows by their distance instead."""
    a, ea, ua = parts(x)
    b, eb, ub = parts(y)
    taken = _ORDER[op](a, b)
    if is_python(taken):
        return lift(x if taken else y)
    v = jnp.where(taken, a, b)
    u = _pick(taken, ua, ub)
    e = add(ea, eb)
    if not is_float(v) or is_zero(e):
        return Approx(v, 0, u)
    near = jnp.logical_not(jnp.abs(a - b) > e * GROW)
    chosen = jnp.where(taken, ea, eb)
    return Approx(v, jnp.where(near, mag(a - b) + e, chosen) * GROW, u)


def min_(*xs):
    """Python's min(a, b, ...): the first least (a later one replaces it where it is smaller)."""
    acc = xs[0]
    for x in xs[1:]:
        acc = pick("<", x, acc)
    return acc


def max_(*xs):
    acc = xs[0]
    for x in xs[1:]:
        acc = pick(">", x, acc)
    return acc


# -- conversions ----------------------------------------------------------------------------------
def float_(x):
    if is_python(x):
        return lift(float(x))
    a, ea, ua = parts(x)
    if is_float(a):
        return x
    v = jnp.asarray(a).astype(jnp.float64)  # int -> float rounds to nearest, as CPython
    b = bounds()
    if b.emulated:  # exact below the measured bound, the emulation's rounding above it
        return Approx(v, jnp.where(jnp.abs(v) < b.convert_exact_below, 0.0, b.ulps("convert") * UNIT * mag(v)), ua)
    return Approx(v, 0, ua)


def int_(x):
    """int(): floats truncate (the lane code checked the range and NaN first)."""
    if is_python(x) and (not isinstance(x, float) or math.isfinite(x)):
        return lift(int(x))
    if is_python(x):
        x = lift(x)  # int(nan), int(inf): the lane code flagged it; no Python error here
    a, ea, ua = parts(x)
    if not is_float(a):
        return Approx(jnp.asarray(a).astype(jnp.int64), 0, ua)
    u = ua
    if not is_zero(ea):
        w = ea * GROW + 2 * UNIT * jnp.abs(a) + 2 * slack(a)
        u = either(u, jnp.trunc(a - w) != jnp.trunc(a + w))
    return Approx(jnp.trunc(a).astype(jnp.int64), 0, u)


def bool_(x):
    return truth(x)


def abs_(x):
    return abs(x)


def round_(x, digits=None):
    if digits is not None:
        raise TypeError("round(x, n) reaches the JAX lane code only in its expanded form")
    from .mathfns import rint

    return int_(rint(x))


def divmod_(x, y):
    return x // y, x % y


def index(seq, i):
    """seq[i]: a tuple of the lane code (module constant, or values) by an int of the lane."""
    if is_python(i) and isinstance(seq, tuple) and -len(seq) <= i < len(seq):
        return lift(seq[i])
    if is_python(i):
        i = lift(i)
    k, _, uk = parts(i)
    if isinstance(seq, tuple) and all(is_python(s) for s in seq):
        values = jnp.asarray(seq)
        tiny = [subnormal_constant(s) or outside_constant(s) for s in seq]
        if any(tiny):  # an entry the device reads as zero (or out of range): its lanes are re-run
            uk = either(uk, jnp.asarray(tiny)[k])
        errs = [constant_error(s) for s in seq]  # an emulated float64's copies of the entries
        return Approx(values[k], jnp.asarray(errs, error_dtype())[k] if any(errs) else 0, uk)
    items = [lift(s) for s in seq]
    values = jnp.stack([jnp.asarray(s.value) for s in items])
    errs = [s.err for s in items]
    err = 0 if all(is_zero(e) for e in errs) else \
        jnp.stack([jnp.asarray(e) for e in errs]).astype(jnp.result_type(*errs, error_dtype()))[k]
    unsure = [s.unsure for s in items]
    u = uk if all(is_false(s) for s in unsure) else either(uk, jnp.stack([jnp.asarray(s) for s in unsure])[k])
    return Approx(values[k], err, u)


def range_live(k, stop, step):
    """Whether `for ... in range(..., stop, step)` goes on with its counter at k."""
    if is_python(step):
        return k < stop if step > 0 else k > stop
    return ((step > 0) & (k < stop)) | ((step < 0) & (k > stop))


# -- the lane's flag ------------------------------------------------------------------------------
def subnormal(x):
    """A float argument XLA would read as zero: the lane runs on the host."""
    a = parts(x)[0]
    if not is_float(a) or not bounds().flushes_inputs:
        return jnp.asarray(False)
    bits = lax.bitcast_convert_type(jnp.asarray(a, jnp.float64), jnp.int64)
    return ((bits & 0x7FF0000000000000) == 0) & ((bits & 0x000FFFFFFFFFFFFF) != 0)


def start(*params):
    """(failed, done) at a lane's entry: lanes with a subnormal argument are flagged."""
    failed = jnp.asarray(False)
    for p in params:
        failed = failed | subnormal(p)
    return failed, failed


def _bool(x):
    """A flag of the lane (failed, done, a loop's live) as a JAX bool."""
    return jnp.asarray(parts(x)[0], jnp.bool_)


def decide(test, failed, done):
    """(the test's truth, failed, done): an unsure test flags and stops its lane."""
    failed, done = _bool(failed), _bool(done)
    t = truth(test)
    if isinstance(t, bool):
        return t, failed, done
    if is_false(t.unsure):
        return t.value, failed, done
    new = jnp.logical_and(t.unsure, jnp.logical_not(done))
    return t.value, failed | new, done | new


def fail(cond, failed, done):
    """A check: flag (and stop) the lanes where cond holds, or may."""
    failed, done = _bool(failed), _bool(done)
    t = truth(cond)
    hit = t if isinstance(t, bool) else either(t.value, t.unsure)
    if hit is False:
        return failed, done
    new = jnp.logical_and(hit, jnp.logical_not(done))
    return failed | new, done | new


def put(out, value, done):
    """A `return value`: the lanes not done yet take it."""
    return select(Approx(jnp.logical_not(_bool(done))), value, out)


def taint(value, flag):
    """A value whose lanes under `flag` may be wrong (an infallible callee that decided unsure)."""
    if isinstance(value, tuple):
        return tuple(taint(v, flag) for v in value)
    a, e, u = parts(value)
    return Approx(a, e, either(u, flag))


def unsure_of(value):
    if isinstance(value, tuple):
        out = False
        for v in value:
            out = either(out, unsure_of(v))
        return out
    return parts(value)[2]


def plain(value):
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return jnp.asarray(parts(value)[0])


def result(out, failed, fallible: bool):
    """The main lane's (value, flag): flagged where it failed or where its value is unsure."""
    if out is UNDEF:
        raise RuntimeError("a lane function ended without a return")
    value, flag = out if fallible else (out, False)
    return plain(value), jnp.asarray(either(either(plain(flag), _bool(failed)), unsure_of(value)))


def callee_result(out, failed, fallible: bool):
    if out is UNDEF:
        raise RuntimeError("a lane function ended without a return")
    if fallible:
        value, flag = out
        return value, either(plain(flag), _bool(failed))
    return taint(out, _bool(failed))
