"""passes/specialize.py with engine/statics.py (issue 30 items 1-4): uniform arguments that are
not numbers (None, str, enum members, bool flags, tuples, omitted None defaults), `round(x, n)`
with a uniform int `n`, and zero-argument helpers specialize the generated code on their value.
Differential against the scalar function lane by lane (oracle.check: values and exceptions) on
both backends with hostile batched inputs; the specializations and their cache keys; refusals."""

from __future__ import annotations

import enum
import functools
import random

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, VectorizeInputError, vectorize
from vectorizer.core import cache
from vectorizer.engine.fingerprint import engine_fingerprint

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 1e308, 5e-324, -1e-300])
INTS = np.array([0, 1, -1, 7, 2**62, -(2**62), 2**63 - 1, -(2**63), 12345678901], dtype=np.int64)


class Mode(enum.Enum):
    LINEAR = 1
    QUADRATIC = 2


def drag(v, rho, method="quadratic", area=None, mode=Mode.LINEAR, halve: bool = False, scale=(1.0, 2.0)):
    """Every kind of specialized value, and a validation branch that raises."""
    if area is None:
        area = 1.0
    if method == "linear" or method is None:
        f = rho * v * area
    elif method in ("quadratic", "square"):
        f = rho * v * v * area
    else:
        raise ValueError("unknown method " + str(method))
    if mode is Mode.QUADRATIC and isinstance(method, str):
        f = f * 2.0
    if halve:
        f = f * 0.5
    if len(scale) == 2:
        f = f + 1.0
    return f


def int_flags(n, k, shift: bool = True, label=None):
    if label is not None and label != "id":
        raise ValueError("label")
    return n // 3 + k if shift else n - k


class Bound:
    """vf with the specialized arguments bound by keyword (the oracle gets the same)."""

    def __init__(self, vf, **kw):
        self.vf, self.kw = vf, kw

    def __call__(self, *args):
        return self.vf(*args, **self.kw)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kw", [{}, {"method": "linear"}, {"method": None}, {"method": "square"},
                                {"area": 2.5}, {"area": None}, {"mode": Mode.QUADRATIC},
                                {"halve": True}, {"scale": (3.0,)}, {"method": "nope"},
                                {"mode": Mode.QUADRATIC, "method": None, "halve": True}])
def test_each_uniform_kind_matches_the_loop(backend, kw):
    vf = vectorize(drag, fallback="error", backend=backend)
    f = functools.partial(drag, **kw)
    check(Bound(vf, **kw), f, FLOATS, FLOATS[::-1].copy())
    check(Bound(vf, **kw), f, FLOATS, 2)  # a uniform int (a number: not specialized on its value)
    check(Bound(vf, **kw), f, INTS[:4], np.array([True, False, True, True]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_flag_and_int_lanes_near_int64_limits(backend):
    vf = vectorize(int_flags, fallback="error", backend=backend)
    for kw in ({}, {"shift": False}, {"label": "id"}, {"label": "other"}):
        check(Bound(vf, **kw), functools.partial(int_flags, **kw), INTS, INTS[::-1].copy())
        check(Bound(vf, **kw), functools.partial(int_flags, **kw), INTS, 5)


def test_two_values_two_specializations_with_their_own_keys():
    vf = vectorize(drag, fallback="error")
    v = np.array([1.0, 2.0, -3.0])
    assert vf(v, 2.0, "linear").tolist() == [drag(x, 2.0, "linear") for x in v.tolist()]
    linear = vf.source
    assert vf(v, 2.0, "quadratic").tolist() == [drag(x, 2.0, "quadratic") for x in v.tolist()]
    quadratic = vf.source
    keys = list(vf._kernels)
    assert len(keys) == 2 and keys[0] != keys[1]
    gen = vf._generations.current()
    entries = {cache.cache_key(gen.content, "numpy", vf.options.key(), repr(k), engine_fingerprint()) for k in keys}
    assert len(entries) == 2  # two cache entries, one per value
    assert "v * v" not in linear and "v * v" in quadratic  # the untaken branch is gone
    assert "linear" not in quadratic and "method" not in quadratic.split("def drag", 1)[1]
    assert vf(v, 2.0, "linear").tolist() == [drag(x, 2.0, "linear") for x in v.tolist()]  # the first, again
    assert len(vf._kernels) == 2


def ndigits_default(c: float, ndigits: int = 2) -> float:
    return round(c * 9 / 5 + 32, ndigits)


@pytest.mark.parametrize("backend", BACKENDS)
def test_round_with_a_uniform_int_ndigits(backend):
    vf = vectorize(ndigits_default, fallback="error", backend=backend)
    temps = np.array([0.0, -0.0, 36.6, -40.0, 1.005, 2.675, 1e20, -1e-310, np.nan, np.inf, -np.inf])
    check(vf, ndigits_default, temps)
    check(vf, ndigits_default, temps, 0)
    check(vf, ndigits_default, temps, 5)
    with pytest.raises(VectorizeError, match="ndigits"):
        vf(temps, np.array([1, 2] * 5 + [3]))  # a batched ndigits is not specialized


UNITS = None


class Units(enum.Enum):
    IP = 1
    SI = 2


IP, SI = Units.IP, Units.SI


def is_ip() -> bool:
    if UNITS == IP:
        return True
    elif UNITS == SI:
        return False
    else:
        raise ValueError("The system of units has not been defined.")


def sat(t):
    if is_ip():
        return (t - 32.0) / 1.8
    return t * 1.0


def dew(t, rh):
    if rh < 0:
        raise ValueError("rh")
    return sat(t) * rh + (1.0 if is_ip() else 0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_argument_helper_is_computed_per_call(backend):
    global UNITS
    vf = vectorize(dew, fallback="error", backend=backend)
    rh = np.array([0.5, 0.0, -0.0, 1.0, np.nan, np.inf, 2.0, 0.25, 1e-300, 3.0])
    try:
        UNITS = SI
        check(vf, dew, FLOATS, rh)
        UNITS = IP  # the module global changes between calls: the helper runs again
        check(vf, dew, FLOATS, rh)
        check(vf, dew, FLOATS, np.array([0.5] * 9 + [-1.0]))  # the loop's ValueError, on its lane
        UNITS = None  # the helper raises: as the loop does, on the first lane that calls it
        check(vf, dew, FLOATS, rh)
    finally:
        UNITS = None


def roll() -> float:
    return random.random()


def noisy(x):
    return x + roll()


def uses_none(x, offset=None):
    return x + offset


def other(x, ell):
    return x


def passes_none(x, ell=None):
    return other(x, ell)


def passes_none_on(x, ell=None):
    return uses_none(x, ell)


def test_refusals_name_the_construct_in_the_users_function():
    with pytest.raises(VectorizeError) as info:
        vectorize(noisy, fallback="error")(np.array([1.0, 2.0]))
    text = str(info.value)
    assert "roll() takes no arguments" in text and "return x + roll()" in text and "test_specialize.py:" in text
    with pytest.raises(VectorizeError) as info:
        vectorize(uses_none, fallback="error")(np.array([1.0]))
    text = str(info.value)
    assert "'offset' is None here" in text and "return x + offset" in text and "hint:" in text
    assert isinstance(info.value, VectorizeInputError)
    assert vectorize(uses_none, fallback="error")(np.array([1.0]), 2.0).tolist() == [3.0]
    # issue 30: a static value passed on specializes the callee (tests/passes/test_static_objects.py)
    assert vectorize(passes_none, fallback="error")(np.array([1.0, -0.0])).tolist() == [passes_none(1.0), passes_none(-0.0)]
    with pytest.raises(VectorizeError) as info:
        vectorize(passes_none_on, fallback="error")(np.array([1.0]))
    text = str(info.value)
    assert "'offset' is None here" in text and "uses_none" in text and "return uses_none(x, ell)" in text


def test_batched_strings_and_objects_are_refused():
    vf = vectorize(drag, fallback="error")
    with pytest.raises(VectorizeInputError, match="argument 'v'"):
        vf(np.array(["a", "b"]), 1.0)
    with pytest.raises(VectorizeInputError, match="argument 'method'"):
        vf(np.array([1.0]), 1.0, np.array(["linear", "quadratic"]))
    with pytest.raises(VectorizeInputError, match="argument 'scale': a list has no deterministic value"):
        vf(np.array([1.0]), 1.0, scale=(1.0, [2.0]))
    with pytest.raises(VectorizeInputError, match="argument 'area'"):
        vf(np.array([1.0]), 1.0, area=object())



DEFAULT_METHOD = "linear"


def by_global(v, rho, method="linear"):
    if method == DEFAULT_METHOD:
        return rho * v
    return rho * v * v


def test_a_rebound_string_global_makes_new_code():
    global DEFAULT_METHOD
    vf = vectorize(by_global, fallback="error")
    v = np.array([1.5, -2.0, np.nan, -0.0])
    try:
        for value in ("linear", "quadratic", "linear"):
            DEFAULT_METHOD = value
            check(vf, by_global, v, 3.0)
    finally:
        DEFAULT_METHOD = "linear"


label = "module-level"  # a global of the same name as a local below: the local is what is read


def shadows(x, method="fast", scale: bool = True):
    label = x * 2.0
    if method and label > 0:
        label = label + 1.0
    if not scale or (method is None and label > 5.0):
        label = 0.0
    return label


def local_is_none(x, scale: bool = True):
    y = x
    if not scale or y is None:
        y = 0.0
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_truthy_option_in_and_and_locals_never_read_as_globals(backend):
    vf = vectorize(shadows, fallback="error", backend=backend)
    for kw in ({}, {"method": ""}, {"method": None}, {"scale": False}):
        check(Bound(vf, **kw), functools.partial(shadows, **kw), FLOATS)


def test_a_refusal_left_after_the_specialization_keeps_its_position():
    with pytest.raises(VectorizeError) as info:  # `y is None` on a local number: still refused
        vectorize(local_is_none, fallback="error")(np.array([1.0]))
    assert "test_specialize.py:" in str(info.value) and "y is None" in str(info.value)


class Label(str):
    """A str subclass as a default (pygeodesy's Str_): keyed by its class and characters."""


DEGREES = Label("deg")


def to_unit(phi: float, unit=DEGREES) -> float:
    if unit == "deg":
        return phi * 57.29577951308232
    return phi


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_str_subclass_default_specializes(backend):
    vf = vectorize(to_unit, backend=backend, fallback="error")
    check(vf, to_unit, FLOATS)
    check(vf, to_unit, FLOATS, Label("rad"))
    assert len({k for k in vf._kernels}) == 2
