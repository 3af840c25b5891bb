"""The corpus tool's classifier (corpus/measure.py) on local functions: nothing is installed.

A function that vectorizes is CORRECT, one the engine refuses is UNSUPPORTED, and fakes of
`vectorize` that get a value, an exception or the run itself wrong are WRONG or CRASH.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's corpus/ package

from corpus.measure import (  # noqa: E402
    CORRECT,
    CRASH,
    HOSTILE_FLOAT,
    ULP_BOUND,
    UNSUPPORTED,
    WRONG,
    Param,
    allowed_ulps,
    classify,
    make_inputs,
    run_oracle,
)

LANES = 3000


def ratio(x, y):
    if y == 0:
        raise ZeroDivisionError("y is zero")
    return x / y + math.sqrt(abs(x))


def growth(x):
    return math.exp(x) * 3.0


def cancelling(h):  # IAPWS-IF97's boundary: the terms cancel to ~1% of their size near h = 2343
    return 905.84278514723 - 0.67955786399241 * h + 1.2809002730136e-4 * h ** 2


def generator(x):  # a generator: refused at decoration
    yield x


def _inputs(n_params: int = 2):
    arrays = make_inputs([Param(f"p{k}", "f", -10.0, 10.0) for k in range(n_params)], LANES, seed=3, hostile_every=50)
    return arrays


def _loop_nan(f, arrays) -> np.ndarray:
    """The scalar loop over the batch, NaN where a lane raises (a deliberately wrong contract)."""
    out = []
    for lane in zip(*(a.tolist() for a in arrays)):
        try:
            out.append(f(*lane))
        except ZeroDivisionError:
            out.append(math.nan)
    return np.array(out, dtype=np.float64)


def _fake(transform):
    """A stand-in for vectorize: `_loop_nan`, then `transform`ed."""
    def vectorize(f, backend, fallback):
        return lambda *arrays: transform(_loop_nan(f, arrays), arrays)
    return vectorize


def test_inputs_mix_typical_and_hostile_values():
    (a,) = make_inputs([Param("x", "f", 1.0, 2.0)], 1000, seed=0, hostile_every=10)
    again = make_inputs([Param("x", "f", 1.0, 2.0)], 1000, seed=0, hostile_every=10)[0]
    assert np.array_equal(a, again, equal_nan=True)  # deterministic
    typical = (a >= 1.0) & (a <= 2.0)
    assert 850 <= typical.sum() <= 950  # one lane in ten is hostile
    assert np.isnan(a).any() and np.isinf(a).any() and (np.signbit(a) & (a == 0)).any()
    assert {v for v in a[~typical].tolist() if not math.isnan(v)} <= set(HOSTILE_FLOAT)


def test_the_real_engine_on_a_supported_function_is_correct():
    arrays = _inputs()
    oracle = run_oracle(ratio, arrays, {})
    assert any(e is not None for e in oracle.raised)  # the raising lanes are exercised
    verdict = classify(ratio, arrays, oracle, "numpy", loop_seconds=oracle.seconds)
    assert verdict.cls == CORRECT, verdict.detail
    assert verdict.speedup and verdict.speedup > 0


@pytest.mark.numba
def test_the_numba_backend_on_a_supported_function_is_correct():
    arrays = _inputs()
    verdict = classify(ratio, arrays, run_oracle(ratio, arrays, {}), "numba")
    assert verdict.cls == CORRECT, verdict.detail


def test_a_refused_function_is_unsupported_with_the_first_line_of_the_reason():
    arrays = _inputs(1)
    verdict = classify(generator, arrays, run_oracle(generator, arrays, {}), "numpy")
    assert verdict.cls == UNSUPPORTED
    assert "generator" in verdict.detail and "\n" not in verdict.detail


def test_a_value_off_by_one_ulp_is_wrong():
    def off(values, arrays):
        values[7] = math.nextafter(values[7], math.inf)
        return values
    arrays = _inputs()
    oracle = run_oracle(ratio, arrays, {})
    verdict = classify(ratio, arrays, oracle, "numpy", vectorize=_fake(off))
    assert verdict.cls == WRONG and "lane" in verdict.detail


def test_a_missing_exception_is_wrong():
    arrays = _inputs()
    no_raise = _fake(lambda values, arrays: values)  # NaN where the scalar function raises
    verdict = classify(ratio, arrays, run_oracle(ratio, arrays, {}), "numpy", vectorize=no_raise)
    assert verdict.cls == WRONG and "ZeroDivisionError" in verdict.detail


def test_another_exception_type_is_wrong_and_an_internal_error_a_crash():
    def other_type(values, arrays):
        if len(values) == LANES:  # the full sample, raising lanes included
            raise ValueError("not the loop's exception")
        return values
    arrays = _inputs()
    oracle = run_oracle(ratio, arrays, {})
    assert classify(ratio, arrays, oracle, "numpy", vectorize=_fake(other_type)).cls == WRONG

    def broken(values, arrays):
        raise AttributeError("generated code bug")
    assert classify(ratio, arrays, oracle, "numpy", vectorize=_fake(broken)).cls == CRASH


def test_libm_values_may_move_within_the_bound_on_numpy_only():
    (x,) = make_inputs([Param("x", "f", -5.0, 5.0)], LANES, seed=4, hostile_every=10**9)
    oracle = run_oracle(growth, [x], {})

    def moved(k):
        def transform(values, arrays):
            for _ in range(k):
                values = np.nextafter(values, np.inf)
            return values
        return _fake(transform)
    within = classify(growth, [x], oracle, "numpy", vectorize=moved(ULP_BOUND))
    assert within.cls == CORRECT and within.max_ulp == ULP_BOUND
    assert classify(growth, [x], oracle, "numba", vectorize=moved(1)).cls == WRONG  # bitwise there
    assert classify(growth, [x], oracle, "numpy", vectorize=moved(40)).cls == WRONG


def test_the_bound_grows_where_the_function_magnifies_a_power_s_error():
    # h ** 2 is about 5.5e6 (ulp 2**-30) and the result about 16.8 (ulp 2**-48): 5 ulp on the
    # power move the result by 5 * 1.28e-4 * 2**-30 = 168 of its ulp (less a few for rounding).
    h = 2343.5854843147163
    assert allowed_ulps(cancelling, (h,), {}, 0) > 5 * 1.2809002730136e-4 * 2**18 - 10
    assert allowed_ulps(ratio, (3.0, 7.0), {}, 0) == ULP_BOUND  # no libm: the plain bound
