"""Methods, callable objects, module-level instances and closures as real code writes them (issue
51, section 2): for tests/contract/test_callable_objects.py. Each is a scalar function of numbers
whose callee, `self`, bound arguments or cells are the same for every lane."""

from __future__ import annotations

import dataclasses
import functools
import math
from statistics import NormalDist

# -- methods and callable objects as the function ------------------------------------------------


class Shape:
    """A class whose API is a method; `scale` lives on the instance, `SIDES` on the class."""

    SIDES = 4

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def area(self, x):
        return self.scale * x * x + self.SIDES

    def checked(self, x):
        if x < 0.0:
            raise ValueError(f"negative side {x}")
        return math.sqrt(x) * self.scale

    def ratio(self, x, y):
        return self.area(x) / self.area(y)  # a method calling a method of the same object

    def signed(self, x):
        return math.copysign(x, self.scale) + x // self.scale

    @classmethod
    def unit_area(cls, x):
        return x * x * cls.SIDES

    @staticmethod
    def half(x):
        return x / 2.0


class Polynomial:
    """A callable instance: `__call__` evaluates the polynomial its coefficients make."""

    def __init__(self, *coefficients: float) -> None:
        self.coefficients = coefficients

    def __call__(self, x):
        total = 0.0
        for c in self.coefficients:
            total = total * x + c
        return total


class Tally:
    """Methods that change `self` lane by lane: no value is the same for every lane."""

    def __init__(self) -> None:
        self.n = 0

    def count(self, x):
        self.n += 1
        return x + self.n

    def through_helper(self, x):
        return self.bump() + x

    def bump(self):
        self.n = self.n + 1
        return self.n


class Counter:
    """An object whose state is a list: no value the code can be specialized on."""

    def __init__(self) -> None:
        self.seen = [1.0]

    def scaled(self, x):
        return x * 2.0


def affine(x, a, b=1.0, *, mode="plus"):
    if mode == "plus":
        return a * x + b
    return a * x - b


def power_int(n, k):
    return n ** k + n * k


def pass_through(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        """Logs nothing, changes nothing."""
        return func(*args, **kwargs)
    return wrapper


def doubles_result(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return 2.0 * func(*args, **kwargs)
    return wrapper


def abs_argument(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(abs(x))
    return wrapper


@pass_through
def wrapped_plain(x):
    return x * 3.0 - 1.0


@pass_through
@pass_through
def wrapped_twice(x):
    return math.exp(-x) + 1.0


@doubles_result
def wrapped_doubled(x):
    return x + 1.0


@abs_argument
def wrapped_abs(x):
    return math.sqrt(x)


def _target(x):
    return x * 0.5 + 2.0


def _other_target(x):
    return -x


@functools.wraps(_target)
def by_global(*args, **kwargs):
    """A pass-through wrapper that calls a module global: what the global holds at the call runs."""
    return _target(*args, **kwargs)


def calls_by_global(x):
    return by_global(x) + 1.0


class Doubling(float):
    """A float whose reflected multiplication is not a float's: `x * self` adds."""

    def __rmul__(self, other):
        return other + float(self)

    def scaled(self, x):
        return x * self


def calls_wrapped(x):
    return wrapped_plain(x) + wrapped_twice(x)


def calls_doubled(x):
    return wrapped_doubled(x) + 0.0


def calls_abs(x):
    return wrapped_abs(x) + 1.0


# -- module-level instances and their methods ----------------------------------------------------

_std = NormalDist(0.0, 1.0)
_wide = NormalDist(1.0, 2.5)


@dataclasses.dataclass(frozen=True)
class Air:
    g: float = 9.80665
    r_dry: float = 287.05
    gamma: float = 1.4


AIR = Air()


class Env:
    """An environment of constants and functions, as trueskill's TrueSkill object is."""

    def __init__(self, beta: float, cdf=None) -> None:
        self.beta = beta
        self.cdf = cdf if cdf is not None else _erfc_cdf

    def spread(self, x):
        return self.cdf(x / self.beta)

    def margin(self, p, size):
        return self.spread(p) * math.sqrt(size) * self.beta


def _erfc_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


ENV = Env(2.0)


def std_cdf(x):
    return _std.cdf(x)


def std_pdf_and_cdf(x):
    return _std.pdf(x) * _wide.cdf(x)


def pressure_scale(t):
    return AIR.g / (AIR.r_dry * t) * AIR.gamma


def env_margin(p, size):
    return ENV.margin(p, size) - ENV.beta


def with_env(x, env=None):
    if env is None:
        env = global_env()
    return 2.0 * env.spread(x) - 1.0


def global_env():
    return ENV


# -- functions made at import --------------------------------------------------------------------


def _make_scale(k, offset=(0.0, 1.0)):
    def scale(x):
        return k * x + offset[1] - offset[0]
    return scale


def _make_inverse(f, lo, hi, steps):
    def inverse(y):
        a, b = lo, hi
        for _ in range(steps):
            mid = 0.5 * (a + b)
            if f(mid) < y:
                a = mid
            else:
                b = mid
        return 0.5 * (a + b)
    return inverse


def _cube(x):
    return x * x * x


triple = _make_scale(3.0)
shifted = _make_scale(-0.5, (1.0, 2.0))
cube_root = _make_inverse(_cube, -10.0, 10.0, 60)
std_inverse = _make_inverse(_std.cdf, -8.0, 8.0, 60)
cube_alias = _cube


def uses_closures(x):
    return triple(x) - shifted(x) + cube_alias(x)


def _make_signed(k):
    def signed(x):
        return math.copysign(x, k) + x // k
    return signed


def _make_lambda(k):
    return lambda x: math.copysign(x, k) * 2.0 + x // k


lambda_closure = _make_lambda(-2.0)


def _make_counter(start):
    step = start

    def value(x):
        return x * step

    def bump(by):
        nonlocal step
        step = by

    return value, bump


by_step, set_step = _make_counter(2.0)


def uses_rebound_cell(x):
    return by_step(x) + 1.0
