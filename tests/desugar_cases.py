"""Functions for tests/frontend/test_desugar.py (vectorize reads their source from this file)."""

import math

HAVE_30 = (4, 6, 9, 11)
COEFFS = (1.0, -0.5, 0.25, 3.0)


def p23(t):
    n = (0.34805185628969e3, -0.11671859879975e1, 0.10192970039326e-2)
    return n[0] + n[1] * t + n[2] * t ** 2


def gather(i, x):
    t = [1.5, -2.0, 3.25, 0.0]
    return t[i] * x + len(t)


def month_len(month):
    return 30 if month in HAVE_30 else 31


def not_in(x):
    return x not in (1, 2.5, -0.0)


def check_zone(z):
    if not 1 <= z <= 60:
        raise ValueError("zone number out of range")


def central(z):
    check_zone(z)
    return (z - 1) * 6 - 180 + 3


def check_day(day, n):
    if not 0 < day <= n:
        raise ValueError(f"no day {day}")
    return True


def day_of(day, x):
    check_day(day, 28)
    math.sqrt(x)
    return day + x


def min_max(a, b, c):
    return min((a, b)) + max([a, b, c])


def is_prime(n):
    if n < 2:
        return False
    return all(n % d for d in range(2, n))


def poly(x):
    return sum(c * x ** i for i, c in enumerate(COEFFS))


def harmonic(n):
    s = sum(1.0 / i for i in range(n))
    return s


def any_below(x, k):
    if any(x - i < 0 for i in range(k) if i % 2):
        return 1
    return 0


def lowest(x, k):
    return min(x * i for i in range(k))


def highest(x):
    t = (3.0, -1.0, 2.0, -0.0)
    return max([v * x for v in t])


def total_ints(n):
    return sum(i * n for i in range(3))


def pick(a, b, i):
    t = (a, b * 2.0, a - b)  # a tuple of values: one variable per item
    return t[0] + t[i] + len(t) + (a in t) - t[-1]


def single(a, i):
    t = [a]
    return t[i]


def unit_sum(x, y):
    r = (x * x + y * y) ** 0.5
    v = (x / r, y / r)  # as geographiclib's Math.norm
    return v[0] + v[1]


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


DAYS_BEFORE = [-1, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]


def days_in_month(year, month):  # as datetime's _days_in_month
    assert 1 <= month <= 12, month
    if month == 2 and is_leap(year):
        return 29
    return DAYS[month]


def days_before_month(year, month):  # the call under `and` after a subscript that may raise
    return DAYS_BEFORE[month] + (month > 2 and is_leap(year))


def branchy(x, y):
    return 1.0 / x if x > 0 and is_leap(y) else x - (y or is_leap(y))


def day_offset(n, year, month):  # as datetime's _ord2ymd: the call runs only where 0 <= n
    assert 0 <= n < days_in_month(year, month)
    return n


def chained(x, y):
    return -1.0 < x < is_leap(y) <= x + 3


# Still refused:
def uses_none(z):
    y = check_zone(z)
    return z + y


def nested_gen(x):
    return sum(x * i * j for i in range(3) for j in range(2))


def conditional_gen(x, k):
    return 0 if x > 0 else sum(x * i for i in range(k))


def expr_statement(x):
    x  # noqa: B018 - the refusal under test
    return x


def divides(x, y):
    x / y  # no value, but ZeroDivisionError where y == 0
    return x


def table_written(i):
    t = [1, 2, 3]
    t[0] = 5
    return t[i]


DAYS = [-1, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]  # a module-level list, as calendar.mdays


def month_days(month):
    return DAYS[month] + (month in DAYS)
