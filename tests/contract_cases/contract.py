"""Scalar functions for test_contract.py: masked lanes, exceptions, overflow.

Each one is written so that a naive batched translation (both branches evaluated, loops run on
every lane until all are done, statements checked one after another over the whole batch) would
warn, raise the wrong exception, hang or overflow, while the scalar function does none of that.
"""
import math

# -- (a) operations that would warn on lanes that do not run them ------------------------------


def sqrt_or_log(x: float) -> float:
    if x >= 0.0:
        return math.sqrt(x)  # invalid for negative lanes
    if x < -1.0:
        return math.log(-x)
    return -1.0


def guarded_div(x: float, y: float) -> float:
    if y != 0.0:
        return x / y  # divide by zero for y == 0 lanes
    return 0.0


def guarded_log(x: float) -> float:
    return math.log(x) if x > 0.0 else -math.inf


def short_circuit(x: float) -> bool:
    return x != 0.0 and 1.0 / x > 0.2


def int_pow_guarded(base: int, n: int) -> float:
    if n >= 0:
        return base ** n  # 'Integers to negative integer powers' on the other lanes
    return 0.0


def exp_guarded(x: float) -> float:
    return math.exp(x) if x < 700.0 else math.inf  # math range error above 709.78


def int_square_guarded(n: int) -> int:
    if -3037000499 <= n <= 3037000499:
        return n * n
    return -1  # n * n does not fit int64 on these lanes: never computed, never refused


def square_until_big(x: float) -> int:
    """Lanes finish at different iterations; finished lanes squared on would overflow."""
    k = 0
    while abs(x) < 1e300 and k < 60:
        x = x * x + 2.0
        k += 1
    return k


def mod_guarded(n: int, d: int) -> int:
    if d != 0:
        return n % d
    return n


# -- (b) a loop that never ends for the lanes that do not take its branch (BR-4) ---------------


def countdown_if_positive(x: int) -> int:
    if x > 0:
        while x != 0:
            x -= 1
    return x


def halve_if_positive(x: float) -> float:
    if x > 0.0:
        while x != 0.0:
            x = 0.0 if x < 1e-300 else x * 0.5
    else:
        x = x - 1.0
    return x


def loop_after_return(x: int) -> int:
    if x < 0:
        return -1
    while x != 0:
        x -= 1
    return 100


# -- (c) exceptions: the first failing lane in C order wins ------------------------------------


def ex1(x: float) -> float:
    """docs/internals.md, exceptions: lane 0 reaches the SECOND raise before lane 2 starts."""
    if x == 3:
        raise ValueError(f"x is three ({x})")
    y = x - 1
    if y < -5:
        raise ArithmeticError(f"y too small: {y}")
    return y


def raise_in_loop_or_after(x: float) -> float:
    t = 0.0
    for i in range(10):
        t += x
        if t > 25.0:
            raise ValueError(f"overshoot at {i}: {t}")
    if t < -50.0:
        raise ArithmeticError(f"too negative: {t}")
    return t


def deep_check(v: float) -> float:
    if v > 100.0:
        raise OverflowError(f"deep: {v} is too big")
    return v * 0.5


def raise_at_depth(x: float) -> float:
    s = x
    for _ in range(3):
        s = deep_check(s * 3.0)
    if s < -10.0:
        raise KeyError(f"shallow: {s}")
    return s


def python_errors(x: float, y: float) -> float:
    """Different built-in exceptions on different lanes, from different operations."""
    a = 1.0 / y  # ZeroDivisionError: float division by zero
    b = math.sqrt(x)  # ValueError: math domain error
    c = math.exp(a)  # OverflowError: math range error
    return a + b + c + int(x / y)  # int(nan) ValueError, int(inf) OverflowError


def checked_sqrt(x: float) -> float:
    assert x >= 0.0, f"negative input: {x}"
    return math.sqrt(x)


def checked_plain(x: float) -> float:
    assert x == x
    return x + 1.0


# -- (c) Python ints are unbounded ---------------------------------------------------------------


def mul_then_div(a: int, b: int) -> int:
    return (a * b) // b


def mul(a: int, b: int) -> int:
    return a * b


def power_mod(x: int, n: int) -> int:
    for _ in range(n):
        x = x * x  # grows far past int64 on some lanes...
    return x % 1000003  # ...but the result fits: patched exactly


def overflow_or_raise(a: int) -> int:
    if a < 0:
        raise ValueError(f"negative: {a}")
    return a * 4


# -- (b) a call that raises must stop: what follows the raise may never end ----------------------


def steps_to(x: float, n: int) -> float:
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    k = 0
    while k != n:  # never ends for n < 0
        k += 1
    return x + k


# -- (c) ints at and beyond the ends of int64 written in the source ------------------------------

BIG_OFFSET = 2**64
INT64_MIN = -(2**63)


def add_and_remove_big(n: int) -> int:
    return (n + BIG_OFFSET) - BIG_OFFSET  # exact in Python; the result always fits


def plus_big(n: int) -> int:
    return n + BIG_OFFSET  # never fits: must be refused, never wrapped


def floor_at_int64_min(n: int) -> int:
    return max(n, INT64_MIN)


def literal_int64_min(n: int) -> int:
    return max(n, -9223372036854775808)


def int_or_half(a: int) -> float:
    """An int on one path, a float on the other: a float64 result whose int lanes must be exact."""
    if a > 0:
        return a
    return 0.5
