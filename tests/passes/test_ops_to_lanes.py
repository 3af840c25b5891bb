"""passes/ops_to_lanes/: the Numba backend's per-lane kernel: the user's own control flow, every
check an early `return <zeros>, True` (the lane is flagged and re-run by the scalar function)."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from passcase import F, I, after, body

from vectorizer import vectorize


def collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def ratio(a: float, b: float) -> float:
    y = a / b if b != 0 else 0.0
    return y


def test_checks_become_early_returns_in_the_users_control_flow():
    assert after("ops_to_lanes", collatz, lanes=True, n=I) == (
        "def _lane_collatz(n):\n"
        "    steps = 0\n"
        "    while n != 1:\n"
        "        if n % 2 == 0:\n"
        "            c = n // 2\n"
        "        else:\n"
        "            if (n < -3074457345618258602) | (n > 3074457345618258602):\n"
        "                return (0, True)\n"
        "            c = 3 * n + 1\n"
        "        n = c\n"
        "        steps = steps + 1\n"
        "    return (steps, False)\n"
    )


def test_a_lazy_operand_with_checks_becomes_an_if_block():
    # Only the side Python evaluates runs; its check stays (a lane cannot see the guard's value).
    assert body(after("ops_to_lanes", ratio, lanes=True, a=F, b=F)) == (
        "if b != 0:\n"
        "    if b == 0:\n"
        "        return (0.0, True)\n"
        "    c = a / b\n"
        "else:\n"
        "    c = 0.0\n"
        "y = c\n"
        "return (y, False)\n"
    )


@pytest.mark.numba
def test_the_lane_kernels_keep_the_contract():
    pytest.importorskip("numba")
    # (n <= 0 never reaches 1); the last one's 3n + 1 leaves int64: flagged, re-run by Python
    n = np.array([1, 2, 3, 27, 97, 2**62, 3074457345618258603], dtype=np.int64)
    check(vectorize(collatz, backend="numba", fallback="error"), collatz, n)
