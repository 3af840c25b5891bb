"""The short path of a refused function's repeated calls (engine/refusedpath.py) against the loop.

A call like the last refused one (the same dtypes, 1-D arrays of one length, Python floats, the
very objects specialized on) runs the loop at once; any other call takes the general path. Each
call must give what the loop gives (tests/oracle.py: values, dtypes and exceptions), whichever
path it takes: one vectorized function is called again and again with arguments that match its
plan or differ from it in one way (a dtype, a shape, a length, a specialized value, a Python int,
a new binding of a global the function reads), on hostile values.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS, floats, ints

from vectorizer import FallbackWarning, vectorize
from vectorizer.specializations import Specializations

SOURCES = {  # defined by exec: no source to read, so refused, run element by element
    "pair": "def f(x, y, unit=None):\n    return (x * y, 0) if x > y else (0, y - x)\n",
    "mixed": "def f(x, y, unit=None):\n    return 1 if x < y else x * 2.0\n",
    "option": "def f(x, y, unit='m'):\n    return x * 1000.0 if unit == 'km' else x + y\n",
    "raises": "def f(x, y, unit=None):\n    if x < y:\n        raise ValueError(f'{x!r} < {y!r}')\n    return math.sqrt(x - y)\n",
    "scaled": "def f(x, y, unit=None):\n    return x * SCALE + y\n",
}


def sourceless(name: str, namespace: dict | None = None):
    namespace = {"math": math, "SCALE": 2.0} if namespace is None else namespace
    exec(compile(SOURCES[name], f"<no source {name}>", "exec"), namespace)  # noqa: S102 - the test's own text
    return namespace["f"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        yield


@pytest.fixture
def keys(monkeypatch):
    """How many calls took the general path (each computes the specialization key)."""
    count = [0]
    key = Specializations.key

    def counted(self, *args, **kwargs):
        count[0] += 1
        return key(self, *args, **kwargs)

    monkeypatch.setattr(Specializations, "key", counted)
    return count


def element(kind: str) -> st.SearchStrategy:
    return {"float": st.one_of(floats(), st.sampled_from(SPECIAL_FLOATS)),
            "int": st.one_of(ints(), st.sampled_from(SPECIAL_INTS)), "bool": st.booleans()}[kind]


@st.composite
def call(draw, n: int):
    """Arguments (x, y): mostly 1-D arrays of length `n` (the plan's form), sometimes another
    length, a 2-D or 0-d array, a Python float or int; float, int or bool, hostile values."""
    out = []
    for _ in range(2):
        form = draw(st.sampled_from(["row"] * 6 + ["other length", "2-D", "0-d", "float", "int"]))
        kind = draw(st.sampled_from(["float", "float", "int", "bool"]))
        if form == "float":
            out.append(draw(element("float")))
            continue
        if form == "int":
            out.append(draw(st.integers(-(2**63), 2**63 - 1)))
            continue
        shape = {"row": (n,), "other length": (n + 1,), "2-D": (1, n), "0-d": ()}[form]
        values = draw(st.lists(element(kind), min_size=math.prod(shape), max_size=math.prod(shape)))
        out.append(np.array(values, dtype={"float": np.float64, "int": np.int64, "bool": np.bool_}[kind]).reshape(shape))
    return out


@pytest.mark.parametrize("name", ["pair", "mixed", "raises"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_repeated_calls_give_what_the_loop_gives(name, data):
    f = sourceless(name)
    vf = vectorize(f)
    n = data.draw(st.integers(1, 5))
    for _ in range(5):
        args = data.draw(call(n))
        try:
            np.broadcast_shapes(*(np.shape(a) for a in args))
        except ValueError:
            continue  # shapes that do not broadcast: tests/engine/test_loop.py's
        check(vf, f, *args)


def test_a_call_like_the_last_takes_the_short_path(keys):
    f = sourceless("pair")
    vf = vectorize(f)
    x, y = np.array([0.5, -0.0, np.nan, 3.0]), np.array([1.0, 0.0, 2.0, np.inf])
    check(vf, f, x, y)
    assert keys[0] == 1
    for _ in range(3):
        check(vf, f, x[::-1], y)  # same dtypes and length: the plan (a reversed view too)
    check(vf, f, x, 0.25)  # a Python float: a new plan
    check(vf, f, x[:2], 1.5)
    assert keys[0] == 2
    check(vf, f, x.astype(np.float32), y)  # another dtype (converted: never planned): general
    check(vf, f, np.array([1, 2, 3, 4]), y)  # int64: general, then planned
    check(vf, f, np.array([5, -6, 7, 2**62]), y)
    assert keys[0] == 4
    check(vf, f, x.reshape(2, 2), y.reshape(2, 2))  # 2-D: never planned
    check(vf, f, x.reshape(2, 2), y.reshape(2, 2))
    assert keys[0] == 6


def test_a_specialized_value_must_be_the_same_object(keys):
    f = sourceless("option")
    vf = vectorize(f)
    x, y = np.array([1.5, -2.0, np.nan]), np.array([0.5, 0.0, 1.0])
    check(vf, f, x, y)  # unit="m", its default
    check(vf, f, x, y)
    assert keys[0] == 1
    expected = f(1.5, 0.5, "km")
    assert vf(x, y, "km")[0] == expected  # another str: the general path, its own specialization
    assert keys[0] == 2
    km = "".join(["k", "m"])  # equal, not the same object: the general path decides
    assert vf(x, y, km)[0] == expected
    assert keys[0] == 3
    np.testing.assert_array_equal(vf(x, y), [f(a, b) for a, b in zip(x.tolist(), y.tolist())])
    assert keys[0] == 4


def test_a_new_binding_of_a_global_is_read(keys):
    namespace = {"math": math, "SCALE": 2.0}
    f = sourceless("scaled", namespace)
    vf = vectorize(f)
    x, y = np.array([1.0, -0.0, 2.5]), np.array([0.5, 1.0, -1.0])
    check(vf, f, x, y)
    check(vf, f, x, y)
    assert keys[0] == 1
    namespace["SCALE"] = 3.0  # the refusal's generation no longer holds: the general path
    got = vf(x, y)
    np.testing.assert_array_equal(got, x * 3.0 + y)
    assert keys[0] >= 2
    check(vf, f, x, y)


def test_the_first_raising_lane_raises_as_on_the_general_path():
    f = sourceless("raises")
    vf = vectorize(f)
    x, y = np.array([5.0, 4.0, 1.0, 0.0]), np.array([2.0, 2.0, 2.0, 2.0])
    errors = []
    for _ in range(3):  # the general path, then the plan's
        with pytest.raises(ValueError) as info:
            vf(x, y)
        errors.append((str(info.value), info.value.__notes__))
    assert errors[0] == errors[1] == errors[2]
    assert errors[0][0] == "1.0 < 2.0" and "lane (2,) of (4,)" in " ".join(errors[0][1])


def test_one_warning_and_an_empty_batch_after_a_plan():
    f = sourceless("pair")
    vf = vectorize(f)
    x = np.array([0.5, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            vf(x, x[::-1])
    assert [w.category for w in caught] == [FallbackWarning]
    with pytest.raises(ValueError, match="empty batch"):  # no lane to run: the general path says so
        vf(x[:0], x[:0])



def test_new_defaults_of_the_scalar_function_are_not_taken_for_the_old(keys):
    f = sourceless("option")
    vf = vectorize(f)
    x, y = np.array([1.5, -2.0]), np.array([0.5, 0.0])
    np.testing.assert_array_equal(vf(x, y), x + y)  # unit="m", the default when decorated
    np.testing.assert_array_equal(vf(x, y), x + y)
    assert keys[0] == 1
    f.__defaults__ = ("km",)  # the wrapper still passes the defaults it was made with, as before
    np.testing.assert_array_equal(vf(x, y), x + y)
    assert keys[0] == 2
