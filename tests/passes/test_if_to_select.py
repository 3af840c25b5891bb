"""passes/if_to_select.py: a batched `if` becomes a masked block that runs on every lane, and
merges `v = e if m else v` where another lane may still read the old value."""

from __future__ import annotations

import math

from passcase import UF, F, after, body, outcome, run_scalar


def recip(x: float) -> float:
    if x > 0:
        t = 1 / x
        y = t * 2
    else:
        y = 0.0
    return y


def checked(x: float) -> float:
    if x < 0:
        raise ValueError("negative")
    return math.sqrt(x)


def test_a_batched_if_becomes_a_masked_block_and_a_merge():
    # `t` is read nowhere else: it stays in the masked block; `y` is live after the if: a merge.
    assert body(after("if_to_select", recip, x=F)) == (
        "m = x > 0\n"
        "if m:\n"
        "    t = 1 / x\n"
        "    y = t * 2\n"
        "y = y if m else 0.0\n"
        "return y\n"
    )


def test_a_raise_is_predicated_and_a_uniform_if_stays():
    text = body(after("if_to_select", checked, x=F))
    assert "if m:\n    raise ValueError('negative')\n" in text.replace('"', "'")
    assert body(after("if_to_select", recip, x=UF)) == (
        "if x > 0:\n    t = 1 / x\n    y = t * 2\nelse:\n    y = 0.0\nreturn y\n"
    )


def test_the_selects_run_as_the_original_on_one_lane():
    for f in (recip, checked):
        text = after("if_to_select", f, x=F)
        for x in (-1.0, -0.0, 0.0, 5e-324, 2.0, math.inf, -math.inf, math.nan):
            assert outcome(run_scalar, text, f, x) == outcome(f, x), (f.__name__, x)
