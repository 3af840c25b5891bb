"""Calls across modules (issue 30, item 3; frontend/linking.py): functions imported from other
modules, module attributes (`mod.f(x)`, `mod.CONST`), static methods called through their class,
NumPy functions called on numbers, followed transitively; each global resolved in its OWN module.

The packages are written into tmp_path and imported for real; every case is checked against the
scalar function (tests/oracle.py) on hostile inputs, on both backends.
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from oracle import check, numba_or_numpy

from vectorizer import UnsupportedSyntaxError, VectorizeError, vectorize

_COUNTER = itertools.count()

UNITS = '''
import math
from math import sqrt
import numpy as np

SCALE = 2.0
TABLE = (1.0, 2.5, -3.0)


def to_radians(d):
    return d * math.pi / 180.0


def clamp(x, lo=-1.0, hi=1.0):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def scale(x):
    return x + 1.0  # the caller's module has its own `scale`: this one must be called here


def root(x):
    return sqrt(abs(x)) * SCALE + scale(x)


def np_mix(x):
    return np.sqrt(x) + np.arcsin(clamp(x)) + np.pi


class Geo:
    @staticmethod
    def wrap(x):
        y = math.fmod(x, 360.0) if math.isfinite(x) else math.nan
        return Geo.half(y)

    @staticmethod
    def half(y):
        return y / SCALE
'''

CALENDAR = '''
from .units import clamp


def isleap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days(year):
    return 365 + isleap(year)


def bounded(x):
    return clamp(x, -2.0, 2.0) * 3.0
'''

MAIN = '''
import math
import numpy
from numpy import radians, arcsin
from . import units, calendar
from .units import to_radians, clamp, Geo
from .calendar import isleap

SCALE = 10  # not units.SCALE: a callee reads its own module's


def scale(x):
    return x * 100.0


def imported(x):
    return to_radians(x) + clamp(x)


def attributes(x):
    return units.root(x) + units.SCALE + units.TABLE[1] + scale(x)


def static(x):
    return Geo.wrap(x) * SCALE


def numpy_by_name(x):
    return radians(x) + arcsin(clamp(x)) + numpy.pi


def numpy_in_helper(x):
    return units.np_mix(x)


def transitive(x):
    return calendar.bounded(x) + units.clamp(x)


def leap(year):
    return calendar.days(year) + isleap(year + 1)


class Local:
    K = 3

    @staticmethod
    def twice(x):
        return 2.0 * x + Local.K

    @classmethod
    def made(cls, x):
        return x


def same_module_class(x):
    return Local.twice(x) - Local.K


def class_method(x):
    return Local.made(x)
'''

HOSTILE = np.array([-0.0, 0.0, 0.5, -0.75, 2.0, -400.0, 540.0, 1e300, -1e300, 5e-324, -5e-324,
                    2.2250738585072014e-308, np.nan, np.inf, -np.inf, 180.0, -180.0, 1.0, -1.0])
YEARS = np.array([0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, -4, -100, 2**62, -(2**62)])


def write_package(root: Path, files: dict[str, str]) -> str:
    """A package of `files` under `root` with a fresh name; returns the name (root on sys.path)."""
    name = f"xmodpkg_{os.getpid()}_{next(_COUNTER)}"
    (root / name).mkdir()
    (root / name / "__init__.py").write_text("")
    for module, text in files.items():
        (root / name / f"{module}.py").write_text(textwrap.dedent(text))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    return name


@pytest.fixture(scope="module")
def main(tmp_path_factory):
    root = tmp_path_factory.mktemp("xmod")
    name = write_package(root, {"units": UNITS, "calendar": CALENDAR, "main": MAIN})
    yield importlib.import_module(f"{name}.main")
    sys.path.remove(str(root))


CASES = [("imported", 0), ("attributes", 0), ("static", 0), ("numpy_by_name", 5), ("numpy_in_helper", 5),
         ("transitive", 0), ("same_module_class", 0)]


def _check(vf, f, *args, ulps=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the scalar np.sqrt(-1.0) warns
        check(vf, f, *args, ulps=ulps)


@pytest.mark.parametrize("name, ulps", CASES)
def test_numpy_backend_matches_the_scalar_function(main, name, ulps):
    f = getattr(main, name)
    _check(vectorize(f, fallback="error"), f, HOSTILE, ulps=ulps)


@pytest.mark.numba
@pytest.mark.parametrize("name, ulps", CASES)
def test_numba_backend_matches_the_scalar_function(main, name, ulps):
    f = getattr(main, name)
    _check(numba_or_numpy(f, (HOSTILE,), fallback="error"), f, HOSTILE, ulps=ulps)


def test_ints_through_an_imported_bool_helper(main):
    _check(vectorize(main.leap, fallback="error"), main.leap, YEARS)


@pytest.mark.numba
def test_ints_through_an_imported_bool_helper_numba(main):
    _check(vectorize(main.leap, fallback="error", backend="numba"), main.leap, YEARS)


def test_each_helper_reads_its_own_module(main):
    """`scale` and `SCALE` mean different things in main and units: the generated code keeps
    both, under different names, and the values are units' in units' functions."""
    vf = vectorize(main.attributes, fallback="error")
    assert vf(np.array([4.0]))[0] == main.attributes(4.0) == 2.0 * 2.0 + 5.0 + 2.0 + 2.5 + 400.0
    source = vf.source
    assert "units_SCALE = 2.0" in source and "SCALE = 10" not in source


def test_numpy_functions_give_nan_where_math_would_raise(main):
    """np.sqrt(-1.0) is nan with a RuntimeWarning, not a ValueError: no lane is re-run to raise."""
    vf = vectorize(main.numpy_in_helper, fallback="error")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = vf(np.array([-1.0, -4.0]))
        expected = [main.numpy_in_helper(-1.0), main.numpy_in_helper(-4.0)]
    assert np.isnan(got).all() and all(math.isnan(e) for e in expected)


def test_refusal_in_another_module_names_the_call_site(tmp_path):
    name = write_package(tmp_path, {
        "helpers": "def risky(x):\n    try:\n        return x + 1.0\n    finally:\n        x = 0.0\n",
        "user": "from . import helpers\n\n\ndef f(x):\n    y = x * 2.0\n    return helpers.risky(y)\n",
    })
    user = importlib.import_module(f"{name}.user")
    with pytest.raises(VectorizeError) as info:
        vectorize(user.f, fallback="error")(np.array([1.0]))
    err = info.value
    assert isinstance(err, UnsupportedSyntaxError)
    assert err.location.filename.endswith("user.py") and (err.location.line, err.location.column) == (6, 12)
    assert "helpers.risky" in str(err) and "'try'" in err.message
    assert "helpers.py:2:5" in err.message  # and where, in the helper


def test_class_method_is_refused_at_its_call(main):
    # refused at the call (issue 30: a classmethod with arguments the same for every lane runs
    # when the code is generated; this one's differs per lane)
    with pytest.raises(VectorizeError) as info:
        vectorize(main.class_method, fallback="error")(np.array([1.0, 2.0]))
    assert "Local.made()" in info.value.message and "differs per lane" in info.value.message
    assert info.value.location.source_line.strip() == "return Local.made(x)"


def test_top_level_module_attribute_call(tmp_path):
    """`import helpers; helpers.clamp(x)` with `helpers` a top-level module."""
    stem = f"xmodhelpers_{os.getpid()}_{next(_COUNTER)}"
    (tmp_path / f"{stem}.py").write_text("LIMIT = 1.5\n\n\ndef clamp(x):\n    return min(max(x, -LIMIT), LIMIT)\n")
    (tmp_path / f"{stem}_user.py").write_text(f"import {stem} as helpers\n\n\ndef f(x):\n    return helpers.clamp(x) * 2\n")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        user = importlib.import_module(f"{stem}_user")
        _check(vectorize(user.f, fallback="error"), user.f, HOSTILE)
    finally:
        sys.path.remove(str(tmp_path))


WRAPPED = """
import functools

k = 1.0  # the global a closure's `k` is NOT


def make(k):
    def scale(x):
        return x * k
    return scale


scale2 = make(2.0)


def checked(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(abs(x))
    return wrapper


@checked
def positive(x):
    return x + k
"""


def test_closures_read_their_cells_and_wrapped_functions_are_refused_not_misread(tmp_path):
    """`scale2` reads the cell k=2.0, not the global k=1.0 (issue 51: a closure's free variables
    are its cells); `positive` runs its wrapper, which changes the argument: linking it as its
    source would give other values, so it is refused at the call."""
    name = write_package(tmp_path, {"tools": WRAPPED, "user": (
        "from .tools import scale2, positive\n\n\ndef f(x):\n    return scale2(x)\n\n\n"
        "def g(x):\n    return positive(x)\n")})
    user = importlib.import_module(f"{name}.user")
    xs = np.array([-1.0, 0.5, -0.0, np.inf])
    assert vectorize(user.f, fallback="error")(xs).tolist() == [user.f(x) for x in xs.tolist()] == [-2.0, 1.0, -0.0, np.inf]
    with pytest.raises(VectorizeError) as info:
        vectorize(user.g, fallback="error")(np.array([-1.0]))
    assert "positive(x)" in info.value.location.source_line
    with pytest.warns(UserWarning):  # the default fallback: exact, element by element
        assert vectorize(user.g)(np.array([-1.0]))[0] == user.g(-1.0) == 2.0


def test_module_constant_rebound_at_run_time_is_seen(tmp_path):
    """A constant of another module is read when the code is generated, and watched: rebinding
    it generates the code again (as for the function's own module's constants)."""
    name = write_package(tmp_path, {"consts": "K = 2.0\n", "user": "from . import consts\n\n\ndef f(x):\n    return x * consts.K\n"})
    user = importlib.import_module(f"{name}.user")
    consts = importlib.import_module(f"{name}.consts")
    vf = vectorize(user.f, fallback="error")
    assert vf(np.array([3.0]))[0] == 6.0
    consts.K = 5.0
    assert vf(np.array([3.0]))[0] == 15.0 == user.f(3.0)


def test_constant_read_inside_another_modules_callee_is_watched_on_a_cache_hit(tmp_path, monkeypatch):
    """The second vectorized function finds the code in the cache (no lowering, so no linking):
    the names its content key read in the other module are watched all the same."""
    monkeypatch.setenv("VECTORIZER_CACHE_DIR", str(tmp_path / "cache"))
    name = write_package(tmp_path, {"consts": "K = 2.0\n\n\ndef times_k(x):\n    return x * K\n",
                                    "user": "from .consts import times_k\n\n\ndef f(x):\n    return times_k(x) + 1.0\n"})
    user = importlib.import_module(f"{name}.user")
    consts = importlib.import_module(f"{name}.consts")
    assert vectorize(user.f, fallback="error")(np.array([3.0]))[0] == 7.0  # generated and cached
    vf = vectorize(user.f, fallback="error")
    assert vf(np.array([3.0]))[0] == 7.0  # from the cache
    consts.K = 5.0
    assert vf(np.array([3.0]))[0] == 16.0 == user.f(3.0)
    consts.K = 2.0
    assert vf(np.array([3.0]))[0] == 7.0


SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, {root!r})
from vectorizer import vectorize
from {name}.user import f
vf = vectorize(f, fallback="error")
print(vf(np.array([3.0]))[0])
print("+ 1.0" in vf.source, "= 1.0" in vf.source)
"""


def test_editing_the_other_module_changes_the_cached_code(tmp_path):
    """The on-disk cache key covers the other module's function and constants: a new process
    after an edit there does not reuse the code generated before it."""
    root = tmp_path / "src"
    root.mkdir()
    name = write_package(root, {
        "helpers": "OFFSET = 1.0\n\n\ndef shift(x):\n    return x + 1.0\n",
        "user": "from .helpers import shift\nfrom . import helpers\n\n\ndef f(x):\n    return shift(x) * 2.0 + helpers.OFFSET\n",
    })
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd()}

    def run() -> list[str]:
        text = SCRIPT.format(root=str(root), name=name)
        out = subprocess.run([sys.executable, "-c", text], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert run() == ["9.0", "True", "True"]  # (3 + 1) * 2 + 1
    assert run() == ["9.0", "True", "True"]  # from the cache
    helpers = root / name / "helpers.py"
    helpers.write_text("OFFSET = 1.0\n\n\ndef shift(x):\n    return x + 2.0\n")
    assert run() == ["11.0", "False", "True"]
    helpers.write_text("OFFSET = 3.0\n\n\ndef shift(x):\n    return x + 2.0\n")
    assert run() == ["13.0", "False", "False"]


NUMPY_NAMES = ["sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
               "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "deg2rad",
               "rad2deg", "degrees", "radians", "floor", "ceil", "trunc", "rint", "abs", "absolute", "negative",
               "square", "sign", "isnan", "isinf", "isfinite", "signbit"]
NUMBA_NAMES = ["sqrt", "arcsin", "radians", "log1p", "floor", "isnan", "sign", "sin", "exp", "tanh"]
NUMPY_INPUTS = np.concatenate([HOSTILE, [710.0, -745.5, 0.9999999, 3.0]])


@pytest.fixture(scope="module")
def by_name(tmp_path_factory):
    """A module with one function per NumPy function, each imported by name (`from numpy import`)."""
    text = "from numpy import " + ", ".join(NUMPY_NAMES) + "\n"
    text += "".join(f"\n\ndef f_{n}(x):\n    return {n}(x)\n" for n in NUMPY_NAMES)
    root = tmp_path_factory.mktemp("npnames")
    name = write_package(root, {"funcs": text})
    yield importlib.import_module(f"{name}.funcs")
    sys.path.remove(str(root))


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_numpy_function_imported_by_name(by_name, name):
    f = getattr(by_name, f"f_{name}")
    _check(vectorize(f, fallback="error"), f, NUMPY_INPUTS, ulps=5)


@pytest.mark.numba
@pytest.mark.parametrize("name", NUMBA_NAMES)
def test_numpy_function_imported_by_name_numba(by_name, name):
    f = getattr(by_name, f"f_{name}")
    _check(numba_or_numpy(f, (NUMPY_INPUTS,), fallback="error"), f, NUMPY_INPUTS)


@pytest.mark.numba
def test_numpy_tanh_on_numba_is_numpys_or_refused_with_its_reason(by_name):
    """np.tanh: the C library's where NumPy calls it, else NumPy's own loop (ufuncloops.py), else refused."""
    from vectorizer.backends.numba import ufuncloops
    from vectorizer.core.numpy_kernels import differs_from_libm

    if differs_from_libm("tanh") and ufuncloops.unavailable("tanh"):
        with pytest.raises(VectorizeError, match="tanh"):
            vectorize(by_name.f_tanh, fallback="error", backend="numba")(np.array([0.5]))
    else:
        vf = vectorize(by_name.f_tanh, fallback="error", backend="numba")
        _check(vf, by_name.f_tanh, NUMPY_INPUTS)
        assert vf.backend == "numba"
