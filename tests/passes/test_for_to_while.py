"""passes/for_to_while.py: a `for` loop that lanes leave at different iterations becomes a while
loop with a counter that advances before the body."""

from __future__ import annotations

import math

from passcase import UI, F, I, after, body, outcome, run_scalar

COEFFS = (1.0, 2.0, 4.0, 8.0)


def tail_sum(start: int, n: int) -> int:
    s = 0
    for i in range(start, n + 1):
        s = s + i
    return s


def first_above(x: float) -> float:
    found = 0.0
    for c in COEFFS:
        if c > x:
            found = c
            break
    return found


def uniform(n: int) -> int:
    s = 0
    for i in range(n):
        s = s + i
    return s


def test_a_batched_range_bound_becomes_a_while_loop():
    assert body(after("for_to_while", tail_sum, start=UI, n=I)) == (
        "s = 0\n"
        "k = start\n"
        "k_stop = n + 1\n"
        "while k < k_stop:\n"
        "    i = k\n"
        "    k = k + 1\n"
        "    s = s + i\n"
        "return s\n"
    )


def test_a_loop_over_a_tuple_that_breaks_reads_it_by_index():
    assert body(after("for_to_while", first_above, x=F)) == (
        "found = 0.0\n"
        "k = 0\n"
        "while k < 4:\n"
        "    c = COEFFS[k]\n"
        "    k = k + 1\n"
        "    if c > x:\n"
        "        found = c\n"
        "        break\n"
        "return found\n"
    )


def test_a_uniform_loop_stays_a_for_loop():
    assert body(after("for_to_while", uniform, n=UI)) == "s = 0\nfor i in range(n):\n    s = s + i\nreturn s\n"


def test_the_while_loops_run_as_the_original():
    text = after("for_to_while", tail_sum, start=UI, n=I)
    for start, n in ((0, 5), (3, 1), (-4, -4), (2**62, 2**62 + 2)):
        assert outcome(run_scalar, text, tail_sum, start, n) == outcome(tail_sum, start, n)
    text = after("for_to_while", first_above, x=F)
    for x in (0.5, 3.0, 8.0, math.nan, -math.inf):
        assert outcome(run_scalar, text, first_above, x) == outcome(first_above, x)
