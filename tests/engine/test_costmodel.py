"""backend="auto", the default: the static choice of route (vectorizer/engine/costmodel.py) on the
shapes of code the benchmark measured, and its determinism across processes. The choice itself
needs no Numba (without it, "auto" runs on NumPy whatever the choice)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from math import exp
from pathlib import Path

import numpy as np
import pytest

from vectorizer.api import prepare
from vectorizer.engine import chunks
from vectorizer.engine.costmodel import (
    SIMD_LOOP_MAX_THREADS,
    choose,
    numpy_has_simd_math,
)


def arithmetic(x: float) -> float:
    return (2.0 * x - 1.0) * x + 3.0


def branches(x: float) -> float:
    if x < 0.0:
        return -x
    return x * x


def simd_math(x: float) -> float:
    return math.log1p(math.exp(x))


def branches_and_simd_math(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(exp(x))  # `from math import exp` counts too


def while_loop(x: float) -> int:
    n = 0
    while x > 1.0 and n < 50:
        x = math.sqrt(x)
        n += 1
    return n


def uniform_for_with_math(x: float) -> float:
    total = 0.0
    for i in range(8):
        total += math.exp(-x * i)
    return total


STEPS = 16


def fixed_for_with_pow(s: float) -> float:
    total = 0.0
    for k in range(1, STEPS + 1):
        total += k ** -s
    return total


def gaussian(x: float) -> float:
    return exp(-0.5 * x * x)


def fixed_for_calling_math(a: float, b: float) -> float:
    h = (b - a) / STEPS
    total = 0.0
    for i in range(STEPS):
        total += gaussian(a + i * h)
    return total * h


def for_over_a_parameter(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):  # the trip count may differ per lane
        total += math.exp(-x * i)
    return total


def fixed_for_of_squares(x: float) -> float:
    total = 0.0
    for i in range(STEPS):
        total += (x + i) ** 2
    return total


def fixed_for_and_a_while(x: float) -> float:
    return uniform_for_with_math(x) + float(while_loop(x))


def for_that_returns_early(x: float) -> int:
    for i in range(8):
        if math.sin(x * i) > 0.5:
            return i
    return -1


def calls_a_while_loop(x: float) -> float:
    return float(while_loop(x)) + math.exp(x)


def calls_simd_math(x: float) -> float:
    return simd_math(x) * 2.0


def erfc_user(x: float) -> float:
    return math.erfc(x) + math.exp(x)


def gamma_user(x: float) -> float:
    return math.gamma(x) if x > 0.5 else 1.0


def calls_gamma(x: float) -> float:
    return gamma_user(x) + 1.0


def numpy_exp_user(x: float) -> float:
    return float(np.exp(x)) + 1.0  # NumPy's value, on every CPU


NUMPY_ONLY = (gamma_user, calls_gamma)  # lane code refuses them (CPython's own gamma)
SIMD_LOOPS = (uniform_for_with_math, fixed_for_with_pow, fixed_for_calling_math)
ALL = (arithmetic, branches, simd_math, branches_and_simd_math, while_loop, for_that_returns_early,
       for_over_a_parameter, fixed_for_of_squares, fixed_for_and_a_while, calls_simd_math, calls_a_while_loop,
       erfc_user, numpy_exp_user, *SIMD_LOOPS, *NUMPY_ONLY)


@pytest.mark.parametrize("func", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("simd", [True, False], ids=["avx512", "avx2"])
@pytest.mark.parametrize("threads", [1, 2, 13])
def test_exact_routes_do_not_depend_on_the_machine(func, simd, threads):
    """exact=True (the default): Numba's lane kernels wherever lane code computes the function,
    on every machine; NumPy only where it cannot (gamma, here or in a callee)."""
    route = choose(*prepare(func), exact=True, threads=threads, simd_math=simd)
    # np.exp on numbers: NumPy's AVX-512 kernel, which the NumPy route runs on whole arrays (lane code: one number a call)
    assert route == ("numpy" if func in NUMPY_ONLY or (func is numpy_exp_user and simd) else "numba"), route.why
    assert route.why and isinstance(route, str)
    if func in NUMPY_ONLY:
        assert "math.gamma is CPython's own algorithm" in route.why


@pytest.mark.parametrize("func", ALL, ids=lambda f: f.__name__)
def test_inexact_routes_depend_on_simd_math_and_cores(func):
    """exact=False: NumPy's AVX-512 SIMD exp/log/pow in a loop of fixed trip count take the NumPy
    route up to SIMD_LOOP_MAX_THREADS threads (its passes share the memory bus; Numba's lanes
    scale with the cores); without those kernels (AVX2), Numba."""
    for threads in (1, 2, SIMD_LOOP_MAX_THREADS, SIMD_LOOP_MAX_THREADS + 1, 13):
        on_avx512 = choose(*prepare(func), exact=False, threads=threads, simd_math=True)
        expected = "numpy" if func in NUMPY_ONLY or func is numpy_exp_user or (
            func in SIMD_LOOPS and threads <= SIMD_LOOP_MAX_THREADS) else "numba"
        assert on_avx512 == expected, (threads, on_avx512.why)
        assert choose(*prepare(func), exact=False, threads=threads, simd_math=False) == \
            ("numpy" if func in NUMPY_ONLY else "numba")
    if func in SIMD_LOOPS:
        assert "2 threads" in choose(*prepare(func), exact=False, threads=2, simd_math=True).why


def test_simd_math_follows_this_cpu():
    features = np._core._multiarray_umath.__cpu_features__
    assert numpy_has_simd_math() is (features["AVX512F"] and features["AVX512_SKX"])
    func = uniform_for_with_math
    assert choose(*prepare(func), exact=False) == ("numpy" if numpy_has_simd_math() and chunks.threads() <= SIMD_LOOP_MAX_THREADS
                                                   else "numba")


ROUTE_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from engine.test_costmodel import uniform_for_with_math, gamma_user, branches
from vectorizer import vectorize
out = []
for f in (uniform_for_with_math, gamma_user, branches):
    for exact in (True, False):
        vf = vectorize(f, exact=exact)
        vf(np.linspace(0.6, 3.0, 70000))  # a call large enough for any measurement to have happened
        vf(np.linspace(0.6, 3.0, 7))
        out.append([f.__name__, exact, str(vf.backend), vf.backend.why])
print(json.dumps(out))
"""


@pytest.mark.numba
@pytest.mark.slow
def test_the_route_is_the_same_in_three_fresh_processes(tmp_path):
    """backend="auto" decides from the code, the argument kinds and the machine, never from a
    timing: three processes, each with a cold disk cache of its own, pick the same routes."""
    tests = str(Path(__file__).resolve().parents[1])
    seen = []
    for run in range(3):
        env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / f"cache{run}")}
        proc = subprocess.run([sys.executable, "-c", ROUTE_PROBE.format(tests=tests)], env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        seen.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert seen[0] == seen[1] == seen[2]
    routes = {(name, exact): route for name, exact, route, _ in seen[0]}
    assert routes[("branches", True)] == "numba" and routes[("gamma_user", True)] == "numpy"
    assert routes[("uniform_for_with_math", True)] == "numba"  # exact: no SIMD math to prefer NumPy for
