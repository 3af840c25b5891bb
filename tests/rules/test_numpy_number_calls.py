"""np.around / np.round, np.modf and np.broadcast_arrays of numbers (rules/array_number_calls.py,
passes/ops_to_lanes/numpy_calls.py), on both backends against the scalar function lane by lane:
hostile floats (NaN, ±inf, ±0.0, subnormals, 1e308, values at .5 and at .5 of the scaled
decimal), ints near 2**63; values bit for bit and the first failing lane's exception.

np.around's value is NumPy's (rint of x scaled by NumPy's power of ten, then unscaled), not
Python's round(): 2.675 rounds to 2.67 in both, but 0.285 * 100 is 28.499999999999996 in NumPy's
product, and 1e308 * 100 overflows to inf. The results are NumPy values: float division by zero
gives inf where Python raises, an int64 wraps; a tuple item keeps that (np.modf(x)[1] / 0.0).
"""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.rules.array_number_calls import power_of_ten

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(5151)
AT_HALF = [0.125, -0.125, 0.285, 2.675, -2.675, 1.005, 0.045, 1234.5, -1234.5, 0.05, 15.0, 25.0, -35.0,
           4503599627370495.5, 1e-310, -1e-310, 1e308, -1e308, 1e-5, 9.995, 0.5e-3]
N = 2000


def _floats() -> np.ndarray:
    out = np.concatenate([RNG.normal(0, 50, N), np.round(RNG.normal(0, 50, N), 3) + 0.0005,
                          np.array((SPECIAL_FLOATS + AT_HALF) * 2)])
    RNG.shuffle(out)
    return out


F = [_floats() for _ in range(2)]
_SPECIAL = np.array(SPECIAL_INTS * 2, dtype=np.int64)
INTS = np.concatenate([RNG.integers(-50, 50, len(F[0]) - N // 4 - len(_SPECIAL)),
                       RNG.integers(-(2**63), 2**63, N // 4, dtype=np.int64), _SPECIAL])
RNG.shuffle(INTS)


def make(tmp_path, body: str, params: str = "x, y"):
    path = tmp_path / f"npcalls_{abs(hash((body, params))) % 10**12}.py"
    path.write_text("import math\nimport numpy as np\n\n\ndef f(" + params + "):\n" + textwrap.indent(textwrap.dedent(body), "    "))
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(path.stem).f
    finally:
        sys.path.pop(0)


# (body, argument kinds: "ff" two floats, "fi" a float and an int, "ii" two ints)
CASES = [
    ("return np.around(x, 2)\n", "ff"),
    ("return np.round(x) - np.around(y, 1)\n", "ff"),
    ("return np.around(x, -1) + np.around(y, decimals=3)\n", "ff"),
    ("return np.around(x, 12) + np.around(y, -3)\n", "ff"),
    ("return np.around(x, 25) - np.around(x, 9) + np.round(x, -9)\n", "ff"),  # NumPy's power_of_ten past 1e8
    ("return np.around(x * 1e-300, 305) + np.around(y, 330)\n", "ff"),  # scales near overflow, and inf
    ("return np.around(x, 1) / y\n", "ff"),  # a NumPy float: division by zero is inf, not an error
    ("return int(np.around(x, 3) * 8.0)\n", "ff"),  # int() of NaN / inf raises: the first lane's error
    ("return np.around(y, 1) + np.round(x)\n", "fi"),  # of an int: the int, as a NumPy int
    ("a = np.around(x, 2)\nreturn a * 3 + a // 7\n", "ii"),  # int64 wraps, as NumPy's
    ("x = np.atleast_1d(x)\nr = np.round(x)\nreturn np.around(x, 2).item() + r.size + r.item()\n", "ff"),
    ("frac, whole = np.modf(x)\nreturn frac - whole * 0.5\n", "ff"),
    ("return np.modf(x)[1] / y + np.modf(y)[0]\n", "ff"),  # NumPy floats: x / 0.0 is inf or NaN
    ("frac, whole = np.modf(x)\nreturn math.sqrt(frac) + whole\n", "ff"),  # ValueError on the first x < 0
    ("frac, whole = np.modf(y)\nreturn whole - frac + np.modf(x)[0]\n", "fi"),  # of an int: its float
    ("x = np.atleast_1d(x)\nfrac, whole = np.modf(x + 0.5)\nreturn (whole * 2 + frac).item()\n", "ff"),
    ("a, b = np.broadcast_arrays(x, y)\nreturn a / b - b\n", "ff"),  # 0-d arrays: NumPy's division
    ("a, b = np.broadcast_arrays(x, y)\nreturn a * 2.0 + b // 3\n", "fi"),  # each keeps its dtype
    ("a, b = np.broadcast_arrays(x, 3.0)\nreturn a + b\n", "ff"),  # a uniform item
    ("a, b = np.broadcast_arrays(x, y)\nreturn a * 3 - b\n", "ii"),  # int64 wraps
    ("deg = np.atleast_1d(x)\nminute = np.atleast_1d(y)\ndeg, minute = np.broadcast_arrays(deg, minute)\n"
     "result = abs(deg) + abs(minute) / 60.0\nif deg < 0 or minute < 0:\n    result = -result\nreturn result.item()\n",
     "ff"),  # astronomia.nutation.dms_to_d's form
    ("d, m = np.broadcast_arrays(np.atleast_1d(x), y)\nreturn (d + m).item() + d.size\n", "fi"),
]


def _args(kind: str):
    return [F[i] if k == "f" else INTS for i, k in enumerate(kind)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body, kind", CASES, ids=[c[0].replace("\n", "; ")[:60] for c in CASES])
def test_numpy_number_calls_match_the_scalar_function(body, kind, backend, tmp_path):
    f = make(tmp_path, body)
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *_args(kind))
    assert vf.backend == backend


def test_power_of_ten_is_numpys():
    """The scale np.around multiplies by is NumPy's power_of_ten, which past 1e24 is a product
    (not the correctly rounded 1eNN): rint(x * scale) / scale gives np.around's bits at every d,
    where the correctly rounded scale gives others."""
    xs = RNG.normal(0, 1, 500) * 10.0 ** RNG.integers(-20, 20, 500)
    differs = 0
    for d in range(0, 330, 3):
        scale, exact = power_of_ten(d), float(f"1e{d}")
        with np.errstate(all="ignore"):
            want, mine, other = np.around(xs, d), np.rint(xs * scale) / scale, np.rint(xs * exact) / exact
        assert np.array_equal(want, mine, equal_nan=True), d
        differs += int(not np.array_equal(want, other, equal_nan=True))
    assert differs > 10


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body, params, match", [
    ("return np.around(x, y)\n", "x, y", "decimals that is not an int the same on every lane"),
    ("return np.around(y, -1)\n", "x, y", "an int with decimals < 0"),
    ("return np.around(x > 0)\n", "x, y", "of a bool"),
    ("return np.modf(x > 0)[0]\n", "x, y", "of a bool"),
    ("z = x if x > 0 else y\nreturn np.around(z, 1)\n", "x, y", "an int on some lanes"),
])
def test_what_numpy_computes_otherwise_is_refused(body, params, match, backend, tmp_path):
    f = make(tmp_path, body, params)
    with pytest.raises(VectorizeError, match=match):
        vectorize(f, backend=backend, fallback="error")(F[0], INTS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [0, 1, 2, -1, -3, 8, 9, 12, 25, 40, 305, 330, -330, 100_000])
def test_decimals_known_when_called(d, backend, tmp_path):
    """decimals passed in (electricpy's rtdtemp(RT, round=1)): NumPy's power of ten computed when
    called (the lane helper _vz_around), the same bits as the literal's."""
    f = make(tmp_path, "return np.around(x * 1.5, n) + np.round(x, decimals=n)\n", "x, n")
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, F[0], d)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [2**31, -(2**31) - 5, 2**40])  # not ±(2**31 - 1) nor -2**31: NumPy takes seconds
def test_decimals_beyond_a_c_int(d, backend, tmp_path):
    """NumPy takes decimals as a C int: beyond it OverflowError (and -2**31 is NumPy's own loop):
    those calls are flagged, the scalar function re-runs them and raises."""
    f = make(tmp_path, "return np.around(x, n)\n", "x, n")
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, F[0][:50], d)
