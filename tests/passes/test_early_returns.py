"""passes/early_returns.py: every `return e` assigns the result, and the function ends in one
`return`."""

from __future__ import annotations

import math

from passcase import F, I, after, body, outcome, run_scalar


def guard(x: float) -> float:
    if x < 0:
        return 0.0
    y = math.sqrt(x)
    return y * 2


def search(x: float, n: int) -> int:
    while n < 10:
        if n * n > x:
            return n
        n += 1
    return -1


def test_a_guard_clause_moves_the_rest_into_the_branch_that_falls_through():
    assert body(after("early_returns", guard, x=F)) == (
        "if x < 0:\n"
        "    ret = 0.0\n"
        "else:\n"
        "    y = math.sqrt(x)\n"
        "    ret = y * 2\n"
        "return ret\n"
    )


def test_a_return_in_a_loop_breaks_out_with_a_done_flag():
    assert body(after("early_returns", search, x=F, n=I)) == (
        "done = False\n"
        "while n < 10:\n"
        "    if n * n > x:\n"
        "        ret = n\n"
        "        done = True\n"
        "        break\n"
        "    n = n + 1\n"
        "if not done:\n"
        "    ret = -1\n"
        "    done = True\n"
        "return ret\n"
    )


def test_one_exit_runs_as_the_original():
    for f, cases in ((guard, [(-1.0,), (-0.0,), (4.0,), (math.inf,), (math.nan,)]),
                     (search, [(5.0, 0), (-1.0, 3), (1e9, -5), (math.nan, 0)])):
        text = after("early_returns", f, **{name: F if name == "x" else I for name in f.__code__.co_varnames[:len(cases[0])]})
        for args in cases:
            assert outcome(run_scalar, text, f, *args) == outcome(f, *args), args
