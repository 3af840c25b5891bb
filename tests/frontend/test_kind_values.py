"""Array-or-number code decided by the lanes' kinds (frontend/kind_values.py, lane_stand_ins.py,
the numbers-only preparation in frontend/prepare.py; issue 51): a helper whose value depends on
its argument's kind alone is evaluated when the code is generated, with a stand-in for the lane;
what that decides goes, with the code for sequences it makes dead (generators, lists, slices...,
never refused then); a helper that reads the value is left to the vectorized code. Both backends,
against the scalar function lane by lane, values and exceptions, hostile inputs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Sequence as TypingSequence  # noqa: UP035 - the typing alias is what is tested

import numpy as _np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def shape(a):
    if not isinstance(a, Sequence):
        return ()
    size = len(a)
    if not size:
        return (size,)
    first = shape(a[0])
    for r in range(1, size):
        if shape(a[r]) != first:
            raise ValueError("ragged")
    return (size,) + first


def items(a):
    yield from a


def product(a):
    s = shape(a)
    n = len(s)
    if n == 0:
        return math.prod([a])
    return math.prod(items(a) if n > 1 else a)


def flipped(a, axis=None):
    s = shape(a)
    if not s:
        return a * 2.0 - 1.0
    out = list(reversed(a))
    return out


def reversed_shape(a, b):
    s = shape(a)
    si = s[::-1]
    if len(si) == 0 and not shape(b):
        return a * b
    return [list(r) for r in zip(*a)]


def alias_shape(a):
    if isinstance(a, TypingSequence):
        return (len(a),)
    return ()


def uses_alias(a):
    if alias_shape(a):
        return a[0]
    return -a


def reads_value(a):
    if a > 0.0:
        return ()
    return (1,)


def uses_reads_value(a):
    s = reads_value(a)
    return len(s) + a


def is_int(a):
    if isinstance(a, int):
        return 1
    return 2


def uses_is_int(a):
    k = is_int(a)
    return a * k


def same(a, b):
    return a is b


def uses_same(a, b):
    return 1.0 if same(a, b) else 2.0


def needs_sequence(a):
    if not isinstance(a, Sequence):
        raise TypeError("a sequence is needed")
    return ()


def uses_needs_sequence(a):
    s = needs_sequence(a)
    return len(s)


def products(a, b, c):
    return math.prod([a, b]) + math.prod((a, b, c), start=c) + math.prod(())


FLOATS = _np.array([1.0, 2.5, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, -1e308, 3.0, -2.0])
INTS = _np.array([0, 1, -1, 7, 2**62, -2**63, 2**63 - 1, 3, -5])
BOOLS = _np.array([True, False, True])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_decided_by_kind_drops_the_dead_sequence_code(backend):
    for f in (product, flipped):
        vf = vectorize(f, backend=backend, fallback="error")  # not refused at decoration: decided for numbers
        check(vf, f, FLOATS)
        check(vf, f, INTS)
        check(vf, f, BOOLS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_held_tuples_are_sliced_and_measured(backend):
    vf = vectorize(reversed_shape, backend=backend, fallback="error")
    check(vf, reversed_shape, FLOATS, FLOATS[::-1].copy())
    check(vf, reversed_shape, INTS, _np.int64(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_typing_aliases_are_the_abc(backend):
    vf = vectorize(uses_alias, backend=backend, fallback="error")
    check(vf, uses_alias, FLOATS)
    check(vf, uses_alias, INTS)  # -(-2**63) overflows int64: refused as the loop's value is no int64


@pytest.mark.parametrize("backend", BACKENDS)
def test_helpers_that_read_the_value_stay_with_the_lanes(backend):
    for f in (uses_reads_value, uses_is_int):
        vf = vectorize(f, backend=backend)
        check(vf, f, FLOATS)
        check(vf, f, INTS[:4])
        check(vf, f, BOOLS)  # isinstance(True, int) is True: decided per kind at the call, not before


@pytest.mark.parametrize("backend", BACKENDS)
def test_identity_of_lanes_is_never_decided(backend):
    vf = vectorize(uses_same, backend=backend)
    small = _np.array([1, 5, 300, 7])  # CPython's small ints are one object: `a is b` differs per lane
    check(vf, uses_same, small, _np.array([1, 6, 300, 7]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_that_raises_for_every_number_raises_on_the_first_lane(backend):
    vf = vectorize(uses_needs_sequence, backend=backend)
    with pytest.raises(TypeError, match="a sequence is needed"):
        vf(FLOATS)
    with pytest.raises(TypeError, match="a sequence is needed"):
        uses_needs_sequence(1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_prod_of_a_display_multiplies_from_its_start(backend):
    vf = vectorize(products, backend=backend, fallback="error")
    check(vf, products, FLOATS, FLOATS[::-1].copy(), _np.roll(FLOATS, 3))
    check(vf, products, _np.array([3, -4, 2**31, 7]), _np.array([5, 6, 2**31, -2]), _np.array([1, 2, 3, 4]))
    check(vf, products, BOOLS, BOOLS[::-1].copy(), BOOLS)


def test_numbers_only_code_refuses_a_call_that_gives_another_value():
    vf = vectorize(flipped, fallback="error")
    assert vf(_np.array([1.0, 2.0])).tolist() == [1.0, 3.0]
    assert vf(_np.array([1.0, 2.0]), axis="rows").tolist() == [1.0, 3.0]  # `axis` was not decided on
    with pytest.raises(VectorizeError, match=r"reversed") as info:
        vf("ab")  # a str for the parameter the code was decided for as a number: the first refusal
    assert "out = list(reversed(a))" in str(info.value)


def test_the_refusal_is_the_original_where_deciding_does_not_help():
    def still_refused(a):
        s = shape(a)
        if s:
            return 0.0
        return sum(items(a))  # reached by numbers: refused as before

    with pytest.raises(VectorizeError, match="generator"):
        vectorize(still_refused, fallback="error")


def python_number_check(x):
    if isinstance(x, (int, float)):
        return 1.0
    return 2.0


def numpy_int_argument(n):
    return python_number_check(_np.int64(n))  # a NumPy int is no Python int: isinstance is False


def numpy_float_argument(x):
    return python_number_check(_np.float64(x))  # np.float64 subclasses float: True


def float_sign(x):
    if isinstance(x, int):
        return 1 if x > 0 else -1 if x < 0 else 0
    return 1.0 if x > 0.0 else -1.0 if x < 0 else x


def float_argument(a, b):
    return float_sign(a - b) + float_sign(_np.float64(b))  # a float (Python's or NumPy's) is no int


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callees_kind_check_of_a_numpy_scalar_is_never_decided_as_a_python_numbers(backend):
    vf = vectorize(numpy_int_argument, backend=backend)  # (was 1.0 on every lane: decided for Python ints)
    check(vf, numpy_int_argument, INTS[:4])
    vf = vectorize(numpy_float_argument, backend=backend)
    check(vf, numpy_float_argument, FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callees_isinstance_of_a_float_argument_is_decided(backend):
    vf = vectorize(float_argument, backend=backend, fallback="error")
    check(vf, float_argument, FLOATS, FLOATS[::-1].copy())


def dims_of(a, dims=None):
    d = len(shape(a)) if dims is None else dims
    if d == 0:
        return a * 2.0
    return sum(items(a))  # a generator: refused as written, dead for a number


def uses_dims_of(x, y):
    return dims_of(x - y) + dims_of(y * 0.5)


def uses_dims_of_int(n):
    return dims_of(n * 2)  # an int argument may be a NumPy int: shape() is not decided for it


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callees_refused_code_that_its_arguments_kinds_make_dead_goes(backend):
    vf = vectorize(uses_dims_of, backend=backend, fallback="error")
    check(vf, uses_dims_of, FLOATS, FLOATS[::-1].copy())
    with pytest.raises(VectorizeError, match="generator") as info:  # the refusal of the code as written
        vectorize(uses_dims_of_int, backend=backend, fallback="error")(INTS[:3])
    assert "dims_of" in str(info.value)
