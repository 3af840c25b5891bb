"""frontend/rebound_displays.py: a name rebound to new tuple or list displays at the function's
top level (coefficients reused per equation, as in code ported from Fortran) becomes one name a
binding, which the rewrites of displays bound once then take. Differential against the scalar
function lane by lane on both backends (hostile floats, ints near 2**63), values and exceptions;
what it does not follow (a rebinding in a branch, a read before the first binding, nested
scopes) stays as it was: refused."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.frontend import rebound_displays
from vectorizer.frontend.parse import parse_function
from vectorizer.frontend.source import source_of

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 40.0, -40.0, 2.5, 1e10])
INTS = np.resize(np.array(SPECIAL_INTS + [3, -7, 0, 1, 2]), FLOATS.size)
INDEX = np.resize(np.array([0, 1, -1, 2, -2, 3, -3, 4, 5, -6]), FLOATS.size)


def heat_capacity(s, t, p):
    """seawater.cp's shape: a, b, c rebound per equation, with other lengths."""
    a = (-7.64357, 0.1072763, -1.38385e-3)
    b = (0.1770383, -4.07718e-3, 5.148e-5)
    cp0 = a[0] + a[1] * t + a[2] * t ** 2 + (b[0] + b[1] * t + b[2] * t * t) * s
    a = (-4.9592e-1, 1.45747e-2, -3.13885e-4, 2.0357e-6, 1.7168e-8)
    b = (2.4931e-4, -1.08645e-5)
    cp1 = ((((a[4] * t + a[3]) * t + a[2]) * t + a[1]) * t + a[0]) * p + b[0] + b[1] * t
    return cp0 + cp1 * len(a) - len(b)


def indexed(x, i):
    """A computed index into each binding: IndexError where the loop raises it."""
    c = [1.0, 2.0]
    r = c[0] * x + c[i]
    c = [3.0, x, 5.0]
    return r + c[1] + c[-1] + c[i]


def reads_previous(x, n):
    """A binding's own value reads the binding before it; `in` and ints."""
    k = (1, 2, 3)
    k = (k[2] * n, k[0] - n)
    return (x if n in k else -x) + k[1]


def three_times(x):
    w = (1.0,)
    y = w[0] * x
    w = (2.0, 3.0)
    y = y + w[1] * x
    w = (4.0, 5.0, 6.0)
    return y + w[2] - w[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["floats", "ints"])
def test_split_names_keep_the_loops_values(kind, backend) -> None:
    first = {"floats": FLOATS, "ints": INTS}[kind]
    check(vectorize(heat_capacity, fallback="error", backend=backend), heat_capacity, first, FLOATS[::-1].copy(), 10.0)
    check(vectorize(three_times, fallback="error", backend=backend), three_times, first)
    check(vectorize(reads_previous, fallback="error", backend=backend), reads_previous, FLOATS, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_errors_are_the_loops(backend) -> None:
    vf = vectorize(indexed, fallback="error", backend=backend)
    check(vf, indexed, FLOATS, INDEX)  # some lanes raise IndexError: the first one is reported
    check(vf, indexed, FLOATS, np.resize(np.array([0, 1, -1, -2]), FLOATS.size))


def branch_rebound(x):
    c = (1.0, 2.0)
    if x > 0:
        c = (3.0, 4.0, 5.0)
    return c[0] * x


def read_before(x):
    y = x
    c = (1.0, 2.0)
    c = (3.0, 4.0, 5.0)
    return y + c[0] + c[1]


def nested_scope(x):
    c = (1.0, 2.0)
    f = lambda v: v * c[0]  # noqa: E731 - a lambda reads c when it runs
    c = (3.0, 4.0, 5.0)
    return f(x) + c[2]


def test_what_it_splits_and_what_it_leaves() -> None:
    assert rebound_displays.find(parse_function(source_of(heat_capacity)).func, {"s", "t", "p"}) == {"a": 2, "b": 2}
    assert rebound_displays.find(parse_function(source_of(three_times)).func, {"x"}) == {"w": 3}
    assert rebound_displays.find(parse_function(source_of(branch_rebound)).func, {"x"}) == {}  # a binding in a branch
    assert rebound_displays.find(parse_function(source_of(nested_scope)).func, {"x"}) == {}  # a lambda reads it later
    assert rebound_displays.find(parse_function(source_of(read_before)).func, {"x"}) == {"c": 2}


@pytest.mark.parametrize("backend", BACKENDS)
def test_rebinding_in_a_branch_stays_refused(backend) -> None:
    with pytest.raises(VectorizeError):
        vectorize(branch_rebound, fallback="error", backend=backend)(FLOATS)
    with pytest.warns(Warning):  # by default: the loop's values, element by element
        check(vectorize(branch_rebound, backend=backend), branch_rebound, FLOATS)


def test_errors_point_at_the_users_line() -> None:
    def bad(x):
        c = (1.0, 2.0)
        y = c[0] * x
        c = (3.0, 4.0)
        return y + c[1] * [x][0]  # a list of a lane value: refused, at this line

    with pytest.raises(VectorizeError) as info:
        vectorize(bad, fallback="error")(FLOATS)
    assert f":{bad.__code__.co_firstlineno + 4}:" in str(info.value)
