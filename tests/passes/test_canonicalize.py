"""passes/canonicalize.py: one assignment form, `name = expr`; literal tests keep only the branch
that runs."""

from __future__ import annotations

import math

from passcase import F, I, after, body, outcome, run_scalar


def chained(cr: float, ci: float, n: int) -> float:
    """Docstring."""
    zr = zi = 0.0
    n += 1
    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    x: float = 1.0
    pass
    return zr + zi + x + n


def literal_tests(x: float) -> float:
    if False:
        x = 1.0
    elif x > 2.0:
        x = x - 1.0
    y = x if True else -x
    return y


def test_assignment_forms_become_name_equals_expr():
    # The docstring's example: a temporary only where a later right-hand side reads the target.
    assert body(after("canonicalize", chained, cr=F, ci=F, n=I)) == (
        "zr = 0.0\n"
        "zi = 0.0\n"
        "n = n + 1\n"
        "zr_1 = zr * zr - zi * zi + cr\n"
        "zi = 2.0 * zr * zi + ci\n"
        "zr = zr_1\n"
        "x = 1.0\n"
        "return zr + zi + x + n\n"
    )


def test_a_literal_test_keeps_only_the_branch_that_runs():
    assert body(after("canonicalize", literal_tests, x=F)) == (
        "if x > 2.0:\n"
        "    x = x - 1.0\n"
        "y = x\n"
        "return y\n"
    )


def test_the_canonical_function_runs_as_the_original():
    text = after("canonicalize", chained, cr=F, ci=F, n=I)
    for cr, ci, n in ((0.5, -0.25, 3), (math.nan, 1.0, -1), (1e308, 1e308, 2**62)):
        assert outcome(run_scalar, text, chained, cr, ci, n) == outcome(chained, cr, ci, n)
