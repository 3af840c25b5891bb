"""Identity checks decided from what a lane is (issue 51): `flag is True` / `flag is not False` of a
parameter (a lane of a bool array is True or False itself, a lane of an int or float array never
is), and `p is None` / `p is not None` of a called function's parameter (no value vectorized code
holds is None; an argument that is None specializes a copy of the callee on it). Differential
against the scalar function lane by lane on both backends, hostile floats and ints near 2**63."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 40.0, -40.0])
N = FLOATS.size
FLAGS = {"bools": np.resize([True, False, False], N), "ints": np.resize(np.array(SPECIAL_INTS), N),
         "floats": FLOATS[::-1].copy(), "true": True, "false": False, "one": 1, "zero": 0.0}


def flagged(x, flag):
    r = 0.22 * x if flag is True else 0.5 * x
    if flag is not False:
        r = r + 1
    if flag is False or not flag is not True:  # noqa: E714 - both spellings of the test
        r = -r
    return r


def clamp(value, mn=None, mx=None):
    if mx is not None and value > mx:
        value = mx
    if mn is not None and value < mn:
        value = mn
    return value


def clamped(x):
    return math.exp(clamp(x, -30, 30)) + clamp(x, mx=1.0) - clamp(x, None, 2.5) + clamp(x)


def guarded(x, k=2):
    return _scaled(x, k) + _scaled(x, None)


def _scaled(x, k):
    if k is None:
        return x
    return x * k


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", sorted(FLAGS))
def test_is_true_of_a_flag_is_the_lane_s(kind, backend) -> None:
    check(vectorize(flagged, fallback="error", backend=backend), flagged, FLOATS, FLAGS[kind])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [clamped, guarded], ids=lambda f: f.__name__)
def test_is_none_of_a_callee_s_parameter(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, FLOATS)
    check(vf, f, np.resize(np.array(SPECIAL_INTS), N))


def reassigned_flag(x, flag):
    flag = x > 0
    return 1.0 if flag is True else 0.0


def test_is_true_after_an_assignment_is_refused() -> None:
    with pytest.raises(VectorizeError, match="'flag' may be assigned before this point"):
        vectorize(reassigned_flag, fallback="error")(FLOATS, FLAGS["bools"])
