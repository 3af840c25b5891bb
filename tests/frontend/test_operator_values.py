"""Functions held as values and callees' static defaults (issue 51): a function of the operator
module stored on a callable object or given as an argument is called as its operator
(frontend/operator_functions.py); a callee's `**kwargs` that receives nothing is an empty dict,
its tests decided (`f if kwargs else g`); a tuple of numbers given to a callable object, or left
at a callee's default, is decided in the callee's copy; a tuple display given to a callable
object passes the lenient fence. Both backends, against the scalar function lane by lane, values
and exceptions, hostile inputs."""

from __future__ import annotations

import functools
import math
import operator

import numpy as _np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


class Elementwise:
    """coloraide's idiom: a callable object applying a stored binary function."""

    def __init__(self, fn):
        self.func = fn

    def __call__(self, a, b, dims=(-1, -1), **kwargs):
        func = (lambda a, b, kw=kwargs: self.func(a, b, **kw)) if kwargs else self.func
        if dims[0] > 2 or dims[1] > 2:
            raise ValueError("too many dimensions")
        if dims[0] <= 0:
            return func(a, b)
        return func(a, b) + 1.0


class Unary:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, a):
        return self.fn(a)


multiply = Elementwise(operator.mul)
divide = Elementwise(operator.truediv)
power = Elementwise(operator.pow)
less = Elementwise(operator.lt)
negate = Unary(operator.neg)
truth = Unary(operator.truth)
absolute = Unary(operator.abs)
inverted = Unary(operator.invert)


def uses_defaults(a, b):
    return multiply(a, b) - divide(a, b)  # dims left at its default (-1, -1)


def uses_dims(a, b, dims=(-1, -1)):
    da = dims[0] if dims[0] >= 0 else 0
    db = dims[1] if dims[1] >= 0 else 0
    return divide(a, b, dims=(da, db)) + power(a, 2.0, dims=(0, 0))


def uses_comparison(a, b):
    return 1.0 if less(a, b) else 2.0


def uses_unary(a):
    return negate(a) + absolute(a) + (1.0 if truth(a) else 0.0)


def uses_invert(n):
    return inverted(n)


def apply(fn, a, b):
    return fn(a, b)


def passed_operator(a, b):
    return apply(operator.sub, a, b) * apply(operator.add, b, a)


def tuple_default(a, dims=(2, 3)):
    return a * dims[0] + dims[1]


def uses_tuple_default(a):
    return tuple_default(a) + tuple_default(a, (4, 5))


FLOATS = _np.array([1.0, 2.5, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, -1e308, 3.0, -2.0])
INTS = _np.array([0, 1, -1, 7, 2**62, -2**63, 2**63 - 1, 3, -5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callable_object_holding_an_operator_is_that_operator(backend):
    for f in (uses_defaults, uses_comparison):
        vf = vectorize(f, backend=backend, fallback="error")
        check(vf, f, FLOATS, FLOATS[::-1].copy())
        check(vf, f, _np.array([3, -4, 7, 0]), _np.array([5, 6, -7, 2]))
    with pytest.raises(ZeroDivisionError):  # the loop's exception at its first lane: b == 0
        vectorize(uses_defaults, backend=backend)(FLOATS, _np.zeros(3)[:, None])


@pytest.mark.parametrize("backend", BACKENDS)
def test_tuples_given_to_a_callable_object_are_decided_in_its_copy(backend):
    vf = vectorize(uses_dims, backend=backend, fallback="error")
    check(vf, uses_dims, FLOATS, FLOATS[::-1].copy())
    vz = vectorize(functools.partial(uses_dims, dims=(0, 0)), backend=backend, fallback="error")
    check(vz, functools.partial(uses_dims, dims=(0, 0)), FLOATS, 2.0)
    with pytest.raises(ValueError, match="too many dimensions"):
        vf(FLOATS, 1.0, dims=(3, 0))
    with pytest.raises(ValueError, match="too many dimensions"):
        uses_dims(1.0, 1.0, dims=(3, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_unary_operators_and_truth(backend):
    vf = vectorize(uses_unary, backend=backend, fallback="error")
    check(vf, uses_unary, FLOATS)
    check(vf, uses_unary, INTS[:5])  # abs(-2**63) overflows int64: refused as the loop's value is no int64
    vi = vectorize(uses_invert, backend=backend, fallback="error")
    check(vi, uses_invert, INTS)
    with pytest.raises(TypeError):  # ~ of a float: Python's TypeError, as the loop raises it
        vectorize(uses_invert, backend=backend)(FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_operator_given_as_an_argument(backend):
    vf = vectorize(passed_operator, backend=backend, fallback="error")
    check(vf, passed_operator, FLOATS, FLOATS[::-1].copy())
    check(vf, passed_operator, INTS, _np.int64(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tuple_default_left_by_the_call(backend):
    vf = vectorize(uses_tuple_default, backend=backend, fallback="error")
    check(vf, uses_tuple_default, FLOATS)
    check(vf, uses_tuple_default, INTS[:4])


def test_a_keyword_the_callee_collects_is_still_refused():
    def extra_keyword(a, b):
        return multiply(a, b, scale=2.0)  # lands in **kwargs: the lambda branch, not decided

    with pytest.raises(VectorizeError):
        vectorize(extra_keyword, fallback="error")(FLOATS, 2.0)


def direct(a, b):
    return operator.add(a, b) * operator.neg(b) - operator.__mul__(a, a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_operator_functions_called_directly(backend):
    vf = vectorize(direct, backend=backend, fallback="error")
    check(vf, direct, FLOATS, FLOATS[::-1].copy())
    check(vf, direct, INTS[:5], _np.int64(-3))
