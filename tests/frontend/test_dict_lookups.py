"""frontend/dict_lookups.py and desugar.py's `in` (issue 51): a module-level dict of numbers read
with a per-lane or uniform key, and `x in {...}` of a set display, `frozenset(...)` or a
module-level frozenset, on both backends against the scalar function lane by lane (a missing key
raises KeyError as the loop does); the dict is watched: an item assigned since is seen."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

SIZES = {8: 1.5, 16: 2.25, 32: 4.0, -1: -0.0}
CODES = {1: 10, 2.0: 20, True: 30, 0.5: -7}  # noqa: F601 - 1 and True are one key: the later value (30) wins
VALID = frozenset({1, 2, 3, 5})
SCALE = {0: 1.0}


def scaled(width: int, x: float) -> float:
    return x * SIZES[width] + SIZES[width // 2 * 2 if width > 0 else width]


def coded(n: float, x: float) -> float:
    if x > 0 and CODES[n] > 15:  # a lane with x <= 0 never reads CODES[n]: flagged, re-run, fine
        return 1.0
    y = CODES[n * 2] if x < -1.0 else 0.0
    return x + y


def member(n: int) -> bool:
    return n in {1, 2, 4} or n in VALID or n not in frozenset((7, 9)) and n in set([0, 11])


def rescaled(k: int, x: float) -> float:
    return x * SCALE[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dict_of_numbers_read_with_a_per_lane_key(backend):
    vf = vectorize(scaled, backend=backend, fallback="error")
    check(vf, scaled, np.array([8, 16, 32, -1, 16, 32]), np.array([1.0, 2.0, math.nan, -0.0, math.inf, -3.5]))
    check(vf, scaled, np.array([8, 16, 33, 12, -1]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))  # KeyError(33) at lane (2,)
    check(vf, scaled, np.array([8, 16]), 2.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_keys_equal_as_numbers_are_one_key(backend):
    vf = vectorize(coded, backend=backend, fallback="error")
    n = np.array([1.0, 2.0, 0.5, 1.0, 0.25, -0.0, math.nan])
    check(vf, coded, n[:4], np.array([1.0, -2.0, 3.0, -0.5]))
    check(vf, coded, n, np.array([1.0, -2.0, 3.0, 5.0, 1.0, -5.0, 2.0]))  # 0.25 is no key: KeyError


@pytest.mark.parametrize("backend", BACKENDS)
def test_membership_in_constant_sets(backend):
    check(vectorize(member, backend=backend, fallback="error"), member, np.array([1, 2, 3, 4, 5, 7, 9, 0, 11, -1, 2**62]))


def test_an_item_assigned_since_makes_a_new_kernel():
    vf = vectorize(rescaled, fallback="error")
    check(vf, rescaled, np.array([0, 0]), np.array([1.0, 2.0]))
    SCALE[0] = 3.0
    try:
        check(vf, rescaled, np.array([0, 0]), np.array([1.0, 2.0]))
        assert vf(np.array([0]), np.array([1.0]))[0] == 3.0
    finally:
        SCALE[0] = 1.0
