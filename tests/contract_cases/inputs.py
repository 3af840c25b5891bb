"""Scalar functions for test_inputs.py: what a lane sees after the inputs are canonicalised."""
import math


def mixed(x, y):
    """Ints stay ints (and overflow int8 at once), floats stay floats, bools act as 0/1."""
    if x > y:
        return x * 1000 - y
    return y * 3 + x


def identity(x):
    return x


def plus_tenth(x: float) -> float:
    return x * 0.1 + 1e-9


def bool_arith(a: bool, b: bool) -> int:
    return a + b - a * b + (not a)


def both(x: float, y: float) -> tuple:
    return x + y, x * y


def flags(x: float) -> bool:
    return x > 0.0


def keywords(x: float, n: int = 3, *, scale: float = 1.0) -> float:
    return x * n * scale


def keyword_only_raises(x: float, *, limit: float = 10.0) -> float:
    if x > limit:
        raise ValueError(f"{x} is above the limit {limit}")
    return x * 2.0


def keyword_only_overflow(a: int, *, b: int = 3) -> int:
    return (a * b) // b


def countdown(x: float) -> float:
    """Rebinds its parameter in a loop, the way that would tempt in-place updates."""
    steps = 0.0
    while x > 0.0:
        x -= 1.5
        steps += 1.0
    return steps + x


def halve(n: int) -> int:
    k = 0
    while n > 1:
        n //= 2
        k += 1
    if n < 0:
        n = -n
    return k * 100 + n


def hypot_like(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return -1.0
    return math.sqrt(x * x + y * y)
