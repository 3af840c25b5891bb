"""One function per construct vectorizer refuses. test_fence.py locates each construct by the
text of the snippet it names, so keep every snippet unique within its function.

Nothing here is called by the tests except through vectorize(); the bodies only need to parse.
"""
# ruff: noqa: F401, F841, E702, E731
# fmt: off

import fractions
import math
import random
import time

import numpy as np

from .other_module import other_helper, other_refused

COUNTER = 0
TABLE = (1.0, 2.0, 3.0)


def helper_ok(x: float) -> float:
    return x * 2.0


def gen_yield(x: float) -> float:
    ñ = 1; y = (yield x)
    return y


def gen_yield_statement(x: float) -> float:
    yield x
    return x


def gen_yield_from(x: float) -> float:
    y = yield from x
    return y


async def async_def(x: float) -> float:
    return x


async def await_expr(x: float) -> float:
    y = await x
    return y


def with_stmt(x: float) -> float:
    with x:
        pass
    return x


def try_finally(x: float) -> float:
    try:
        y = x
    finally:
        y = 0.0
    return y


def global_decl(x: float) -> float:
    global COUNTER
    return x


def make_nonlocal():
    total = 0.0

    def nonlocal_decl(x: float) -> float:
        nonlocal total
        return x

    return nonlocal_decl


def lambda_expr(x: float) -> float:
    h = lambda v: v + 1
    return x


def nested_def(x: float) -> float:
    def inner(v):
        return v
    return x


def class_inside(x: float) -> float:
    class Inner:
        pass
    return x


def list_comp(x: float) -> float:
    a = [k * x for k in range(3)]
    return x


def set_comp(x: float) -> float:
    a = {k * x for k in range(3)}
    return x


def dict_comp(x: float) -> float:
    a = {k: x for k in range(3)}
    return x


def generator_exp(x: float) -> float:
    # in a reduction it becomes a loop (frontend/reductions.py), but not where it may not run
    return 0.0 if x > 0 else max(k * x for k in range(3))


def walrus(x: float) -> float:
    if (y := x * 2.0) > 0:
        return y
    return x


def star_args(x: float, *rest) -> float:
    return x


def star_kwargs(x: float, **options) -> float:
    return x


def star_in_call(x: float) -> float:
    return max(*TABLE)


def print_call(x: float) -> float:
    print(x)
    return x


def input_call(x: float) -> float:
    return x + input()


def open_call(x: float) -> float:
    return x + open(x)


def random_call(x: float) -> float:
    return x + random.random()


def time_call(x: float) -> float:
    return x + time.time()


def recursive_direct(n: int) -> int:  # no base case: nothing types the recursive call
    return n * recursive_direct(n - 1)


def mutual_a(n: int) -> int:
    if n <= 0:
        return 0
    return mutual_b(n - 1)


def mutual_b(n: int) -> int:
    return mutual_a(n) + 1


def unknown_builtin(x: float) -> float:
    return sorted(x)


def other_module_call(x: float) -> float:
    return other_refused(x)


def module_attribute(x: float) -> float:
    return fractions.Fraction(x)


def value_attribute(x: float) -> float:
    return x.numerator  # .real of a number is supported (frontend/number_attributes.py)


def local_real(x: float) -> float:
    y = x * 2.0
    return y.real  # a local may hold an array: only a parameter's .real is a number's


def list_literal(x: float) -> float:
    a = [x, 1.0]  # only read items are rewritten (frontend/local_tuples.py); this list escapes
    return a


def dict_literal(x: float) -> float:
    a = {1: x}
    return x


def set_literal(x: float) -> float:
    a = {x, 1.0}
    return x


def string_value(x: float) -> float:
    return max(x, "abc")


def complex_literal(x: float) -> float:
    return x + 2j


def is_comparison(x: float) -> float:
    return 1.0 if x is x else 0.0


def in_comparison(x: float) -> float:
    # `x in TABLE` becomes `x == 1.0 or ...` (frontend/desugar.py), a left operand with a call
    # bound to a variable first (frontend/memberships.py); not in a `while` test, run again each time
    while abs(x) in TABLE:
        x = x + 1.0
    return x


def for_non_range(values: float) -> float:
    s = 0.0
    for v in values:
        s += v
    return s


def del_stmt(x: float) -> float:
    y = x
    del y
    return x


def import_inside(x: float) -> float:
    import os
    return x


def match_stmt(x: float) -> float:
    match x:
        case 1:
            return 1.0
    return x


def errstate_raise(x: float) -> float:
    with np.errstate(divide="raise"):
        y = np.float64(1.0) / x
    return y


def int_array_power(n: int, x: float) -> float:
    return np.asarray(n) ** x


def maybe_unbound(x: float) -> float:
    if x > 0:
        y = x
    return y


def float_range(limit: float) -> float:
    s = 0.0
    for i in range(limit):
        s += i
    return s


def bitwise_float_array(x: float) -> float:
    return np.asarray(x) & 1


def huge_literal(n: int) -> int:
    return n + 9223372036854775808


# Under and/or/if-else a call becomes an if statement (frontend/short_circuit.py), but not in an
# elif test, which only runs where the tests before it failed.
def call_in_and(x: float) -> float:
    if x > 1:
        return 1.0
    elif x > 0 and helper_ok(x):
        return 2.0
    return 0.0


def call_in_or(x: float) -> float:
    if x > 1:
        return 1.0
    elif x or helper_ok(x):
        return 2.0
    return 0.0


def call_in_ternary(x: float) -> float:
    if x > 1:
        return 1.0
    elif (helper_ok(x) if x > 0 else 0.0):
        return 2.0
    return 0.0


def many_problems(x: float) -> float:
    global COUNTER
    print(x)
    a = [x]
    try:
        y = x
    finally:
        y = 0.0
    return y + math.pi


def many_typing_problems(limit: float) -> float:
    s = 0.0
    for i in range(limit):
        s += i
    if s > 0:
        result = s
    return result
