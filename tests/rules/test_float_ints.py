"""An int made from a float (math.floor/ceil/trunc, int(), round()) read at once as a float
operand (analysis/float_ints.py): the value is the NumPy rounding of the float, +0.0 for a zero,
with no int64 range check, so |x| >= 2**63 is computed batched; NaN and inf still raise as in
Python. Both backends against the scalar function, lane by lane: values bit for bit (the sign of
zero too), the first failing lane's exception; random and hostile floats, then hypothesis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from oracle import check
from strategies import SPECIAL_FLOATS, arrays, floats

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(51)


def round_half_up(n: float, scale: int) -> float:  # a float power of ten, an int from floor
    mult = 10.0 ** scale
    return math.floor(n * mult + 0.5) / mult


def every_call(x: float, y: float) -> float:
    return math.ceil(x) * y + round(x) - y * int(x) + math.trunc(y) / (y + 3.5) - x * math.floor(y)


def signed_zeros(x: float, y: float) -> float:  # ceil(-0.5) is the int 0: +0.0, never -0.0
    return math.copysign(1.0, math.ceil(x) * y) + math.copysign(2.0, y - math.trunc(x)) + math.copysign(4.0, round(x) / y)


def powers(x: float, y: float) -> float:
    return 2.0 ** math.floor(x) + math.floor(y) ** 0.5


def remainders(x: float, y: float) -> float:
    return math.floor(x) % y + math.ceil(x) // y


def int_kept(x: float, n: int) -> float:  # an int operand: the int rules (and their range checks)
    return (math.floor(x) + n) * 0.5 + math.floor(x) // 3


def named(x: float, y: float) -> float:  # a named int: the int rules
    k = math.floor(x)
    return k / y


def _floats(n: int = 3000, scale: float = 1e25) -> np.ndarray:
    x = np.concatenate([RNG.normal(0, 10, n // 3), RNG.normal(0, scale, n // 3),
                        RNG.choice([-1, 1], n // 3) * np.exp(RNG.uniform(-745, 709, n // 3)),
                        np.array([v for v in SPECIAL_FLOATS if math.isfinite(v)] * 3)])
    RNG.shuffle(x)
    return x


def _run(f, backend, *args):
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *args)
    if vf.backend is not None:
        assert vf.backend == backend
    return vf


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_bit_for_bit_beyond_int64(backend):
    x, y = _floats(), _floats()
    y = np.where(y == 0, 1.5, y)
    _run(every_call, backend, x, y)
    _run(signed_zeros, backend, x, y)
    _run(signed_zeros, backend, np.array([-0.5, -0.0, 0.0, -0.4, 0.4, -1e-300, -5e-324]), np.array([1.0, -1.0, 2.0, -3.0, 5.0, -0.5, 7.0]))
    _run(powers, backend, np.clip(x, -1000, 1000), np.abs(y))
    _run(remainders, backend, x, y)
    _run(named, backend, np.clip(x, -1e18, 1e18), y)
    _run(int_kept, backend, np.clip(x, -1e15, 1e15), RNG.integers(-1000, 1000, x.size))
    n = np.concatenate([RNG.uniform(0.1, 10.0, 400), np.array([0.5, 2.5, -2.5, 1.0049999999999999, 1e308, 5e-324])])
    _run(round_half_up, backend, n, RNG.integers(0, 101, n.size))


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_and_inf_raise_as_python(backend):
    y = np.array([1.0, 2.0, 3.0, 4.0])
    _run(every_call, backend, np.array([1.5, 1e300, math.inf, 2.0]), y)  # OverflowError, lane 2
    _run(every_call, backend, np.array([1.5, math.nan, math.inf, 2.0]), y)  # ValueError, lane 1
    _run(every_call, backend, np.array([1.5, 2.5, 3.5, 2.0]), np.array([1.0, -3.5, 3.0, 4.0]))  # ZeroDivisionError
    _run(round_half_up, backend, np.array([1.5, 2.5, 1.0]), np.array([3, 400, 2]))  # 10.0 ** 400: OverflowError
    _run(round_half_up, backend, np.array([1.5, 1e300, 1.0]), np.array([3, 300, 2]))  # 1e300 * 1e300 is inf
    _run(remainders, backend, np.array([1.5, 2.5, 1.0]), np.array([3.0, 0.0, -0.0]))  # ZeroDivisionError
    _run(named, backend, np.array([1.5, 1e300, 1.0]), np.array([3.0, 2.0, 1.0]))  # |x| >= 2**63: re-run


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(x=arrays(floats(), min_size=1, max_size=40), y=arrays(floats(), min_size=40, max_size=40))
def test_hypothesis(backend, x, y):
    y = y[: x.size]
    _run(every_call, backend, x, y)
    _run(signed_zeros, backend, x, y)
    _run(remainders, backend, x, y)
