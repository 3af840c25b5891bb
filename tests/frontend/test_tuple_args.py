"""A tuple of values passed to a function of the module (frontend/tuple_args.py) and a local
tuple returned and unpacked (frontend/local_tuples.py; issue 51): electricpy's delta-wye idiom,
items evaluated in Python's order, the callee's `is None` tests decided, its other branches gone;
anything else the callee does with the tuple refused at the call. Both backends, against the
scalar function lane by lane, values and exceptions."""

from __future__ import annotations

import math

import numpy as _np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def convert(delta=None, wye=None, round=None):  # noqa: A002 - the corpus's own parameter name
    if delta is None and wye is None:
        raise ValueError("give delta or wye")
    if delta is not None and wye is None:
        A, B, C = delta
        S = A + B + C
        out = (A * C / S, A * B / S, B * C / S)
        if round is not None:
            out = _np.around(out, round)
        return out
    if delta is None and wye is not None:
        X, Y, Z = wye
        M = X * Y + Y * Z + Z * X
        out = (M / X, M / Y, M / Z)
        if round is not None:
            out = _np.around(out, round)
        return out


def bridge(z1, z2, z3, z4, z5):
    if z1 * z3 == z2 * z4:
        return (z1 + z2) * (z3 + z4) / (z1 + z2 + z3 + z4)
    za, zb, zc = convert(delta=(z1, z5, z4))
    e1 = zb + z2
    e2 = zc + z3
    return za + (e1 * e2) / (e1 + e2)


def star(x, y, z):
    a, b, c = convert(wye=(x, y, z))  # the other branch, the other copy
    d, e, f = convert(delta=(1.0 / x, y, z))  # 1.0 / x evaluated at the call: ZeroDivisionError first
    return a + b + c + d + e + f


def pick(t, k=2):
    if t is None:
        return -1.0
    return t[0] * k + t[-1] + len(t) + (t[1] in (2.0, 3.0))


def positional(x, y):
    return pick((x, y, x * y)) + pick((y, x), 3)


def scale(t=None, factor=None, offset=None):
    if t is None:
        return 0.0
    elif not (factor is None):  # noqa: E714 - the `not` is what is tested
        a, b = t
        return a * factor + b
    else:
        a, b = t
        s = a + b
        if offset is not None or s > 1.0:  # `False or x` is x
            s = s * 2.0
        return s


def uses_scale(x, y):
    return scale((x, y)) + scale(t=(y, x * 0.5)) + scale((x, y), y)  # one copy for the first two


def too_many(t, flag):
    if flag > 0.0:
        a, b = t  # ValueError: too many values to unpack
        return a + b
    return flag


def unpacks_wrong(x, y):
    return too_many((x, y, 1.0), x)


def pair(x, y):
    t = (x + y, x - y)
    return t


def uses_pair(x, y):
    s, d = pair(x, y)
    return s * d


def sums(t):
    return sum(t)


def passes_on(x, y):
    return sums((x, y))


FLOATS = _np.array([1.0, 2.5, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, -1e308, 3.0, -2.0])
POSITIVE = _np.array([math.nan, math.inf, 5e-324, 1e308, 1e-300, 2.5, 3.0, 1.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_delta_wye_idiom(backend):
    vf = vectorize(bridge, backend=backend, fallback="error")
    rng = _np.random.default_rng(5)
    plain = [rng.uniform(0.1, 10.0, 64) for _ in range(5)]
    check(vf, bridge, *plain)
    check(vf, bridge, *[rng.choice(POSITIVE, 64) for _ in range(5)])  # nan, inf, subnormals: values
    check(vf, bridge, *[rng.choice(FLOATS, 64) for _ in range(5)])  # ZeroDivisionError on the first lane, as the loop
    equal = [_np.array([1.0, 2.0]), _np.array([2.0, 2.0]), _np.array([2.0, 3.0]), _np.array([1.0, 3.0]), _np.array([5.0, 5.0])]
    check(vf, bridge, *equal)  # z1 * z3 == z2 * z4: the first return


@pytest.mark.parametrize("backend", BACKENDS)
def test_both_branches_and_items_that_raise(backend):
    vf = vectorize(star, backend=backend, fallback="error")
    check(vf, star, _np.array([1.0, 2.0, 4.0]), _np.array([3.0, 0.5, 2.0]), _np.array([2.0, 2.0, 7.0]))
    check(vf, star, _np.array([1.0, 2.0, -0.0]), _np.array([3.0, 0.5, 2.0]), _np.array([2.0, 2.0, 7.0]))  # 1.0 / -0.0
    check(vf, star, _np.array([1.0, 2.0]), _np.array([0.0, 1.0]), _np.array([0.0, 1.0]))  # M / Y: ZeroDivisionError


@pytest.mark.parametrize("backend", BACKENDS)
def test_positional_tuples_indexed_measured_and_searched(backend):
    vf = vectorize(positional, backend=backend, fallback="error")
    check(vf, positional, FLOATS, FLOATS[::-1].copy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_unpacking_the_wrong_count_raises_as_python(backend):
    vf = vectorize(unpacks_wrong, backend=backend, fallback="error")
    check(vf, unpacks_wrong, _np.array([-1.0, -2.0]), _np.array([1.0, 1.0]))  # never unpacked: values
    check(vf, unpacks_wrong, _np.array([-1.0, 2.0]), _np.array([1.0, 1.0]))  # ValueError at lane 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_local_tuple_returned_and_unpacked(backend):
    check(vectorize(uses_pair, backend=backend, fallback="error"), uses_pair, FLOATS, FLOATS[::-1].copy())
    check(vectorize(pair, backend=backend, fallback="error"), pair, FLOATS, FLOATS[::-1].copy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_decided_branches_elif_not_and_or(backend):
    vf = vectorize(uses_scale, backend=backend, fallback="error")
    check(vf, uses_scale, FLOATS, FLOATS[::-1].copy())


def test_a_callee_that_does_more_with_the_tuple_is_refused_at_the_call():
    with pytest.raises(VectorizeError, match=r"a tuple is passed to sums\(\) as 't'") as info:
        vectorize(passes_on, fallback="error")(_np.array([1.0]), _np.array([2.0]))
    assert "return sums((x, y))" in str(info.value)
