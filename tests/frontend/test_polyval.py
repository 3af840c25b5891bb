"""frontend/polyval.py: `np.polyval` of a table of float literals is NumPy's Horner loop written
out. Differential against the scalar function (which calls NumPy's own polyval) lane by lane, on
both backends: hostile floats (NaN, ±inf, -0.0, subnormals, huge), ints near 2**63, bools, and a
0-d array argument; values bit for bit. What it cannot mirror stays refused."""

from __future__ import annotations

import libcst as cst
import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.frontend.desugar import desugar
from vectorizer.frontend.namespace import Namespace
from vectorizer.frontend.parse import parse_function
from vectorizer.frontend.source import source_of

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 1e154, -1e155])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000], dtype=np.int64)


def local_table(x):
    c = np.array([-2.55019e-08, 2.98357e-06, -0.000203814, 0.0170907, 0.0665157])
    return np.polyval(c, x)


def inline_tables(x, y):
    return np.polyval([1.5, -2, 0.25], x) - y * np.polyval((3, 2.0, -0.0), y)


def zero_d_array(s, t):
    s, t = np.asanyarray(s), np.asanyarray(t)
    c2 = [-8.4696e-05, 0.0037811]
    return (s - 35.0) * np.polyval(c2, t) + np.polyval((1.0,), s)


def in_a_branch(x, y):
    c = (0.5, -1.0, 2.0)
    if x > y:
        return np.polyval(c, x)
    return np.polyval(c, y) + 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [local_table, inline_tables, zero_d_array, in_a_branch], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", ["floats", "ints", "bools"])
def test_polyval_of_a_float_table_is_numpy_s(f, kind, backend) -> None:
    n = 1 if f is local_table else 2
    values = {"floats": FLOATS, "ints": INTS, "bools": np.array([True, False] * 8)}[kind]
    vf = vectorize(f, fallback="error", backend=backend)
    args = [values, np.resize(FLOATS, values.shape)[::-1]][:n]
    check(vf, f, *args)
    check(vf, f, *[a[:1].reshape(()) for a in args])  # 0-d array arguments


def int_table(x):
    return np.polyval([1, 2, 3], x)


def table_read_elsewhere(x):
    c = np.array([1.0, 2.0])
    return np.polyval(c, x) + c[0]


def table_bound_twice(x):
    c = [1.0, 2.0]
    if x > 0:
        c = [2.0, 1.0]
    return np.polyval(c, x)


def expression_argument(x):
    return np.polyval([1.0, 2.0], x + 1.0)


@pytest.mark.parametrize("f", [int_table, table_read_elsewhere, table_bound_twice, expression_argument],
                         ids=lambda f: f.__name__)
def test_what_it_cannot_mirror_is_refused(f) -> None:
    with pytest.raises(VectorizeError):
        vectorize(f, fallback="error")(FLOATS)
    with pytest.warns(Warning):  # by default the loop's values, element by element
        check(vectorize(f), f, FLOATS[:6])


def test_the_horner_steps() -> None:
    parsed = desugar(parse_function(source_of(local_table)), Namespace.of_function(local_table))
    text = cst.Module([]).code_for_node(parsed.func)
    assert "np.array" not in text and "polyval" not in text
    assert "return (((((0 * x + (-2.55019e-08)) * x + 2.98357e-06) * x + (-0.000203814)) * x + 0.0170907) * x" \
        " + 0.0665157)" in text, text
