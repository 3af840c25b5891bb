"""`vectorizer.vectorize` as a drop-in for `numpy.vectorize` on every callable (issue 31).

1. NumPy's own `TestVectorize`, copied at test time from the INSTALLED wheel (not vendored), runs
   in a subprocess three ways: as shipped, with `vectorizer.vectorize` in place of the module's
   `vectorize` name, and with it in place of `numpy.vectorize` too. Every test that passes with
   NumPy passes with vectorizer, except, in the third way, the tests of the deliberate differences
   documented in vectorizer/faces/npcompat.py (DELIBERATE below, each with its reason).
2. Each kind of callable numpy.vectorize takes (builtins, bound methods, partials, ndarray methods,
   *args/**kwargs functions, object and None inputs), compared with numpy.vectorize on hostile
   values: the same values, dtypes and exceptions, one FallbackWarning, and a VectorizeError only
   with fallback="error".
"""

from __future__ import annotations

import functools
import math
import operator
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import floats

import vectorizer
from vectorizer import FallbackWarning, VectorizeError, VectorizeInputError
from vectorizer.backends.numba import jit

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)

# Tests of numpy.vectorize that name `np.vectorize` itself and pin what npcompat's docstring lists
# as deliberate differences (they can only fail in the run that replaces numpy.vectorize too).
DELIBERATE = {
    "test_dtype_promotion_gh_29189": "the result dtype comes from the function's code (int16 + int16 is a "
                                     "Python int, so int64), not from the input dtype",
    "test_size_zero_output": "an empty input without otypes gives an empty result instead of numpy's "
                             "ValueError asking for otypes",
    "test_subclasses": "results are plain ndarrays: an ndarray subclass of the input is not kept",
}

CONFTEST = '''
import os

import numpy
import pytest


@pytest.fixture(autouse=True)
def _vectorizer_in_numpys_place(request, monkeypatch):
    mode = os.environ["VZ_DROPIN_MODE"]
    if mode != "numpy":
        import vectorizer
        import vectorizer.faces.npcompat  # noqa: F401 - it holds numpy's own class first

        monkeypatch.setattr(request.module, "vectorize", vectorizer.vectorize)
        if mode == "everywhere":
            monkeypatch.setattr(numpy, "vectorize", vectorizer.vectorize)
'''


def numpy_test_file() -> Path | None:
    path = Path(np.__file__).parent / "lib" / "tests" / "test_function_base.py"
    return path if path.is_file() else None


def run_test_vectorize(tmp_path: Path, mode: str) -> dict[str, str]:
    """{test name: PASSED/FAILED/...} of TestVectorize in a copy of the installed wheel's file."""
    env = {**os.environ, "VZ_DROPIN_MODE": mode, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-c", os.devnull,
                           "--rootdir", str(tmp_path), "-k", "TestVectorize", "test_function_base.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    outcomes = dict((m.group(2), m.group(1)) for m in re.finditer(
        r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) test_function_base\.py::TestVectorize::(\w+)", proc.stdout, re.M))
    assert outcomes, f"no TestVectorize outcome ({mode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return outcomes


def test_numpys_own_test_vectorize_passes_with_vectorizer_patched_in(tmp_path: Path) -> None:
    source = numpy_test_file()
    if source is None:
        pytest.skip(f"the installed NumPy wheel ({np.__version__}) ships no numpy/lib/tests/test_function_base.py")
    (tmp_path / "test_function_base.py").write_text(source.read_text())
    (tmp_path / "conftest.py").write_text(CONFTEST)
    baseline = run_test_vectorize(tmp_path, "numpy")
    passing = {name for name, outcome in baseline.items() if outcome == "PASSED"}
    assert len(passing) >= 40, baseline  # the suite ran, not a collection accident
    named = run_test_vectorize(tmp_path, "name")
    assert set(named) == set(baseline)
    lost = sorted(n for n in passing if named[n] != "PASSED")
    assert not lost, f"pass with numpy.vectorize, fail with vectorizer.vectorize: {lost}"
    everywhere = run_test_vectorize(tmp_path, "everywhere")
    lost = sorted(n for n in passing if everywhere[n] != "PASSED")
    assert set(lost) <= set(DELIBERATE), f"fail with vectorizer in numpy.vectorize's place: {lost}"


# --------------------------------------------------------------------------------------------
# Each kind of callable, against numpy.vectorize


def outcome(make: Any, args: tuple, kwargs: dict) -> tuple[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "ok", make()(*args, **kwargs)
        except Exception as exc:  # compared between the two implementations
            return "raised", exc


def same_as_numpy(pyfunc: Any, *args: Any, options: dict | None = None, **kwargs: Any) -> Any:
    options = options or {}
    kind, want = outcome(lambda: np.vectorize(pyfunc, **options), args, kwargs)
    got_kind, got = outcome(lambda: vectorizer.vectorize(pyfunc, **options), args, kwargs)
    assert got_kind == kind, (got, want)
    if kind == "raised":
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return got
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        if w.dtype.kind == "O":
            assert all(a is b or a == b for a, b in zip(g.ravel(), w.ravel()))
        else:
            np.testing.assert_array_equal(g, w)
            if w.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
    return got


class Scaler:
    power = 2

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def apply(self, a):
        return a ** self.power + self.offset

    def __call__(self, a, b=1.0):
        return a * b - self.offset


def spread(*values):
    return sum(values) if values else 0.0


def by_name(x, **named):
    return x + sum(named[k] for k in sorted(named))


HOSTILE = np.array([0.0, -0.0, 1.5, -2.25, 1e308, -1e308, 5e-324, np.inf, -np.inf, np.nan])


@SETTINGS
@given(xs=st.lists(floats(), min_size=1, max_size=6), y=floats())
def test_callables_agree_with_numpy_vectorize_on_hostile_floats(xs, y) -> None:
    x = np.array(xs)
    for pyfunc in (math.atan, abs, Scaler(0.5).apply, Scaler(-0.0), functools.partial(operator.mul, y), np.float64):
        same_as_numpy(pyfunc, x)
    same_as_numpy(Scaler(1.0), x, y)
    same_as_numpy(Scaler(1.0), x, b=y)
    same_as_numpy(math.atan2, x, y, options={"otypes": [float]})
    same_as_numpy(spread, x, y, x[::-1])
    same_as_numpy(by_name, x, u=y, v=x[::-1])


def test_builtins_raise_what_numpy_vectorize_raises() -> None:
    """math.sqrt(-1.0) and math.log(0.0) raise on their first failing element, as numpy.vectorize."""
    err = same_as_numpy(math.sqrt, np.array([4.0, -1.0, -4.0]))
    assert isinstance(err, ValueError)
    same_as_numpy(math.log, HOSTILE)
    same_as_numpy(math.cos, HOSTILE)  # cos(inf) raises ValueError, as element 7 does in both
    same_as_numpy(int, HOSTILE[:7])  # int(1e308) is a Python int past int64: an object array
    same_as_numpy(int, HOSTILE)  # int(inf): OverflowError


def test_ndarray_methods_and_numpy_functions_with_signature() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(2, 1, 3))
    same_as_numpy(np.ndarray.sum, a, options={"signature": "(n)->()"})
    same_as_numpy(np.ndarray.cumsum, a, options={"signature": "(n)->(n)"})
    same_as_numpy(np.outer, a[0], b[0, 0], options={"signature": "(a),(b)->(a,b)"})
    same_as_numpy(np.dot, a, b, options={"signature": "(n),(n)->()"})
    same_as_numpy(operator.add, a, b, options={"signature": "(n),(n)->(n)"})
    same_as_numpy(operator.add, a[:, :2], b, options={"signature": "(n),(n)->(n)"})  # inconsistent n
    same_as_numpy(operator.add, a, options={"signature": "(n),(n)->(n)"})  # wrong number of arguments


def test_object_and_none_inputs() -> None:
    y = np.arange(3)
    same_as_numpy(lambda v: y, None, options={"otypes": [object]})
    same_as_numpy(lambda v: y, [None], options={"otypes": [object]})
    same_as_numpy(lambda v: v is None, np.array([None, 1, "a"], dtype=object))
    same_as_numpy(lambda v: len(v), np.array(["ab", "c", ""]))
    same_as_numpy(Scaler.apply, Scaler(3.0), np.arange(4))  # the method's function, self passed in
    same_as_numpy(Scaler.apply, np.array([Scaler(1.0), Scaler(-2.5)]), 2)


def test_the_engine_still_compiles_what_it_can() -> None:
    """A plain function of numbers keeps the generated code (no warning), options or not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        for vf in (vectorizer.vectorize(lambda_free_affine), vectorizer.vectorize(lambda_free_affine, otypes=[float])):
            np.testing.assert_array_equal(vf(HOSTILE), [lambda_free_affine(v) for v in HOSTILE.tolist()])
            assert vf.backend == ("numba" if jit.available() else "numpy")  # the default route: compiled


def lambda_free_affine(x):
    return 2.0 * x + 1.0


def test_one_fallback_warning_then_silence() -> None:
    for vf, args in ((vectorizer.vectorize(math.cos), (HOSTILE[:4],)), (vectorizer.vectorize(spread), (1.0, 2.0)),
                     (vectorizer.vectorize(lambda_free_affine), (np.array([True, None], dtype=object),))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                try:
                    vf(*args)
                except TypeError as exc:  # 2.0 * None, as numpy.vectorize raises it
                    assert "NoneType" in str(exc)
        fallbacks = [w for w in caught if issubclass(w.category, FallbackWarning)]
        assert len(fallbacks) == 1, [str(w.message) for w in caught]
        assert fallbacks[0].filename == __file__


def test_fallback_error_refuses_what_the_engine_cannot_compile() -> None:
    with pytest.raises(VectorizeError, match="needs a Python function"):
        vectorizer.vectorize(math.cos, fallback="error")
    with pytest.raises(VectorizeError, match="needs a Python function"):  # a method written in C
        vectorizer.vectorize(random.Random(7).random, fallback="error")
    with pytest.raises(VectorizeError, match="binds a Random"):  # random.Random keeps its state in C
        vectorizer.vectorize(random.Random(7).randrange, fallback="error")
    with pytest.raises(VectorizeInputError, match="argument 'x'"):
        vectorizer.vectorize(lambda_free_affine, fallback="error")(np.array(["a"]))
    with pytest.raises(VectorizeInputError, match="argument 'x'"):
        vectorizer.vectorize(lambda_free_affine, otypes="d", fallback="error")(None)


def test_what_is_not_callable_is_numpys_type_error() -> None:
    for bad in (3, "string", 2.5j):
        with pytest.raises(TypeError) as ours:
            vectorizer.vectorize(bad)
        with pytest.raises(TypeError) as theirs:
            np.vectorize(bad)
        assert str(ours.value) == str(theirs.value)


def test_attributes_of_a_foreign_callable() -> None:
    vf = vectorizer.vectorize(random.randrange)
    assert vf.pyfunc is random.randrange and vf.__name__ == "randrange" and vf.scalar is random.randrange
    assert vectorizer.vectorize(math.cos, doc="cosine").__doc__ == "cosine"
    assert vectorizer.vectorize(math.cos).__doc__ == math.cos.__doc__
    vf = vectorizer.vectorize(abs)
    vf.otypes = "i"  # set after construction, as numpy.vectorize allows
    with pytest.warns(FallbackWarning):
        got = vf(np.array([-1.5, 2.5]))
    assert got.dtype == np.dtype("i") and got.tolist() == [1, 2]
    with pytest.raises(VectorizeError, match="no generated code"):
        vf.source  # noqa: B018
    draws = vectorizer.vectorize(random.Random(7).randrange)
    with pytest.warns(FallbackWarning):
        got = draws(np.array([5, 10, 1000]))
    want = np.vectorize(random.Random(7).randrange)(np.array([5, 10, 1000]))  # the same calls in the same order
    assert got.tolist() == want.tolist() and got.dtype == want.dtype
