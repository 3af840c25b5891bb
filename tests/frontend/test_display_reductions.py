"""frontend/display_reductions.py: any/all over the items of a tuple display, written out as
`or`/`and` of the items' truth; and passes/specialize_noops.py: `p = p` left by a decided
`p if np.isscalar(p) else np.atleast_1d(p)` goes, so later checks of `p` are decided too.
Differential against the scalar function lane by lane on both backends, hostile floats and
ints near 2**63; values and exceptions (the first failing lane's)."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 1e154, -1e155])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000], dtype=np.int64)


def both_or_neither(T, dt):  # structuralcodes' t_T, its shape
    T = T if np.isscalar(T) else np.atleast_1d(T)
    dt = dt if np.isscalar(dt) else np.atleast_1d(dt)
    if any(np.isscalar(c) for c in (T, dt)) and any(not np.isscalar(c) for c in (T, dt)):
        raise ValueError("both or neither")
    if not all((np.isscalar(T), np.isscalar(dt))) and T.shape != dt.shape:
        raise ValueError("shapes")
    if not all((np.isscalar(T), np.isscalar(dt))):
        return float(np.sum(T * dt))
    return T / (dt - 1.0)


def any_above(x, y):
    if any(c > 1.0 for c in (x, y, 0.5)):
        return x - y
    return y


def all_true(x, y):
    if all(c for c in (x, y)):  # truth: NaN is true, 0.0 and -0.0 are not
        return 1.0
    return 0.0 if any((x, y)) else -1.0


def none_of_nothing(x):
    return x + any(c for c in ()) - all(c for c in [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [both_or_neither, any_above, all_true, none_of_nothing], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", ["floats", "ints"])
def test_written_out(f, kind, backend) -> None:
    values = FLOATS if kind == "floats" else INTS
    vf = vectorize(f, fallback="error", backend=backend)
    args = [values, np.resize(FLOATS, values.shape)[::-1]][: f.__code__.co_argcount]
    check(vf, f, *args)


def with_a_filter(x, y):
    return any(c > 1.0 for c in (x, y) if c)


def assigns_in_it(x, y):
    return any((z := c) > 1.0 for c in (x, y)) + z


def computed_items(x, y):
    return all((x > 0, y / x > 1))  # y / x runs even when x > 0 is False: not written out


@pytest.mark.parametrize("f", [with_a_filter, assigns_in_it, computed_items], ids=lambda f: f.__name__)
def test_left_to_the_fence(f) -> None:
    with pytest.raises(VectorizeError):
        vectorize(f, fallback="error")(FLOATS, FLOATS)
