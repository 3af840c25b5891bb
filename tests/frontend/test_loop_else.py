"""frontend/loop_else.py: a loop's `else` runs when the loop ends without a `break` of its own: a
flag its breaks set. `for` and `while`, breaks under `if`/`elif` and on one line with their test,
a nested loop's breaks (which are not this loop's), an `else` that returns, nested loops with
`else`. Differential against the scalar function lane by lane on both backends; values and
exceptions."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
INTS = np.array(SPECIAL_INTS + [3, 5, 9, 15, 25, 49, 77, 97, 221, 561, 1105, -35, 1000], dtype=np.int64)
SMALL = np.arange(-5, 120, dtype=np.int64)
FLOATS = np.array(SPECIAL_FLOATS + [3.0, 0.25, -7.5])


def sprp2(n):  # primefac's isprime, step 2: a strong probable prime to base 2
    if n % 2 == 0 or n < 3:
        return n == 2
    t, s = (n - 1) // 2, 1
    while t % 2 == 0: t //= 2; s += 1  # noqa: E701, E702
    x = pow(2, t, n)
    if x != 1 and x != n - 1:
        for _j in range(1, s):
            x = pow(x, 2, n)
            if x == 1: return False  # noqa: E701
            elif x == n - 1: break  # noqa: E701
        else: return False  # noqa: E701
    return True


def first_divisor(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            break
        d += 1
    else:
        d = n
    return d


def nested(n):
    found = -1
    for i in range(1, 6):
        for j in range(1, 6):
            if i * j == n:
                break  # the inner loop's: the outer's else still runs
        else:
            found = found + i
            if found > 7:
                break
    else:
        found = found * 100
    return found


def floats_else(x):
    y = 0.0
    for k in range(4):
        y = y + x * k
        if y > 10.0:
            break
    else:
        y = -y
    return y / x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [sprp2, first_divisor, nested], ids=lambda f: f.__name__)
def test_ints(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, SMALL)
    if f is not first_divisor:  # trial division up to sqrt(2**63): the loop would not end in time
        check(vf, f, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_and_exceptions(backend) -> None:
    check(vectorize(floats_else, fallback="error", backend=backend), floats_else, FLOATS)  # ZeroDivisionError at 0.0
    check(vectorize(floats_else, fallback="error", backend=backend), floats_else, FLOATS[FLOATS != 0])
