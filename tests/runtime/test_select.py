"""runtime.where (`_vz_where` in generated modules) is np.where, bit for bit, on every path:
the bit select for mixed masks over 8-byte numbers and np.where's own for the rest."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorizer.runtime.helpers import where

HOSTILE_FLOATS = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1.7976931348623157e308, 1.5]
HOSTILE_INTS = [0, -1, 1, 2**63 - 1, -(2**63), 2**53 + 1]


def _same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # every bit: NaN payloads and -0.0 too


def _operand(rng: np.random.Generator, kind: str, n: int, scalar: bool):
    pool = HOSTILE_FLOATS if kind == "f" else HOSTILE_INTS
    if scalar:
        return pool[int(rng.integers(len(pool)))]
    dtype = np.float64 if kind == "f" else np.int64
    return np.array(rng.choice(np.array(pool, dtype=dtype), n), dtype=dtype)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([0, 1, 100, 4095, 4096, 5000, 20000]),
       density=st.sampled_from([0.0, 0.01, 0.03, 0.5, 0.97, 1.0]),
       kinds=st.sampled_from(["ff", "fi", "if", "ii"]), scalars=st.sampled_from([(0, 0), (1, 0), (0, 1), (1, 1)]))
def test_matches_np_where(seed, n, density, kinds, scalars):
    rng = np.random.default_rng(seed)
    cond = rng.random(n) < density
    yes = _operand(rng, kinds[0], n, bool(scalars[0]))
    no = _operand(rng, kinds[1], n, bool(scalars[1]))
    _same(where(cond, yes, no), np.where(cond, yes, no))


@pytest.mark.parametrize("cond", [True, np.bool_(False), np.ones((), dtype=bool)])
def test_uniform_condition_is_np_where(cond):
    x = np.arange(5000, dtype=np.float64)
    _same(where(cond, x, -x), np.where(cond, x, -x))


def test_bools_and_two_dimensions_fall_back_or_broadcast():
    rng = np.random.default_rng(1)
    cond = rng.random((100, 64)) < 0.5
    flags = rng.random(64) < 0.5
    _same(where(cond, flags, False), np.where(cond, flags, False))  # 1-byte values: np.where itself
    row = rng.normal(size=64)
    _same(where(cond, row, np.nan), np.where(cond, row, np.nan))
    _same(where(cond, row[None, :], 3), np.where(cond, row[None, :], 3))


def test_result_is_a_fresh_writable_array():
    cond = np.arange(10000) % 2 == 0
    x = np.ones(10000)
    out = where(cond, x, 2.0)
    out[0] = 7.0
    assert x[0] == 1.0 and out.flags.writeable


@pytest.mark.parametrize("zero", [0.0, 0, -0.0, np.float64(0.0)])
@pytest.mark.parametrize("shape", [(20000,), (5000, 1)])
def test_a_zero_side_selects_by_a_mask_alone(zero, shape):
    """yes or no the number 0 (all bits clear: not -0.0) takes the two-operation path; every
    bit as np.where, broadcasting included."""
    rng = np.random.default_rng(7)
    cond = rng.random(shape) < 0.5
    other = np.array(rng.choice(np.array(HOSTILE_FLOATS), 64 if len(shape) == 2 else shape[0]))
    ints = rng.integers(-(2**63), 2**63 - 1, other.shape, dtype=np.int64)
    for value in (other, ints):
        _same(where(cond, zero, value), np.where(cond, zero, value))
        _same(where(cond, value, zero), np.where(cond, value, zero))
    _same(where(cond, zero, zero), np.where(cond, zero, zero))
