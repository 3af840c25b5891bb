"""`Approx`: a value the generated JAX code computes, with a bound on its distance from the value
CPython computes for the same lane, and a taint that says a discrete choice behind it may differ.

XLA's float64 is not CPython's: its exp, log, pow... are other approximations (bounds.py), and
even its IEEE operations differ in context: it contracts `a * b + c` into one fused multiply-add
(one rounding where CPython rounds twice) and flushes subnormal operands and results to zero. So
every float the device computes is within a bound of CPython's, never known to be equal. The
bound is carried along (running error analysis, each operation adding its own rounding and what
its operands' bounds can move its result), and wherever a float DECIDES something (a comparison,
int(), a branch, a trip count), the lanes where the bound cannot settle the decision are tainted
(`unsure`); a tainted decision flags the lane (control.py), which the host re-runs exactly.

Static zeros: an exact value (an argument, a literal, an int) has `err` 0 and `unsure` False as
Python values, so an operation on exact operands adds no error terms of theirs to the trace.
Error terms no decision reads are dead code to XLA, which removes them: only decisions pay.

    err(a + b) = (err a + err b) * GROW + rounding(a + b)
    err(a * b) = (|a| err b + |b| err a + err a err b) * GROW + rounding(a * b)
    err(a / b) = (|b| err a + |a| err b) / (|b| (|b| - err b)) * GROW + rounding(a / b)
    rounding(r) = ulps * 2**-52 * |r| + 2**-1021      (2**-1021: a flushed subnormal)
    a < b is unsure where not |a - b| > (err a + err b) * GROW   (NaN: unsure)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
from jax import tree_util

UNIT = 2.0 ** -52
FLUSH = 2.0 ** -1021  # bounds the error of flushing a subnormal to zero, and is itself normal
# covers the rounding of the error terms' own arithmetic: a float32's on an emulated float64
# (below), up to 16 of its roundings an operation, so exactly a float32 too
GROW = 1.0 + 2.0 ** -20
SMALLEST_NORMAL = 2.2250738585072014e-308


class _Active:
    """What the lane function being traced reads (driver.py sets it around the trace)."""

    bounds = None  # the platform's Bounds
    zero = None  # -0.0 for each lane, as XLA cannot know it (arith.py: opaque constants)


def bounds():
    if _Active.bounds is None:
        raise RuntimeError("a JAX lane function was traced outside its kernel (no platform bounds set)")
    return _Active.bounds


class Approx:
    """value: a JAX array (a 0-d tracer in a lane); err: 0 or a float64 bound; unsure: False or a
    bool array. Operators work as on the value, with the bound and the taint carried along."""

    __slots__ = ("value", "err", "unsure")
    __array_priority__ = 1000  # NumPy scalars defer to our reflected operators

    def __init__(self, value, err=0, unsure=False) -> None:
        self.value, self.err, self.unsure = value, err, unsure

    def __bool__(self) -> bool:
        raise TypeError("a traced lane value has no Python truth value: the generated code must decide() it")

    def __repr__(self) -> str:
        return f"Approx({self.value!r}, err={self.err!r}, unsure={self.unsure!r})"

    __hash__ = None  # type: ignore[assignment]

    @property
    def dtype(self):
        return jnp.result_type(self.value)

    # arithmetic: a op b and b op a
    def __add__(self, o): return _arith.arith("add", self, o)
    def __radd__(self, o): return _arith.arith("add", o, self)
    def __sub__(self, o): return _arith.arith("sub", self, o)
    def __rsub__(self, o): return _arith.arith("sub", o, self)
    def __mul__(self, o): return _arith.arith("mul", self, o)
    def __rmul__(self, o): return _arith.arith("mul", o, self)
    def __truediv__(self, o): return _arith.arith("div", self, o)
    def __rtruediv__(self, o): return _arith.arith("div", o, self)
    def __floordiv__(self, o): return _arith.floordiv(self, o)
    def __rfloordiv__(self, o): return _arith.floordiv(o, self)
    def __mod__(self, o): return _arith.mod(self, o)
    def __rmod__(self, o): return _arith.mod(o, self)
    def __pow__(self, o): return _arith.power(self, o)
    def __rpow__(self, o): return _arith.power(o, self)
    def __and__(self, o): return exact_op(operator.and_, self, o)
    def __rand__(self, o): return exact_op(operator.and_, o, self)
    def __or__(self, o): return exact_op(operator.or_, self, o)
    def __ror__(self, o): return exact_op(operator.or_, o, self)
    def __xor__(self, o): return exact_op(operator.xor, self, o)
    def __rxor__(self, o): return exact_op(operator.xor, o, self)
    def __lshift__(self, o): return exact_op(operator.lshift, self, o)
    def __rlshift__(self, o): return exact_op(operator.lshift, o, self)
    def __rshift__(self, o): return exact_op(operator.rshift, self, o)
    def __rrshift__(self, o): return exact_op(operator.rshift, o, self)
    def __neg__(self): return Approx(-self.value, self.err, self.unsure)
    def __pos__(self): return self
    def __abs__(self): return Approx(jnp.abs(self.value), self.err, self.unsure)
    def __invert__(self): return Approx(~self.value, 0, self.unsure)
    # comparisons
    def __lt__(self, o): return _comparisons.compare(operator.lt, self, o)
    def __le__(self, o): return _comparisons.compare(operator.le, self, o)
    def __gt__(self, o): return _comparisons.compare(operator.gt, self, o)
    def __ge__(self, o): return _comparisons.compare(operator.ge, self, o)
    def __eq__(self, o): return _comparisons.compare(operator.eq, self, o)  # type: ignore[override]
    def __ne__(self, o): return _comparisons.compare(operator.ne, self, o)  # type: ignore[override]


def _flatten(x: Approx):
    traced_err, traced_unsure = not is_zero(x.err), not is_false(x.unsure)
    children = (x.value,) + ((x.err,) if traced_err else ()) + ((x.unsure,) if traced_unsure else ())
    return children, (traced_err, traced_unsure, None if traced_err else x.err)


def _unflatten(aux, children):
    traced_err, traced_unsure, static_err = aux
    it = iter(children)
    value = next(it)
    err = next(it) if traced_err else static_err
    unsure = next(it) if traced_unsure else False
    return Approx(value, err, unsure)


tree_util.register_pytree_node(Approx, _flatten, _unflatten)


# -- parts and static values ----------------------------------------------------------------------
def is_zero(e) -> bool:
    return isinstance(e, (int, float)) and not isinstance(e, bool) and e == 0


def is_false(u) -> bool:
    return u is False or (isinstance(u, (bool, np.bool_)) and not u)


def subnormal_constant(x) -> bool:
    """A Python float the device reads as zero: every lane that computes with it is re-run."""
    return isinstance(x, float) and x != 0.0 and abs(x) < SMALLEST_NORMAL


def outside_constant(x) -> bool:
    """A Python float an emulated float64 holds as 0 or inf (bounds.outside): arithmetic with it
    taints the lane; a comparison with it stands, as every lane value is inside the range or
    tainted already."""
    b = _Active.bounds
    return isinstance(x, float) and b is not None and b.outside(x)


def emulated() -> bool:
    """Whether the platform's float64 is emulated (bounds.py): no device float is CPython's."""
    return _Active.bounds is not None and _Active.bounds.emulated


def constant_error(x) -> float:
    """How far the device's copy of a Python float is from it (0 on an IEEE float64)."""
    b = _Active.bounds
    return b.pair_error(x) if b is not None and isinstance(x, float) else 0.0


def error_dtype():
    """The error terms' type: float32 where float64 is emulated (the device's native type; the
    emulated float64 has float32's exponent range and nothing more, and a bound needs no more
    than float32's precision: GROW covers its roundings), else float64."""
    return jnp.float32 if emulated() else jnp.float64


def mag(v):
    """|v| in the error terms' type (rounded to nearest: GROW covers it)."""
    return jnp.abs(v).astype(error_dtype())


def entry_error(v):
    """An emulated float64 value's distance from the number it stands for, at most (an argument
    copied to the device, an integer-valued result): the measured entry rounding."""
    return bounds().entry * UNIT * mag(v)


def slack(a, b=0.0):
    """What the device's own `a - b` may be off by when a decision tests it against a bound: 0
    where float64 is IEEE's (the difference of near values is exact), an emulated sum's rounding."""
    if not emulated():
        return 0
    return bounds().arithmetic("sub") * UNIT * (mag(a) + mag(b))


def kept(v):
    """Whether v lies in the range where an emulated float64 keeps its precision (a float32 test,
    inside float32's range). A float of a lane not flagged is kept, an exact zero or not finite."""
    b, m = bounds(), mag(v)
    return (m >= b.low) & (m < b.high)


def range_lost(r, *operands):
    """On an emulated float64: the lanes where the result r of operands inside the range left it
    (a zero of them is taken as lost). An operand not `kept` is an exact zero or not finite (or
    flagged already), whose results are exact or not finite too (0 * x, f(0), inf...); each
    operand's test is its producer's own (XLA computes it once)."""
    return functools.reduce(operator.and_, (kept(o) for o in operands), jnp.logical_not(kept(r)))


INT64 = (-(2**63), 2**63 - 1)


def parts(x):
    """(value, err, unsure) of an Approx, a Python number or a plain array (exact). An int beyond
    int64 (a bound in a check of the lane code) is its float, exactly: such bounds are powers of
    two or near them, and the lane code compares them with floats' estimates."""
    if isinstance(x, Approx):
        return x.value, x.err, x.unsure
    if isinstance(x, (bool, int, float)):
        if isinstance(x, int) and not isinstance(x, bool) and not INT64[0] <= x <= INT64[1]:
            return float(x), 0, False
        return x, constant_error(x), subnormal_constant(x)
    return x, 0, False


def is_python(x) -> bool:
    return isinstance(x, (bool, int, float))


def is_float(v) -> bool:
    if isinstance(v, bool | int):
        return False
    if isinstance(v, float):
        return True
    return bool(jnp.issubdtype(jnp.result_type(v), jnp.floating))


def add(e1, e2):
    """e1 + e2 with static zeros kept static."""
    if is_zero(e1):
        return e2
    if is_zero(e2):
        return e1
    return e1 + e2


def either(u1, u2):
    """u1 | u2 with static False kept static."""
    if is_false(u1):
        return u2
    if is_false(u2):
        return u1
    if u1 is True or u2 is True:
        return True
    return jnp.logical_or(u1, u2)


def exact_op(fn: Callable, x, y) -> Approx:
    """Bitwise operators and shifts: ints and bools, exact."""
    a, _, ua = parts(x)
    b, _, ub = parts(y)
    return Approx(fn(a, b), 0, either(ua, ub))


def copysign(x, y):
    """C's copysign on device values. XLA's TPU compiler cannot bitcast float64 (the emulated
    type) to ints, which jnp.copysign does: there, the sign of y is read arithmetically (a zero's
    from 1 / y; a NaN's sign bit is not readable: taken as +)."""
    if bounds().bitcasts:
        return jnp.copysign(x, y)
    negative = (y < 0) | ((y == 0) & (1.0 / y < 0))
    return jnp.where(negative, -jnp.abs(x), jnp.abs(x))


def lift(x):
    """Any value as an Approx (Python numbers become typed arrays: int64, float64, bool; tuples
    item by item)."""
    if isinstance(x, Approx):
        return x
    if isinstance(x, tuple):
        return tuple(lift(v) for v in x)
    v, e, u = parts(x)
    if isinstance(v, bool):
        v = jnp.asarray(v, jnp.bool_)
    elif isinstance(v, int):
        v = jnp.asarray(v, jnp.int64)
    elif isinstance(v, float):
        v = jnp.asarray(v, jnp.float64)
    return Approx(v, e, u)


def value_of(x):
    return x.value if isinstance(x, Approx) else x


from . import arith as _arith  # noqa: E402 - the operators' implementations, which import this module
from . import comparisons as _comparisons  # noqa: E402 - the comparison operators, which import this module too
