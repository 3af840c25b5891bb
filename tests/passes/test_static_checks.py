"""passes/static_checks.py (with frontend/static_checks.py): `isinstance(p, int)`, `type(p) is
float`, `p is None` on a parameter are decided from the lane kind when the code is generated.
Differential against the scalar function lane by lane (oracle.check: values and exceptions), on
both backends; the folded code; and the refusals where the kind is not known."""

from __future__ import annotations

import numbers

import numpy as np
import pytest
from oracle import check
from passcase import UI, B, F, I, after, body

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

INTS = np.array([0, 1, -1, 7, 2**62, -(2**62), 2**63 - 1, -(2**63), 12345678901], dtype=np.int64)
FLOATS = np.array([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 1e308, 5e-324])
BOOLS = np.array([True, False, True])


def validated(n, x):
    if not isinstance(n, int):
        raise TypeError("n must be an int")
    return n // 3 + x


def kinds(a):
    k = 0
    if isinstance(a, bool):
        k += 1
    if isinstance(a, (int, float)):
        k += 10
    if isinstance(a, (bool, int)):
        k += 100
    if isinstance(a, (int, complex, str)) and not isinstance(a, float):
        k += 1000
    if type(a) is int:
        k += 10000
    if type(a) == float:  # noqa: E721 - the form under test
        k += 100000
    if type(a) is not bool and type(a) != int:  # noqa: E721
        k += 1000000
    return k


def defaults(x, tol=None, scale=None):
    if tol is None:
        tol = 0.5
    if scale is not None:
        x = x * scale
    return x + tol


def float_only(x):
    if isinstance(x, bool) or not isinstance(x, float):
        raise TypeError("x must be a float")
    return x * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_validation_at_the_top_runs_as_the_loop(backend):
    vf = vectorize(validated, fallback="error", backend=backend)
    check(vf, validated, INTS, np.int64(5))  # int lanes: the check is gone, values as the loop
    check(vf, validated, BOOLS, 2.5)  # a bool is an int for isinstance
    check(vf, validated, FLOATS, 1)  # every lane raises TypeError, as the loop's first
    check(vf, validated, np.array([3.0]), INTS)
    check(vf, validated, 7, FLOATS)  # uniform int n


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_form_of_check_matches_python(backend):
    vf = vectorize(kinds, fallback="error", backend=backend)
    for values in (INTS, FLOATS, BOOLS, np.int64(3), 2.5, True):
        check(vf, kinds, values)
    vf = vectorize(float_only, fallback="error", backend=backend)
    for values in (INTS, FLOATS, BOOLS):
        check(vf, float_only, values)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_parameter_is_never_none(backend):
    vf = vectorize(defaults, fallback="error", backend=backend)
    check(vf, defaults, FLOATS, 1.0, INTS)
    check(vf, defaults, INTS, FLOATS, 3)
    check(vf, defaults, BOOLS, BOOLS, BOOLS)


def test_the_check_leaves_no_trace_for_int_lanes():
    assert body(after("canonicalize", validated, n=I, x=F)) == "return n // 3 + x\n"
    assert body(after("canonicalize", defaults, x=F, tol=F, scale=UI)) == (
        "x = x * scale\n"
        "return x + tol\n"
    )
    assert body(after("canonicalize", kinds, a=B)) == (
        "k = 0\n"
        "k = k + 1\n"
        "k = k + 10\n"
        "k = k + 100\n"
        "k = k + 1000\n"
        "return k\n"
    )  # a bool: not `type(a) is int`, and `type(a) is not bool` is False
    assert body(after("canonicalize", kinds, a=F)) == (
        "k = 0\n"
        "k = k + 10\n"
        "k = k + 100000\n"
        "k = k + 1000000\n"
        "return k\n"
    )


def test_a_float_lane_keeps_the_raise_under_a_uniform_test():
    text = body(after("canonicalize", validated, n=F, x=F))
    assert text == (
        "if 0 == 0:\n"
        "    raise TypeError(\"n must be an int\")\n"
        "return n // 3 + x\n"
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_module_has_no_check_for_int_lanes(backend):
    vf = vectorize(validated, fallback="error", backend=backend)
    vf(np.arange(5), np.arange(5))
    source = vf.source
    assert "def " in source and "//" in source  # the kernel is there
    for trace in ("isinstance", "TypeError", "0 == 0", "must be an int"):
        assert trace not in source, (trace, source)


def reassigned(n):
    n = n + 1
    if isinstance(n, int):
        return n
    return 0


def a_local(n):
    m = n * 2
    return m if type(m) is int else 0


def not_a_parameter(n):
    return 1 if isinstance(numbers, int) else n


class Point:
    pass


def unknown_class(n):
    return 1 if isinstance(n, Point) else n


def numbers_abc(n):
    return 1 if isinstance(n, numbers.Real) else n


Kind = numbers.Integral  # rebound by a test below


def classes(a):
    k = 0
    if isinstance(a, np.ndarray):  # never a lane: a lane is a Python number
        raise TypeError("one value at a time")
    if isinstance(a, numbers.Integral):
        k += 1
    if isinstance(a, (Point, np.floating, numbers.Real)):
        k += 10
    if isinstance(a, Kind):
        k += 100
    if isinstance(a, numbers.Complex) and not isinstance(a, numbers.Rational):
        k += 1000
    return k


def lone_type(n):
    return n if type(n) else 0


def _helper(v):
    if not isinstance(v, int):
        raise TypeError("v")
    return v


def calls_a_checking_helper(n):
    return _helper(n) + 1


@pytest.mark.parametrize(("func", "words"), [
    (reassigned, "'n' may be assigned before this point"),
    (a_local, "its subject must be a parameter"),
    (not_a_parameter, "its subject must be a parameter"),
    (lone_type, "type(x) is only supported compared with int, float or bool"),
])
def test_a_check_that_cannot_be_decided_is_refused(func, words):
    with pytest.raises(VectorizeError) as info:
        vectorize(func, fallback="error")(INTS)
    assert words in str(info.value), str(info.value)


def test_a_check_in_a_called_function_is_refused_naming_it():
    with pytest.raises(VectorizeError) as info:
        vectorize(calls_a_checking_helper, fallback="error")(INTS)
    assert "'_helper', a function called by the one vectorized" in str(info.value), str(info.value)


def test_refused_functions_still_run_by_default():
    # fallback='auto' (the default): the refused function runs element by element, as Python.
    with pytest.warns(Warning, match="'n' may be assigned before this point"):
        check(vectorize(reassigned), reassigned, INTS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_any_class_is_decided_from_the_lane_kind(backend):
    # np.ndarray, numbers' ABCs, NumPy scalar types, a class of the module: isinstance of a Python
    # bool/int/float lane against it has one answer per kind, as the loop computes it.
    for func in (classes, unknown_class, numbers_abc):
        vf = vectorize(func, fallback="error", backend=backend)
        for values in (INTS, FLOATS, BOOLS, np.int64(3), 2.5):
            check(vf, func, values)


def test_rebinding_the_class_a_check_reads_makes_new_code(monkeypatch):
    vf = vectorize(classes, fallback="error")
    check(vf, classes, FLOATS)  # Kind is numbers.Integral: no float lane is one
    monkeypatch.setitem(globals(), "Kind", numbers.Real)
    check(vf, classes, FLOATS)  # now every float lane is: the check reads the new binding


def test_a_class_check_is_refused_where_only_the_source_is_read():
    # `vectorizer generate` judges a module from its text: a class it cannot import is refused.
    from vectorizer.faces.cli.standalone import generate_module

    text = "import numbers\n\ndef f(n: float) -> float:\n    return 1.0 if isinstance(n, numbers.Real) else n\n"
    result = generate_module(text, "f.py", names=("f",), complete=False)  # as `vectorizer report` asks
    assert result.batched == [] and "the second argument must be a class" in str(result.per_element["f"])
    # A module for it is not written either: its per-element copy would read `numbers`, which the
    # generated module does not import (it raised NameError when called).
    with pytest.raises(VectorizeError) as refused:
        generate_module(text, "f.py", names=("f",))
    assert "the second argument must be a class" in str(refused.value) and "'numbers'" in str(refused.value)
