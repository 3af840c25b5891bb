"""passes/break_continue.py: `break` and `continue` become flags, so every loop has one exit: its
test."""

from __future__ import annotations

import math

from passcase import F, I, after, body, outcome, run_scalar


def steps(x: float) -> int:
    n = 0
    while n < 100:
        n = n + 1
        if x < 0:
            break
        if n % 2 == 0:
            continue
        x = x - 1
    return n


def forever(x: float, n: int) -> int:
    while True:
        n = n + 1
        if n * x > 10.0:
            break
    return n


def test_the_rest_of_the_body_goes_into_the_branch_that_stays():
    assert body(after("break_continue", steps, x=F)) == (
        "n = 0\n"
        "brk = False\n"
        "while not brk and n < 100:\n"
        "    cont = False\n"
        "    n = n + 1\n"
        "    if x < 0:\n"
        "        brk = True\n"
        "    else:\n"
        "        if n % 2 == 0:\n"
        "            cont = True\n"
        "        else:\n"
        "            x = x - 1\n"
        "return n\n"
    )


def test_while_true_becomes_a_bool_test():
    text = body(after("break_continue", forever, x=F, n=I))
    assert "while not brk:\n" in text and "break" not in text


def test_the_single_exit_loops_run_as_the_original():
    text = after("break_continue", steps, x=F)
    for x in (-1.0, 0.0, 3.0, 1e6, math.nan, -math.inf):
        assert outcome(run_scalar, text, steps, x) == outcome(steps, x)
    text = after("break_continue", forever, x=F, n=I)
    for x, n in ((1.0, 0), (0.5, -3), (11.0, 0)):
        assert outcome(run_scalar, text, forever, x, n) == outcome(forever, x, n)
