"""`x is G` of a float argument (issue 51): a float lane is an object made for the call, never a
module's object (tests/contract/test_module_identity.py)."""

import math
from math import acos, asin, isnan

NAN = float("nan")
ZERO = 0.0
ONE = 1


class Flt(float):
    """pygeodesy's constants are float subclasses."""


PI = Flt(math.pi)
PI_2 = Flt(math.pi / 2)


def _isNAN(x):
    return (x is NAN) or isnan(x)


def _abs1nan(x):
    return -1.0 < x < 1.0 or _isNAN(x)


def acos1(x):
    return acos(x) if _abs1nan(x) else (PI if x < 0 else 0.0)


def asin1(x):
    return asin(x) if _abs1nan(x) else math.copysign(PI_2, x)


def direct(x, y):
    if x is not ZERO and ZERO is not y:
        return x / y
    return -1.0


def keyword_chain(x):
    return _via(y=x) + _via(x)


def _via(y):
    return 1.0 if _isNAN(x=y) else y * 2.0


def reassigned(x):
    x = x * 2.0
    return _isNAN(x)


def expression(x):
    return _isNAN(x + 0.0)


def global_passed(x):
    return _isNAN(NAN) + x


def ints(n):
    return 1 if n is ONE else 0


def defaulted(y, x=NAN):
    return 1.0 if x is NAN else y


def defaulted_callee(y, x=NAN):
    return _isNAN(x) + y


def local_named(x):
    if x > 0:
        NAN = x  # noqa: N806 - a local of that name: no global
    return x is NAN
