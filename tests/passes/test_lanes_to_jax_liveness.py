"""passes/lanes_to_jax/functional.py: a `while` carries only the names live at its head (read
before they are bound, in an iteration or after the loop), and an `if` merges only the names read
after it; the values stay the loop's."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

from vectorizer.passes.lanes_to_jax.functional import live_afters, live_before


def stmts(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def test_a_name_bound_before_it_is_read_is_not_live():
    block = stmts("a = x + 1\nb = a * y\nc = b")
    assert live_before(block, frozenset({"c"})) == {"x", "y"}
    assert live_afters(block, frozenset({"c"})) == [frozenset({"a", "y"}), frozenset({"b"}), frozenset({"c"})]


def test_an_if_is_live_on_either_side():
    block = stmts("if t:\n    a = x\nelse:\n    b = y\nc = a + b")
    assert live_before(block, frozenset({"c"})) == {"t", "x", "y", "a", "b"}  # a: from before, on the else side


def test_a_loop_reads_what_its_next_iteration_reads():
    block = stmts("while k < n:\n    tmp = s * 2\n    s = tmp + k\n    k = k + 1")
    head = live_before(block, frozenset({"s"}))
    assert head == {"k", "n", "s"}  # not tmp: bound before it is read in every iteration


def series(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):
        if i % 2 == 1:
            term = x / (i + 1.0)  # bound before it is read on its side: not carried
            total -= term
        else:
            total += x / (i + 1.0)
    return total


def test_a_temporary_of_an_iteration_is_not_carried_and_values_match_the_loop():
    pytest.importorskip("jax", reason="backend='jax' needs JAX: pip install '.[jax]'")
    from oracle import check

    from vectorizer import vectorize

    x = np.array([0.0, -0.0, 1.5, -3.25, 1e300, math.inf, math.nan, 5e-324, 7.0])
    n = np.array([0, 1, 2, 3, 7, 4, 5, 6, 9])
    vf = vectorize(series, backend="jax", exact=False, fallback="error")
    check(vf, series, x, n)
    carries = [line for line in vf.source.splitlines() if "= _carry" in line]
    assert carries and all("term" not in line for line in carries), vf.source
