"""Functions that are not plain top-level defs: decorated, methods, nested in functions.

Error positions must still be those of this file (line and character column), and functions
that are supported must give the scalar results.
"""
# ruff: noqa: E702, F841
import functools
import math


def passthrough(f):
    return f


def logged(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapper


@passthrough
@passthrough
def decorated_bad(x: float) -> float:
    a = [x]
    return a


@passthrough
def decorated_good(x: float) -> float:
    if x > 0.0:
        return math.sqrt(x)
    return -x


class Shapes:
    def method_bad(self, x: float) -> float:
        ñ = 1; y = (yield x)
        return y

    @staticmethod
    def static_good(x: float, y: float) -> float:
        if x > y:
            return x - y
        return y * 0.5

    def uses_self(self, x: float) -> float:
        return x * 2.0

    class Inner:
        @staticmethod
        def deep_bad(x: float) -> float:
            for v in x:
                x += v
            return x


def make_inner_bad():
    def inner_bad(x: float) -> float:
        ñé = 2.0; return {ñé: x}

    return inner_bad


def make_inner_good():
    def inner_good(x: float, n: int) -> float:
        total = 0.0
        for i in range(n):
            total += x / (i + 1)
        return total

    return inner_good
