"""Fixture functions for tests/frontend/test_forms30.py: imports inside a function
(frontend/local_imports.py), lists read at constant positions (frontend/local_lists.py) and
try/except (frontend/try_blocks.py). Shapes taken from real code (jdcal, psychrolib,
fluids/chemicals), written here so the tests need no corpus packages."""

import math

UNITS = 1


# -- imports inside the function ---------------------------------------------------------------------
def jd_split(jd1, jd2):
    from math import modf

    jd1_f, jd1_i = modf(jd1)
    jd2_f, jd2_i = modf(jd2)
    f = jd1_f + jd2_f
    if -0.5 < f < 0.5:
        f += 0.5
    return jd1_i + jd2_i, f


def module_alias(x):
    import math as m
    from math import pi as PI

    import numpy as np

    return m.sqrt(abs(x)) * PI + np.floor(x) + m.floor(x)


def other_module(x):
    import desugar_cases
    from desugar_cases import not_in  # a Python function of another module

    return desugar_cases.month_len(3) + (2.0 if not_in(x) else 0.5) * x


def import_in_branch(x):
    if x > 0:
        from math import sqrt
    return sqrt(x)  # UnboundLocalError where x <= 0


def import_rebound(x):
    from math import sqrt

    sqrt = 2.0  # noqa: F811 - rebinding the imported name is the case
    return x * sqrt


def import_side_effect(x):
    import os  # noqa: F401 - refused even unused: importing it is the side effect's door

    return x


def import_class(x):
    import fractions

    return x + fractions.Fraction


# -- lists read at constant positions -------------------------------------------------------------
def is_ip():
    return UNITS == 1


def dew_point(t, vp):
    if is_ip():
        BOUNDS = [-148, 392]
    else:
        BOUNDS = [-100, 200]
    if vp < BOUNDS[0] or vp > BOUNDS[1]:
        raise ValueError("Partial pressure of water vapor is outside range of validity of equations")
    t = max(t, BOUNDS[0])
    t = min(t, BOUNDS[-1])
    return t


def branch_pairs(x):
    if x > 0:
        b = [x, 2.0 * x]
    elif x < 0:
        b = (1.0 / x, -x)
    else:
        b = [math.log(x), x]  # log(0.0) raises ValueError
    return b[0] + b[-1] * b[1]


def list_written(x):
    b = [1.0, 2.0]
    b[0] = x
    return b[0]


def list_indexed_by_lane(x, i):
    if x > 0:
        b = [1.0, x]
    else:
        b = [2.0, x]
    return b[i]


# -- try / except ---------------------------------------------------------------------------------
def trunc_exp(x, trunc=1.7976931348622732e+308):
    try:
        return math.exp(x)
    except:  # noqa: E722 - the shape of fluids.numerics.trunc_exp
        return trunc


def ppds(t, a, b):
    tau = 1.0 / (t - b)
    return a * trunc_exp(tau) + 1.0


def assign_then_raise(x):
    y = 1.0
    try:
        y = 2.0 * x  # kept on the lanes where the log raises: the handler returns it
        z = math.log(x)
    except ValueError:
        return y
    else:
        z = z + 1.0
    return z


def unmatched(x):
    try:
        return 1.0 / x
    except ValueError:
        return 0.0


def handler_raises(x):
    try:
        r = math.sqrt(x)
    except ValueError:
        raise ArithmeticError(f"negative {x}") from None
    return r


def explicit_raise(x, n):
    try:
        if n > 3:
            raise OverflowError("too many")
        y = x * n
    except OverflowError:
        y = -1.0
    return y


def try_finally(x):
    try:
        y = x
    finally:
        y = 0.0
    return y


# -- a chain of `if i == k: return` over every value of `i % n` ------------------------------------
def hsv_to_rgb(h, s, v):
    if s == 0.0:
        return v, v, v
    i = int(h * 6.0)
    f = (h * 6.0) - i
    p = v * (1.0 - s)
    q = v * (1.0 - s * f)
    t = v * (1.0 - s * (1.0 - f))
    i = i % 6
    if i == 0:
        return v, t, p
    if i == 1:
        return q, v, p
    if i == 2:
        return p, v, t
    if i == 3:
        return p, q, v
    if i == 4:
        return t, p, v
    if i == 5:
        return v, p, q
    # Cannot get here


def float_modulus(h):
    i = h % 2  # a float: 0.5 is neither 0 nor 1, and Python returns None
    if i == 0:
        return 1.0
    if i == 1:
        return 2.0


def gap_in_cases(h):
    i = int(h) % 3
    if i == 0:
        return 1.0
    if i == 2:
        return 2.0


# -- lambdas --------------------------------------------------------------------------------------
SCALE = 2.0
area = lambda r: math.pi * r * r * SCALE  # noqa: E731 - the shape of fluids' module-level lambdas
spread = lambda x, k=3: (  # noqa: E731
    math.sqrt(x) + k
)
two_on_a_line = lambda x: (lambda y: y + 1.0)(x)  # noqa: E731


def make_scaled(a):
    return lambda x: x * a


# -- try: return exp(x) / except OverflowError: a test on x, batched ----------------------------------
def exp_or_name(x, big):
    try:
        return math.exp(x)
    except (ValueError, OverflowError):
        return big


def exp_caught_as_value_error(x):
    try:
        return math.exp(x)
    except ValueError:  # does not catch the overflow: it propagates
        return 0.0
