"""Calls whose arguments are not all numbers (None, strings, objects, a function as a default):
a plain `vectorize(f)` runs them on the engine's loop (api.py
`VectorizedFunction._objects_element_by_element`, engine/loop.py), each lane once, on the Python values a loop over
`.tolist()` passes: not through numpy.vectorize, whose first call passes NumPy scalars and runs
lane 0 twice. Compared with that loop (values and exceptions) and with numpy.vectorize's results."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from vectorizer import FallbackWarning, VectorizeValueError, vectorize


def _same(x):
    return x


class _Recorder:
    """A callable whose state (a list) has no value to key code by: the function that takes it
    runs element by element."""

    def __init__(self) -> None:
        self.seen: list = []

    def __call__(self, x):
        return x


RECORDER = _Recorder()


def typed(n, fn=RECORDER):
    if not isinstance(n, int):
        raise TypeError(type(n).__name__)
    return fn(n) * 1.0


def typed_by_function(n, fn=_same):
    if not isinstance(n, int):
        raise TypeError(type(n).__name__)
    return fn(n) * 1.0


def test_an_object_default_gets_python_ints_as_the_loop_passes_them():
    """The corpus run's bug: numpy.vectorize's first call passes np.int64, so `isinstance(n, int)`
    failed on lane 0 where the loop gives [3.0, 4.0]."""
    with pytest.raises(TypeError, match="int64"):
        np.vectorize(typed)(np.array([3, 4]))  # numpy.vectorize's own behaviour, for the record
    with pytest.warns(FallbackWarning, match="argument 'fn'"):
        got = vectorize(typed)(np.array([3, 4]))
    assert got.dtype == np.float64 and got.tolist() == [typed(n) for n in [3, 4]]


def test_a_function_default_is_one_value_for_every_lane_and_compiles():
    """A module function as the default is a static value (issue 51 §2): no fallback at all."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vf = vectorize(typed_by_function, fallback="error")
        got = vf(np.array([3, 4]))
    assert got.dtype == np.float64 and got.tolist() == [typed_by_function(n) for n in [3, 4]]


def scale(x, unit):
    if x is None:
        return -1.0
    return x * 1000.0 if unit == "km" else float(x)


def lanes(*args):
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return list(zip(*[np.broadcast_to(np.asarray(a), shape).ravel().tolist() for a in args]))


@pytest.mark.parametrize("x", [
    np.array([1.5, None, np.nan], dtype=object),
    np.array([[None], [2]], dtype=object),
    [None, -0.0, 3],
])
@pytest.mark.parametrize("unit", ["km", "m", np.array(["km", "m", "km"])])
def test_object_inputs_give_the_loops_values(x, unit):
    shape = np.broadcast_shapes(np.shape(x), np.shape(unit))
    expected = [scale(*lane) for lane in lanes(x, unit)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        got = vectorize(scale)(x, unit)
    assert got.shape == shape and got.dtype == np.float64
    assert [v.hex() for v in got.ravel().tolist()] == [v.hex() for v in expected]  # -0.0 and nan too


def test_each_lane_once_in_c_order_with_python_values():
    seen = []

    def record(x, s):
        seen.append((type(x), type(s)))
        return len(s) + (0 if x is None else x)

    x = np.array([1, None, 3], dtype=object)
    s = np.array(["a", "bc", "def"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        got = vectorize(record)(x, s)
    assert got.dtype == np.int64 and got.tolist() == [2, 2, 6]
    assert seen == [(int, str), (type(None), str), (int, str)]
    seen.clear()
    np.vectorize(record)(x, s)
    assert len(seen) == 4 and seen[0] == (int, np.str_)  # numpy.vectorize: lane 0 twice, NumPy's str first


def test_the_first_raising_lane_raises_with_its_note():
    def parse(text, base):
        return int(text, base)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        with pytest.raises(ValueError) as info:
            vectorize(parse)(np.array([["10", "zz"], ["7", "q"]]), 10)
    assert str(info.value) == "invalid literal for int() with base 10: 'zz'"
    assert "lane (0, 1) of (2, 2)" in " ".join(info.value.__notes__)


def test_objects_returned_are_kept():
    def name(x):
        return None if x is None else f"#{x}"

    x = np.array([None, 1, 22], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        got = vectorize(name)(x)
    assert got.dtype == object and got.tolist() == [None, "#1", "#22"] == np.vectorize(name)(x).tolist()


def test_an_empty_object_call_says_what_it_cannot_know():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        with pytest.raises(VectorizeValueError, match="empty batch"):
            vectorize(typed)(np.array([], dtype=np.int64))  # `fn`, a function: the objects' loop
        with pytest.raises(VectorizeValueError, match="do not broadcast"):
            vectorize(scale)(np.array([None, 1], dtype=object), np.array(["km", "m", "m"]))


def test_a_refused_function_with_a_str_option_runs_the_loop_with_it():
    """A str (or None) argument is specialized on; where the function is refused, the loop runs
    the function with it bound (engine/statics.py `lane_function`), by position and by name."""
    namespace = {}
    exec(compile("def f(x, mode, *, k, scale=None):\n"  # noqa: S102 - the test's own text, no source
                 "    if mode == 'twice':\n        return 2 * x + k\n"
                 "    return x - k if scale is None else x * scale\n", "<no source f>", "exec"), namespace)
    f = namespace["f"]
    x, k = np.array([[0.5, -0.0], [3.0, np.inf]]), np.array([1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        for mode, scale_ in [("twice", None), ("once", None), ("once", 2.5)]:
            got = vectorize(f)(x, mode, k=k, scale=scale_)
            expected = [f(a, mode, k=b, scale=scale_) for a, b in lanes(x, k)]
            assert got.shape == (2, 2) and [v.hex() for v in got.ravel().tolist()] == [float(v).hex() for v in expected]


def test_a_tuple_option_is_passed_whole_as_the_loop_passes_it():
    """A tuple given to a parameter whose default is a tuple is one value for every lane (the
    engine specializes on it): the objects' loop passes it whole, never maps over it."""
    namespace = {}
    exec(compile("def poly(x, coeffs=(1.0, 2.0), mode=None):\n"  # noqa: S102 - the test's own text, no source
                 "    return coeffs[0] + coeffs[1] * x if mode is None else len(mode) * x\n", "<no source poly>",
                 "exec"), namespace)
    poly = namespace["poly"]
    x = np.array([1.0, -0.5, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        assert vectorize(poly)(x).tolist() == [poly(v) for v in x.tolist()]
        assert vectorize(poly)(x, (3.0, 4.0)).tolist() == [poly(v, (3.0, 4.0)) for v in x.tolist()]
        assert vectorize(poly)(x[:2], (3.0, 4.0), "ab").tolist() == [poly(v, (3.0, 4.0), "ab") for v in [1.0, -0.5]]
        halves = np.array([Fraction(1, 2), 2], dtype=object)  # objects: the objects' loop, the tuple whole
        assert vectorize(poly)(halves, (3.0, 4.0)).tolist() == [poly(v, (3.0, 4.0)) for v in halves.tolist()] == [5.0, 11.0]
