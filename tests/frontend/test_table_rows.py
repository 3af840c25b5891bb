"""frontend/table_rows.py: `for a, b in TABLE` over the rows of a module-level table of numbers,
`for a, b in zip(A, B)` and `for i, c in enumerate(A)` over module-level tuples, run as loops
over the row index. Differential against the scalar function lane by lane on both backends
(hostile floats, ints near 2**63); what it cannot keep exact stays refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 40.0, -40.0])
INTS = np.resize(np.array(SPECIAL_INTS + [3, -7]), FLOATS.size)

TERMS = ((0, 0, 1, -171996.0, -174.2), (-2, 0, 2, -13187.0, -1.6), (0, 1, 0, 1426.0, -3.4), (0, 0, 0, 0.0, 0.0))
A = (1.0, 2.5, -3.0)
B = (4, 5, 6, 7)
EMPTY: tuple = ()
MIXED = ((1, 2.0), (1.5, 2.0))  # a column of an int and a float: refused
RAGGED = ((1.0, 2.0), (1.0,))


def series(d, m):
    s = 0.0
    for tD, tM, tK, tP, tT in TERMS:
        s += (tP / 10000.0 + tT / 100000.0 * d) * math.sin(d * tD + m * tM + tK)
    return s


def int_rows(n, m):
    s = 0
    for a, b, c, _, _ in TERMS:
        if n > a:
            s += a * n - b * m + c
    return s


def zipped(x, y):
    s = 0.0
    for a, b in zip(A, B):
        s += a * x - b * y
        if s > 1e300:
            break
    return s


def enumerated(x, y):
    s = 0.0
    for i, c in enumerate(A):
        s += c * x ** i - y
    return s


def empty_table(x, y):
    s = x
    for a, b in EMPTY:
        s += a * b
    return s + y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [series, int_rows, zipped, enumerated, empty_table], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", ["floats", "ints"])
def test_table_rows_run_as_the_loop_runs(f, kind, backend) -> None:
    first = {"floats": FLOATS, "ints": INTS}[kind]
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, first, FLOATS[::-1].copy())
    check(vf, f, first, 2)


def mixed_column(x):
    s = 0.0
    for a, b in MIXED:
        s += a * x + b
    return s


def ragged_rows(x):
    s = 0.0
    for a, b in RAGGED:
        s += a * x + b
    return s


def local_rows(x):
    rows = ((1.0, 2.0), (3.0, 4.0))
    s = 0.0
    for a, b in rows:
        s += a * x + b
    return s


@pytest.mark.parametrize("f", [mixed_column, ragged_rows, local_rows], ids=lambda f: f.__name__)
def test_rows_it_cannot_keep_exact_are_refused(f) -> None:
    with pytest.raises(VectorizeError, match="'for' loops must bind one name"):
        vectorize(f, fallback="error")(FLOATS)
    with pytest.warns(Warning):  # by default the loop's values, element by element (a ValueError for RAGGED)
        try:
            check(vectorize(f), f, FLOATS)
        except ValueError:
            assert f is ragged_rows
