"""passes/while_to_masked.py: a while loop with a batched test runs while any lane is active,
under a sticky `active` mask."""

from __future__ import annotations

import math

from passcase import UI, F, after, body, outcome, run_scalar


def escape(cr: float, ci: float, max_iter: int) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def halvings(x: float) -> int:
    n = 0
    while x:
        x = math.floor(x / 2.0)
        n = n + 1
    return n


def uniform(n: int) -> int:
    k = 0
    while k < n:
        k = k + 2
    return k


def test_a_batched_test_becomes_a_sticky_mask():
    assert body(after("while_to_masked", escape, cr=F, ci=F, max_iter=UI)) == (
        "zr = 0.0\n"
        "zi = 0.0\n"
        "n = 0\n"
        "active = zr * zr + zi * zi <= 4.0 and n < max_iter\n"
        "while active:\n"
        "    zr_1 = zr * zr - zi * zi + cr\n"
        "    zi = 2.0 * zr * zi + ci\n"
        "    zr = zr_1\n"
        "    n = n + 1\n"
        "    active = active and (zr * zr + zi * zi <= 4.0 and n < max_iter)\n"
        "return n\n"
    )


def test_a_number_test_is_its_truth_value_and_a_uniform_loop_stays():
    text = body(after("while_to_masked", halvings, x=F))
    assert "active = bool(x)\n" in text and "active = active and bool(x)\n" in text
    assert body(after("while_to_masked", uniform, n=UI)) == "k = 0\nwhile k < n:\n    k = k + 2\nreturn k\n"


def test_the_masked_loop_runs_as_the_original_on_one_lane():
    text = after("while_to_masked", escape, cr=F, ci=F, max_iter=UI)
    for cr, ci in ((0.0, 0.0), (0.3, 0.5), (-2.0, 0.0), (math.nan, 0.0), (math.inf, -math.inf)):
        assert outcome(run_scalar, text, escape, cr, ci, 50) == outcome(escape, cr, ci, 50)
    text = after("while_to_masked", halvings, x=F)
    for x in (0.0, -0.0, 5.0, 1e300, math.nan, math.inf):  # (a negative x never ends: floor(-0.5) is -1)
        assert outcome(run_scalar, text, halvings, x) == outcome(halvings, x)
