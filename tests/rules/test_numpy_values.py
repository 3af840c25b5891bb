"""NumPy values made of numbers in scalar code (issue 51): `np.asanyarray(x)`, `np.asarray`,
`np.array`, `np.float64(x)`, `np.where`, `np.mod`, and `a, b = map(np.asarray, (a, b))`, on both
backends against the scalar function lane by lane with hostile inputs (rules/array_numbers.py).

From such a value on, a lane computes with NumPy's semantics: division by zero gives inf where
Python raises, an int64 wraps. A 0-d array's `**` is NumPy's array power (np.square, np.sqrt,
np.reciprocal for an exponent of 2, 0.5, -1; np.power's kernel elsewhere), a NumPy scalar's the
C library's pow: lane code refuses the first where NumPy's kernel is not the C library's on this
CPU (core/numpy_kernels.py), and backend="auto" runs the NumPy backend."""

from __future__ import annotations

import math
import sys
import textwrap

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize
from vectorizer.backends.numba import ufuncloops
from vectorizer.core.numpy_kernels import differs_from_libm

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(51)
HOSTILE = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, math.inf, -math.inf, math.nan, 5e-324, -1e-310, 1e308, -1e308,
           710.0, 2.0**53 + 2]
N = 3000
F = [np.concatenate([RNG.normal(0, 3, N), np.array(HOSTILE * 3)]) for _ in range(3)]
for f_ in F:
    RNG.shuffle(f_)
INTS = [np.concatenate([RNG.integers(-50, 50, N // 2), RNG.integers(-(2**63), 2**63, N // 2, dtype=np.int64),
                        np.array([0, 1, -1, 2, 2**53 + 1, -(2**63), 2**63 - 1] * 3)]) for _ in range(2)]


def make(tmp_path, body: str, params: str = "x, y", header: str = ""):
    path = tmp_path / f"npval_{abs(hash((body, params, header))) % 10**12}.py"
    path.write_text("import numpy as np\n" + header + "\n\ndef f(" + params + "):\n"
                    + textwrap.indent(textwrap.dedent(body), "    "))
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(path.stem).f
    finally:
        sys.path.pop(0)


# (body, kind of the arguments, whether a 0-d array's `**` has an exponent other than 2, 0.5 and
# -1: np.power's kernel, which lane code refuses where it is not the C library's pow here)
CASES = [
    ("t = np.asanyarray(x)\nreturn t / 1.00024 + t / y\n", "f", False),
    ("s, t = list(map(np.asanyarray, (x, y)))\nreturn s * t ** 0.5 + s ** 2 - 1.0 / t ** -1\n", "f", False),
    ("(a, b) = map(np.asarray, [x, y])\nreturn np.where(a == 0, b, (b - 1) / a)\n", "f", False),
    ("a = np.asarray(x)\nreturn a ** y\n", "f", True),  # y is 2, 0.5 or -1 on some lanes: NumPy's shortcuts
    ("return (1.0 + x) ** np.asarray(y)\n", "f", True),
    ("return np.where(x > y, x, y) ** 2.0 + np.where(x > y, x, y) ** y\n", "f", True),
    ("p = np.float64(x)\nreturn p ** y + y / p\n", "f", False),  # a NumPy scalar's `**`: the C library's pow
    ("return np.float64(x) ** 1.5 - np.array(y) ** 1.5\n", "f", True),
    ("return np.mod(x - y, 360.0) + np.mod(x, y)\n", "f", False),
    ("a = np.asarray(x)\nreturn a * 3 + a // y\n", "i", False),  # int64 wraps, // 0 is 0 (NumPy's)
    ("a = np.asarray(x)\nreturn np.mod(a, y) - np.asarray(y, dtype=float) / 2\n", "i", False),
    ("a = np.float64(x)\nreturn a / y\n", "i", False),
    # map over np.broadcast_arrays (frontend/map_calls.py): np.array of each, a 0-d or one-element array
    ("p, q = list(map(np.array, np.broadcast_arrays(x, y)))\nreturn (p * q - p / q).item()\n", "f", False),
    ("a = np.atleast_1d(x)\np, q = list(map(np.array, np.broadcast_arrays(a, y)))\nm = p > q\np[m] = q[m] * 2.0\n"
     "return (p - q).item() + len(p) + np.isscalar(q)\n", "f", False),
    ("p, q = tuple(map(np.asarray, np.broadcast_arrays(x, 7)))\nreturn (p // 3 + q * y).item()\n", "i", False),
    # dtype=int or bool of a number: NumPy's cast (of a NumPy float: the CPU's value for NaN, inf, out of range)
    ("return (np.array(np.float64(x) * y, dtype=int) + 1).item() + np.asarray(x, dtype=bool).item()\n", "f", False),
    ("k = np.array(np.atleast_1d(x), dtype=np.int64)\nk[np.atleast_1d(y) > 1.0] = 7\n"
     "return (k // 2).item() + np.array(y > x, dtype=int).item() + len(k)\n", "f", False),
    ("return (np.array(x, dtype=np.int64) * 3).item() + np.asarray(y > 0, dtype=int).item() + "
     "np.array(x, dtype=bool).item()\n", "i", False),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body, kind, array_power", CASES, ids=[c[0].splitlines()[0] for c in CASES])
def test_numpy_values_of_numbers_match_the_scalar_function(body, kind, array_power, backend, tmp_path):
    f = make(tmp_path, body)
    args = (F if kind == "f" else INTS)[:2]
    if backend == "numba" and array_power and differs_from_libm("power") and ufuncloops.unavailable("power"):
        with pytest.raises(VectorizeError, match="NumPy's own kernel for it on this CPU"):
            vectorize(f, backend="numba", fallback="error")(*args)
        backend = "auto"  # which runs the NumPy backend: NumPy's values
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *args)  # bit for bit: NumPy's values, which the lanes compute with NumPy's kernels
    assert vf.backend == (backend if backend != "auto" else "numpy")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body, params, match", [
    ("a = np.asarray(n)\nreturn a ** x\n", "n, x", "'\\*\\*' of an int or bool with a 0-d array"),
    ("a = np.asarray(x) if x > 0 else x\nreturn a ** 1.5\n", "x", "0-d array .* on some paths"),
    ("a = x if x > 0 else n\nreturn np.asarray(a)\n", "x, n", "an int on some lanes and a float on others"),
    ("return np.asarray(x, dtype=int)\n", "x", "dtype=int"),  # a Python float: int()'s errors
    ("return np.array(np.atleast_1d(x) * 2.0, dtype='i').item()\n", "x", "dtype"),  # int32
    ("p, q = map(np.array, np.broadcast_arrays(x, x, x))\nreturn p.item()\n", "x", "np.array has no batching rule"),
    ("p, q = map(np.array, np.broadcast_arrays(x, x + 1.0))\nreturn p.item()\n", "x", "np.array has no batching rule"),
])
def test_what_numpy_computes_otherwise_is_refused(body, params, match, backend, tmp_path):
    f = make(tmp_path, body, params)
    args = [np.array([1.0, 2.0]) if p.strip() == "x" else np.array([1, 2]) for p in params.split(",")]
    with pytest.raises(VectorizeError, match=match):
        vectorize(f, backend=backend, fallback="error")(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_that_ignores_or_warns_is_its_body(backend, tmp_path):
    f = make(tmp_path, """
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(x == 0, 1.0, np.asarray(y) / x)
        with np.errstate(all="warn"), np.errstate(over=None):
            r = r * np.float64(y) / x
        return r
    """)
    with np.errstate(all="ignore"):
        check(vectorize(f, backend=backend, fallback="error"), f, F[0], F[1])


@pytest.mark.parametrize("body, match", [
    ("with np.errstate(divide='raise'):\n    r = np.asarray(x) / y\nreturn r\n", "divide='raise'.*FloatingPointError"),
    ("with open('f') as fh:\n    r = x\nreturn r\n", "'with' statements are not supported"),  # the fence's
    ("with np.errstate(all='ignore') as e:\n    r = x\nreturn r\n", "as name"),
])
def test_errstate_that_raises_or_reports_is_refused(body, match, tmp_path):
    f = make(tmp_path, body)
    with pytest.raises(VectorizeError, match=match) as caught:
        vectorize(f, fallback="error")
    assert caught.value.location is not None and caught.value.location.line == 5  # the `with`



@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_imported_by_name_is_its_body(backend, tmp_path):
    f = make(tmp_path, """
        with errstate(divide="ignore"):
            r = np.where(x == 0, 1.0, np.asarray(y) / x)
        return r
    """, header="from numpy import errstate\n")
    with np.errstate(all="ignore"):
        check(vectorize(f, backend=backend, fallback="error"), f, F[0], F[1])


def test_a_parameter_named_errstate_is_not_numpy_s(tmp_path):
    f = make(tmp_path, "with errstate(divide='ignore'):\n    r = x\nreturn r\n", "x, errstate",
             header="from numpy import errstate\n")
    with pytest.raises(VectorizeError, match="'with' statements are not supported"):
        vectorize(f, fallback="error")
