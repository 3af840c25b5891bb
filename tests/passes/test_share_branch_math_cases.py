"""passes/share_branch_math.py, before -> after: the costly call chain both branches of a batched
`if` start with runs once, on the operand each lane picks. (Named apart from the existing
tests/test_share_branch_math.py, which tests the pass's contract with hypothesis.)"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from passcase import UF, F, I, after, body

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
        "arg = -math.fabs(x)\n"
        "shared = math.log1p(math.exp(arg))\n"
        "ret = (x if c else 0.0) + shared\n"
        "return ret\n"
    )


def test_cheap_arithmetic_and_uniform_ifs_are_left_alone():
    unchanged = "if x > 0.0:\n    ret = x * 2.0\nelse:\n    ret = x * 3.0\nreturn ret\n"
    assert body(after("share_branch_math", cheap, x=F)) == unchanged
    assert "shared" not in after("share_branch_math", softplus, x=UF)  # one branch runs: nothing to share


def test_the_shared_function_keeps_the_contract():
    x = np.array([0.0, -0.0, 5e-324, 1.0, -1.0, 709.0, 710.0, -745.2, 800.0, -800.0, np.inf, -np.inf, np.nan])
    check(vectorize(softplus, fallback="error"), softplus, x)


def mirrored(x: float) -> float:  # the test picks the negative lanes; cosh of the magnitude
    if 0.0 >= x:
        ret = math.cosh(-x) * 2.0
    else:
        ret = math.cosh(x) + 1.0
    return ret


def blind_only_at_the_call(x: float) -> float:  # log1p(-x) shows a zero's sign: stays a select
    if x > 0.0:
        ret = x + math.log1p(-x)
    else:
        ret = math.log1p(x)
    return ret


def maybe_negative_zero(x: float) -> float:  # -800.0: sin(-exp(-800.0)) is -0.0, 0.0 + it is not
    if x > 0.0:
        ret = x + math.sin(-math.exp(-x))
    else:
        ret = math.sin(-math.exp(x))
    return ret


def int_operand(n: int) -> float:  # an int's magnitude would be a float: stays a select
    if n > 0:
        ret = n + math.exp(-n)
    else:
        ret = math.exp(n)
    return ret


def int_chain(x: float, n: int) -> float:  # `shared` is an int: `0.0 + shared` would be a float
    if x > 0.0:
        ret = x + abs(n ** 2)
    else:
        ret = abs(n ** 3)
    return ret


def test_the_selected_magnitude_and_the_added_term():
    assert body(after("share_branch_math", mirrored, x=F)).splitlines()[1] == "arg = math.fabs(x)"
    # the chain goes on past cosh: `* 2.0` vs `+ 1.0` differ, so the branches stay
    assert "arg = -x if c else x" in after("share_branch_math", blind_only_at_the_call, x=F)
    assert "ret = x + shared" in after("share_branch_math", blind_only_at_the_call, x=F)
    sine = after("share_branch_math", maybe_negative_zero, x=F)
    assert "arg = -math.fabs(x)" in sine and "ret = x + shared" in sine  # exp is blind; sin is not
    ints = after("share_branch_math", int_operand, n=I)
    assert "arg = -n if c else n" in ints and "ret = n + shared" in ints, ints
    assert "ret = x + shared" in after("share_branch_math", int_chain, x=F, n=I)


@pytest.mark.parametrize("f", [softplus, mirrored, blind_only_at_the_call, maybe_negative_zero])
def test_the_shorter_forms_keep_the_contract(f):
    x = np.array([0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0, 709.0, 710.0, -745.2, 800.0, -800.0, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        check(vectorize(f, fallback="error"), f, x, ulps=5)


@pytest.mark.parametrize("f", [softplus, mirrored, blind_only_at_the_call, maybe_negative_zero])
def test_the_sign_of_zero_exactly(f):
    # The ulp bound above counts -0.0 and +0.0 as equal; at the zeros (and at -800.0, where exp
    # underflows) every call here is exact, so compare bits. No lane may raise: one that does
    # decides the outcome of the whole call (log1p(-x) fails from x = 1.0).
    x = [0.0, -0.0, 5e-324, -5e-324, 0.5, -0.5] + ([] if f is blind_only_at_the_call else [-800.0, 800.0])
    check(vectorize(f, fallback="error"), f, np.array(x))


def test_the_shorter_forms_with_ints():
    n = np.array([0, 1, -1, 40, -40, 800, -800, 2**62, -(2**62)])
    check(vectorize(int_operand, fallback="error"), int_operand, n, ulps=5)
    x = np.array([1.0, -1.0, 0.0, -0.0, 5e-324, np.nan, np.inf, -np.inf, -2.5])
    check(vectorize(int_chain, fallback="error"), int_chain, x, np.array([2, 3, -4, 5, 0, 7, -1, 1, 9]))
