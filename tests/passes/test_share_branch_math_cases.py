"""passes/share_branch_math.py, before -> after: the costly call chain both branches of a batched
`if` start with runs once, on the operand each lane picks. (Named apart from the existing
tests/test_share_branch_math.py, which tests the pass's contract with hypothesis.)"""

from __future__ import annotations

import math

import numpy as np
from oracle import check
from passcase import UF, F, after, body

from vectorizer import vectorize


def softplus(x: float) -> float:
    if x > 0.0:
        ret = x + math.log1p(math.exp(-x))
    else:
        ret = math.log1p(math.exp(x))
    return ret


def cheap(x: float) -> float:
    if x > 0.0:
        ret = x * 2.0
    else:
        ret = x * 3.0
    return ret


def test_the_shared_chain_runs_once_on_the_selected_operand():
    assert body(after("share_branch_math", softplus, x=F)) == (
        "c = x > 0.0\n"
        "arg = -x if c else x\n"
        "shared = math.log1p(math.exp(arg))\n"
        "if c:\n"
        "    ret = x + shared\n"
        "else:\n"
        "    ret = shared\n"
        "return ret\n"
    )


def test_cheap_arithmetic_and_uniform_ifs_are_left_alone():
    unchanged = "if x > 0.0:\n    ret = x * 2.0\nelse:\n    ret = x * 3.0\nreturn ret\n"
    assert body(after("share_branch_math", cheap, x=F)) == unchanged
    assert "shared" not in after("share_branch_math", softplus, x=UF)  # one branch runs: nothing to share


def test_the_shared_function_keeps_the_contract():
    x = np.array([0.0, -0.0, 5e-324, 1.0, -1.0, 709.0, 710.0, -745.2, 800.0, -800.0, np.inf, -np.inf, np.nan])
    check(vectorize(softplus, fallback="error"), softplus, x)
