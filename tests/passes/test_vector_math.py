"""passes/vector_math.py: with exact=False, the finished array code's libm-class calls go
through vector math (`_vz_vm`), except in the flag checks and NumPy's cheap powers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from passcase import F, after, body

from vectorizer import vectorize
from vectorizer.options import Options

ON = Options(exact=False)


def powers(x: float, y: float) -> float:
    return x ** y + x ** 2.0 + math.exp(x)


@pytest.fixture(params=[False, True], ids=["avx2", "avx512"])
def simd(request, monkeypatch):
    """NumPy with or without AVX-512 kernels for exp, log, power..."""
    from vectorizer.backends.numba import vecmath

    monkeypatch.setattr(vecmath, "numpy_simd", lambda: request.param)
    return request.param


def test_on_avx512_numpys_simd_functions_stay(simd):
    text = body(after("vector_math", powers, options=ON, x=F, y=F))
    if not simd:
        return  # the next test
    assert "_vz_vm" not in text and "_vz_power(x, y)" in text and "np.exp(x)" in text


def test_calls_are_renamed_except_cheap_powers_and_checks(monkeypatch):
    from vectorizer.backends.numba import vecmath

    monkeypatch.setattr(vecmath, "numpy_simd", lambda: False)
    assert body(after("vector_math", powers, options=ON, x=F, y=F)) == (
        "flag = np.zeros(len(x), dtype=bool)\n"
        "r = _vz_vm.power(x, y)\n"
        "flag |= (x == 0) & (y < 0)\n"
        "flag |= (x < 0) & (y != np.floor(y))\n"
        "flag |= (np.abs(r) > 1e+308) & np.isfinite(x) & np.isfinite(y)\n"
        "r_1 = np.power(x, 2.0, dtype=np.float64)\n"
        "flag |= (np.abs(r_1) > 1e+308) & np.isfinite(x)\n"
        "flag |= x > 709.7\n"
        "return (r + r_1 + _vz_vm.exp(x), flag)\n"
    )


def test_without_vector_math_the_text_is_unchanged():
    assert after("vector_math", powers, x=F, y=F) == after("compact_loops", powers, x=F, y=F)


@pytest.mark.numba
def test_the_vector_math_function_keeps_the_contract_within_its_bound():
    pytest.importorskip("numba")
    from vectorizer.backends.numba import vecmath

    if vecmath.unavailable():
        pytest.skip(vecmath.unavailable())
    x = np.array([0.5, 2.0, -2.0, 0.0, -0.0, 700.0, 710.0, np.inf, np.nan, 1e-300])
    y = np.array([2.5, -1.0, 3.0, -1.0, 2.0, 1.0, 0.5, 0.0, 1.0, 0.5])
    check(vectorize(powers, backend="numpy", exact=False, fallback="error"), powers, x, y, ulps=5)
