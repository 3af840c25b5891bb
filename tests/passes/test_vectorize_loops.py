"""passes/vectorize_loops.py: loops over the elements of per-example arrays become array
operations where the result stays exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from passcase import after, body

from vectorizer import vectorize
from vectorizer.core.types import FLOAT, ArrayType, Val
from vectorizer.options import Options

ROWS = Val(ArrayType(FLOAT, (4,)), True)  # one 4-element array per lane


def scaled_sum(x, y):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * 2.0 + y[i]
    return out


def dot(x, y):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * y[i]
    return s


def count_positive(x):
    c = 0
    for i in range(len(x)):
        c = c + (x[i] > 0)
    return c


def running(x):
    out = np.zeros(len(x))
    for i in range(1, len(x)):
        out[i] = out[i - 1] + x[i]
    return out


def test_independent_iterations_become_one_array_expression():
    assert body(after("vectorize_loops", scaled_sum, x=ROWS, y=ROWS)) == (
        "out = np.zeros(len(x))\n"
        "out[0:len(x)] = x[0:len(x)] * 2.0 + y[0:len(x)]\n"
        "return out\n"
    )


def test_an_int_count_is_a_sum_and_a_float_sum_only_with_reassociate():
    assert body(after("vectorize_loops", count_positive, x=ROWS)) == (
        "c = 0\n"
        "if len(x) > 0:\n"
        "    c = c + np.sum((x[0:len(x)] > 0))\n"
        "return c\n"
    )
    kept = "s = 0.0\nfor i in range(len(x)):\n    s = s + x[i] * y[i]\nreturn s\n"
    assert body(after("vectorize_loops", dot, x=ROWS, y=ROWS)) == kept
    assert body(after("vectorize_loops", dot, x=ROWS, y=ROWS, options=Options(reassociate=True))) == (
        "s = 0.0\n"
        "if len(x) > 0:\n"
        "    s = s + np.sum(x[0:len(x)] * y[0:len(x)])\n"
        "return s\n"
    )


def test_a_carried_dependency_stays_a_loop():
    text = body(after("vectorize_loops", running, x=ROWS))
    assert "for i in range(1, len(x)):" in text and "out[i] = out[i - 1] + x[i]" in text


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the oracle's NumPy scalars
def test_the_vectorized_loop_keeps_the_contract():
    x = np.array([[1.0, -0.0, math.nan, 2.0], [1e308, 1e308, -1e308, 5e-324], [0.0, 0.0, 0.0, 0.0]])
    check(vectorize(scaled_sum, fallback="error"), scaled_sum, x, x[::-1].copy(), example_ndims=(1, 1))
    check(vectorize(count_positive, fallback="error"), count_positive, x, example_ndims=(1,))
