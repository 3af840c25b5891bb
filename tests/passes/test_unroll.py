"""passes/ops_to_lanes/unroll.py: a lane loop whose body opens with range checks runs two
iterations per check, under a range narrowed by interval arithmetic over the body."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from passcase import I, after, body

from vectorizer import vectorize
from vectorizer.passes.ops_to_lanes.unroll import interval, unroll_twice
from vectorizer.rules.operators import affine_range

I64_MAX = 2**63 - 1


def collatz(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def grow(x: int, limit: int) -> int:
    """Steps of x -> 3x + 1 until x reaches limit: every iteration multiplies, so a check that
    covered only one iteration would let the second one wrap, and x's last digits show it.
    (A negative x runs away from any limit.)"""
    steps = 0
    while 0 <= x < limit:
        x = 3 * x + 1
        steps += 1
    return steps * 1000 + x % 1000


def _bound(text: str) -> tuple[int, int]:
    """The (low, high) of the first range check in lane text."""
    test = next(n.test for n in ast.walk(ast.parse(text)) if isinstance(n, ast.If))
    sides = {type(c.ops[0]).__name__: ast.literal_eval(c.comparators[0]) for c in (test.left, test.right)}
    return sides["Lt"], sides["Gt"]


def test_collatz_runs_two_iterations_per_check():
    lo, hi = affine_range(3, 1)  # the one-iteration check of 3 * n + 1
    text = after("ops_to_lanes", collatz, lanes=True, n=I)
    assert body(text).startswith(
        "steps = 0\n"
        "while n != 1:\n"
        "    # covers this iteration and the next (unrolled below)\n")
    step = ("    if n % 2 == 0:\n"
            "        n = n // 2\n"
            "    else:\n"
            "        n = 3 * n + 1\n"
            "    steps = steps + 1\n")
    assert body(text).endswith(step + "    if not n != 1:\n        break\n" + step + "return (steps, False)\n")
    # After one step from the narrowed range, n is still within the one-iteration check; the
    # range is the widest that is, to the search's 2**-40.
    low, high = _bound(text)
    assert lo <= 3 * low + 1 and 3 * high + 1 <= hi
    assert high >= (hi - 1) // 3 * (1 - 2**-39) and -low >= (-lo) // 3 * (1 - 2**-39)


@pytest.mark.parametrize("source", [
    # a nested loop: not unrolled (its inner loop may be)
    "if (n < -5) | (n > 5):\n    return (0, True)\nwhile m:\n    m = (m - 1)\nn = (n + 1)\n",
    # n's next value depends on a name the analysis does not know
    "if (n < -5) | (n > 5):\n    return (0, True)\nn = (n * k)\n",
    # a range that does not hold zero cannot be narrowed toward it
    "if (n < 3) | (n > 5):\n    return (0, True)\nn = (n + 1)\n",
    # no check at the top
    "n = (n + 1)\nif (n < -5) | (n > 5):\n    return (0, True)\n",
    # f is a float: int intervals say nothing of it
    "if (f < -5) | (f > 5):\n    return (0.0, True)\nf = (f + 1)\n",
])
def test_loops_that_do_not_qualify_keep_their_text(source):
    body = ast.parse(source).body  # the loop's body as ops_to_lanes builds it
    assert unroll_twice(body, ast.parse("n != 1", mode="eval").body, ["n", "m", "k"]) is None


def test_a_check_that_already_covers_two_iterations_is_left_alone():
    # n only shrinks: the one-iteration range holds at the next top without narrowing
    body = ast.parse("if (n < -5) | (n > 5):\n    return (0, True)\nn = n // 2\n").body
    assert unroll_twice(body, ast.parse("n != 0", mode="eval").body, ["n"]) is None


@pytest.mark.parametrize("expr, env, expected", [
    ("3 * n + 1", {"n": (-4, 5)}, (-11, 16)),
    ("n // 2", {"n": (-5, 5)}, (-3, 2)),
    ("n // -2", {"n": (-5, 5)}, (-3, 2)),
    ("n % 7", {"n": (-50, 50)}, (0, 6)),
    ("n % -7", {"n": (-50, 50)}, (-6, 0)),
    ("-(n - m)", {"n": (0, 3), "m": (10, 20)}, (7, 20)),
    ("n * m", {"n": (-2, 3), "m": (-5, 4)}, (-15, 12)),
    ("(n if c else 100)", {"n": (0, 3)}, (0, 100)),
    ("n * k", {"n": (0, 3)}, None),
    ("n / 2", {"n": (0, 3)}, None),
])
def test_interval_arithmetic(expr, env, expected):
    assert interval(ast.parse(expr, mode="eval").body, env) == expected


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-9, 9).filter(bool),
       st.sampled_from(["+", "-", "*", "//", "%"]))
def test_interval_arithmetic_holds_every_value(a, b, c, op):
    lo, hi = sorted((a, b))
    got = interval(ast.parse(f"n {op} ({c})", mode="eval").body, {"n": (lo, hi)})
    values = [eval(f"n {op} ({c})", {"n": n}) for n in range(lo, hi + 1)]  # noqa: S307 - literal arithmetic
    assert got is not None and got[0] <= min(values) and max(values) <= got[1]


@pytest.mark.numba
def test_unrolled_lanes_keep_the_contract_at_the_edges():
    pytest.importorskip("numba")
    f = vectorize(collatz, backend="numba", fallback="error")
    low, high = _bound(f.source)
    lo, hi = affine_range(3, 1)
    edges = [high - 1, high, high + 1, high + 2, hi - 1, hi, hi + 1, hi + 2, 2**62, I64_MAX - 1, I64_MAX]
    n = np.array([1, 2, 3, 27, 97, *(e | 1 for e in edges), *(e & ~1 for e in edges)], dtype=np.int64)
    check(f, collatz, n)
    g = vectorize(grow, backend="numba", fallback="error")
    assert "unrolled below" in g.source
    low, high = _bound(g.source)
    x = np.array([0, 1, -1, high - 1, high, high + 1, hi - 1, hi, hi + 1, lo, lo - 1, low, low - 1], dtype=np.int64)
    for limit in (I64_MAX, 2**62, 10**6, -(2**62)):
        check(g, grow, x, np.full(x.shape, limit, dtype=np.int64))


@pytest.mark.numba
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63), I64_MAX), min_size=1, max_size=20), st.integers(-(2**63), I64_MAX))
def test_grow_matches_the_scalar_function(xs, limit):
    pytest.importorskip("numba")
    g = _GROW.setdefault("g", vectorize(grow, backend="numba", fallback="error"))
    check(g, grow, np.array(xs, dtype=np.int64), np.full(len(xs), limit, dtype=np.int64))


_GROW: dict[str, object] = {}
