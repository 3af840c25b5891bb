"""Static attributes, static calls and callees specialized on static arguments (issue 30:
frontend/static_objects.py, frontend/static_calls.py, passes/specialize_calls.py), against the
scalar function lane by lane on hostile inputs, values and exceptions, on both backends."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.oracle import check
from tests.passes import static_fixture as fx
from vectorizer import VectorizeError, vectorize
from vectorizer.frontend import pure_eval
from vectorizer.frontend.pure_builtins import Impure
from vectorizer.frontend.static_calls import evaluable
from vectorizer.frontend.static_objects import object_key

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 45.0, -89.9, 90.0, 5e-324, -5e-324, 1e300, -1e300, np.nan, 0.5, 3.0])
FINITE = np.array([0.0, -0.0, 1.0, -1.0, 45.0, -89.9, 90.0, 5e-324, 1e300, 0.5, 3.0, 1e-5])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
ULPS = 8  # cos, sin, hypot: NumPy's SIMD math is within a few ulps of libm (docs/internals.md, the contract: values)


def check_static(vf, f, arrays, statics=(), **kw):
    """tests.oracle.check with `statics` (objects, None, enum members) after the number arguments:
    the oracle indexes arrays, so they are bound on both sides."""
    check(lambda *a: vf(*a, *statics), lambda *a: f(*a, *statics), *arrays, **kw)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ell", [None, fx.Ellipsoid(1.0, 0.5), fx.Ellipsoid.from_name("wgs84")])
def test_object_or_none_passed_on_and_read(backend, ell):
    for f in (fx.radius, fx.scaled, fx.through_keyword, fx.positional_after):
        vf = vectorize(f, backend=backend, fallback="error")
        arrays = (HOSTILE, 2.0) if f is fx.scaled else (HOSTILE,)
        check_static(vf, f, arrays, (ell,), ulps=ULPS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_infinite_input_raises_the_scalar_domain_error(backend):
    lats = np.array([1.0, np.inf, 2.0, -np.inf])  # math.cos(inf): ValueError, first at lane 1
    check(vectorize(fx.radius, backend=backend, fallback="error"), fx.radius, lats, ulps=ULPS)
    check_static(vectorize(fx.radius, backend=backend, fallback="error"), fx.radius, (lats,), (fx.Ellipsoid(2.0, 1.0),),
                 ulps=ULPS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_static_calls_with_static_arguments_and_callee_defaults(backend):
    check(vectorize(fx.default_only, backend=backend, fallback="error"), fx.default_only, FINITE, ulps=ULPS)
    source = vectorize(fx.default_only, fallback="error")
    source(FINITE)
    code = [line for line in source.source.splitlines() if not line.lstrip().startswith("#")]
    assert not any("semimajor_axis" in line or "from_name" in line for line in code), source.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_enum_member_compared_with_a_number_or_a_static_member(backend):
    xs = np.array([-1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 1.5, np.nan, 5e-324])  # 1.5: the scalar's ValueError
    for direction in (1.0, -1.0):
        check(vectorize(fx.rises, backend=backend, fallback="error"), fx.rises, xs, direction, ulps=ULPS)
    for member in fx.Direction:
        check_static(vectorize(fx.rises, backend=backend, fallback="error"), fx.rises, (xs,), (member,), ulps=ULPS)
    ok = xs[np.abs(xs) <= 1.0]
    check(vectorize(fx.rises, backend=backend, fallback="error"), fx.rises, ok, np.array([1.0, -1.0, 0.0])[:, None],
          ulps=ULPS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zero_attribute_divides_as_the_scalar_does(backend):
    sphere = fx.Ellipsoid(1.0, 1.0)  # flattening 0.0: ZeroDivisionError on every lane
    check_static(vectorize(fx.inverse_flattening, backend=backend, fallback="error"), fx.inverse_flattening, (FINITE,),
                 (sphere,))
    check_static(vectorize(fx.inverse_flattening, backend=backend, fallback="error"), fx.inverse_flattening, (HOSTILE,),
                 (fx.Ellipsoid(3.0, 1.0),))


@pytest.mark.parametrize("backend", BACKENDS)
def test_another_object_never_reuses_the_code_of_the_first(backend):
    vf = vectorize(fx.radius, backend=backend, fallback="error")
    first, second = fx.Ellipsoid(1.0, 0.5), fx.Ellipsoid(7.0, 0.5)
    for ell in (first, second, first):
        check_static(vf, fx.radius, (FINITE,), (ell,), ulps=ULPS)
    before = object_key(first)
    first.semimajor_axis = 11.0  # the same object, changed: a new key, new code
    assert object_key(first) != before
    check_static(vf, fx.radius, (FINITE,), (first,), ulps=ULPS)
    check_static(vf, fx.radius, (FINITE,), (second,), ulps=ULPS)
    assert "<Ellipsoid object>" in vf.source and "0x" not in vf.source.splitlines()[1]  # no address in the code


def test_refusals_say_what_and_where():
    cases = [(fx.uses_impure_property, (fx.Ellipsoid(1.0, 0.5),), ("ell.jitter", "random")),
             (fx.uses_list, (fx.Holder(),), ("argument 'holder'", "list")),
             (fx.bad_name, (), ("Ellipsoid.from_name", "raised KeyError", "every path"))]
    for f, extra, words in cases:
        with pytest.raises(VectorizeError) as info:
            vectorize(f, fallback="error")(FINITE, *extra)
        text = str(info.value)
        assert all(w in text for w in words), text
        if f is not fx.uses_list:  # the value's refusal points into the source
            assert "static_fixture.py:" in text and "hint:" in text, text


def test_refused_functions_still_keep_the_contract_by_running_the_scalar_function():
    with pytest.warns(UserWarning):
        with pytest.raises(KeyError) as info:
            vectorize(fx.bad_name)(FINITE)
    assert "nowhere" in str(info.value)
    # A property whose getter is pure is evaluated when the code is generated (issue 51)
    got = vectorize(fx.uses_property, fallback="error")(FINITE, fx.Ellipsoid(1.0, 0.5))
    assert got.tolist() == [fx.uses_property(x, fx.Ellipsoid(1.0, 0.5)) for x in FINITE.tolist()]


def test_what_is_evaluated_when_the_code_is_generated():
    assert evaluable(fx.Ellipsoid.from_name) and evaluable(fx.Ellipsoid) and evaluable(fx.radius)
    for obj in (print, open, random.random, lambda: 1.0, fx.Direction, ValueError, np.sqrt, dict):
        assert not evaluable(obj), obj
    # A method of a static object may be tried (issue 51: frontend/static_methods.py); the
    # interpreter refuses what it does to the object (its __init__ sets attributes of an object
    # it did not make), and the object is left as it was.
    ell = fx.Ellipsoid(1.0, 0.5)
    assert evaluable(ell.__init__)
    with pytest.raises(Impure, match="sets an attribute"):
        pure_eval.evaluate(ell.__init__, (2.0, 1.0), {})
    assert ell.semimajor_axis == 1.0


def test_an_object_made_per_lane_is_refused_saying_so():
    with pytest.raises(VectorizeError) as info:
        vectorize(fx.per_lane_object, fallback="error")
    text = str(info.value)
    assert "'.weekday' of datetime.date(y, m, d)" in text and "differ per lane" in text, text
    assert "static_fixture.py:" in text and "hint:" in text, text


def test_class_attributes_read_as_globals_are_and_a_nested_list_is_refused():
    check(vectorize(fx.class_name_test, fallback="error"), fx.class_name_test, HOSTILE)
    with pytest.raises(VectorizeError) as info:
        vectorize(fx.nested_table, fallback="error")(FINITE)
    text = str(info.value)
    assert "Const.NESTED: a list (not a flat list of numbers)" in text and "static_fixture.py:" in text, text


def test_the_content_key_covers_the_classes_a_static_call_may_run(monkeypatch):
    from vectorizer.engine.fingerprint import content_key
    from vectorizer.frontend.namespace import Namespace

    before = content_key(fx.radius, Namespace.of_function(fx.radius))
    monkeypatch.setitem(fx.Ellipsoid.models, "wgs84", (2.0, 1.0))  # what from_name("wgs84") reads
    assert content_key(fx.radius, Namespace.of_function(fx.radius)) != before
