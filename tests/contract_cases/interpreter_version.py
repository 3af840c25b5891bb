"""Tests of `sys.version_info` (issue 51): the running interpreter's version, decided when the
code is generated (tests/contract/test_interpreter_version.py)."""

import math
import sys


def norm(x, y):
    """geographiclib's Math.norm: hypot was inaccurate on 3.8 and 3.9."""
    r = (math.sqrt(x * x + y * y)
         if (3, 8) <= sys.version_info < (3, 10)
         else math.hypot(x, y))
    return x / r, y / r


def branch(x):
    if sys.version_info >= (3, 0) and x > 0:  # noqa: UP036 - a test decided True
        return math.log(x)
    if sys.version_info < (2, 7):  # noqa: UP036 - a test decided False
        return -x
    return x


def indexed(x):
    return x + 1.0 if sys.version_info[0] >= 3 else x


def as_number(x):
    return x + sys.version_info[1]


def platform(x):
    return x if sys.platform == "linux" else -x
