"""Functions for tests/frontend/test_pure_eval.py: pure ones (the interpreter must compute what
the real call computes) and impure ones (it must refuse, saying why)."""

from __future__ import annotations

import dataclasses
import enum
import math
import os
import random
import time
import warnings

SCALE = 2.5
TABLE = {"a": (1.0, 2.0), "b": (3.0, -4.0)}
SEEN = []


class Color(enum.Enum):
    RED = 1
    BLUE = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float = 0.0

    def norm(self):
        return math.hypot(self.x, self.y)


class Shape:
    sides = 4

    def __init__(self, w, h=1.0):
        self.w, self.h = w, h

    @property
    def area(self):
        return self.w * self.h

    @classmethod
    def square(cls, w):
        return cls(w, w)

    @staticmethod
    def unit():
        return Shape(1.0)


def arithmetic(x, n=5):
    total = 0
    for i in range(n):
        total += x ** i // (i + 1) - i % 3
    return total, -x, +x, ~n, n << 3, n >> 1, n & 6 | 1 ^ 2, x / 3, abs(-x), divmod(n, 3)


def control(x):
    out = []
    i = 0
    while True:
        i += 1
        if i % 2:
            continue
        if i > 8:
            break
        out.append(i)
    else:
        out.append(-1)
    for k in range(3):  # noqa: B007 - read after the loop, by its else
        pass
    else:
        out.append(k)
    return out, x if x > 0 else -x, 0 < x <= 5, x and 3, None or x


def containers(key):
    d = {k: v for k, v in TABLE.items() if v[0] > 0}
    s = {v * 2 for v in (1, 2, 2)}
    first, *rest = [1, 2, 3, 4]
    d2 = {**d, "z": (0.0, 0.0)}
    return sorted(d2), s, first, rest, TABLE[key][1], list(zip("ab", (1, 2))), [x for x in range(10) if x % 3][1:4]


def strings(name):
    return f"{name!r}:{SCALE:.3f}", name.upper().split("A"), "-".join(["x", name]), len(name), str(SCALE)


def objects(w):
    s = Shape.square(w)
    p = Point(3.0, 4.0)
    return s.area, s.sides, Shape.unit().area, p.norm(), p.x, Color(2).name, Color.RED.value


def handled(x):
    try:
        return 1 / x
    except ZeroDivisionError as exc:
        return str(exc)
    finally:
        pass


def raises_key(name):
    return TABLE[name]


def raises_custom(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    assert x != 3, "three"
    return x


def recursive(n):
    return 1 if n <= 1 else n * recursive(n - 1)


def closures(x):
    def add(y):
        return x + y

    twice = lambda f, v: f(f(v))  # noqa: E731
    return twice(add, 1), sum(map(add, (1, 2))), max((3, 1, 2), key=lambda v: -v)


def generator_sum(n):
    return sum(i * i for i in range(n) if i % 2), any(v > 2 for v in (1, 5)), all(v for v in ())


# impure
def prints(x):
    print(x)
    return x


def warns(x):
    warnings.warn("w", stacklevel=2)
    return x


def environment(x):
    return os.environ.get("HOME")


def clock(x):
    return time.time()


def draws(x):
    return random.random()


def appends(x):
    SEEN.append(x)
    return x


def declares_global(x):
    global SCALE
    SCALE = x
    return x


def endless(x):
    while x == x:
        x += 1
    return x


def exits(x):
    raise SystemExit(x)


def opens(path):
    with open(path) as f:
        return f.read()


def huge(x):
    return 10 ** 10 ** 7
