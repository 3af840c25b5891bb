"""Functions given as arguments to functions of the code (issue 51): a Python function or a math
function named as a call's argument; the callee's copy calls it (tests/contract/test_function_args.py)."""

import math
from math import atan2, copysign, sqrt


def _atan1u(y, x, to_angle):
    """pygeodesy's helper shape: the function decides the unit."""
    if x < 0:
        x = -x
        y = -y
    return to_angle(y, x or 0.0)


def atan2d(y, x):
    return math.degrees(atan2(y, x))


def atan1(y, x):
    return _atan1u(y, x, atan2)


def atan1d(y, x):
    return _atan1u(y, x, atan2d)


def _halve(v):
    if v > 1e300:
        raise OverflowError("too big to halve here")
    return v * 0.5


def _apply_twice(fn, v):
    return fn(fn(v))


def both(x):
    """The same callee given two functions: two copies."""
    return _apply_twice(_halve, x) + _apply_twice(sqrt, abs(x))


def _pass_on(fn, v):
    return _apply_twice(fn, v) - fn(v)  # the parameter given on to another function


def passed_on(x):
    return _pass_on(_halve, x)


def _root(fn, v):
    return fn(v)  # math.sqrt: ValueError on a negative lane, as Python raises it


def root(x):
    return _root(sqrt, x)


def _sign(fn, a, b):
    return fn(a, b)


def signed(x, y):
    return _sign(copysign, x, y)


def _count(step, n):
    total = 0
    for _ in range(3):
        total = step(total, n)
    return total


def _add(a, b):
    return a + b


def counted(n):
    return _count(_add, n)  # ints: 3 * n, an int64 overflow near 2**63 is Python's big int


def _given_none(fn, v):
    if fn is None:
        return v
    return fn(v)


def maybe(x):
    return _given_none(_halve, x) + _given_none(None, x)


def aliased(x):
    fn = _halve
    return fn(x)


def attribute_passed(x):
    return _root(math.sqrt, x)


def builtin_passed(x):
    return _root(abs, x)


def lambda_passed(x):
    return _root(lambda v: v + 1.0, x)
