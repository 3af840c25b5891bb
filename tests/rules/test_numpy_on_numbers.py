"""NumPy functions called on numbers in a scalar function (`np.arcsin(x)`, `np.maximum(a, b)`):
NumPy's values (no Python exceptions), on both backends, against the scalar function lane by
lane with random and hostile inputs. The Numba backend refuses, cleanly, the few whose NumPy
result its lane code cannot reproduce (passes/ops_to_lanes/numpy_calls.py)."""

from __future__ import annotations

import math
import sys
import textwrap

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import LIBM_TWINS, differs_from_libm
from vectorizer.passes.ops_to_lanes import numpy_calls as lane_numpy

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(11)
HOSTILE = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan, 5e-324, -1e-310, 1e308, -1e308, 710.0,
           -745.5, 9007199254740993.0]
N = 20_000
F = [np.concatenate([RNG.normal(0, 3, N // 2), RNG.choice([-1, 1], N // 2) * np.exp(RNG.uniform(-700, 700, N // 2)),
                     np.array(HOSTILE * 4)]) for _ in range(3)]
for f_ in F:
    RNG.shuffle(f_)
INTS = [np.concatenate([RNG.integers(-50, 50, N // 2), RNG.integers(-(2**63), 2**63, N // 2, dtype=np.int64),
                        np.array([0, 1, -1, 2**53 + 1, -(2**63), 2**63 - 1] * 4)]) for _ in range(3)]

UNARY = ["sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
         "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "degrees", "radians", "deg2rad",
         "rad2deg", "floor", "ceil", "trunc", "rint", "abs", "absolute", "negative", "square", "sign", "isnan",
         "isinf", "isfinite", "signbit", "min", "max", "amin", "amax", "logical_not"]
BINARY = ["maximum", "minimum", "fmax", "fmin", "add", "subtract", "multiply", "fmod", "remainder", "divide",
          "true_divide", "arctan2", "hypot", "copysign", "logical_and", "logical_or", "logical_xor"]
INT_OK = {"min", "max", "amin", "amax", "abs", "absolute", "negative", "square", "sign", "isnan", "isinf", "isfinite", "signbit", "maximum",
          "minimum", "fmax", "fmin", "add", "subtract", "multiply", "remainder", "fmod", "sqrt", "exp", "log", "sin",
          "arctan2", "hypot", "divide", "copysign", "logical_not", "logical_and", "logical_or", "logical_xor"}
# Not np.floor/ceil/trunc of ints: NumPy 2 keeps the int there, which the analysis types as a
# float (array_rules.py), on both backends.


def make(tmp_path, expr: str, nargs: int):
    params = ", ".join("xyz"[:nargs])
    path = tmp_path / f"npnum_{abs(hash(expr)) % 10**12}.py"
    path.write_text(textwrap.dedent(f"""
        import numpy as np


        def f({params}):
            return {expr}
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(path.stem).f
    finally:
        sys.path.pop(0)


CASES = ([(f"np.{n}(x)", 1, "f") for n in UNARY] + [(f"np.{n}(x, y)", 2, "f") for n in BINARY]
         + [(f"np.{n}(x)", 1, "i") for n in UNARY if n in INT_OK] + [(f"np.{n}(x, y)", 2, "i") for n in BINARY if n in INT_OK]
         + [("np.clip(x, y, z)", 3, "f"), ("np.clip(x, y, z)", 3, "i"), ("np.where(x > y, x, z)", 3, "f"),
            ("np.arcsin(x) + np.arctan2(y, x)", 2, "f"), ("np.maximum(x, 1.5)", 1, "i")])


def numpys_own(expr: str) -> list[str]:
    """The NumPy functions of `expr` whose kernel on this CPU gives other bits than the C library's
    (core/numpy_kernels.py) and whose loop lane code cannot call (backends/numba/ufuncloops.py):
    lane code refuses them, and `auto` runs the NumPy backend. Where lane code calls NumPy's loop,
    the Numba backend runs and is checked bit for bit like the others."""
    return [n for n in LIBM_TWINS if f"np.{n}(" in expr and differs_from_libm(n) and ufuncloops.unavailable(n)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("expr, nargs, kind", CASES, ids=[f"{e}[{k}]" for e, _, k in CASES])
def test_numpy_functions_on_numbers_match_the_scalar_function(expr, nargs, kind, backend, tmp_path):
    if backend == "numba":
        pytest.importorskip("numba")
    f = make(tmp_path, expr, nargs)
    args = (F if kind == "f" else INTS)[:nargs]
    if backend == "numba" and numpys_own(expr):
        with pytest.raises(VectorizeError, match="NumPy's own kernel for it on this CPU"):
            vectorize(f, backend="numba", fallback="error")(*args)
        backend = "auto"  # which runs the NumPy backend: NumPy's values
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *args)  # bit for bit: where lane code runs, NumPy calls the C library here
    assert vf.backend == (backend if backend != "auto" else "numpy")


@pytest.mark.numba
@pytest.mark.parametrize("name", sorted(lane_numpy.REFUSED))
def test_numpy_functions_the_numba_backend_cannot_reproduce_are_refused(name, tmp_path):
    """np.power: of ints always (NumPy's int errors); of floats where NumPy's loop cannot be
    called here, else the Numba backend gives its bits (its shortcuts for 2.0, -1.0... included)."""
    pytest.importorskip("numba")
    f = make(tmp_path, f"np.{name}(x, 2.0)" if name == "power" else f"np.{name}(x)", 1)
    if name == "power":
        ints = make(tmp_path, "np.power(x, 3)", 1)
        with pytest.raises(VectorizeError, match="np.power"):
            vectorize(ints, backend="numba", fallback="error")(INTS[0][:10])
    if name == "power" and not ufuncloops.unavailable("power"):
        for exponent in ("2.0", "-1.0", "0.5", "y"):
            g = make(tmp_path, f"np.power(x, {exponent})", 2 if exponent == "y" else 1)
            vf = vectorize(g, backend="numba", fallback="error")
            args = (F[0], np.where(np.arange(F[1].size) % 3 == 0, -1.0, F[1])) if exponent == "y" else (F[0],)
            with np.errstate(all="ignore"):
                check(vf, g, *args)
            assert vf.backend == "numba"
        return
    with pytest.raises(VectorizeError, match=f"np.{name} on numbers on the Numba backend"):
        vectorize(f, backend="numba", fallback="error")(F[0][:10])
    auto = vectorize(f, backend="auto", fallback="error")
    with np.errstate(all="ignore"):
        check(auto, f, F[0])
    assert auto.backend == "numpy"


@pytest.mark.parametrize("backend", BACKENDS)
def test_power_of_a_batched_exponent_is_numpys_call_on_numbers(tmp_path, backend):
    """NumPy's power loop takes shortcuts (1.0 / x for -1.0, x * x for 2.0, sqrt for 0.5, 1.0
    for 0.0, x for 1.0) only where the exponent's step is 0, as in the scalar function's call on
    numbers, not for an array of exponents: both backends give each lane the call's bits."""
    f = make(tmp_path, "np.power(x, y)", 2)
    x = np.abs(F[0][:20_000]) + 0.5
    y = np.array([-1.0, 2.0, 0.5, 0.0, 1.0, 1.7, 3.0])[np.arange(x.size) % 7]
    x[:8] = [0.9999999999999999, 0.0, -0.0, np.nan, np.inf, -2.0, 1e300, 5e-324]
    if backend == "numba":
        pytest.importorskip("numba")
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, x, y)
    assert vf.backend == backend
