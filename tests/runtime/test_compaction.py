"""Loops with long tails on large batches: compaction (gathering the still-active lanes) and
chunked execution must not change a single lane. The batches here are far above the
compaction threshold, with hostile values mixed into realistic ones."""

from __future__ import annotations

import kernels as K
import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.runtime.helpers import Compaction

RNG = np.random.default_rng(20261130)
N = 3 * Compaction.MIN_LANES + 17


def floats_with_specials(lo, hi, n=N):
    x = RNG.uniform(lo, hi, n)
    x[RNG.integers(0, n, 40)] = RNG.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1e308], 40)
    return x


CASES = {
    "escape_time": lambda: (RNG.uniform(-2.0, 0.6, N), RNG.uniform(-1.2, 1.2, N), 80),
    "collatz_steps": lambda: (np.where(RNG.random(N) < 0.001, 0, RNG.integers(1, 10**6, N)),),
    "is_prime": lambda: (RNG.integers(-3, 2 * 10**5, N),),
    "gcd_steps": lambda: (RNG.integers(-(10**9), 10**9, N), RNG.integers(-(10**9), 10**9, N)),
    "int_power": lambda: (RNG.integers(-9, 9, N), RNG.integers(-2, 40, N)),
    "bisect_sqrt": lambda: (np.abs(floats_with_specials(0.0, 1e6)),),
    "kepler_eccentric_anomaly": lambda: (RNG.uniform(-6, 6, N), RNG.uniform(0.0, 0.99, N)),
    "first_passage": lambda: (floats_with_specials(-5.0, 2.0), RNG.uniform(0.001, 0.05, N), 3.0),
    "exp_series": lambda: (floats_with_specials(-30.0, 30.0),),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_long_tailed_loops_on_large_batches(name):
    f = getattr(K, name)
    args = CASES[name]()
    check(vectorize(f, fallback="error"), f, *args, rel=1e-9 if name == "kepler_eccentric_anomaly" else 0.0)


def test_compaction_restores_full_arrays():
    lanes = Compaction()
    active = np.arange(Compaction.MIN_LANES) % 4 == 0
    x = np.arange(Compaction.MIN_LANES, dtype=float)
    assert lanes.worth(active)
    short_active, short_x, scalar = lanes.compact(active, x, 7.0)
    assert short_active.all() and short_x.tolist() == x[active].tolist() and scalar.shape == short_x.shape
    (back_x, back_scalar) = lanes.expand(short_x * 2, scalar)
    expected = x.copy()
    expected[active] *= 2
    assert back_x.tolist() == expected.tolist() and x[1] == 1.0  # the caller's array was not written
    assert (back_scalar == 7.0).all()


def dead_store_after_branch_loop(x: float, k: bool):
    if x > 0:
        pass
    elif k:
        n = 0
        while n < -x and n < 60:
            n += 1
    else:
        x = 2.0  # dead: its mask's definition goes, and the loop above must not carry the mask
    return 3


@pytest.mark.parametrize("k", [False, True])
def test_a_mask_dropped_as_dead_is_not_carried(k):
    # Found by the fuzzer (reg_b59be45d7d): the loop carried a mask whose line had been dropped,
    # an UnboundLocalError in the generated code.
    x = floats_with_specials(-50.0, 50.0)
    check(vectorize(dead_store_after_branch_loop, backend="numpy", fallback="error"),
          dead_store_after_branch_loop, x, k)


def raise_then_read(x: float, n: int) -> float:
    total = 0.0
    k = 0
    while k < n:
        if x > 1e300:
            raise ValueError("huge")  # flags its lanes only: the others read x below
        total += x
        k += 1
    return total


@pytest.mark.parametrize("seed", [0, 1])
def test_a_raise_in_a_masked_block_does_not_hide_later_reads(seed):
    # Found by the fuzzer's tiled check (reg_5441f3be8f): liveness ended every path at the
    # `raise` of a masked block, so `x`, read after it, was not carried when the loop compacted
    # its lanes (shapes (2382,) and (5000,) in the generated code: a refusal as a vectorizer bug).
    rng = np.random.default_rng(seed)
    n = rng.integers(0, 40, 5000)
    x = rng.normal(size=5000)
    vf = vectorize(raise_then_read, backend="numpy", fallback="error")
    check(vf, raise_then_read, x, n)
    x[n > 0] = np.where(rng.random(np.count_nonzero(n > 0)) < 0.001, 1e301, x[n > 0])  # a few lanes raise
    check(vf, raise_then_read, x, n)
    assert ".compact(" in vf.source
