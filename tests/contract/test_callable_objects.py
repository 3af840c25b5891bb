"""Methods and callable objects as the function, module-level instances and their methods, and
functions made at import (issue 51, section 2; frontend/callables.py, frontend/static_methods.py,
passes/specialize_methods.py, faces/bound.py): every case against the scalar function lane by lane
(tests/oracle.py) on hostile inputs, values and exceptions, on both backends; and what keys and
watches the code (`self`, bound arguments, instances and cells read by content: a change makes new
code, never stale code).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import sys
import textwrap
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from oracle import check

from tests.contract_cases import objects as o
from vectorizer import FallbackWarning, VectorizeError, VectorizeInputError, vectorize
from vectorizer.engine.fingerprint import content_key
from vectorizer.engine.statics import static_key
from vectorizer.frontend.namespace import Namespace

HOSTILE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 45.0, 5e-324, -5e-324, 1e300, -1e300, np.nan, np.inf, -np.inf])
FINITE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 45.0, 5e-324, -5e-324, 1e300, -1e300, 2.5])
INTS = np.array([0, 1, -1, 7, -3, 2**31, 2**62, -(2**62), 2**63 - 1, -(2**63)])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def tol(backend: str) -> dict:
    """NumPy's SIMD exp/erf are within a few ulp of the C library's (docs/internals.md, the contract: values), which a
    difference such as `2 * cdf(x) - 1` magnifies (a relative bound then); the Numba backend calls
    the C library itself: bit for bit."""
    return {"ulps": 8, "rel": 1e-12} if backend == "numpy" else {}


def compiled(f, backend: str):
    """`vectorize(f)` with fallback="error": a test passes on compiled code only."""
    return vectorize(f, backend=backend, fallback="error")


# -- methods and callable objects as the function ------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_bound_methods_classmethods_and_callable_instances(backend):
    shape = o.Shape(1.5)
    cases = [(shape.area, (HOSTILE,)), (o.Shape(-2.0).checked, (HOSTILE,)), (o.Shape(2.0).checked, (np.abs(HOSTILE),)),
             (shape.ratio, (FINITE, np.array([[2.0], [-0.0], [np.nan]]))), (o.Shape.unit_area, (HOSTILE,)),
             (shape.half, (HOSTILE,)), (o.Polynomial(1.0, -2.0, 0.5), (HOSTILE,)), (o.Polynomial(2.5), (FINITE,))]
    for f, args in cases:
        check(compiled(f, backend), f, *args, **tol(backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_partials_bind_numbers_keywords_and_methods(backend):
    cases = [(functools.partial(o.affine, a=2.0, mode="minus"), (HOSTILE,)),
             (functools.partial(o.affine, b=-1.0), (HOSTILE, 3.0)),
             (functools.partial(functools.partial(o.affine, mode="minus"), a=0.5), (HOSTILE,)),
             (functools.partial(o.Shape(2.0).ratio, 2.0), (HOSTILE,)),
             (functools.partial(o.power_int, k=3), (INTS,)),
             (functools.partial(o.power_int, 2), (np.array([0, 1, 7, 3, 62, 63, 64]),))]
    for f, args in cases:
        check(compiled(f, backend), f, *args, **tol(backend))
    f = functools.partial(o.affine, b=2.0)
    vf = compiled(f, backend)
    check(lambda x: vf(x, 3.0, b=-1.0), lambda x: f(x, 3.0, b=-1.0), HOSTILE)  # the call's keyword wins
    with pytest.raises(TypeError):  # as the scalar call raises
        vf(HOSTILE, 1.0, 2.0, 3.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_self_is_keyed_by_its_content(backend):
    """Another object, or the same object changed, never reuses the code made for the first."""
    shape = o.Shape(1.5)
    vf = compiled(shape.area, backend)
    check(vf, shape.area, HOSTILE)
    shape.scale = -4.0
    check(vf, shape.area, HOSTILE)
    poly = o.Polynomial(1.0, 2.0)
    vp = compiled(poly, backend)
    check(vp, poly, HOSTILE)
    poly.coefficients = (3.0, -1.0, 0.25)
    check(vp, poly, HOSTILE)
    assert static_key(o.Shape(1.5)) != static_key(o.Shape(2.0)) and static_key(o.Shape(1.5)) == static_key(o.Shape(1.5))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_method_replaced_on_the_class_is_what_runs(backend, monkeypatch):
    """`obj(x)` looks `__call__` up on the class at every call: the vectorized instance (and a
    partial of it) runs the method the class holds now, never the one it held at vectorize()."""
    poly = o.Polynomial(1.0, 2.0)
    vp, vq = compiled(poly, backend), compiled(functools.partial(poly), backend)
    check(vp, poly, HOSTILE)
    monkeypatch.setattr(o.Polynomial, "__call__", lambda self, x: x - self.coefficients[0])
    check(vp, poly, HOSTILE)
    check(vq, poly, HOSTILE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_equal_values_of_other_kinds_are_other_keys(backend):
    """0.0 == -0.0, 2 == 2.0 == True: a key by `==` would serve the code made for one to the other
    (copysign and // tell them apart); self's attributes, bound arguments and cells are keyed by what
    they are."""
    values = (0.0, -0.0, 2, 2.0, True, -3, 2**62 + 1, 2.0**62)
    shape, signed = o.Shape(1.0), o._make_signed(1.0)
    vs, vc = compiled(shape.signed, backend), compiled(signed, backend)
    for value in values:
        shape.scale = value
        check(vs, shape.signed, FINITE)
        signed.__closure__[0].cell_contents = value  # the same closure, its cell changed
        check(vc, signed, FINITE)
        bound = functools.partial(o.affine, a=value, b=value)  # another partial: the kernel cache's key
        check(compiled(bound, backend), bound, FINITE)


def test_a_method_replaced_on_the_class_changes_the_key(monkeypatch):
    before = static_key(o.Shape(1.5))
    monkeypatch.setattr(o.Shape, "area", lambda self, x: x)
    assert static_key(o.Shape(1.5)) != before
    monkeypatch.setattr(o.Shape, "SIDES", 5)
    assert static_key(o.Shape(1.5)) != before


def test_what_cannot_be_specialized_on_runs_element_by_element_or_is_refused():
    counter = o.Counter()  # its state is a list: no value to key code by
    with pytest.raises(VectorizeError, match="binds a Counter"):
        vectorize(counter.scaled, fallback="error")
    with pytest.warns(FallbackWarning, match="binds a Counter"):
        got = vectorize(counter.scaled)(HOSTILE)
    assert np.array_equal(got, np.array([counter.scaled(x) for x in HOSTILE.tolist()]), equal_nan=True)
    data = np.array([1.0, 2.0])
    with pytest.raises(VectorizeError, match="binds a ndarray"):  # a whole array given to every call
        vectorize(functools.partial(o.affine, data), fallback="error")


def test_a_method_that_changes_self_runs_lane_by_lane():
    """`self.n += 1` (also in a method it calls): refused at its position, or run element by element
    with the loop's values and the loop's final state of the object."""
    for name in ("count", "through_helper"):
        with pytest.raises(VectorizeError, match="assignment to an attribute"):
            vectorize(getattr(o.Tally(), name), fallback="error")(FINITE)
        mine, loops = o.Tally(), o.Tally()
        with pytest.warns(FallbackWarning):
            got = vectorize(getattr(mine, name))(FINITE)
        assert got.tolist() == [getattr(loops, name)(x) for x in FINITE.tolist()] and mine.n == loops.n == FINITE.size


@pytest.mark.parametrize("backend", BACKENDS)
def test_pass_through_decorators_are_read_through(backend):
    for f in (o.wrapped_plain, o.wrapped_twice, o.calls_wrapped):
        check(compiled(f, backend), f, HOSTILE, **tol(backend))


def test_a_pass_through_wrappers_target_rebound_later_is_what_runs(monkeypatch):
    """`by_global` calls the module global `_target`: bound to another function since, the wrapper
    is no longer a pass-through of its `__wrapped__`, so the call runs it element by element (a
    FallbackWarning), or is refused under fallback="error"; never the first target's code."""
    lenient, strict = vectorize(o.by_global), compiled(o.by_global, "numpy")
    caller, strict_caller = vectorize(o.calls_by_global), compiled(o.calls_by_global, "numpy")
    check(strict, o.by_global, HOSTILE)
    check(strict_caller, o.calls_by_global, HOSTILE)
    monkeypatch.setattr(o, "_target", o._other_target)
    with pytest.warns(FallbackWarning, match="pass"):
        got = lenient(HOSTILE)
    assert np.array_equal(got, np.array([o.by_global(x) for x in HOSTILE.tolist()]), equal_nan=True)
    with pytest.raises(VectorizeError, match="decorator"):
        strict(HOSTILE)
    with pytest.warns(FallbackWarning):  # called from vectorized code: that code is made again, and refused
        got = caller(HOSTILE)
    assert np.array_equal(got, np.array([o.calls_by_global(x) for x in HOSTILE.tolist()]), equal_nan=True)
    with pytest.raises(VectorizeError, match="by_global"):
        strict_caller(HOSTILE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_self_of_a_number_subclass_is_not_a_number(backend):
    """`self` a float subclass with its own `__rmul__`: `x * self` is not a float product, so it is
    never passed as a number (which multiplied: 0.0 where the method gives 2.0): refused, or run
    element by element with a FallbackWarning."""
    f = o.Doubling(2.0).scaled
    with pytest.raises(VectorizeError, match="binds a Doubling"):
        compiled(f, backend)
    with pytest.warns(FallbackWarning, match="binds a Doubling"):
        got = vectorize(f, backend=backend)(FINITE)
    assert got.tolist() == [f(x) for x in FINITE.tolist()]


def test_decorators_that_change_arguments_or_results_are_never_skipped():
    """The source inspect shows for a functools.wraps wrapper is the wrapped function's: a wrapper
    that doubles the result or takes abs() of the argument must not be compiled as that source."""
    xs = np.array([-4.0, 1.0, 2.5])
    for f in (o.wrapped_doubled, o.wrapped_abs):
        with pytest.raises(VectorizeError, match="decorator"):
            vectorize(f, fallback="error")
        with pytest.warns(FallbackWarning):
            got = vectorize(f)(xs)
        assert got.tolist() == [f(x) for x in xs.tolist()]
    for f, call in ((o.calls_doubled, "wrapped_doubled(x)"), (o.calls_abs, "wrapped_abs(x)")):
        with pytest.raises(VectorizeError) as info:
            vectorize(f, fallback="error")(xs)
        assert call in info.value.location.source_line
        with pytest.warns(FallbackWarning):
            got = vectorize(f)(xs)
        assert got.tolist() == [f(x) for x in xs.tolist()]


# -- module-level instances and their methods ----------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_module_level_instances_and_their_methods(backend):
    cases = [(o.std_cdf, (HOSTILE,)), (o.std_pdf_and_cdf, (HOSTILE,)), (o.pressure_scale, (HOSTILE,)),
             (o.pressure_scale, (FINITE[FINITE != 0.0],)), (o.env_margin, (HOSTILE, np.array([[1.0], [4.0], [0.0]]))),
             (o.env_margin, (HOSTILE, -1.0)), (o.with_env, (HOSTILE,))]
    for f, args in cases:
        check(compiled(f, backend), f, *args, **tol(backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_environment_passed_as_an_argument(backend):
    vf = compiled(o.with_env, backend)
    for env in (o.Env(0.5), o.Env(3.0, cdf=o._std.cdf), None):
        check(lambda x, env=env: vf(x, env), lambda x, env=env: o.with_env(x, env), HOSTILE, **tol(backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_module_level_instances_mutated_or_rebound_make_new_code(backend, monkeypatch):
    vf, vs = compiled(o.env_margin, backend), compiled(o.std_cdf, backend)
    check(vf, o.env_margin, HOSTILE, 2.0, **tol(backend))
    check(vs, o.std_cdf, HOSTILE, **tol(backend))
    monkeypatch.setattr(o.ENV, "beta", 0.25)  # the same object, changed
    check(vf, o.env_margin, HOSTILE, 2.0, **tol(backend))
    monkeypatch.setattr(o.ENV, "cdf", o._std.cdf)  # a bound method stored on it instead of a function
    check(vf, o.env_margin, HOSTILE, 2.0, **tol(backend))
    monkeypatch.setattr(o, "_std", NormalDist(-1.0, 0.5))  # the name bound to another object
    check(vs, o.std_cdf, HOSTILE, **tol(backend))
    monkeypatch.setattr(o, "_std", NormalDist(2.0, 0.0))  # sigma 0: cdf raises StatisticsError on every lane
    check(vs, o.std_cdf, HOSTILE)


def test_the_content_key_holds_module_level_instances(monkeypatch):
    def key(f):
        return content_key(f, Namespace.of_function(f))

    before = key(o.env_margin)
    monkeypatch.setattr(o.ENV, "beta", 7.0)
    assert key(o.env_margin) != before
    before = key(o.std_cdf)
    monkeypatch.setattr(o, "_std", NormalDist(0.0, 2.0))
    assert key(o.std_cdf) != before


# -- functions made at import --------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_closures_made_by_factories(backend):
    cases = [(o.triple, (HOSTILE,)), (o.shifted, (HOSTILE,)), (o.uses_closures, (HOSTILE,)),
             (o.cube_root, (np.array([-27.0, 8.0, 0.0, -0.0, 1e-300, 999.0, np.nan, 2.0]),)),
             (o.std_inverse, (np.array([0.1, 0.5, 0.975, 0.0, 1.0, np.nan]),)), (o.cube_alias, (HOSTILE,))]
    for f, args in cases:
        check(compiled(f, backend), f, *args, **tol(backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lambda_closure_reads_its_cell(backend):
    """`lambda x: ...` made by a factory reads its cell as a `def` closure does (it was refused)."""
    f = o._make_lambda(-2.0)
    vf = compiled(f, backend)
    check(vf, f, FINITE)
    for value in (0.0, -0.0, 3, 2.5):
        f.__closure__[0].cell_contents = value
        check(vf, f, FINITE)
    check(compiled(o.lambda_closure, backend), o.lambda_closure, HOSTILE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cell_rebound_later_never_serves_stale_code(backend):
    vf = compiled(o.uses_rebound_cell, backend)
    try:
        check(vf, o.uses_rebound_cell, HOSTILE)
        o.set_step(-0.5)  # nonlocal: the cell of `by_step` now holds -0.5
        check(vf, o.uses_rebound_cell, HOSTILE)
        assert vf(np.array([2.0])).tolist() == [0.0]
        o.set_step(3)  # an int now: other code again
        check(vf, o.uses_rebound_cell, HOSTILE)
    finally:
        o.set_step(2.0)


# -- across modules ------------------------------------------------------------------------------

_COUNTER = itertools.count()


def write_package(tmp_path, modules: dict[str, str]) -> str:
    name = f"objects_pkg_{next(_COUNTER)}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    for module, text in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(text))
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    return name


TOOLS = """
import math
from statistics import NormalDist

MODE = "fast"
STD = NormalDist(0.5, 2.0)


class Scale:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k if MODE == "fast" else x / self.k


def make_shift(d):
    def shift(x):
        return x + d * STD.stdev
    return shift


def g(x):
    if MODE == "fast":
        return x * 2.0
    return x * 3.0


SCALE = Scale(4.0)
shift = make_shift(0.25)
"""

USER = """
from .tools import g, SCALE, STD, shift
from . import tools

MODE = "slow"  # not the MODE tools.g and Scale.apply read
STD2 = None


def f(x):
    return g(x) + (1.0 if MODE == "fast" else 0.0)


def h(x):
    return SCALE.apply(x) + STD.cdf(x) + shift(x) + tools.SCALE.k
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_modules_names_mean_what_their_module_binds(tmp_path, backend):
    """A callee of another module reading its module's `MODE` while the vectorized function's
    module binds `MODE` to another string: each reads its own (it once read the caller's)."""
    name = write_package(tmp_path, {"tools": TOOLS, "user": USER})
    user = importlib.import_module(f"{name}.user")
    for f in (user.f, user.h):
        check(compiled(f, backend), f, HOSTILE, **tol(backend))
    tools = importlib.import_module(f"{name}.tools")
    vh = compiled(user.h, backend)
    vh(HOSTILE)
    tools.SCALE.k = -1.5  # an instance of another module, changed
    check(vh, user.h, HOSTILE, **tol(backend))
    tools.MODE = "slow"
    check(compiled(user.f, backend), user.f, HOSTILE)
    check(vh, user.h, HOSTILE, **tol(backend))


def test_refused_inputs_keep_the_element_by_element_contract():
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        vf = vectorize(o.Shape(2.0).area)
        vf(HOSTILE)  # compiled: no warning
    with pytest.raises(VectorizeInputError):
        vectorize(o.with_env, fallback="error")(HOSTILE, o.Counter())
